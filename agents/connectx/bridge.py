"""ConnectX's own agents (:mod:`agents.connectx.registry`: perfect, negamax, mcts, ...) as engine agents.

They are faster and stronger on ConnectX than the game-generic searches (book, Pons-style
solver, threat pruning), and work on :class:`core.connectx.position.Position`; this wrapper lets every
game-generic tool (arena, web app, play) use them on :class:`core.connectx.ConnectX` states.
"""
from __future__ import annotations

from typing import Any

from agents.engine.info import SearchInfo, info_of
from core.game import State


class ConnectXAgent:
    """``choose(state, deadline)`` over a ConnectX agent's ``choose(position, deadline)``."""

    games = ("connectx",)

    EXACT_NODES_PER_SECOND = 3_000_000  # node budget of the exact move values, per second of the move

    def __init__(self, game: Any, inner: Any, spec: str) -> None:
        self.game = game
        self.inner = inner
        self.spec = spec
        self._exact: dict | None = None
        self._solver: Any = None

    def choose(self, state: State, deadline: float) -> int:
        import time

        position = self.game.position(state)
        start = time.perf_counter()
        action = int(self.inner.choose(position, deadline))
        self._exact = None
        if self.spec.split(":")[0] == "perfect":  # the solver's exact value of every move, when it finds them in time
            self._exact = self._exact_values(position, max(0.05, deadline - start))
        return action

    def _exact_values(self, position: Any, seconds: float) -> dict | None:
        from agents.connectx.solver import Solver

        if self._solver is None or self._solver.shape != position.shape:
            self._solver = Solver(position.shape)
        scores = self._solver.child_scores(position, node_limit=int(seconds * self.EXACT_NODES_PER_SECOND))
        if scores is None:
            return None
        return {c: float(v) for c, v in enumerate(scores) if v is not None}

    def warm_up(self) -> float:
        """The inner agent's warm-up on this game's board (numba's compile, its tables and opening
        data), outside any move's clock; the seconds it took (0 for an agent without one)."""
        import inspect
        import time

        fn = getattr(self.inner, "warm_up", None)
        if not callable(fn):
            return 0.0
        t = time.perf_counter()
        fn(self.game.shape) if inspect.signature(fn).parameters else fn()
        return time.perf_counter() - t

    def reset(self) -> None:
        fn = getattr(self.inner, "reset", None)
        if callable(fn):
            fn()

    def info(self) -> SearchInfo:
        """The inner agent's info, with the solver's exact move values when it found them."""
        info = info_of(self.inner)
        if self._exact is not None:  # Pons' scores: positive wins (sooner is larger), 0 draws
            info = info.replace(action_values=self._exact, exact=True,
                                value=max(self._exact.values()) if self._exact else info.value)
        return info
