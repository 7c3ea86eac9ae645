"""The agent interface every search plugs into.

An agent is an object with ``choose(position, deadline) -> column``. ``deadline`` is an absolute
``time.perf_counter()`` value by which the column must be returned; the Kaggle adapter
(:mod:`agents.connectx.kaggle`) computes it from Kaggle's clock with a safety margin, so agents spend up
to the deadline and no further. An agent object lives for one game at a time and may keep state
between moves (a search tree, a transposition table); it notices a new game itself (the ply
goes down) or is told with ``reset()``.

Agents are dataclasses: their fields are their parameters, with defaults and a comment each,
so that ``build_submission.py --list``, tournaments and tuning can read and set them by name
(see :mod:`agents.connectx.registry`). Compose by parameters (``search x heuristic x params``), not by
writing one class per combination.

Optional methods:
- ``reset()``: forget everything about the previous game.
- ``info() -> SearchInfo``: what the last ``choose`` found (:class:`agents.engine.info.SearchInfo`:
  ``value``, ``depth``, ``nodes``, ..., family keys in ``extra``), for the play tool, the web
  app's analysis and tournament logs.
- ``bundle_data() -> object | None`` (instance method): plain data (ints, floats, str, bytes,
  lists, tuples, dicts, numpy arrays; never project objects) that ``build_submission.py`` embeds
  in the submission; ``use_data(data)`` receives the same object back inside the submission.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

from agents.engine.info import info_of
from core.connectx.position import Position


@runtime_checkable
class Agent(Protocol):
    def choose(self, position: Position, deadline: float) -> int:
        """A legal column (0-based) for the side to move, returned before ``deadline``."""
        ...


__all__ = ["Agent", "info_of"]  # info_of: agents.engine.info's, the one reader of an agent's info()
