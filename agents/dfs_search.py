"""Depth-first search kernel: fail-soft alpha-beta or principal-variation search (negamax form)
with a transposition table, written once for numba and plain Python (see :mod:`util.jit`).

Value of a position for the side to move, at remaining depth ``depth`` (the model that
``tests/test_alphabeta.py``'s plain minimax oracle implements):
- the side to move can win at once: ``win_score(ply)``;
- the board is full: 0 (draw);
- ``depth == 0``: the heuristic (:func:`heuristics.evaluate.evaluate`);
- else the maximum over the legal moves of minus the child's value at ``depth - 1``.

``win_score`` is :data:`WIN_BASE` plus Pons' score: a win with fewer stones scores higher, a
loss with more stones scores higher (the loser's value is minus the winner's). Pons' score is
a function of the stone count at the end, so it does not depend on the path and table entries
need no ply correction. Heuristics stay far below ``WIN_BASE``.

Shortcuts that never change the value (proved in the comments where they are used): a move
under a cell where the opponent completes a line loses at once; if the opponent has a cell it
can play to win, only blocking it matters; two such cells lose. Moves are tried in the order:
table move, then by the number of threat cells the move creates, then centre first.

Time: numba cannot read a clock cheaply, so a call gets a node limit (``stats[1]``) instead;
past it the search sets ``stats[2]`` and unwinds without writing the table. The driver in
:mod:`agents.alphabeta` turns the remaining time into a node limit from the speed it measured.

Arrays (numpy when compiled, Python lists on the plain path, where list indexing is several
times faster and keys above 63 bits fit):
- ``cfg`` int: rows, columns, inarow, heuristic id, root ply, PVS flag, ordering depth,
  board mask, bottom mask (the masks precomputed: loops over columns cost at every node);
- ``order`` int: the columns centre first;
- ``buf`` int, ``(cells + 1) * columns``: per-ply move list scratch (no allocation per node);
- ``tt_key``, ``tt_depth``, ``tt_flag``, ``tt_value``, ``tt_move``: the table, indexed by
  ``key % size`` (same index on both paths), always replaced;
- ``stats`` int: nodes, node limit, aborted flag, best root move.
"""
from __future__ import annotations

from core.bitboard import move_bit
from heuristics.evaluate import evaluate
from heuristics.lines import popcnt, threat_cells
from util.jit import hot

WIN_BASE = 1.0e6
INF = 1.0e9
NULL_WINDOW = 1.0e-7  # width of the PVS scout window; any positive width is exact
EXACT, LOWER, UPPER = 0, 1, 2


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
def node(current: int, mask: int, ply: int, depth: int, alpha: float, beta: float,
         cfg, order, params, buf, tt_key, tt_depth, tt_flag, tt_value, tt_move, stats) -> float:
    """Fail-soft value of the position (``current``: side to move's stones) within
    ``(alpha, beta)``; see the module docstring for the model and the arrays."""
    stats[0] += 1
    if stats[0] > stats[1]:
        stats[2] = 1
        return 0.0
    rows = cfg[0]
    columns = cfg[1]
    inarow = cfg[2]
    cells = rows * columns
    root = ply == cfg[4]
    board = cfg[7]
    bottom = cfg[8]
    empty = board & ~mask
    possible = (mask + bottom) & board
    wins = threat_cells(current, empty, rows, inarow) & possible
    if wins != 0:
        if root:
            stats[3] = column_of(wins & -wins, rows)
        return win_score(ply, cells)
    if possible == 0:
        return 0.0
    if depth == 0:
        return evaluate(cfg[3], current, mask, rows, columns, inarow, params)
    other = current ^ mask
    threats = threat_cells(other, empty, rows, inarow)
    forced = threats & possible
    lose = -win_score(ply + 1, cells)  # the opponent wins with its next stone
    if forced != 0:
        if forced & (forced - 1):
            # Two cells the opponent can play to win: whatever we block, it plays the other.
            if root:
                stats[3] = column_of(forced & -forced, rows)
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
                stats[3] = best_move
            return best

    key = current + mask + bottom  # core.bitboard.position_key
    size = len(tt_key)
    slot = key % size
    tt_mv = -1
    if tt_key[slot] == key:
        tt_mv = tt_move[slot]
        if tt_depth[slot] >= depth:
            v = tt_value[slot]
            flag = tt_flag[slot]
            if flag == EXACT:
                if root:
                    stats[3] = tt_mv
                return v
            if flag == LOWER and v >= beta:
                return v
            if flag == UPPER and v <= alpha:
                return v

    # Move list for this ply in buf[ply * columns ...]: table move first, then by threats made.
    base = ply * columns
    n = 0
    sort = depth >= cfg[6]
    for i in range(columns):
        col = order[i]
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
        while j > 0 and (buf[base + j - 1] >> 8) < score:
            buf[base + j] = buf[base + j - 1]
            j -= 1
        buf[base + j] = (score << 8) | col
        n += 1

    alpha0 = alpha
    if best > alpha:
        alpha = best
    pvs = cfg[5] != 0
    for i in range(n):
        col = buf[base + i] & 255
        bit = move_bit(mask, rows, col)
        if pvs and i > 0:
            v = -node(other, mask | bit, ply + 1, depth - 1, -alpha - NULL_WINDOW, -alpha,
                      cfg, order, params, buf, tt_key, tt_depth, tt_flag, tt_value, tt_move, stats)
            if v > alpha and v < beta and stats[2] == 0:
                v = -node(other, mask | bit, ply + 1, depth - 1, -beta, -alpha,
                          cfg, order, params, buf, tt_key, tt_depth, tt_flag, tt_value, tt_move, stats)
        else:
            v = -node(other, mask | bit, ply + 1, depth - 1, -beta, -alpha,
                      cfg, order, params, buf, tt_key, tt_depth, tt_flag, tt_value, tt_move, stats)
        if stats[2] != 0:
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
    tt_key[slot] = key
    tt_depth[slot] = depth
    tt_flag[slot] = flag
    tt_value[slot] = best
    tt_move[slot] = best_move
    if root:
        stats[3] = best_move
    return best
