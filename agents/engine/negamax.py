"""Depth-first search for any game: fail-soft alpha-beta in negamax form (optionally
principal-variation search), a transposition table on the game's ``key``, the actions of a
node from the game's ``expand`` hook (:mod:`core.kernel_expand`: decided positions, pruned and
ordered actions; default ``terminal``, ``legal``, ``order``) with the table move first; with
pruning off, the same kernel is plain minimax (every node, no table), which is what the
minimax agent and the bench count. Leaves (``depth == 0``) test ``terminal`` and evaluate.

Value model (for the side to move; the model ``tests/test_engine_search.py``'s brute force
implements). ``ply`` is the distance from the search's root:
- terminal: ``o * scale - step * ply`` when the mover's outcome ``o`` (``outcome`` seen from
  the side to move; a position ``expand`` decides ``d`` plies ahead: its ``o`` at ``ply + d``)
  is positive, ``o * scale + step * ply`` when negative, 0 for 0: the outcome scaled, and a win sooner (a loss later) preferred by ``step`` a ply;
- ``depth == 0`` (or ``ply`` at the buffer's cap): the heuristic ``evaluate(g, s, params)``;
- else the maximum over the actions of the child's value, negated when the child's side to
  move is the other player (a game may give a player two moves in a row);
- a child that is a chance node is a leaf: its value for the parent's mover is
  ``evaluate(g, child, params)`` (chance nodes belong to expectimax; the kernel never expands
  them, and raises the ``CHANCE_SEEN`` flag so that an exact solver can refuse).
Agents use ``scale = WIN_SCALE``, ``step = 1``: heuristics must stay within ``±DECISIVE``
and a game's non-zero outcomes at least 1 in size, so that a proven result always beats an
estimate. The exact solver uses ``scale = 1, step = 0``: values are the outcomes themselves.

Table values are stored relative to their node (a decisive value, ``|v| >= DECISIVE``, is
shifted by ``step * ply``, the chess engines' mate-distance correction), so an entry is valid
wherever its state appears. An entry is used for a cut-off only at the same remaining depth
(``TT_DEEPER`` also allows deeper ones: stronger, but no longer the fixed-depth value); depth
``>= FULL`` means "to the end" and never decreases. Each entry also keeps whether a
heuristic leaf lay below it (``CUT`` flag): a root value found without one is proven.
With canonical keys (a symmetric image) an entry's move may not be ours: it only orders moves
when it is legal here, and the root never takes a table cut-off.

Time: ``ints[LIMIT]`` nodes and a deadline (``ints[DEADLINE]``, ``time.perf_counter_ns``
units) read with :func:`util.hotclock.clock_ns` every ``ints[CLOCK_MASK] + 1`` nodes; past
either the kernel sets ``ints[ABORTED]`` and unwinds without writing the table.

Two arrays carry everything (numpy compiled, lists plain; layout built by :class:`Search`):
``ints``: settings at the slots below, per-ply action lists at ``ints[BUF] + ply * STRIDE``,
the table at ``ints[TT] + slot * (words + 1)`` (the key's words, then ``meta`` =
``(depth + 1) << 35 | cut << 34 | flag << 32 | (move + 1)``; 0 = empty; with
``int_values`` (``ints[INT_VALUES]``, for exact solves whose values are small integers) also
``(value + VALUE_BIAS) << 16``, so that a probe reads one cache line: other values are then not
stored). ``floats``: the
heuristic's parameters from 0 (it is the ``params`` of ``evaluate`` and ``order``), the float
settings at ``ints[FSET]``, the root's child values at ``ints[FSET] + ROOTV``, table values
at ``ints[FTT] + slot``.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from core.game import CHANCE, bind, kernel_state, key_function, search_constants
from core.kernel_defaults import bounds, evaluate, key, outcome, play, terminal, to_move
from core.kernel_expand import expand
from util.budget import NO_DEADLINE_NS, NO_LIMIT
from util.hotclock import COMPILED_CLOCK, clock_ns
from util.jit import hot

WIN_SCALE = 1.0e6  # agents' value of an outcome of 1
DECISIVE = 5.0e5  # |value| from here on comes from a terminal state; heuristics stay below
INF = 1.0e300
FULL = 1 << 20  # a depth this large means "to the end of the game"
NULL_EPS = 1.0e-9  # relative width of the PVS scout window: any positive width is exact
EXACT, LOWER, UPPER = 0, 1, 2
MOVE_MASK = (1 << 16) - 1  # meta's low 16 bits: the move + 1 (actions below 65535)
VALUE_SHIFT, VALUE_BIAS = 16, 1 << 15  # integer-valued searches: meta's bits 16..31 hold value + VALUE_BIAS
FLAG_SHIFT, CUT_SHIFT, DEPTH_SHIFT = 32, 34, 35
HASH_P = 2147483647  # 2**31 - 1: the slot hash stays exact on both paths (no int64 overflow)
HASH_B = 1000003

# Slots of ``ints``.
NODES, LIMIT, ABORTED, DEADLINE, CLOCK_MASK, BEST, PRUNE, PVS, USE_TT, TT_DEEPER = range(10)
SIZE, WORDS, TT, BUF, STRIDE, PLY_CAP, CUT, CHANCE_SEEN, ROOT_ALL, ROOT_N = range(10, 20)
USE_BOUNDS, TT_MIN_DEPTH, FSET, FTT, ORDER_DEPTH, INT_VALUES = range(20, 26)
HEADER = 26
# Offsets from ``ints[FSET]`` in ``floats``.
SCALE, STEP, DECIDE, ROOTV = 0, 1, 2, 4


@hot
def slot_of(k, size: int) -> int:
    """Table slot of key ``k`` (a tuple of non-negative words): the word mod ``size`` for a
    one-word key (the table size is a prime), else a polynomial hash mod 2**31-1."""
    if len(k) == 1:
        return k[0] % size
    h = 0
    for w in k:
        h = (h * HASH_B + w % HASH_P) % HASH_P
        h = (h * HASH_B + (w >> 31) % HASH_P) % HASH_P
    return h % size


@hot
def tt_find(ints, at: int, k, words: int) -> int:
    """The meta word of the table entry at ``at`` when it holds key ``k`` (all its words), else 0."""
    meta = ints[at + words]
    if meta == 0:
        return 0
    for i in range(words):
        if ints[at + i] != k[i]:
            return 0
    return meta


@hot
def tt_slot(k, words: int, size: int, tt: int):
    """``(slot, at)``: the slot of key ``k`` in a table of ``size`` slots and where its entry
    (``words + 1`` ints) starts, the table starting at ``tt`` (scalars only: an array argument
    costs a reference count per call in compiled code)."""
    slot = slot_of(k, size)
    return slot, tt + slot * (words + 1)


@hot
def tt_decides(meta: int, v: float, alpha: float, beta: float) -> bool:
    """Whether an entry's value ``v`` (with its bound flag in ``meta``) settles a window."""
    flag = (meta >> FLAG_SHIFT) & 3
    return flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha)


@hot
def table_move_first(ints, base: int, n: int, tt_move: int) -> None:
    """Move ``tt_move`` to the front of the action list at ``ints[base:base + n]``, if it is there
    (with canonical keys an entry's move may belong to a symmetric state: then it is not)."""
    if tt_move < 0:
        return
    for i in range(n):
        if ints[base + i] == tt_move:
            for j in range(i, 0, -1):
                ints[base + j] = ints[base + j - 1]
            ints[base] = tt_move
            return


@hot
def tt_store(ints, floats, at: int, fat: int, k, words: int, depth: int, cut: int, best: float, alpha0: float,
             beta: float, best_move: int, stored: float) -> None:
    """Write the entry of a node searched in ``(alpha0, beta)``: key words and ``meta`` at
    ``ints[at:]``, the value ``stored`` (the node's ``best``, as the table keeps it) at
    ``floats[fat]`` (each search lays out its own arrays: callers pass both places)."""
    for i in range(words):
        ints[at + i] = k[i]
    ints[at + words] = tt_meta(depth, cut, best, alpha0, beta, best_move)
    floats[fat] = stored


@hot
def tt_meta(depth: int, cut: int, best: float, alpha0: float, beta: float, best_move: int) -> int:
    """An entry's meta word (value not included) for a node searched in ``(alpha0, beta)``."""
    flag = EXACT
    if best <= alpha0:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    return ((depth + 1) << DEPTH_SHIFT) | (cut << CUT_SHIFT) | (flag << FLAG_SHIFT) | (best_move + 1)


@hot
def terminal_value(o: float, ply: int, floats, fs: int) -> float:
    """Value of a finished game for the side to move, whose outcome is ``o``."""
    if o > 0.0:
        return o * floats[fs + SCALE] - floats[fs + STEP] * ply
    if o < 0.0:
        return o * floats[fs + SCALE] + floats[fs + STEP] * ply
    return 0.0


@hot
def to_table(v: float, ply: int, floats, fs: int) -> float:
    """Root-relative value -> relative to the node at ``ply`` (decisive values only)."""
    if v >= floats[fs + DECIDE]:
        return v + floats[fs + STEP] * ply
    if v <= -floats[fs + DECIDE]:
        return v - floats[fs + STEP] * ply
    return v


@hot
def from_table(u: float, ply: int, floats, fs: int) -> float:
    if u >= floats[fs + DECIDE]:
        return u - floats[fs + STEP] * ply
    if u <= -floats[fs + DECIDE]:
        return u + floats[fs + STEP] * ply
    return u


@hot
def take_child(v: float, a: int, best: float, best_move: int, alpha: float, beta: float, prune: bool, wide: bool):
    """Fold a child (action ``a``, value ``v`` for the node's mover) into a decision node, this
    kernel's and expectimax's. Returns ``(best, best_move, alpha, cut)``; ``cut``: the value
    reached ``beta`` (fail-soft), the remaining children are not searched. Scalars only (an array
    argument costs a reference count per call in compiled code)."""
    if v > best:
        best = v
        best_move = a
        if prune and v > alpha:
            alpha = v
            if v >= beta and not wide:
                return best, best_move, alpha, True
    return best, best_move, alpha, False


@hot
def node(g, s, depth: int, ply: int, alpha: float, beta: float, ints, floats) -> float:
    """Fail-soft value of ``s`` for its side to move within ``(alpha, beta)`` (module
    docstring: model and arrays). With ``ints[PRUNE] == 0``: the exact minimax value."""
    ints[NODES] += 1
    if ints[NODES] > ints[LIMIT] or ((ints[NODES] & ints[CLOCK_MASK]) == 0 and clock_ns() > ints[DEADLINE]):
        ints[ABORTED] = 1
        return 0.0
    fs = ints[FSET]
    if depth == 0 or ply >= ints[PLY_CAP]:
        if terminal(g, s):
            o = outcome(g, s)
            if to_move(g, s) == 1:
                o = -o
            return terminal_value(o, ply, floats, fs)
        ints[CUT] = 1
        return evaluate(g, s, floats)
    # The game's view of the node (core.kernel_expand): decided, or the actions worth searching.
    base = ints[BUF] + ply * ints[STRIDE]
    n, o = expand(g, s, depth, ply, depth >= ints[ORDER_DEPTH], ints, base, floats)
    if n < 0:
        v = terminal_value(o, ply - n - 1, floats, fs)
        if ply == 0 and n < -1:
            ints[BEST] = ints[base]
            ints[ROOT_N] = 1
            floats[fs + ROOTV] = v
        return v
    me = to_move(g, s)
    prune = ints[PRUNE] != 0
    full = depth >= FULL
    if prune and full and ints[USE_BOUNDS] != 0:
        lo, hi = bounds(g, s)
        slack = floats[fs + STEP] * ints[PLY_CAP]
        lo_v = lo * floats[fs + SCALE] - slack
        hi_v = hi * floats[fs + SCALE] + slack
        if lo_v > alpha:
            alpha = lo_v
            if alpha >= beta:
                return alpha
        if hi_v < beta:
            beta = hi_v
            if alpha >= beta:
                return beta

    # Table probe (exact key: every word compared).
    use_tt = prune and ints[USE_TT] != 0 and (full or depth >= ints[TT_MIN_DEPTH])
    words = ints[WORDS]
    at = 0
    slot = 0
    tt_move = -1
    if use_tt:
        k = key(g, s)
        slot, at = tt_slot(k, words, ints[SIZE], ints[TT])
        meta = tt_find(ints, at, k, words)
        if meta != 0:
            tt_move = (meta & MOVE_MASK) - 1
            d = (meta >> DEPTH_SHIFT) - 1
            if ply > 0 and (d == depth or (ints[TT_DEEPER] != 0 and d > depth)):
                if ints[INT_VALUES] != 0:  # the value in meta: the entry is one cache line
                    u = float(((meta >> VALUE_SHIFT) & MOVE_MASK) - VALUE_BIAS)
                else:
                    u = floats[ints[FTT] + slot]
                v = from_table(u, ply, floats, fs)
                if tt_decides(meta, v, alpha, beta):
                    if (meta >> CUT_SHIFT) & 1:
                        ints[CUT] = 1
                    return v

    # The table move (if among the actions here) first, then the game's order.
    if tt_move >= 0:
        table_move_first(ints, base, n, tt_move)

    root = ply == 0
    wide = not prune or (root and ints[ROOT_ALL] != 0)  # children get the full window
    pvs = prune and ints[PVS] != 0 and not wide
    child_depth = depth if full else depth - 1
    cut_outer = ints[CUT]
    ints[CUT] = 0
    alpha0 = alpha
    best = -INF
    best_move = ints[base]
    for i in range(n):
        a = ints[base + i]
        c = play(g, s, a)
        cm = to_move(g, c)
        if cm == CHANCE and not terminal(g, c):
            ints[NODES] += 1
            ints[CUT] = 1
            ints[CHANCE_SEEN] = 1
            v = evaluate(g, c, floats)
        elif wide:
            v = node(g, c, child_depth, ply + 1, -INF, INF, ints, floats)
            if cm != me:
                v = -v
        elif cm == me:
            if pvs and i > 0:
                v = node(g, c, child_depth, ply + 1, alpha, alpha + NULL_EPS * (1.0 + abs(alpha)), ints, floats)
                if v > alpha and v < beta and ints[ABORTED] == 0:
                    v = node(g, c, child_depth, ply + 1, alpha, beta, ints, floats)
            else:
                v = node(g, c, child_depth, ply + 1, alpha, beta, ints, floats)
        else:
            if pvs and i > 0:
                v = -node(g, c, child_depth, ply + 1, -alpha - NULL_EPS * (1.0 + abs(alpha)), -alpha, ints, floats)
                if v > alpha and v < beta and ints[ABORTED] == 0:
                    v = -node(g, c, child_depth, ply + 1, -beta, -alpha, ints, floats)
            else:
                v = -node(g, c, child_depth, ply + 1, -beta, -alpha, ints, floats)
        if ints[ABORTED] != 0:
            return 0.0
        if root:
            floats[fs + ROOTV + i] = v
            ints[ROOT_N] = i + 1
        best, best_move, alpha, cut = take_child(v, a, best, best_move, alpha, beta, prune, wide)
        if cut:
            break

    cut_here = ints[CUT]
    ints[CUT] = cut_here | cut_outer
    if use_tt:
        stored = to_table(best, ply, floats, fs)
        if ints[INT_VALUES] == 0:
            tt_store(ints, floats, at, ints[FTT] + slot, k, words, depth, cut_here, best, alpha0, beta, best_move, stored)
        elif abs(stored) < VALUE_BIAS and stored == float(int(stored)):  # other values are not kept
            for i in range(words):
                ints[at + i] = k[i]
            ints[at + words] = tt_meta(depth, cut_here, best, alpha0, beta, best_move) | \
                ((int(stored) + VALUE_BIAS) << VALUE_SHIFT)
    if root:
        ints[BEST] = best_move
    return best


# --- the Python side: arrays, binding, one search call -----------------------------------------
def prime_below(n: int) -> int:
    """Largest prime below ``n`` (table size: spreads structured hashes over the slots)."""
    k = max(3, n - 1)
    while k > 2:
        if k % 2 and all(k % d for d in range(3, int(k ** 0.5) + 1, 2)):
            return k
        k -= 1
    return 2


def heuristic_function(game: Any, name: Any):
    """``(function or None, default parameters)`` of heuristic ``name`` from the game's
    ``Game.heuristics`` module (``HEURISTICS`` by name; ``DEFAULT_PARAMS[name]`` or
    ``default_params(name)``). None or "none": no heuristic (the kernel's 0 evaluation)."""
    if name in (None, "", "none"):
        return None, []
    if callable(name):  # a hot function given directly (tests, experiments)
        return name, []
    import importlib

    path = getattr(game, "heuristics", "")
    if not path:
        raise ValueError(f"game {game.name!r} has no heuristics; use heuristic=none")
    module = game.import_module(path) if hasattr(game, "import_module") else importlib.import_module(path)
    table = getattr(module, "HEURISTICS", {})
    if name not in table:
        raise ValueError(f"unknown heuristic {name!r} for {game.name}; valid: none, {', '.join(table)}")
    if hasattr(module, "DEFAULT_PARAMS"):
        params = list(module.DEFAULT_PARAMS.get(name, []))
    elif hasattr(module, "default_params"):
        params = list(module.default_params(name))
    else:
        params = []
    return table[name], [float(x) for x in params]


def heuristic_names(game: Any) -> list[str]:
    """``none`` and the names of the game's heuristics."""
    import importlib

    path = getattr(game, "heuristics", "")
    if not path:
        return ["none"]
    try:
        module = game.import_module(path) if hasattr(game, "import_module") else importlib.import_module(path)
        return ["none"] + list(getattr(module, "HEURISTICS", {}))
    except ImportError:
        return ["none"]


def key_words(game: Any) -> int:
    """Words of the game's table key: the length of ``key``'s tuple (a state's without the hook)."""
    key_fn = key_function(game)
    if key_fn is None:
        return int(game.words)
    return len(key_fn(game.g, tuple(game.initial_words())))


@dataclass
class Result:
    """One kernel call: the root's value for the side to move (root-relative), its best action,
    whether it stopped early (value meaningless), whether a heuristic leaf was used (value not
    proven), whether a chance node was met, and the nodes searched."""

    value: float
    best: int
    aborted: bool
    cut: bool
    chance: bool
    nodes: int


class TableSearch:
    """The Python side that the depth-first kernels (this one and expectimax's) share: settings
    by name, the table's reset and the counters a call starts from. Each kernel has its own
    ``ints`` layout: a subclass names its slots in ``SLOTS`` (``flags`` by name, and where the
    table, node count, stop flags, best move, cut flag, root count, limit and deadline are)."""

    SLOTS: ClassVar[dict[str, Any]] = {}
    ints: Any
    jit: bool

    def set(self, **flags: int) -> None:
        """Change settings between calls (``set(prune=0)``...; names in ``SLOTS["flags"]``)."""
        names = self.SLOTS["flags"]
        for k, v in flags.items():
            self.ints[names[k]] = int(v)

    def clear(self) -> None:
        """Empty the table."""
        start = int(self.ints[self.SLOTS["tt"]])
        if self.jit:
            self.ints[start:] = 0
        else:
            self.ints[start:] = [0] * (len(self.ints) - start)

    def _allocate(self, head: list, fhead: list, n_ints: int, n_floats: int) -> None:
        """The two arrays: ``head`` / ``fhead`` then zeros (numpy compiled, lists plain)."""
        if self.jit:
            import numpy as np

            self.ints = np.zeros(n_ints, dtype=np.int64)  # pages zeroed by the OS on first touch
            self.ints[:len(head)] = head
            self.floats = np.zeros(n_floats, dtype=np.float64)
            self.floats[:len(fhead)] = fhead
        else:
            self.ints = head + [0] * (n_ints - len(head))
            self.floats = fhead + [0.0] * (n_floats - len(fhead))

    def _start(self, deadline_ns: int | None, node_limit: int | None) -> None:
        """Zero the counters of one call and set its node limit and deadline."""
        s = self.SLOTS
        for slot in (s["nodes"], s["aborted"], s["cut"], s["root_n"], *s.get("zero", ())):
            self.ints[slot] = 0
        self.ints[self.SLOTS["best"]] = -1
        self.ints[self.SLOTS["limit"]] = NO_LIMIT if node_limit is None else max(1, int(node_limit))
        self.ints[self.SLOTS["deadline"]] = NO_DEADLINE_NS if deadline_ns is None else int(deadline_ns)


class Search(TableSearch):
    """The kernel bound to one game (and heuristic) with its own arrays: two searches never
    share a table. Settings are documented where the kernel reads them (module docstring)."""

    SLOTS: ClassVar[dict[str, Any]] = {
        "flags": {"prune": PRUNE, "pvs": PVS, "use_tt": USE_TT, "tt_deeper": TT_DEEPER, "root_all": ROOT_ALL,
                  "use_bounds": USE_BOUNDS, "tt_min_depth": TT_MIN_DEPTH, "order_depth": ORDER_DEPTH,
                  "int_values": INT_VALUES},
        "tt": TT, "nodes": NODES, "aborted": ABORTED, "best": BEST, "cut": CUT, "root_n": ROOT_N,
        "limit": LIMIT, "deadline": DEADLINE, "zero": (CHANCE_SEEN,)}

    def __init__(self, game: Any, heuristic: Any = None, params: Sequence[float] | None = None,
                 tt_bits: int = 18, jit: bool | None = None, prune: bool = True, pvs: bool = True,
                 use_tt: bool = True, tt_deeper: bool = False, tt_min_depth: int = 1,
                 scale: float = WIN_SCALE, step: float = 1.0, decisive: float = DECISIVE,
                 ply_cap: int = 128, root_all: bool = False, use_bounds: bool | None = None,
                 order_depth: int = 0, int_values: bool = False) -> None:
        fn, default = heuristic_function(game, heuristic)
        self.game = game
        self.ns = bind(game, sys.modules[__name__], fn, jit)
        self.jit = bool(self.ns.jit)
        self.g = search_constants(game, self.jit)
        words = key_words(game)
        stride = max(1, int(game.num_actions))
        pr = [float(x) for x in (default if params is None else params)]
        if not self.jit:
            tt_bits = min(tt_bits, 18)
        size = prime_below(1 << max(4, int(tt_bits)))
        buf = HEADER
        tt = buf + (ply_cap + 2) * stride
        fset = max(len(pr), 1)
        ftt = fset + ROOTV + stride
        head = [0] * tt
        head[LIMIT], head[DEADLINE] = NO_LIMIT, NO_DEADLINE_NS
        head[CLOCK_MASK] = 1023 if self.jit else 63
        head[PRUNE], head[PVS], head[USE_TT], head[TT_DEEPER] = int(prune), int(pvs), int(use_tt), int(tt_deeper)
        head[SIZE], head[WORDS], head[TT], head[BUF], head[STRIDE], head[PLY_CAP] = size, words, tt, buf, stride, ply_cap
        head[ROOT_ALL] = int(root_all)
        head[USE_BOUNDS] = int(hasattr(game.kernel_module, "bounds") if use_bounds is None else use_bounds)
        head[TT_MIN_DEPTH], head[FSET], head[FTT] = max(1, tt_min_depth), fset, ftt
        head[ORDER_DEPTH] = max(0, int(order_depth))
        head[INT_VALUES] = int(int_values)
        fhead = pr + [0.0] * (ftt - len(pr))
        fhead[fset + SCALE], fhead[fset + STEP], fhead[fset + DECIDE] = float(scale), float(step), float(decisive)
        self._allocate(head, fhead, tt + size * (words + 1), ftt + size)
        self.size, self.words, self.stride, self.ply_cap = size, words, stride, ply_cap

    def compiled_before(self) -> bool:
        """Whether this binding's compiled kernel has been compiled in this process."""
        return self.jit and len(getattr(self.ns.node, "signatures", ())) > 0

    def run(self, state: Any, depth: int, alpha: float = -INF, beta: float = INF,
            deadline_ns: int | None = None, node_limit: int | None = None) -> Result:
        """One call of the kernel from ``state`` (not terminal, not a chance node) to ``depth``
        plies (``FULL``: to the end); ``deadline_ns`` in ``time.perf_counter_ns`` units."""
        if depth > self.ply_cap and depth < FULL:
            raise ValueError(f"depth {depth} exceeds this search's ply cap {self.ply_cap}")
        ints = self.ints
        self._start(deadline_ns, node_limit)
        v = self.ns.node(self.g, kernel_state(self.game, state.words, self.jit), int(depth), 0, float(alpha), float(beta), ints, self.floats)
        return Result(float(v) + 0.0, int(ints[BEST]), bool(ints[ABORTED]), bool(ints[CUT]), bool(ints[CHANCE_SEEN]), int(ints[NODES]))

    def root_values(self) -> list[tuple[int, float]]:
        """(action, value) of the root's children searched by the last call, in search order:
        exact with ``root_all``; otherwise exact for the best, bounds for the others."""
        n = int(self.ints[ROOT_N])
        fs = int(self.ints[FSET])
        base = int(self.ints[BUF])
        return [(int(self.ints[base + i]), float(self.floats[fs + ROOTV + i]) + 0.0) for i in range(n)]

    def lookup(self, state: Any, ply: int = 0) -> tuple[float, int, int, bool, int] | None:
        """``(value, flag, depth, cut, move)`` of ``state``'s table entry as seen at ``ply``, or None
        (``move``: the best action of whichever state wrote it, -1 if none)."""
        key_fn = key_function(self.game)
        k = tuple(int(w) for w in (key_fn(self.game.g, state.words) if key_fn else state.words))
        slot = slot_of(k, self.size)
        at = int(self.ints[TT]) + slot * (self.words + 1)
        meta = int(self.ints[at + self.words])
        if meta == 0 or tuple(int(x) for x in self.ints[at:at + self.words]) != k:
            return None
        fs = int(self.ints[FSET])
        fl = [float(x) for x in self.floats[fs:fs + ROOTV]]
        u = float(((meta >> VALUE_SHIFT) & MOVE_MASK) - VALUE_BIAS) if int(self.ints[INT_VALUES]) else \
            float(self.floats[int(self.ints[FTT]) + slot])
        v = from_table(u, ply, fl, 0)
        return v, (meta >> FLAG_SHIFT) & 3, (meta >> DEPTH_SHIFT) - 1, bool((meta >> CUT_SHIFT) & 1), (meta & MOVE_MASK) - 1

    def principal_variation(self, state: Any, first: int, value: float, limit: int = 64) -> list[int]:
        """The root's best action ``first``, then at each node the table's move when keys are
        exact (the game has no ``key`` hook or no symmetries); with canonical keys an entry's
        move may belong to a symmetric state, so a child is followed only when its exact entry
        (or terminal value) reproduces the node's value (``value``: the root's). Stops where
        the table cannot tell."""
        fs = int(self.ints[FSET])
        fl = [float(x) for x in self.floats[fs:fs + ROOTV]]
        exact_keys = exact_key_hook(self.game, state)
        pv, s, v, ply = [], state, value, 0
        action: int | None = first
        while action is not None and len(pv) < limit:
            child = s.apply(action)
            pv.append(action)
            if child.is_terminal() or child.is_chance_node():
                break
            v = v if child.current_player() == s.current_player() else -v
            s, ply, action = child, ply + 1, None
            legal = s.legal_actions()
            entry = self.lookup(s, ply)
            if exact_keys:
                action = entry[4] if entry is not None and entry[4] in legal else None
                continue
            for a in legal:
                c = s.apply(a)
                if c.is_terminal():
                    r0 = c.returns()[0]
                    got = terminal_value(r0 if c.current_player() == 0 else -r0, ply + 1, fl, 0)
                else:
                    e = self.lookup(c, ply + 1)
                    if e is None or e[1] != EXACT:
                        continue
                    got = e[0]
                if (got if c.current_player() == s.current_player() else -got) == v:
                    action = a
                    break
        return pv


def exact_key_hook(game: Any, state: Any) -> bool:
    """Whether the game's table keys are exact (no ``key`` hook, no symmetries, or a key that
    tells ``state`` from a symmetric image of it, e.g. ConnectX's one-word code) rather than
    canonical images; a ``state`` equal to all its images cannot tell: then False."""
    key_fn = key_function(game)
    syms = game.symmetries()
    if key_fn is None or not syms:
        return True
    words = tuple(state.words)
    k = tuple(key_fn(game.g, words))
    told = False
    for sym in syms:
        image = tuple(sym.state(words))
        if image != words:
            if tuple(key_fn(game.g, image)) == k:
                return False
            told = True
    return told


def is_compiled(game: Any, heuristic: Any = None, module: Any = None) -> bool:
    """Whether the kernel of search ``module`` (default: this one) bound to ``game`` and
    ``heuristic`` is compiled in this process."""
    fn, _ = heuristic_function(game, heuristic)
    ns = bind(game, module or sys.modules[__name__], fn, True)
    return len(getattr(ns.node, "signatures", ())) > 0


def speed_guess(jit: bool) -> float:
    """Nodes per second to plan the first iteration with (before any measurement)."""
    return 1.0e6 if jit else 2.0e4


__all__ = ["Search", "Result", "node", "heuristic_function", "heuristic_names", "WIN_SCALE", "DECISIVE", "FULL",
           "INF", "COMPILED_CLOCK"]
