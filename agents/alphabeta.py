"""Depth-first agents: iterative deepening to the deadline over the kernel in
:mod:`agents.dfs_search`, with any heuristic of :mod:`heuristics` chosen by parameter.

``AlphaBetaAgent`` is plain fail-soft alpha-beta; ``NegamaxAgent`` searches every move after
the first with a null window (principal-variation search). Both return the same value at a
fixed depth; they differ in how many nodes they need.

Time policy: the kernel reads the clock every 1024 nodes and stops at the deadline (see
:mod:`agents.dfs_search`); as a second bound, where no clock is available to compiled code,
every iteration also gets a node limit of ``speed * time left * time_safety``, where ``speed``
is the nodes per second of this move's finished iterations once they add up to 10 ms, before
that the previous move's figure (a conservative guess on the first move). An
iteration stopped by either bound is thrown away and the move of the deepest finished
iteration is played.

Compiling the kernel takes seconds (4 s on an idle core here, 5-25 s on a loaded one).
:meth:`DepthFirstAgent.warm_up` does it beforehand. Otherwise, with ``background_compile`` (the
default), a move with less than a minute to go never overruns its deadline: a thread compiles,
the move waits for it during ``compile_share`` of its time (numba's compiler holds the GIL, so a
plain search running beside it would slow both), and plays the rest on the plain path if the
compile is not done; later moves use the compiled kernel once it is ready. A move with more
time (tests, benchmarks with a far deadline) compiles in place.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

import agents.dfs_search as K
from agents.dfs_search import WIN_BASE
from core.connectx.position import Position
from core.connectx.shape import Shape
from heuristics.connectx.params import HEURISTIC_IDS, PARAM_NAMES, params_array
from util.jit import CompileGate, numba_enabled

_HEURISTIC_FIELDS = sorted({name for names in PARAM_NAMES.values() for name in names})


def _prime_below(n: int) -> int:
    """Largest prime below ``n`` (table size: spreads the structured keys over the slots)."""
    k = n - 1
    while k > 2:
        if k % 2 and all(k % d for d in range(3, int(k**0.5) + 1, 2)):
            return k
        k -= 1
    return 2


@dataclass
class DepthFirstAgent:
    """Iterative-deepening depth-first search; the subclasses choose alpha-beta or PVS.

    Defaults from ``bench/dfs_strength.py`` and ``bench/dfs_speed.py`` (2026-11-22, loaded
    machine): liberties scored 72 / 140 and 71.5 / 140 (negamax / alpha-beta) against
    bitsquares' 66.5 in a round robin on the 35 openings at 0.1 s a move, and first in a
    4-heuristic round robin; table and ordering depths by time to a fixed depth.
    """

    heuristic: str = "liberties"  # leaf evaluation: one of heuristics.connectx.params.HEURISTIC_IDS ("none": 0 at the horizon)
    max_depth: int = 0  # fixed search depth in plies; 0 deepens until the deadline or the exact value
    tt_bits: int = 20  # transposition table of about 2**tt_bits entries (at most 18 on the plain path)
    order_depth: int = 2  # sort moves by threats created at nodes with at least this depth left
    tt_depth: int = 3  # use the transposition table at nodes with at least this depth left
    background_compile: bool = True  # compile numba's kernel in a thread while the plain path plays (unless the move has a minute)
    compile_share: float = 0.7  # while that thread compiles: fraction of a move's time spent waiting for it (the compile holds the GIL, so a plain search beside it would halve both)
    time_safety: float = 0.85  # without a clock in compiled code: fraction of the time left an iteration may plan to use
    # Heuristic parameters; None keeps the heuristic's published default (heuristics.connectx.params.DEFAULTS).
    power: float | None = None  # bitsquares, oddeven: an open line of n stones scores n ** power
    double_attack: float | None = None  # gameovers: bonus per threat cell beyond the first
    single_square: float | None = None  # gameovers: weight of an open line holding one stone
    threat_pair: float | None = None  # oddeven: per pair of stacked threat cells
    parity_threat: float | None = None  # oddeven: per threat cell on the player's parity rows
    parity_two: float | None = None  # oddeven: per open line two short with empty cells on parity rows
    threat: float | None = None  # liberties: weight of a threat cell

    PVS: ClassVar[bool] = False
    STOP_EARLY: ClassVar[float] = 0.010  # seconds before the deadline at which the kernel stops (GIL waits, unwinding)

    _shape: Any = field(default=None, init=False, repr=False)
    _tables: Any = field(default=None, init=False, repr=False)
    _speed: float = field(default=0.0, init=False, repr=False)
    _info: dict = field(default_factory=dict, init=False, repr=False)
    _gate: CompileGate = field(default_factory=lambda: CompileGate("dfs"), init=False, repr=False)  # may moves run the compiled kernel?

    def __post_init__(self) -> None:
        if self.heuristic not in HEURISTIC_IDS:
            raise ValueError(f"unknown heuristic {self.heuristic!r}; valid: {', '.join(HEURISTIC_IDS)}")
        given = {k: getattr(self, k) for k in _HEURISTIC_FIELDS if getattr(self, k) is not None}
        wrong = sorted(set(given) - set(PARAM_NAMES[self.heuristic]))
        if wrong:
            valid = ", ".join(PARAM_NAMES[self.heuristic]) or "(none)"
            raise ValueError(f"heuristic {self.heuristic!r} takes no parameter {', '.join(wrong)}; its parameters: {valid}")
        if self.max_depth < 0 or self.order_depth < 0 or self.tt_depth < 1 or not 4 <= self.tt_bits <= 30:
            raise ValueError("max_depth and order_depth must be >= 0, tt_depth >= 1, tt_bits within 4..30")
        if not 0.0 < self.time_safety <= 1.0:
            raise ValueError("time_safety must be in (0, 1]")
        if not 0.0 <= self.compile_share < 1.0:
            raise ValueError("compile_share must be in [0, 1)")
        self._params = params_array(self.heuristic, **given)

    # --- agent interface ------------------------------------------------------------------
    def reset(self) -> None:
        """Forget the table (entries stay valid across games, so this only frees memory)."""
        self._tables = None
        self._shape = None

    def info(self) -> dict:
        return dict(self._info)

    def warm_up(self, shape: Shape) -> float:
        """Compile the kernel for ``shape`` now (no-op on the plain path); returns seconds taken.
        Thread-safe; afterwards this agent's moves use the compiled kernel at once."""
        t0 = time.perf_counter()
        if numba_enabled(shape.bits):
            tmp = type(self)(heuristic=self.heuristic, max_depth=2, tt_bits=8)
            tmp._gate.ready = True  # the first call of the compiled kernel compiles it
            tmp.choose(Position.empty(shape), time.perf_counter() + 1e9)
        self._gate.ready = True
        return time.perf_counter() - t0

    def _compiled_ready(self, shape: Shape, deadline: float) -> bool:
        """Whether this move may use the compiled kernel (see ``background_compile``)."""
        return self._gate.admit(deadline, lambda: self.warm_up(shape), lambda: K.is_compiled(self.heuristic),
                                self.background_compile, self.compile_share)

    def choose(self, position: Position, deadline: float) -> int:
        shape = position.shape
        compiled = numba_enabled(shape.bits) and self._compiled_ready(shape, deadline)
        search = K.compiled_node(self.heuristic) if compiled else K.node
        self._ensure_tables(shape, compiled)
        ints, floats = self._tables
        ints[K.ROOT_PLY] = position.ply
        ints[K.PVS] = 1 if self.PVS else 0
        ints[K.ORDER_DEPTH] = self.order_depth
        ints[K.TT_DEPTH] = self.tt_depth
        ints[K.KIND] = HEURISTIC_IDS[self.heuristic]
        for i, x in enumerate(self._params):
            floats[i] = float(x)
        empties = shape.cells - position.ply
        limit = empties if self.max_depth == 0 else min(self.max_depth, empties)
        if self._speed <= 0.0:
            self._speed = 1.0e6 if compiled else 2.0e4
        best_move, best_value, best_depth, total = -1, 0.0, 0, 0
        done_nodes, done_time = 0, 0.0  # finished iterations of this move: the speed estimate
        for depth in range(1, limit + 1):
            now = time.perf_counter()
            if done_time > 0.01:
                self._speed = done_nodes / done_time
            # With a clock in the kernel the deadline decides and the node limit is a loose
            # guard; without one the node limit is the only bound.
            share = 3.0 if (K.COMPILED_CLOCK or not compiled) else self.time_safety
            budget = int(self._speed * max(0.0, deadline - now) * share) + 1024
            if depth == 1:
                budget = max(budget, 64 * shape.columns)  # depth 1 always finishes: a move is certain
            elif now >= deadline:
                break
            ints[K.NODES], ints[K.LIMIT], ints[K.ABORTED], ints[K.BEST] = 0, budget, 0, -1
            # depth 1 must finish; afterwards the deadline (int64 ns, capped far ahead) counts
            # (stop a little early: unwinding and returning take up to a millisecond or two)
            stop = min(deadline - now - self.STOP_EARLY, 1e9)
            ints[K.DEADLINE] = 2**62 if depth == 1 else int(stop * 1e9) + time.perf_counter_ns()
            v = search(position.current, position.mask, position.ply, depth, -K.INF, K.INF, ints, floats)
            elapsed = time.perf_counter() - now
            nodes = int(ints[K.NODES])
            total += nodes
            if ints[K.ABORTED]:
                break
            done_nodes += nodes
            done_time += elapsed
            best_move, best_value, best_depth = int(ints[K.BEST]), float(v), depth
            if abs(best_value) >= WIN_BASE:
                break  # a proven win or loss: deeper search cannot change it
        if done_time > 0.01:
            self._speed = done_nodes / done_time
        if best_move < 0 or not position.can_play(best_move):
            best_move = next(c for c in shape.center_order() if position.can_play(c))
        exact = abs(best_value) >= WIN_BASE or best_depth >= empties
        self._info = {"depth": best_depth, "score": best_value, "nodes": total, "exact": exact,
                      "speed": float(self._speed), "compiled": bool(compiled)}
        if exact:
            self._info["pons_score"] = pons_score(best_value)
        return best_move

    # --- internals ------------------------------------------------------------------------
    def _ensure_tables(self, shape: Shape, compiled: bool) -> None:
        """The two kernel arrays (layout in :mod:`agents.dfs_search`), kept across moves and
        games of one shape: table entries stay valid (exact keys, values of the position)."""
        if self._tables is not None and self._shape == (shape, compiled):
            return
        bits = self.tt_bits if compiled else min(self.tt_bits, 18)
        size = _prime_below(1 << bits)
        columns = shape.columns
        buf = K.ORDER + columns
        tt = buf + (shape.cells + 1) * columns
        header = [0] * tt
        header[K.ROWS], header[K.COLUMNS], header[K.INAROW] = shape.rows, columns, shape.inarow
        header[K.BOARD], header[K.BOTTOM] = shape.board_mask, shape.bottom_mask
        header[K.SIZE], header[K.BUF], header[K.TT] = size, buf, tt
        header[K.CLOCK_MASK] = 1023 if compiled else 31
        header[K.ORDER:K.ORDER + columns] = shape.center_order()
        # Empty slots hold key 0, which no position has (a key is at least the bottom mask).
        # np.zeros takes pages the OS zeroes on first touch: no 25 MB written up front.
        if compiled:
            ints = np.zeros(tt + 2 * size, dtype=np.int64)
            ints[:tt] = header
            floats = np.zeros(K.PARAMS + size, dtype=np.float64)
        else:
            ints = header + [0] * (2 * size)
            floats = [0.0] * (K.PARAMS + size)
        self._tables = (ints, floats)
        self._shape = (shape, compiled)
        self._speed = 0.0


def pons_score(value: float) -> int:
    """Pons' score from a search value (0 for a draw or a heuristic value)."""
    if value >= WIN_BASE:
        return int(round(value - WIN_BASE))
    if value <= -WIN_BASE:
        return -int(round(-value - WIN_BASE))
    return 0


@dataclass
class AlphaBetaAgent(DepthFirstAgent):
    """Plain fail-soft alpha-beta with iterative deepening and a transposition table."""

    PVS: ClassVar[bool] = False


@dataclass
class NegamaxAgent(DepthFirstAgent):
    """Negamax with null windows (principal-variation search) after the first move."""

    PVS: ClassVar[bool] = True


__all__ = ["AlphaBetaAgent", "NegamaxAgent", "DepthFirstAgent", "pons_score"]
