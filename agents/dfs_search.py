"""Depth-first search kernel: fail-soft alpha-beta or principal-variation search (negamax form)
with a transposition table, written once for numba and plain Python (see :mod:`util.jit`).

Value of a position for the side to move, at remaining depth ``depth`` (the model that
``tests/test_alphabeta.py``'s plain minimax oracle implements):
- the side to move can win at once: ``win_score(ply)``;
- the board is full: 0 (draw);
- ``depth == 0``: the heuristic (:func:`heuristics.connectx.evaluate.evaluate`);
- else the maximum over the legal moves of minus the child's value at ``depth - 1``.

``win_score`` is :data:`WIN_BASE` plus Pons' score: a win with fewer stones scores higher, a
loss with more stones scores higher (the loser's value is minus the winner's). Pons' score is
a function of the stone count at the end, so it does not depend on the path and table entries
need no ply correction. Heuristics stay far below ``WIN_BASE``.

Shortcuts that never change the value (proved in the comments where they are used): a move
under a cell where the opponent completes a line loses at once; if the opponent has a cell it
can play to win, only blocking it matters; two such cells lose; and so no node below the root
needs the "can I win at once" test. Moves are tried in the order: table move, then (with at
least ``ints[ORDER_DEPTH]`` plies left) by the number of threat cells the move creates, then
centre first.

Time: a call gets a node limit (``ints[LIMIT]``, from the speed the driver in
:mod:`agents.alphabeta` measured) and a deadline (``ints[DEADLINE]``, ``time.perf_counter_ns``
units) checked with :func:`clock_ns` every ``ints[CLOCK_MASK] + 1`` nodes (1024 compiled, 32
plain: about 0.3 ms and 2 ms); past either the search sets ``ints[ABORTED]`` and unwinds
without writing the table. numba has no clock of its own: compiled code reads
``clock_gettime`` through ctypes where that is the same clock as ``perf_counter`` (Linux,
checked at import), else only the node limit applies.

Two arrays carry everything (numpy when compiled, Python lists on the plain path, where list
indexing is several times faster and keys above 63 bits fit). Few array arguments matter:
numba passes each array as a struct and touches its reference count on every call.
- ``ints`` (int): the settings at the fixed slots below, the centre-first column order at
  ``ints[ORDER..]``, per-ply move lists at ``ints[ints[BUF] + ply * columns ..]`` (no
  allocation per node), and the table at ``ints[ints[TT] + 2 * slot]``: the exact key and
  ``depth << 10 | flag << 8 | move + 1`` side by side (one cache line);
- ``floats``: the heuristic's parameters at ``floats[0..]`` (so the array is also the
  ``params`` of :func:`heuristics.connectx.evaluate.evaluate`) and table values at
  ``floats[PARAMS + slot]``.
The table has ``ints[SIZE]`` slots, indexed by ``key % size`` (the same on both paths) and
always replaced.
"""
from __future__ import annotations

import sys

from core.connectx.bitboard import move_bit
from heuristics.connectx.evaluate import evaluate
from heuristics.connectx.lines import popcnt, threat_cells
from util.hotclock import COMPILED_CLOCK, clock_ns  # noqa: F401  (COMPILED_CLOCK: for the driver)
from util.jit import compiled, hot, is_hot

WIN_BASE = 1.0e6
INF = 1.0e9
NULL_WINDOW = 1.0e-7  # width of the PVS scout window; any positive width is exact
EXACT, LOWER, UPPER = 0, 1, 2

# Slots of ``ints``.
ROWS, COLUMNS, INAROW, KIND, ROOT_PLY, PVS, ORDER_DEPTH, BOARD, BOTTOM = 0, 1, 2, 3, 4, 5, 6, 7, 8
NODES, LIMIT, ABORTED, BEST, SIZE, BUF, TT, TT_DEPTH, DEADLINE, CLOCK_MASK = 9, 10, 11, 12, 13, 14, 15, 16, 17, 18
ORDER = 19  # first slot of the column order
PARAMS = 16  # floats[0:PARAMS] hold the heuristic's parameters




@hot
def win_score(ply: int, cells: int) -> float:
    """Value for the side to move at ``ply`` stones that wins with its next stone."""
    return WIN_BASE + float((cells + 1 - ply) // 2)


@hot
def column_of(bit: int, rows: int) -> int:
    """Column of a single-bit board (the lowest set bit)."""
    col = 0
    h = rows + 1
    while bit >= (1 << h):
        bit >>= h
        col += 1
    return col


@hot
def node(current: int, mask: int, ply: int, depth: int, alpha: float, beta: float, ints, floats) -> float:
    """Fail-soft value of the position (``current``: side to move's stones) within
    ``(alpha, beta)``; see the module docstring for the model and the arrays."""
    ints[NODES] += 1
    if ints[NODES] > ints[LIMIT] or ((ints[NODES] & ints[CLOCK_MASK]) == 0 and clock_ns() > ints[DEADLINE]):
        ints[ABORTED] = 1
        return 0.0
    rows = ints[ROWS]
    columns = ints[COLUMNS]
    inarow = ints[INAROW]
    cells = rows * columns
    root = ply == ints[ROOT_PLY]
    board = ints[BOARD]
    bottom = ints[BOTTOM]
    empty = board & ~mask
    possible = (mask + bottom) & board
    if root:
        # Below the root this test is never true: a parent only plays moves after which the
        # side to move (its opponent) has no playable threat cell (see ``threats`` below).
        wins = threat_cells(current, empty, rows, inarow) & possible
        if wins != 0:
            ints[BEST] = column_of(wins & -wins, rows)
            return win_score(ply, cells)
    if possible == 0:
        return 0.0
    if depth == 0:
        return evaluate(ints[KIND], current, mask, rows, columns, inarow, floats)
    other = current ^ mask
    # The opponent's threat cells. Every child we search is either the block of its only
    # playable one or a move that leaves none playable (moves right under one are scored
    # without search), and our stone adds no threat of theirs: so no child starts with a win
    # for its side to move, and children skip that test.
    threats = threat_cells(other, empty, rows, inarow)
    forced = threats & possible
    lose = -win_score(ply + 1, cells)  # the opponent wins with its next stone
    if forced != 0:
        if forced & (forced - 1):
            # Two cells the opponent can play to win: whatever we block, it plays the other.
            if root:
                ints[BEST] = column_of(forced & -forced, rows)
            return lose
        # Any other move lets the opponent win at once (value ``lose``); blocking is worth at
        # least ``lose`` (at worst the block opens a cell above it, the same loss), so the
        # maximum is the block's value.
        possible = forced
    # A move right under an opponent threat cell lets it win at once: value ``lose``.
    losing = possible & (threats >> 1)
    candidates = possible & ~losing
    best = -INF
    best_move = -1
    if losing != 0:
        best = lose
        best_move = column_of(losing & -losing, rows)
        if candidates == 0 or best >= beta:
            if root:
                ints[BEST] = best_move
            return best

    # The table is used at nodes with at least ints[TT_DEPTH] plies left: nodes next to the
    # leaves are many and cheap to search again, and a probe there is mostly a cache miss.
    use_tt = depth >= ints[TT_DEPTH]
    key = current + mask + bottom  # core.connectx.bitboard.position_key
    slot = key % ints[SIZE]
    at = ints[TT] + 2 * slot
    tt_mv = -1
    if use_tt and ints[at] == key:
        meta = ints[at + 1]
        tt_mv = (meta & 255) - 1
        if (meta >> 10) >= depth:
            v = floats[PARAMS + slot]
            flag = (meta >> 8) & 3
            if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                if root:
                    ints[BEST] = tt_mv
                return v

    # Move list for this ply: table move first, then by threats made, then centre first.
    base = ints[BUF] + ply * columns
    n = 0
    sort = depth >= ints[ORDER_DEPTH]
    for i in range(columns):
        col = ints[ORDER + i]
        bit = move_bit(mask, rows, col)
        if (candidates & bit) == 0:
            continue
        if col == tt_mv:
            score = 1 << 20
        elif sort:
            score = popcnt(threat_cells(current | bit, empty & ~bit, rows, inarow)) * 64 + (columns - i)
        else:
            score = columns - i
        # insertion sort, descending, stable (centre order on ties)
        j = n
        while j > 0 and (ints[base + j - 1] >> 8) < score:
            ints[base + j] = ints[base + j - 1]
            j -= 1
        ints[base + j] = (score << 8) | col
        n += 1

    alpha0 = alpha
    if best > alpha:
        alpha = best
    pvs = ints[PVS] != 0
    for i in range(n):
        col = ints[base + i] & 255
        bit = move_bit(mask, rows, col)
        if pvs and i > 0:
            v = -node(other, mask | bit, ply + 1, depth - 1, -alpha - NULL_WINDOW, -alpha, ints, floats)
            if v > alpha and v < beta and ints[ABORTED] == 0:
                v = -node(other, mask | bit, ply + 1, depth - 1, -beta, -alpha, ints, floats)
        else:
            v = -node(other, mask | bit, ply + 1, depth - 1, -beta, -alpha, ints, floats)
        if ints[ABORTED] != 0:
            return 0.0
        if v > best:
            best = v
            best_move = col
            if v > alpha:
                alpha = v
                if v >= beta:
                    break

    if best <= alpha0:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    else:
        flag = EXACT
    if use_tt:
        ints[at] = key
        ints[at + 1] = (depth << 10) | (flag << 8) | (best_move + 1)
        floats[PARAMS + slot] = best
    if root:
        ints[BEST] = best_move
    return best


# Compiled searches, one per heuristic, built once and never changed (like util.jit's cache):
# sharing them shares no mutable state between agents.
_SPECIALIZED: dict[str, object] = {}


def is_compiled(heuristic: str) -> bool:
    """Whether :func:`compiled_node` for ``heuristic`` has been compiled in this process."""
    node_fn = _SPECIALIZED.get(heuristic)
    return node_fn is not None and len(getattr(node_fn, "signatures", ())) > 0


def compiled_node(heuristic: str):
    """A numba-compiled :func:`node` whose ``evaluate`` is the one heuristic ``heuristic``.

    The full dispatcher would compile every heuristic (tens of seconds); this copy compiles
    only what the chosen heuristic reaches. Same source, same results (``kind`` is ignored by
    the stand-in). Raises ImportError without numba.
    """
    if heuristic not in _SPECIALIZED:
        import heuristics.connectx.evaluate as ev

        stand_in = getattr(compiled(ev), "evaluate_" + heuristic)
        _SPECIALIZED[heuristic] = compiled(sys.modules[__name__], {"evaluate": stand_in}).node
    return _SPECIALIZED[heuristic]
