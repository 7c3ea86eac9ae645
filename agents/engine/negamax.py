"""Depth-first search for any game: fail-soft alpha-beta in negamax form (optionally
principal-variation search), a transposition table on the game's ``key``, the actions of a
node from the game's ``expand`` hook (:mod:`core.kernel_expand`: decided positions, pruned and
ordered actions; default ``terminal``, ``legal``, ``order``) with the table move first; with
pruning off, the same kernel is plain minimax (every node, no table), which is what the
minimax agent and the bench count. Leaves (``depth == 0``) test ``terminal`` and evaluate.

Value model (for the side to move; the model ``tests/test_engine_search.py``'s brute force
implements). ``ply`` is the distance from the search's root:
- terminal: ``o * WIN_SCALE - ply`` when the mover's outcome ``o`` (``outcome`` seen from the
  side to move; a position ``expand`` decides ``d`` plies ahead: its ``o`` at ``ply + d``) is
  positive, ``o * WIN_SCALE + ply`` when negative, 0 for 0: the outcome scaled, and a win
  sooner (a loss later) preferred by 1 a ply;
- ``depth == 0`` (or ``ply`` at the buffer's cap): the heuristic ``evaluate(g, s, params)``;
- else the maximum over the actions of the child's value, negated when the child's side to
  move is the other player (a game may give a player two moves in a row);
- a child that is a chance node is a leaf: its value for the parent's mover is
  ``evaluate(g, child, params)`` (chance nodes belong to expectimax; the kernel never expands
  them, and raises the ``D_CHANCE_SEEN`` flag).
Heuristics must stay within ``±DECISIVE`` and a game's non-zero outcomes be at least 1 in size,
so that a proven result always beats an estimate. (The exact solver, on integer outcomes with
no ply bonus, is :mod:`agents.engine.exact`.)

Table values are stored relative to their node (a decisive value, ``|v| >= DECISIVE``, is
shifted by ``ply``, the chess engines' mate-distance correction), so an entry is valid wherever
its state appears. An entry is used for a cut-off only at the same remaining depth
(``D_TT_DEEPER`` also allows deeper ones: stronger, but no longer the fixed-depth value); depth
``>= FULL`` means "to the end" and never decreases. Each entry also keeps whether a
heuristic leaf lay below it (``cut`` flag): a root value found without one is proven.
With canonical keys (a symmetric image) an entry's move may not be ours: it only orders moves
when it is legal here, and the root never takes a table cut-off.

Time: ``ints[D_LIMIT]`` nodes and a deadline (``ints[D_DEADLINE]``, ``time.perf_counter_ns``
units) read with :func:`base.hotclock.clock_ns` every ``ints[D_CLOCK_MASK] + 1`` nodes; past
either the kernel sets ``ints[D_ABORTED]`` and unwinds without writing the table.

Two arrays carry everything (numpy compiled, lists plain; laid out by :class:`Search`):
``ints``: the header :data:`SEARCH_INTS` (settings and counters, ``D_*``), per-ply action lists
at ``ints[D_BUF] + ply * ints[D_STRIDE]``, the table at ``ints[D_TT] + slot * (words + 1)`` (the
key's words, then ``meta`` = ``(depth + 1) << 35 | cut << 34 | flag << 32 | (move + 1)``; 0 =
empty). ``floats``: the heuristic's parameters from 0 (the ``params`` of ``evaluate`` and
``order``), the root's child values at ``ints[D_FSET]``, the table's values at
``ints[D_FTT] + slot``.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from base.budget import NO_DEADLINE_NS, NO_LIMIT
from base.hotclock import COMPILED_CLOCK, clock_ns
from base.jit import hot
from base.layout import Layout
from core.game import CHANCE, bind, kernel_state, key_function, search_constants
from core.kernel_defaults import bounds, evaluate, key, outcome, play, terminal, to_move
from core.kernel_expand import expand

if TYPE_CHECKING:
    import numpy as np

WIN_SCALE = 1.0e6  # agents' value of an outcome of 1
DECISIVE = 5.0e5  # |value| from here on comes from a terminal state; heuristics stay below
INF = 1.0e300
FULL = 1 << 20  # a depth this large means "to the end of the game"
NULL_EPS = 1.0e-9  # relative width of the D_PVS scout window: any positive width is exact
EXACT, LOWER, UPPER = 0, 1, 2
MOVE_MASK = (1 << 16) - 1  # meta's low 16 bits: the move + 1 (actions below 65535)
FLAG_SHIFT, CUT_SHIFT, DEPTH_SHIFT = 32, 34, 35
HASH_P = 2147483647  # 2**31 - 1: the slot hash stays exact on both paths (no int64 overflow)
HASH_B = 1000003

# Slots of ``ints`` (settings and counters; the action lists and the table follow the header).
SEARCH_INTS = Layout("D_", "NODES LIMIT ABORTED DEADLINE CLOCK_MASK BEST PRUNE PVS USE_TT TT_DEEPER SIZE WORDS TT BUF "
                     "STRIDE PLY_CAP CUT CHANCE_SEEN ROOT_ALL ROOT_N USE_BOUNDS TT_MIN_DEPTH FSET FTT ORDER_DEPTH")
(D_NODES, D_LIMIT, D_ABORTED, D_DEADLINE, D_CLOCK_MASK, D_BEST, D_PRUNE, D_PVS, D_USE_TT, D_TT_DEEPER, D_SIZE, D_WORDS,
 D_TT, D_BUF, D_STRIDE, D_PLY_CAP, D_CUT, D_CHANCE_SEEN, D_ROOT_ALL, D_ROOT_N, D_USE_BOUNDS, D_TT_MIN_DEPTH, D_FSET,
 D_FTT, D_ORDER_DEPTH) = SEARCH_INTS.slots

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
def tt_store(ints, floats, at: int, fat: int, k, words: int, meta: int, stored: float) -> None:
    """Write an entry: key words and ``meta`` (:func:`tt_meta`) at ``ints[at:]``, the value
    ``stored`` (the node's, as the table keeps it) at ``floats[fat]`` (each search lays out its
    own arrays: callers pass both places)."""
    for i in range(words):
        ints[at + i] = k[i]
    ints[at + words] = meta
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
def terminal_value(o: float, ply: int) -> float:
    """Value of a finished game for the side to move, whose outcome is ``o``, ``ply`` plies from
    the root: the outcome times ``WIN_SCALE``, a win sooner (a loss later) better by 1 a ply."""
    if o > 0.0:
        return o * WIN_SCALE - ply
    if o < 0.0:
        return o * WIN_SCALE + ply
    return 0.0


@hot
def to_table(v: float, ply: int) -> float:
    """Root-relative value -> relative to the node at ``ply`` (decisive values only)."""
    if v >= DECISIVE:
        return v + ply
    if v <= -DECISIVE:
        return v - ply
    return v


@hot
def from_table(u: float, ply: int) -> float:
    if u >= DECISIVE:
        return u - ply
    if u <= -DECISIVE:
        return u + ply
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
    docstring: model and arrays). With ``ints[D_PRUNE] == 0``: the exact minimax value."""
    if count_node(ints):
        return 0.0
    if depth == 0 or ply >= ints[D_PLY_CAP]:
        return horizon(g, s, ply, ints, floats)
    # The game's view of the node (core.kernel_expand): decided, or the actions worth searching.
    base = ints[D_BUF] + ply * ints[D_STRIDE]
    n, o = expand(g, s, depth, ply, depth >= ints[D_ORDER_DEPTH], ints, base, floats)
    if n < 0:
        return decided(ints, floats, n, o, ply, base)
    prune = ints[D_PRUNE] != 0
    full = depth >= FULL
    if prune and full and ints[D_USE_BOUNDS] != 0:
        alpha, beta = bound_window(g, s, alpha, beta, ints)
        if alpha >= beta:
            return alpha
    use_tt = prune and ints[D_USE_TT] != 0 and (full or depth >= ints[D_TT_MIN_DEPTH])
    slot = 0
    at = 0
    if use_tt:  # the table (exact key: every word compared); its move, if here, first
        k = key(g, s)
        slot, at, tt_move, hit, v = probe(ints, floats, k, depth, ply, alpha, beta)
        if hit:
            return v
        table_move_first(ints, base, n, tt_move)
    root = ply == 0
    wide = not prune or (root and ints[D_ROOT_ALL] != 0)  # children get the full window
    pvs = prune and ints[D_PVS] != 0 and not wide
    child_depth = depth if full else depth - 1
    me = to_move(g, s)
    cut_outer = ints[D_CUT]
    ints[D_CUT] = 0
    alpha0 = alpha
    best = -INF
    best_move = ints[base]
    for i in range(n):
        a = ints[base + i]
        c = play(g, s, a)
        cm = to_move(g, c)
        same = cm == me
        if cm == CHANCE and not terminal(g, c):
            v = chance_leaf(g, c, ints, floats)
        else:  # windows as the child's mover sees them: negated when the other player moves
            again = True
            if pvs and i > 0:  # a scout window first; the full one when the child may improve
                top = alpha + NULL_EPS * (1.0 + abs(alpha))
                v = node(g, c, child_depth, ply + 1, alpha if same else -top, top if same else -alpha, ints, floats)
                v = v if same else -v
                again = v > alpha and v < beta and ints[D_ABORTED] == 0
            if again:
                lo, hi = (-INF, INF) if wide else ((alpha, beta) if same else (-beta, -alpha))
                v = node(g, c, child_depth, ply + 1, lo, hi, ints, floats)
                v = v if same else -v
        if ints[D_ABORTED] != 0:
            return 0.0
        if root:
            floats[ints[D_FSET] + i] = v
            ints[D_ROOT_N] = i + 1
        best, best_move, alpha, cut = take_child(v, a, best, best_move, alpha, beta, prune, wide)
        if cut:
            break
    cut_here = ints[D_CUT]
    ints[D_CUT] = cut_here | cut_outer
    if use_tt:
        meta = tt_meta(depth, cut_here, best, alpha0, beta, best_move)
        tt_store(ints, floats, at, ints[D_FTT] + slot, k, ints[D_WORDS], meta, to_table(best, ply))
    if root:
        ints[D_BEST] = best_move
    return best


@hot(inline=True)
def count_node(ints) -> bool:
    """Count a node; True (and ``D_ABORTED`` set) past the node limit or the deadline, read
    every ``ints[D_CLOCK_MASK] + 1`` nodes."""
    ints[D_NODES] += 1
    if ints[D_NODES] > ints[D_LIMIT] or ((ints[D_NODES] & ints[D_CLOCK_MASK]) == 0 and clock_ns() > ints[D_DEADLINE]):
        ints[D_ABORTED] = 1
        return True
    return False


@hot(inline=True)
def horizon(g, s, ply: int, ints, floats) -> float:
    """The value of ``s`` where the search stops (depth 0 or the ply cap): its outcome when
    terminal, else the heuristic (and the node is marked ``D_CUT``: not proven)."""
    if terminal(g, s):
        o = outcome(g, s)
        if to_move(g, s) == 1:
            o = -o
        return terminal_value(o, ply)
    ints[D_CUT] = 1
    return evaluate(g, s, floats)


@hot(inline=True)
def decided(ints, floats, n: int, o: float, ply: int, base: int) -> float:
    """The value of a node ``expand`` decided (the mover's outcome ``o``, ``-n - 1`` plies
    ahead); at the root, its move (listed at ``ints[base]``) is the best."""
    v = terminal_value(o, ply - n - 1)
    if ply == 0 and n < -1:
        ints[D_BEST] = ints[base]
        ints[D_ROOT_N] = 1
        floats[ints[D_FSET]] = v
    return v


@hot(inline=True)
def bound_window(g, s, alpha: float, beta: float, ints):
    """``(alpha, beta)`` narrowed by the game's ``bounds`` on the outcome of ``s`` (a search to
    the end; widened by a ply a step up to the ply cap). A window that closes is returned as
    ``(v, v)``, ``v`` the value that settles the node."""
    lo, hi = bounds(g, s)
    slack = float(ints[D_PLY_CAP])
    lo_v = lo * WIN_SCALE - slack
    hi_v = hi * WIN_SCALE + slack
    if lo_v > alpha:
        alpha = lo_v
        if alpha >= beta:
            return alpha, alpha
    if hi_v < beta:
        beta = hi_v
        if alpha >= beta:
            return beta, beta
    return alpha, beta


@hot(inline=True)
def probe(ints, floats, k, depth: int, ply: int, alpha: float, beta: float):
    """``(slot, at, move, hit, value)``: key ``k``'s table slot and where its entry starts; the
    entry's move (-1: none); ``hit`` when the entry settles the window ``(alpha, beta)`` at this
    depth (``D_TT_DEEPER``: or deeper; never at the root), with its ``value``."""
    words = ints[D_WORDS]
    slot, at = tt_slot(k, words, ints[D_SIZE], ints[D_TT])
    meta = tt_find(ints, at, k, words)
    if meta == 0:
        return slot, at, -1, False, 0.0
    move = (meta & MOVE_MASK) - 1
    d = (meta >> DEPTH_SHIFT) - 1
    if ply > 0 and (d == depth or (ints[D_TT_DEEPER] != 0 and d > depth)):
        v = from_table(floats[ints[D_FTT] + slot], ply)
        if tt_decides(meta, v, alpha, beta):
            if (meta >> CUT_SHIFT) & 1:
                ints[D_CUT] = 1
            return slot, at, move, True, v
    return slot, at, move, False, 0.0


@hot(inline=True)
def chance_leaf(g, c, ints, floats) -> float:
    """A child that is a chance node: a leaf valued by the heuristic (chance belongs to
    expectimax), counted, marked ``D_CUT`` and ``D_CHANCE_SEEN``."""
    ints[D_NODES] += 1
    ints[D_CUT] = 1
    ints[D_CHANCE_SEEN] = 1
    return evaluate(g, c, floats)


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
        self.ints: np.ndarray | list[int]
        self.floats: np.ndarray | list[float]
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
        "flags": {"prune": D_PRUNE, "pvs": D_PVS, "use_tt": D_USE_TT, "tt_deeper": D_TT_DEEPER, "root_all": D_ROOT_ALL,
                  "use_bounds": D_USE_BOUNDS, "tt_min_depth": D_TT_MIN_DEPTH, "order_depth": D_ORDER_DEPTH},
        "tt": D_TT, "nodes": D_NODES, "aborted": D_ABORTED, "best": D_BEST, "cut": D_CUT, "root_n": D_ROOT_N,
        "limit": D_LIMIT, "deadline": D_DEADLINE, "zero": (D_CHANCE_SEEN,)}

    def __init__(self, game: Any, heuristic: Any = None, params: Sequence[float] | None = None,
                 tt_bits: int = 18, jit: bool | None = None, prune: bool = True, pvs: bool = True,
                 use_tt: bool = True, tt_deeper: bool = False, tt_min_depth: int = 1,
                 ply_cap: int = 128, root_all: bool = False, use_bounds: bool | None = None,
                 order_depth: int = 0) -> None:
        """``heuristic``: a name of the game's heuristics (or a hot function; None: 0 at the
        horizon) with ``params`` (default: its defaults); ``tt_bits``: a table of about
        ``2 ** tt_bits`` entries (at most 2**18 on the plain path); ``jit``: compiled (None: when
        possible); ``prune``: alpha-beta (False: plain minimax, no table); ``pvs``: scout
        windows after the first child; ``use_tt``: the table; ``tt_deeper``: deeper entries also
        cut off; ``tt_min_depth``: the shallowest remaining depth that uses the table;
        ``ply_cap``: the deepest ply (evaluated there); ``root_all``: every root child gets an
        exact value; ``use_bounds``: the game's ``bounds`` hook narrows windows in searches to
        the end (None: when the game has one); ``order_depth``: the shallowest remaining depth
        at which ``expand`` orders actions."""
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
        buf = SEARCH_INTS.size
        tt = buf + (ply_cap + 2) * stride
        fset = max(len(pr), 1)  # the root's child values follow the heuristic's parameters
        ftt = fset + stride
        head = SEARCH_INTS.header(
            limit=NO_LIMIT, deadline=NO_DEADLINE_NS, clock_mask=1023 if self.jit else 63, prune=int(prune),
            pvs=int(pvs), use_tt=int(use_tt), tt_deeper=int(tt_deeper), size=size, words=words, tt=tt, buf=buf,
            stride=stride, ply_cap=ply_cap, root_all=int(root_all),
            use_bounds=int(hasattr(game.kernel_module, "bounds") if use_bounds is None else use_bounds),
            tt_min_depth=max(1, tt_min_depth), fset=fset, ftt=ftt, order_depth=max(0, int(order_depth)))
        head += [0] * (tt - len(head))
        fhead = pr + [0.0] * (ftt - len(pr))
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
        return Result(float(v) + 0.0, int(ints[D_BEST]), bool(ints[D_ABORTED]), bool(ints[D_CUT]), bool(ints[D_CHANCE_SEEN]), int(ints[D_NODES]))

    def root_values(self) -> list[tuple[int, float]]:
        """(action, value) of the root's children searched by the last call, in search order:
        exact with ``root_all``; otherwise exact for the best, bounds for the others."""
        n = int(self.ints[D_ROOT_N])
        fs = int(self.ints[D_FSET])
        base = int(self.ints[D_BUF])
        return [(int(self.ints[base + i]), float(self.floats[fs + i]) + 0.0) for i in range(n)]

    def lookup(self, state: Any, ply: int = 0) -> tuple[float, int, int, bool, int] | None:
        """``(value, flag, depth, cut, move)`` of ``state``'s table entry as seen at ``ply``, or None
        (``move``: the best action of whichever state wrote it, -1 if none)."""
        key_fn = key_function(self.game)
        k = tuple(int(w) for w in (key_fn(self.game.g, state.words) if key_fn else state.words))
        slot = slot_of(k, self.size)
        at = int(self.ints[D_TT]) + slot * (self.words + 1)
        meta = int(self.ints[at + self.words])
        if meta == 0 or tuple(int(x) for x in self.ints[at:at + self.words]) != k:
            return None
        v = from_table(float(self.floats[int(self.ints[D_FTT]) + slot]), ply)
        return v, (meta >> FLAG_SHIFT) & 3, (meta >> DEPTH_SHIFT) - 1, bool((meta >> CUT_SHIFT) & 1), (meta & MOVE_MASK) - 1

    def principal_variation(self, state: Any, first: int, value: float, limit: int = 64) -> list[int]:
        """The root's best action ``first``, then at each node the table's move when keys are
        exact (the game has no ``key`` hook or no symmetries); with canonical keys an entry's
        move may belong to a symmetric state, so a child is followed only when its exact entry
        (or terminal value) reproduces the node's value (``value``: the root's). Stops where
        the table cannot tell."""
        exact_keys = exact_key_hook(self.game, state)
        pv: list[int] = []
        s, v, ply = state, value, 0
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
                    got = terminal_value(r0 if c.current_player() == 0 else -r0, ply + 1)
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
