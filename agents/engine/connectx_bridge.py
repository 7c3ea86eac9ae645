"""ConnectX's own agents (:mod:`agents.registry`: perfect, negamax, mcts, ...) as engine agents.

They are faster and stronger on ConnectX than the game-generic searches (book, Pons-style
solver, threat pruning), and work on :class:`core.position.Position`; this wrapper lets every
game-generic tool (arena, web app, play) use them on :class:`core.connectx.ConnectX` states.
"""
from __future__ import annotations

from typing import Any

from agents.base import info_of
from core.game import State


class ConnectXAgent:
    """``choose(state, deadline)`` over a ConnectX agent's ``choose(position, deadline)``."""

    games = ("connectx",)

    def __init__(self, game: Any, inner: Any, spec: str) -> None:
        self.game = game
        self.inner = inner
        self.spec = spec

    def choose(self, state: State, deadline: float) -> int:
        return int(self.inner.choose(self.game.position(state), deadline))

    def reset(self) -> None:
        fn = getattr(self.inner, "reset", None)
        if callable(fn):
            fn()

    def info(self) -> dict:
        """The inner agent's info, with the engine's key names added where they map."""
        info = info_of(self.inner)
        if "score" in info and "value" not in info:
            info["value"] = info["score"]
        if "sims" in info and "simulations" not in info:
            info["simulations"] = info["sims"]
        return info
