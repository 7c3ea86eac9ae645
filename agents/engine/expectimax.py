"""Expectimax for any game of the engine, with alpha-beta pruning at decision nodes and
Ballard's Star1 pruning at chance nodes, a transposition table and iterative deepening (the
agent is :class:`ExpectimaxAgent`). On a game without chance it is fail-soft alpha-beta.

Value model (``tests/test_einstein_expectimax.py``'s plain expectimax implements it). Values
are **expected returns in outcome units** (``outcome``, at most ``Game.win_value`` in size),
seen from a player ``view`` passed down the tree, so that they can be averaged:
- terminal: ``outcome`` (player 0's return), negated for ``view == 1``;
- chance node: ``sum(chance_prob(a) * value(child a))`` over its outcomes, in their order;
  chance nodes use no depth;
- decision node of player ``m``: the maximum over its actions of the children's values seen by
  ``m`` (negated when ``m != view``); at ``depth == 0`` (or the ply cap) the heuristic
  ``evaluate(g, s, params)`` for ``m``, clipped to ``[-win_value, win_value]``.
Values do not depend on the distance from the root, so a table entry holds wherever its state
appears. Iterative deepening still plays the quickest certain win: the previous iteration's
move is searched first and a later move must beat it strictly.

Star1 (Ballard 1983, in the negamax form of Hauk, Buro and Schaeffer 2004): with outcome
values known to lie in ``[L, U] = [-win_value, win_value]``, after the outcomes seen so far
(``total`` = sum of ``p * v``, ``after`` = the probability left after outcome ``i``) outcome
``i`` is searched in the window ``((alpha - total - after * U) / p_i, (beta - total - after *
L) / p_i)``; a value outside it bounds the chance node outside ``(alpha, beta)`` and the rest
is skipped. Windows are widened by a relative ``MARGIN`` (far above float rounding), so a cut
never decides a value within rounding of the window: pruned and plain searches return the
same floats, bit for bit.

Star2 (``star2``, off by default): before Star1, each outcome that is a decision node is
probed by searching its first action only, which bounds it from one side (below for the
viewer's nodes, above for the opponent's); the probes' sums may cut at once and tighten
Star1's windows. Same values; on EinStein würfelt nicht! the probes cost more than they save
(depth 3, median of 8 positions: Star1 5,715 nodes, Star2 8,497, plain 8,343).

Compiled code: :func:`node` and the helpers that call it back (:func:`decision_node`,
:func:`chance_node`, :func:`star2_probes`) are inlined into one recursive function, each with a
single recursive call (numba types a recursive call by re-typing the whole function: once per
call site and pass, the bulk of the compile). The code switches :data:`CHANCE_CODE` and
:data:`STAR2_CODE` (:func:`code_flags`, per binding) leave out the chance code of a game without
chance and Star2's probes of a search without them.

Table: exact key (``key``), entries at decision nodes only: ``(depth + 1) << 35 | cut << 34 |
flag << 32 | (move + 1)`` and the value for the node's mover, used for a cut-off at the same
remaining depth only (so the table never changes a value), and its move ordered first.

Arrays as in :mod:`agents.engine.negamax` (whose table helpers this module imports): ``ints``
holds settings, per-ply action lists and the table; ``floats`` the heuristic's parameters from
0, then the settings at ``ints[X_FSET]`` and the root's child values.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from agents.engine.agents import DepthFirstAgent, DepthFirstSearch
from agents.engine.negamax import (
    CUT_SHIFT,
    DEPTH_SHIFT,
    INF,
    MOVE_MASK,
    Result,
    TableSearch,
    heuristic_function,
    key_words,
    prime_below,
    table_move_first,
    take_child,
    tt_decides,
    tt_find,
    tt_meta,
    tt_slot,
    tt_store,
)
from base.budget import NO_DEADLINE_NS, NO_LIMIT
from base.jit import hot, numba_available
from base.layout import Layout
from core.game import bind, constants_array, first_decision, kernel_state
from core.kernel_defaults import chance_prob, evaluate, key, legal, order, outcome, play, terminal, to_move

CHANCE = -1  # core.game.CHANCE (a literal: numba reads module globals as constants)
# Code switches, set per binding (:func:`code_flags`, core.game.bind's ``flags``): constants, so
# numba leaves out the chance code of a game without chance and Star2's probes of a search that
# never runs them (less to compile). The plain path takes the same branches.
CHANCE_CODE = True  # the game may have chance nodes (core.game.Game.has_chance)
STAR2_CODE = True  # the search may run Star2's probes (Search's ``star2``)
MARGIN = 1.0e-9  # relative widening of Star1's windows (float rounding is ~1e-16)

# Slots of ``ints`` (settings and counters; the action lists and the table follow the header).
SEARCH_INTS = Layout("X_", "NODES LIMIT ABORTED DEADLINE CLOCK_MASK BEST PRUNE USE_TT SIZE WORDS TT BUF STRIDE PLY_CAP "
                     "CUT ROOT_ALL ROOT_N FSET FTT STAR2 FSCR", size=24)
(X_NODES, X_LIMIT, X_ABORTED, X_DEADLINE, X_CLOCK_MASK, X_BEST, X_PRUNE, X_USE_TT, X_SIZE, X_WORDS, X_TT, X_BUF,
 X_STRIDE, X_PLY_CAP, X_CUT, X_ROOT_ALL, X_ROOT_N, X_FSET, X_FTT, X_STAR2, X_FSCR) = SEARCH_INTS.slots
# ``floats`` from ``ints[X_FSET]``: the outcome bound (win_value), then the root's child values.
XF_BOUND, XF_ROOTV = 0, 2


def code_flags(has_chance: bool, star2: bool) -> dict[str, bool]:
    """The code switches (:data:`CHANCE_CODE`, :data:`STAR2_CODE`) for a game with or without
    chance and a search with or without Star2: the overrides of :func:`core.game.bind`."""
    return {"CHANCE_CODE": bool(has_chance), "STAR2_CODE": bool(has_chance and star2)}


def bound_kernels(game: Any, heuristic_fn: Any, jit: bool | None, star2: bool) -> Any:
    """This module's kernels bound to ``game`` and a heuristic function (compiled or plain),
    without the code such a search never runs (:func:`code_flags`)."""
    return bind(game, sys.modules[__name__], heuristic_fn, jit, flags=code_flags(game.has_chance, star2))


@hot
def node(g, s, depth: int, ply: int, alpha: float, beta: float, view: int, ints, floats) -> float:
    """Value of ``s`` for player ``view`` (module docstring), fail-soft within ``(alpha, beta)``;
    with ``ints[X_PRUNE] == 0`` the exact expectimax value (every node, no table)."""
    if count_node(ints):
        return 0.0
    if terminal(g, s):
        o = outcome(g, s)
        return o if view == 0 else -o
    m = to_move(g, s)
    if CHANCE_CODE and m == CHANCE:
        return chance_node(g, s, depth, ply, alpha, beta, view, ints, floats)
    if m != view:  # a decision node of the other player: searched in its mover's view
        alpha, beta = -beta, -alpha
    v = decision_node(g, s, depth, ply, alpha, beta, ints, floats)
    return v if m == view else -v


@hot(inline=True)
def count_node(ints) -> bool:
    """Count a node; True (and ``X_ABORTED`` set) past the node limit or the deadline, read
    every ``ints[X_CLOCK_MASK] + 1`` nodes."""
    ints[X_NODES] += 1
    if ints[X_NODES] > ints[X_LIMIT] or ((ints[X_NODES] & ints[X_CLOCK_MASK]) == 0 and clock_ns() > ints[X_DEADLINE]):
        ints[X_ABORTED] = 1
        return True
    return False


@hot(inline=True)
def decision_node(g, s, depth: int, ply: int, alpha: float, beta: float, ints, floats) -> float:
    """Value of decision node ``s`` (not terminal) for its mover, fail-soft within ``(alpha,
    beta)``: the heuristic at the horizon, else a table probe and alpha-beta over its actions."""
    if depth <= 0 or ply >= ints[X_PLY_CAP]:
        ints[X_CUT] = 1
        top = floats[ints[X_FSET] + XF_BOUND]
        return min(top, max(-top, evaluate(g, s, floats)))
    prune = ints[X_PRUNE] != 0
    use_tt = prune and ints[X_USE_TT] != 0
    # The key has its own length (ConnectX: one word for a two-word state): one type for numba,
    # so it is made whether or not the table is used (``k = s`` here failed to compile there).
    k = key(g, s)
    words = ints[X_WORDS]
    slot, at, meta = 0, 0, 0
    if use_tt:
        slot, at = tt_slot(k, words, ints[X_SIZE], ints[X_TT])
        meta = tt_find(ints, at, k, words)
    if meta != 0 and ply > 0 and (meta >> DEPTH_SHIFT) - 1 == depth:
        v = floats[ints[X_FTT] + slot]
        if tt_decides(meta, v, alpha, beta):
            if (meta >> CUT_SHIFT) & 1:
                ints[X_CUT] = 1
            return v
    base = ints[X_BUF] + ply * ints[X_STRIDE]
    n = legal(g, s, ints, base)
    order(g, s, ints, base, n, floats)
    table_move_first(ints, base, n, (meta & MOVE_MASK) - 1)  # -1 without an entry
    m = to_move(g, s)
    root = ply == 0
    wide = not prune or (root and ints[X_ROOT_ALL] != 0)
    best, best_move, alpha0 = -INF, ints[base], alpha
    cut_outer = ints[X_CUT]  # the caller's flag; this node's own starts clear
    ints[X_CUT] = 0
    for i in range(n):
        c = play(g, s, ints[base + i])
        a = ints[base + i]
        lo, hi = (-INF, INF) if wide else (alpha, beta)
        v = node(g, c, depth - 1, ply + 1, lo, hi, m, ints, floats)
        if root:  # (an aborted search's values are never read)
            floats[ints[X_FSET] + XF_ROOTV + i] = v
            ints[X_ROOT_N] = i + 1
        if ints[X_ABORTED] != 0:
            return 0.0
        best, best_move, alpha, cut = take_child(v, a, best, best_move, alpha, beta, prune, wide)
        if cut:
            break
    if use_tt:  # ints[X_CUT] is still this node's own flag
        tt_store(ints, floats, at, ints[X_FTT] + slot, k, words, tt_meta(depth, ints[X_CUT], best, alpha0, beta, best_move),
                 best)
    ints[X_CUT] |= cut_outer
    if root:
        ints[X_BEST] = best_move
    return best


@hot(inline=True)
def chance_node(g, s, depth: int, ply: int, alpha: float, beta: float, view: int, ints, floats) -> float:
    """Value of chance node ``s`` for player ``view`` within ``(alpha, beta)``: the
    probability-weighted mean of its outcomes, each searched in Star1's window (module
    docstring; after Star2's probes when ``X_STAR2``); a value outside a window bounds the
    node outside ``(alpha, beta)`` and the rest is skipped."""
    if ply > ints[X_PLY_CAP]:  # a chain of chance nodes past the buffer: no estimate there
        ints[X_CUT] = 1
        return 0.0
    prune = ints[X_PRUNE] != 0
    top = floats[ints[X_FSET] + XF_BOUND]
    base = ints[X_BUF] + ply * ints[X_STRIDE]
    n = legal(g, s, ints, base)
    rest = 0.0
    for i in range(n):
        rest += chance_prob(g, s, ints[base + i])
    lb_rest = rest * -top  # sum of p * (lower bound) over the outcomes not yet searched
    ub_rest = rest * top
    sb = ints[X_FSCR] + ply * 2 * ints[X_STRIDE]  # per-outcome bounds (Star2's probes)
    if prune:
        for i in range(n):
            floats[sb + 2 * i] = -top
            floats[sb + 2 * i + 1] = top
    if STAR2_CODE and prune and ints[X_STAR2] != 0 and depth > 0:
        done, v, lb_rest, ub_rest = star2_probes(g, s, depth, ply, alpha, beta, view, ints, floats)
        if done:
            return v
    total = 0.0
    for i in range(n):
        a = ints[base + i]
        p = chance_prob(g, s, a)
        after = rest - p
        if after < 0.0:
            after = 0.0
        c = play(g, s, a)
        star1 = prune and p > 0.0
        lo, hi = -INF, INF
        if star1:
            lb_rest -= p * floats[sb + 2 * i]
            ub_rest -= p * floats[sb + 2 * i + 1]
            lo = (alpha - MARGIN * (1.0 + abs(alpha)) - total - ub_rest) / p
            hi = (beta + MARGIN * (1.0 + abs(beta)) - total - lb_rest) / p
        v = node(g, c, depth, ply + 1, lo, hi, view, ints, floats)
        if ints[X_ABORTED] != 0:
            return 0.0
        if star1 and v <= lo:
            return total + p * v + ub_rest
        if star1 and v >= hi:
            return total + p * v + lb_rest
        total += p * v
        rest = after
    return total


@hot(inline=True)
def star2_probes(g, s, depth: int, ply: int, alpha: float, beta: float, view: int, ints, floats):
    """Star2 at chance node ``s``: probe each outcome's first action; a decision node of the
    viewer gains a lower bound, one of the other player an upper bound (written to the node's
    bounds scratch). Returns ``(done, value, lb_sum, ub_sum)``: ``done`` when the probes decide
    the node (``value``) or the search aborted; else the probability-weighted bound sums."""
    top = floats[ints[X_FSET] + XF_BOUND]
    base = ints[X_BUF] + ply * ints[X_STRIDE]
    n = legal(g, s, ints, base)
    sb = ints[X_FSCR] + ply * 2 * ints[X_STRIDE]
    cb = ints[X_BUF] + (ply + 1) * ints[X_STRIDE]
    lb_done = 0.0  # sums over outcomes probed so far
    ub_done = 0.0
    for i in range(n):
        a = ints[base + i]
        p = chance_prob(g, s, a)
        left = 0.0
        for j in range(i + 1, n):
            left += chance_prob(g, s, ints[base + j])
        c = play(g, s, a)
        lb = -top
        ub = top
        if terminal(g, c):
            lb = outcome(g, c)
            if view == 1:
                lb = -lb
            ub = lb
        else:
            q = to_move(g, c)
            if q != CHANCE and p > 0.0 and ply + 1 < ints[X_PLY_CAP]:
                nc = legal(g, c, ints, cb)
                order(g, c, ints, cb, nc, floats)
                gc = play(g, c, ints[cb])
                mine = q == view  # the probe bounds the outcome below (the viewer's) or above
                if mine:
                    cap = (beta + MARGIN * (1.0 + abs(beta)) - lb_done + left * top) / p
                else:  # minus Star1's lower window edge, in q's view
                    cap = -((alpha - MARGIN * (1.0 + abs(alpha)) - ub_done - left * top) / p)
                w = node(g, gc, depth - 1, ply + 2, -INF, cap, q, ints, floats)
                if ints[X_ABORTED] != 0:
                    return True, 0.0, 0.0, 0.0
                if w >= cap:
                    return True, (lb_done + p * w - left * top) if mine else (ub_done - p * w + left * top), 0.0, 0.0
                if mine:
                    lb = w
                else:
                    ub = -w
        floats[sb + 2 * i] = lb
        floats[sb + 2 * i + 1] = ub
        lb_done += p * lb
        ub_done += p * ub
    return False, 0.0, lb_done, ub_done


from base.hotclock import clock_ns  # noqa: E402  (hot: bound by name like the kernels)


class Search(TableSearch):
    """The kernel bound to one game (and heuristic) with its own arrays and table; the same
    calls as :class:`agents.engine.negamax.Search` (``run``, ``root_values``,
    ``principal_variation``), so :class:`agents.engine.agents.DepthFirstAgent` drives it."""

    SLOTS: ClassVar[dict[str, Any]] = {
        "flags": {"prune": X_PRUNE, "use_tt": X_USE_TT, "root_all": X_ROOT_ALL, "star2": X_STAR2},
        "tt": X_TT, "nodes": X_NODES, "aborted": X_ABORTED, "best": X_BEST, "cut": X_CUT, "root_n": X_ROOT_N,
        "limit": X_LIMIT, "deadline": X_DEADLINE}

    def __init__(self, game: Any, heuristic: Any = None, params: Sequence[float] | None = None,
                 tt_bits: int = 18, jit: bool | None = None, prune: bool = True, use_tt: bool = True,
                 ply_cap: int = 64, root_all: bool = False, star2: bool = False) -> None:
        fn, default = heuristic_function(game, heuristic)
        self.game = game
        self.ns = bound_kernels(game, fn, jit, star2)
        self.jit = bool(self.ns.jit)
        self.g = constants_array(game, self.jit)
        words, stride = key_words(game), max(1, int(game.num_actions))  # table entries hold the key's words
        pr = [float(x) for x in (default if params is None else params)]
        if not self.jit:
            tt_bits = min(tt_bits, 18)
        size = prime_below(1 << max(4, int(tt_bits)))
        tt = SEARCH_INTS.size + (ply_cap + 2) * stride  # plies 0..ply_cap + 1 (a chance node just past the cap)
        fset = max(len(pr), 1)
        fscr = fset + XF_ROOTV + stride
        ftt = fscr + 2 * (ply_cap + 2) * stride  # Star2's bounds: two floats per outcome and ply
        head = [0] * tt
        head[X_LIMIT], head[X_DEADLINE] = NO_LIMIT, NO_DEADLINE_NS
        head[X_CLOCK_MASK] = 1023 if self.jit else 63
        head[X_PRUNE], head[X_USE_TT], head[X_ROOT_ALL] = int(prune), int(use_tt), int(root_all)
        head[X_SIZE], head[X_WORDS], head[X_TT], head[X_BUF], head[X_STRIDE], head[X_PLY_CAP] = size, words, tt, SEARCH_INTS.size, stride, ply_cap
        head[X_FSET], head[X_FTT], head[X_STAR2], head[X_FSCR] = fset, ftt, int(star2), fscr
        fhead = pr + [0.0] * (ftt - len(pr))
        fhead[fset + XF_BOUND] = float(game.win_value)
        self._allocate(head, fhead, tt + size * (words + 1), ftt + size)
        self.size, self.words, self.stride, self.ply_cap = size, words, stride, ply_cap

    def run(self, state: Any, depth: int, alpha: float = -INF, beta: float = INF,
            deadline_ns: int | None = None, node_limit: int | None = None) -> Result:
        """One call from ``state`` (a decision node, not terminal) to ``depth`` decision plies;
        the value is for the side to move. ``deadline_ns`` in ``time.perf_counter_ns`` units."""
        if depth > self.ply_cap:
            raise ValueError(f"depth {depth} exceeds this search's ply cap {self.ply_cap}")
        ints = self.ints
        self._start(deadline_ns, node_limit)
        me = state.current_player()
        v = self.ns.node(self.g, kernel_state(self.game, state.words, self.jit), int(depth), 0, float(alpha), float(beta),
                         int(me), ints, self.floats)
        chance = bool(getattr(self.game, "has_chance", False))
        return Result(float(v) + 0.0, int(ints[X_BEST]), bool(ints[X_ABORTED]), bool(ints[X_CUT]), chance, int(ints[X_NODES]))

    def root_values(self) -> list[tuple[int, float]]:
        """(action, value) of the root's children searched by the last call, in search order:
        exact with ``root_all``; otherwise exact for the best, bounds for the others."""
        n, fs, base = int(self.ints[X_ROOT_N]), int(self.ints[X_FSET]), SEARCH_INTS.size
        return [(int(self.ints[base + i]), float(self.floats[fs + XF_ROOTV + i]) + 0.0) for i in range(n)]

    def principal_variation(self, state: Any, first: int, value: float, limit: int = 64) -> list[int]:
        """The root's best action (after a chance node the line depends on the dice)."""
        return [first]


@dataclass
class ExpectimaxAgent(DepthFirstAgent):
    """Expectimax with Star1 pruning at chance nodes, alpha-beta at decision nodes, a table and
    iterative deepening to the deadline (on games without chance: alpha-beta). Values in
    ``info()`` are expected returns for the side to move in the game's outcome units."""

    star2: bool = False  # Star2: probe one action below each chance outcome first (same values; on EinStein more nodes)

    games: ClassVar[tuple[str, ...] | None] = None  # every game
    KERNEL_MODULE: ClassVar[str] = "agents.engine.expectimax"
    PVS: ClassVar[bool] = False

    def kernel_search(self, jit: bool) -> DepthFirstSearch:
        if jit not in self._searches:
            cap = self.max_depth if self.max_depth else self.deepening.ply_cap
            self._searches[jit] = Search(self.game, self.heuristic, self._params, tt_bits=self.tt_bits, jit=jit,
                                         ply_cap=cap, root_all=self.all_values, star2=self.star2)
        return self._searches[jit]

    def warm_up(self) -> float:
        """Compile the kernel for this game now (no-op without numba); returns seconds taken."""
        t0 = time.perf_counter()
        if numba_available() and self.game.fits_int64():
            state = first_decision(self.game)
            if state is not None:
                Search(self.game, self.heuristic, self._params, tt_bits=4, jit=True, ply_cap=2,
                       star2=self.star2).run(state, 1)
        self._gate.ready = True
        return time.perf_counter() - t0

    def _compiled(self) -> bool:
        """Whether this agent's kernel (its binding: :func:`bound_kernels`) is compiled in this process."""
        fn, _ = heuristic_function(self.game, self.heuristic)
        return len(getattr(bound_kernels(self.game, fn, True, self.star2).node, "signatures", ())) > 0



__all__ = ["ExpectimaxAgent", "Search", "node", "code_flags", "bound_kernels"]
