"""The agent interface ConnectX's own searches plug into.

Every agent of the toolkit chooses from a :class:`core.game.State`: ``choose(state, deadline) ->
action``. ConnectX's own agents (perfect, alphabeta, mcts, ...) search on the fast bitboard
:class:`core.connectx.position.Position`; :class:`PositionAgent` gives them that one protocol:
its ``choose`` builds the Position from the state (two words, no copy of the board) and calls
the agent's :meth:`PositionAgent.choose_position`. Position stays a core object the agents use
inside, never a second protocol: the Kaggle adapter (:mod:`agents.connectx.kaggle`), which
reads Kaggle's board into a Position, calls ``choose_position`` directly.

``deadline`` is an absolute ``time.perf_counter()`` value by which the column must be returned;
the Kaggle adapter computes it from Kaggle's clock with a safety margin, so agents spend up to
the deadline and no further. An agent object lives for one game at a time and may keep state
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
- ``warm_up(shape=None) -> seconds``: compile now what the moves use (the board of the game the
  registry built the agent for, :meth:`PositionAgent.board`, when ``shape`` is not given).
- ``bundle_data() -> object | None`` (instance method): plain data (ints, floats, str, bytes,
  lists, tuples, dicts, numpy arrays; never project objects) that ``build_submission.py`` embeds
  in the submission; ``use_data(data)`` receives the same object back inside the submission.
"""
from __future__ import annotations

from typing import Any, ClassVar

from agents.engine.info import EMPTY, SearchInfo, info_of
from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape
from core.game import State

__all__ = ["PositionAgent", "info_of"]  # info_of: agents.engine.info's, the one reader of an agent's info()


class PositionAgent:
    """Base of ConnectX's own agents: ``choose(state, deadline)`` over the subclass's
    ``choose_position(position, deadline)``."""

    games: ClassVar[tuple[str, ...]] = ("connectx",)
    game: Any = None  # the core.connectx.ConnectX game the registry built the agent for (None: the standard board); not a parameter

    def choose(self, state: State, deadline: float) -> int:
        """A legal column (0-based) for the side to move at ``state``, returned before ``deadline``."""
        return self.choose_position(state.game.position(state), deadline)  # type: ignore[attr-defined]

    def choose_position(self, position: Position, deadline: float) -> int:
        """:meth:`choose` on the Position of the state (the Kaggle adapter's entry)."""
        raise NotImplementedError

    def info(self) -> SearchInfo:
        """What the last move found; an agent that searches says more (this: nothing)."""
        return EMPTY

    def board(self) -> Shape:
        """The board of the game the agent was built for (the standard 6x7, 4 in a row without one)."""
        return self.game.shape if self.game is not None else STANDARD
