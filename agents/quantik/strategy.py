"""Quantik's published second-player strategy, made sound by the exact solver.

The strategy: win at once when possible; otherwise answer in the cell diagonally opposite the
opponent's last move inside the same 2x2 zone (``cell ^ 5``) with the *paired* shape (a fixed
pairing: A<->B, C<->D; the same shape is never legal there, the opponent's piece is in the zone).
The mirror reply is always legal, and no zone can be completed against it (a mirrored zone holds
an even number of pieces), but it is *not* a winning strategy on its own: rows and columns come
in mirrored pairs, and a first player who plays one shape twice in a zone's row can complete a
column, e.g. ``Aa4 Bb3 Ab4 Ba3 Bc4 Ad3 Cc2 Dd1 Bd4 Ac3 Cd2`` (column d). Every fixed mirror of
this kind (each fixed-point-free board involution with each fixed-point-free shape pairing, or
the diagonal cell with any shape) loses to some first-player line; exhaustive enumeration over
all first-player replies showed it. So with ``proof`` on (the default) each mirror reply is
checked by :class:`agents.engine.solver.Solver` and replaced by a proven win when it is not one:
a real second-player win, which every first-player agent must lose to.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.info import SearchInfo
from core.game import State
from core.quantik import kernels as K

PAIR = (1, 0, 3, 2)  # shape -> paired shape: A<->B, C<->D


def mirror_action(action: int) -> int:
    """The strategy's answer to ``action``: diagonally opposite cell in its zone, paired shape."""
    return 16 * PAIR[action >> 4] + ((action & 15) ^ 5)


@dataclass
class QuantikStrategyAgent:
    game: Any = None  # the core.game.Game played (set by the registry)
    proof: bool = True  # check each mirror reply with the exact solver; play a proven win instead when it is not one
    proof_share: float = 0.8  # share of a move's time the solver may use before the plain strategy plays
    tt_bits: int = 20  # the solver's table: about 2**tt_bits entries (kept between moves and games)
    compiled: bool = True  # run the solver compiled (numba) when available; False: plain Python
    games: ClassVar[tuple[str, ...]] = ("quantik",)
    _solver: Any = field(default=None, init=False, repr=False)
    _info: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 < self.proof_share <= 1.0:
            raise ValueError(f"proof_share={self.proof_share} must be in (0, 1]")

    def reset(self) -> None:
        self._info = {}

    def warm_up(self) -> float:
        """Compile the exact solver's kernel now, where its proofs run compiled (else the first
        proof compiles inside a move: seconds); returns the seconds taken."""
        from agents.engine import solver

        return solver.warm_up(self.game) if self.proof and self.compiled else 0.0

    def _solver_(self) -> Any:
        if self._solver is None:
            from agents.engine.solver import Solver

            self._solver = Solver(self.game, tt_bits=self.tt_bits, jit=None if self.compiled else False)
        return self._solver

    def choose(self, state: State, deadline: float) -> int:
        t0 = time.perf_counter()
        g, w = state.game.g, state.words
        legal = state.legal_actions()
        wins = [a for a in legal if K.complete(K.play(g, w, a))]
        if wins:
            return self._done(wins[0], "win", 1.0, t0)
        mirror = mirror_action(state.history[-1]) if state.history else -1
        if mirror not in legal:
            mirror = -1
        if self.proof:
            budget = t0 + (deadline - t0) * self.proof_share
            solver = self._solver_()
            if mirror >= 0:
                v = solver.value(state.apply(mirror), deadline=budget)
                if v is not None and v < 0:  # the opponent, to move, is lost
                    return self._done(mirror, "mirror (proven)", 1.0, t0)
            here = solver.value(state, deadline=budget)
            if here is not None and here > 0:  # a win exists: find one (lost positions skip this)
                best = solver.best(state, deadline=budget)
                if best is not None and best[1] > 0:
                    return self._done(best[0], "solver", best[1], t0, best[2])
        if mirror >= 0:
            return self._done(mirror, "mirror", None, t0)
        safe = [a for a in legal if not K.can_win_now(K.play(g, w, a))]
        return self._done((safe or legal)[0], "no mirror: a move leaving no win at once", None, t0)

    def _done(self, action: int, rule: str, value: float | None, t0: float, values: dict | None = None) -> int:
        self._info = {"rule": rule, "seconds": time.perf_counter() - t0}
        if value is not None:
            self._info.update(value=value, exact=True)
        if values is not None:
            self._info["action_values"] = dict(values)
        return action

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._info)
