"""Exact solver for any game that ends: full-depth negamax (:mod:`agents.engine.negamax`) with
its table on the game's ``key`` (canonical keys when the game gives them), the game's
``bounds`` hook for cut-offs when it has one, and null windows of width 1 that narrow
``[lo, hi]`` on the value (the idea of Pons' solver and MTD(f), written anew).

Values are for the side to move, in the game's own units: ``outcome`` seen from the mover
(``scale = 1, step = 0``), e.g. tic-tac-toe's 1 / 0 / -1 or count-the-fours' score difference.
With ``step > 0`` a quicker win scores higher (``o * scale -+ step * plies``; see negamax).

A window ``(m, m + 1)`` answers "is the value above m?": a result ``<= m`` is an upper bound,
``>= m + 1`` a lower bound, and anything strictly between is exact; so the narrowing is right
for any values, and quick when they are small integers (2 searches for a win/draw/loss game).
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable

from agents.engine.negamax import FULL, Search, from_table, terminal_value
from util.budget import deadline_ns


def probe_point(lo: float, hi: float, pons: bool) -> float:
    """The ``m`` of the next window ``(m, m + 1)`` in ``[lo, hi]``: the middle, or with ``pons``
    Pons' choice (the middle, moved to half of ``lo`` or ``hi`` when that lies further out on
    the same side of 0: for integer values, e.g. ConnectX's scores)."""
    m = math.floor((lo + hi) / 2)
    if pons:
        half_lo, half_hi = math.trunc(lo / 2), math.trunc(hi / 2)
        if m <= 0 and half_lo < m:
            m = half_lo
        elif m >= 0 and half_hi > m:
            m = half_hi
    if m + 1 > hi:
        m = hi - 1
    if m < lo:
        m = lo
    return m


class SolveError(ValueError):
    """The position cannot be solved by this solver (chance nodes, or longer than ``max_plies``)."""


class Solver:
    """Solves positions of one game; keeps its table between calls (entries are exact bounds).

    ``tt_bits``: about 2**tt_bits table slots. ``max_plies``: deepest line searched (the move
    buffer); a line reaching it is an error, never a guess. ``slice_seconds``: return to Python
    that often (Ctrl-C is seen, ``on_slice(nodes)`` shows progress), resuming from the table."""

    def __init__(self, game: Any, tt_bits: int = 20, jit: bool | None = None, max_plies: int = 256,
                 scale: float = 1.0, step: float = 0.0, slice_seconds: float | None = None,
                 on_slice: Callable[[int], None] | None = None, probes: str = "middle") -> None:
        if step and scale / 2 <= step * max_plies:
            raise ValueError("with step > 0, scale must exceed 2 * step * max_plies (win values stay decisive)")
        self.game = game
        self.scale, self.step, self.max_plies = float(scale), float(step), int(max_plies)
        self.search = Search(game, None, tt_bits=tt_bits, jit=jit, prune=True, pvs=True, scale=scale, step=step,
                             decisive=scale / 2, ply_cap=max_plies)
        self.slice_seconds = slice_seconds
        self.on_slice = on_slice
        if probes not in ("middle", "pons"):
            raise ValueError(f"probes must be 'middle' or 'pons', got {probes!r}")
        self.probes_at = probes
        # The root's own expand (decided positions need no search, and the game's bounds hold only
        # for undecided ones): a scratch action buffer of the kernel's kind.
        stride = max(1, int(game.num_actions))
        if self.search.jit:
            import numpy as np

            self._scratch, self._fscratch = np.zeros(stride + 1, dtype=np.int64), np.zeros(1, dtype=np.float64)
        else:
            self._scratch, self._fscratch = [0] * (stride + 1), [0.0]
        self.nodes = 0  # nodes of the last call
        self.probes = 0  # null-window searches of the last call

    @property
    def jit(self) -> bool:
        return self.search.jit

    def _probe(self, state: Any, alpha: float, beta: float, deadline: float | None, limit: int | None) -> float | None:
        """One window search to the end, in slices when asked; None when out of time or nodes."""
        while True:
            end = deadline
            if self.slice_seconds is not None:
                end = time.perf_counter() + self.slice_seconds if deadline is None else \
                    min(deadline, time.perf_counter() + self.slice_seconds)
            left = None if limit is None else limit - self.nodes
            if left is not None and left <= 0:
                return None
            r = self.search.run(state, FULL, alpha, beta,
                                deadline_ns(end),
                                left)
            self.nodes += r.nodes
            if r.chance:
                raise SolveError(f"{self.game.name} has chance nodes below this position: the exact solver "
                                 "handles games without chance (use expectimax)")
            if not r.aborted:
                if r.cut:
                    raise SolveError(f"a line longer than max_plies={self.max_plies} was reached: the game may "
                                     "not end within it; raise max_plies (--max-plies)")
                return r.value
            if deadline is not None and time.perf_counter() >= deadline:
                return None
            if self.slice_seconds is None:
                return None
            if self.on_slice is not None:
                self.on_slice(self.nodes)

    def decided(self, state: Any) -> float | None:
        """The value of a position the game's ``expand`` decides without search (a win at once,
        a loss to every move, a terminal state), else None."""
        if state.is_terminal():
            r0 = state.returns()[0]
            o = r0 if state.current_player() == 0 else -r0
            return terminal_value(o, 0, [self.scale, self.step, 0.0], 0) + 0.0
        # Argument types as the kernel's own call has them (sort a bool): no second compile.
        n, o = self.search.ns.expand(self.search.g, tuple(int(w) for w in state.words), FULL, 0, False,
                                     self._scratch, 0, self._fscratch)
        if n >= 0:
            return None
        return terminal_value(float(o), -int(n) - 1, [self.scale, self.step, 0.0], 0) + 0.0

    def _range(self, state: Any) -> tuple[float, float]:
        """Proven bounds on the value of ``state``, which ``expand`` left undecided."""
        wv = float(getattr(self.game, "win_value", 1.0))
        span = wv * self.scale + self.step * self.max_plies
        lo, hi = -span, span
        k = self.game.kernel_module
        if hasattr(k, "bounds"):
            blo, bhi = k.bounds(self.game.g, state.words)
            slack = self.step * self.max_plies
            lo, hi = max(lo, float(blo) * self.scale - slack), min(hi, float(bhi) * self.scale + slack)
        return lo, hi

    def _check(self, state: Any) -> None:
        # Games without chance skip the test: a quick solve is mostly such Python work.
        if getattr(self.game, "has_chance", True) and state.is_chance_node():
            raise SolveError("the position is a chance node: the exact solver handles games without chance")

    def value(self, state: Any, deadline: float | None = None, node_limit: int | None = None,
              within: tuple[float, float] | None = None) -> float | None:
        """Exact value of ``state`` for its side to move, or None when ``deadline`` (a
        ``time.perf_counter()`` time) or ``node_limit`` came first. ``within=(lo, hi)``: only
        narrow inside that range: a value below ``lo`` is reported as ``lo``, above ``hi`` as
        ``hi`` (e.g. ``(-1, 1)``: the sign of the value, a weak solve, at a fraction of the cost)."""
        self.nodes, self.probes = 0, 0
        return self._value(state, deadline, node_limit, within)

    def probe(self, state: Any, alpha: float, beta: float, deadline: float | None = None,
              node_limit: int | None = None) -> float | None:
        """One window search: a result ``<= alpha`` is an upper bound on the value, ``>= beta`` a
        lower bound, in between exact; None on time or nodes. A position the game decides
        without search costs no node (e.g. "is this move optimal?" on a child, cheap when the
        table holds the parent's proof)."""
        self._check(state)
        self.nodes, self.probes = 0, 0
        v = self.decided(state)
        if v is not None:
            return v
        self.probes = 1
        return self._probe(state, alpha, beta, deadline, node_limit)

    def _value(self, state: Any, deadline: float | None, node_limit: int | None,
               within: tuple[float, float] | None = None) -> float | None:
        self._check(state)
        v = self.decided(state)
        if v is not None:
            if within is not None:
                v = min(max(v, within[0]), within[1]) + 0.0
            return v
        lo, hi = self._range(state)
        if within is not None:
            lo, hi = max(lo, within[0]), min(hi, within[1])
        while lo < hi:
            m = probe_point(lo, hi, self.probes_at == "pons")
            r = self._probe(state, m, m + 1, deadline, node_limit)
            self.probes += 1
            if r is None:
                return None
            if r <= m:
                hi = r
            elif r >= m + 1:
                lo = r
            else:
                return r + 0.0
        if within is not None:
            lo = min(max(lo, within[0]), within[1])
        return lo + 0.0

    def action_values(self, state: Any, deadline: float | None = None, node_limit: int | None = None) -> dict[int, float] | None:
        """Exact value of each legal action for the side to move at ``state``, or None on time."""
        self._check(state)
        self.nodes, self.probes = 0, 0
        me = state.current_player()
        fl = [self.scale, self.step, self.scale / 2]
        out: dict[int, float] = {}
        for a in state.legal_actions():
            child = state.apply(a)
            if child.is_terminal():
                r0 = child.returns()[0]
                out[a] = terminal_value(r0 if me == 0 else -r0, 1, fl, 0) + 0.0
                continue
            v = self._value(child, deadline, None if node_limit is None else node_limit)
            if v is None:
                return None
            v = from_table(v, 1, fl, 0)  # one ply further from the root: a decisive value one step smaller
            out[a] = (v if child.current_player() == me else -v) + 0.0
        return out

    def optimal(self, state: Any, deadline: float | None = None) -> tuple[int, float] | None:
        """``(action, value)``: an optimal action found cheaply, or None on time. The position's
        value first, then its actions in the game's order (a game-ending one first) until one
        reaches it: usually the first; in a lost position no action needs solving."""
        self._check(state)
        v = self.value(state, deadline)
        if v is None:
            return None
        me = state.current_player()
        fl = [self.scale, self.step, self.scale / 2]
        actions = state.legal_actions()
        buf = list(actions) + [0] * max(0, len(actions))
        order_fn = getattr(self.game.kernel_module, "order", None)
        if callable(order_fn):
            try:
                order_fn(self.game.g, state.words, buf, 0, len(actions), [0.0] * 8)
                actions = [int(a) for a in buf[:len(actions)]]
            except Exception:  # an order hook that needs its heuristic's parameters: keep the game's order
                actions = state.legal_actions()
        actions.sort(key=lambda a: not state.apply(a).is_terminal())
        if self.step == 0 and v <= -self.game.win_value:
            return actions[0], v  # the worst outcome whatever is played (values carry no distance)
        for a in actions:
            child = state.apply(a)
            if child.is_terminal():
                r0 = child.returns()[0]
                cv = terminal_value(r0 if me == 0 else -r0, 1, fl, 0) + 0.0
            else:
                w = self._value(child, deadline, None)
                if w is None:
                    return None
                w = from_table(w, 1, fl, 0)
                cv = w if child.current_player() == me else -w
            if cv >= v:
                return a, v
        return None

    def best(self, state: Any, deadline: float | None = None, node_limit: int | None = None) -> tuple[int, float, dict[int, float]] | None:
        """``(action, value, action values)``: an optimal action (the first in the game's action
        order among the best, a game-ending one first), or None on time."""
        values = self.action_values(state, deadline, node_limit)
        if values is None:
            return None
        top = max(values.values())
        best = [a for a, v in values.items() if v == top]
        quick = [a for a in best if state.apply(a).is_terminal()]
        action = (quick or best)[0]
        return action, top, values


__all__ = ["Solver", "SolveError"]
