"""Hot kernels of the exact solver: negamax with alpha-beta on the exact game score.

Ideas from Pascal Pons' public write-up (blog.gamesolver.org), written anew here: null-window
searches that narrow ``[min, max]`` on the score, a mask of moves that do not lose at once,
moves ordered by the number of winning cells they create (centre first on ties), and a
transposition table of bounds with partial keys.

Score convention (Pons' for 6x7, general for any shape): a win by the stone played after ``q``
plies scores ``(cells + 1 - q) // 2`` for the winner and minus that for the loser; 0 is a draw.
For 6x7 this is ``22 - stones the winner played``. Scores are for the side to move.

Every function is plain Python marked ``@hot`` (:mod:`util.jit`): numba compiles it on int64
when the board fits 63 bits; otherwise it runs on Python ints for any board size. State lives
in arrays the caller owns (:class:`agents.solver.Solver`): the transposition ``table``, the
per-ply move buffer ``buf`` and ``stats`` = [nodes, node limit, aborted, deadline]. Few arrays
on purpose: each one is passed down every recursive call. The deadline (``time.perf_counter_ns``
units) is read every 1024 nodes through :func:`util.hotclock.clock_ns`, so a solve stops in
time even when the machine slows down after the node limit was planned.
"""
from __future__ import annotations

from core.connectx.bitboard import popcount
from core.connectx.threats import win_cells  # noqa: F401  (also sk.win_cells for agents.solver)
from util.budget import NO_DEADLINE_NS as NO_DEADLINE  # noqa: F401  (one owner of time; the driver reads it here)
from util.hotclock import clock_ns
from util.jit import hot

# ``stats`` slots.
NODES = 0
LIMIT = 1
ABORTED = 2
DEADLINE = 3
STATS = 4  # slots

# Table values: ``(score + VALUE_BIAS) * 2 + is_lower_bound`` (never 0), in the low VALUE_BITS
# bits of a slot; the bits above hold the partial key. An empty slot is 0.
VALUE_BIAS = 1024
VALUE_BITS = 16
VALUE_MASK = (1 << VALUE_BITS) - 1
# Move buffer entries: ``winning_cells * ORDER_SPAN + (ORDER_SPAN - 1 - rank)``, sorted descending.
ORDER_SPAN = 4096


@hot
def non_losing_moves(current: int, mask: int, rows: int, columns: int, inarow: int, bottom: int, full: int) -> int:
    """Landing cells of the moves that do not let the opponent win on the next ply.

    Assumes the side to move cannot win at once. A forced block is the only candidate; two
    threats to block mean every move loses (0). A cell right below an opponent's winning cell
    is never played: it would give that cell away.
    """
    possible = (mask + bottom) & full
    opp_win = win_cells(current ^ mask, mask, rows, columns, inarow, full)
    forced = possible & opp_win
    if forced != 0:
        if forced & (forced - 1) != 0:
            return 0
        possible = forced
    return possible & ~(opp_win >> 1)


@hot
def can_win_next(current: int, mask: int, rows: int, columns: int, inarow: int, bottom: int, full: int) -> bool:
    return (win_cells(current, mask, rows, columns, inarow, full) & (mask + bottom) & full) != 0


@hot
def tt_get(table, key: int) -> int:
    """The stored value of ``key`` or 0. Slot ``key % size`` keeps ``key // size + 1`` as its
    partial key: (slot, partial key) gives the key back exactly, so a hit is never a collision."""
    size = table.shape[0]
    e = table[key % size]
    if (e >> VALUE_BITS) == key // size + 1:
        return e & VALUE_MASK
    return 0


@hot
def tt_put(table, key: int, value: int) -> None:
    """Always replace: recent entries are the useful ones."""
    size = table.shape[0]
    table[key % size] = ((key // size + 1) << VALUE_BITS) | value


@hot
def negamax(current, mask, ply, alpha, beta, rows, columns, inarow, bottom, full, order, table, buf, stats):
    """Score of the position within ``(alpha, beta)``: a result ``<= alpha`` is an upper bound,
    ``>= beta`` a lower bound, in between exact. The side to move must not have a win at once.
    Returns 0 with ``stats[ABORTED]`` set once the node limit or the deadline is passed (result
    meaningless)."""
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT] or ((stats[NODES] & 1023) == 0 and clock_ns() > stats[DEADLINE]):
        stats[ABORTED] = 1
        return 0
    cells = rows * columns
    nxt = non_losing_moves(current, mask, rows, columns, inarow, bottom, full)
    if nxt == 0:  # every move lets the opponent win on the next ply
        return -((cells - ply) // 2)
    if ply >= cells - 2:  # we do not lose next, and the opponent's last stone cannot win
        return 0
    lo = -((cells - 2 - ply) // 2)  # the opponent cannot win before its second move from here
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (cells - 1 - ply) // 2  # we cannot win before our second move from here
    key = current + mask + bottom
    v = tt_get(table, key)
    if v != 0:
        s = (v >> 1) - VALUE_BIAS
        if (v & 1) == 1:  # lower bound
            if alpha < s:
                alpha = s
                if alpha >= beta:
                    return alpha
        elif hi > s:  # upper bound
            hi = s
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    # Order the moves: most winning cells first, the centre first on ties (insertion sort).
    n = 0
    col_bits = (1 << rows) - 1
    h = rows + 1
    for i in range(columns):
        mv = nxt & (col_bits << (order[i] * h))
        if mv != 0:
            e = popcount(win_cells(current | mv, mask | mv, rows, columns, inarow, full)) * ORDER_SPAN + (ORDER_SPAN - 1 - i)
            j = n
            while j > 0 and buf[ply, j - 1] < e:
                buf[ply, j] = buf[ply, j - 1]
                j -= 1
            buf[ply, j] = e
            n += 1
    for i in range(n):
        rank = ORDER_SPAN - 1 - (buf[ply, i] % ORDER_SPAN)
        mv = nxt & (col_bits << (order[rank] * h))
        s = -negamax(current ^ mask, mask | mv, ply + 1, -beta, -alpha, rows, columns, inarow, bottom, full, order, table, buf, stats)
        if stats[ABORTED] != 0:
            return 0
        if s >= beta:
            tt_put(table, key, (s + VALUE_BIAS) * 2 + 1)
            return s
        if s > alpha:
            alpha = s
    tt_put(table, key, (alpha + VALUE_BIAS) * 2)
    return alpha


@hot
def half_toward_zero(x: int) -> int:
    return x // 2 if x >= 0 else -((-x) // 2)


@hot
def solve(current, mask, ply, weak, rows, columns, inarow, bottom, full, order, table, buf, stats):
    """Exact score (``weak``: its sign only, -1/0/1) of a position that is not over.

    Null-window searches narrow ``[lo, hi]``; each probe sits halfway, pulled toward 0 so that
    the cheap win/loss questions come first. Returns 0 with ``stats[ABORTED]`` set on abort.
    """
    cells = rows * columns
    if ply >= cells:
        return 0
    if can_win_next(current, mask, rows, columns, inarow, bottom, full):
        s = (cells + 1 - ply) // 2
        return 1 if weak else s
    lo = -((cells - ply) // 2)
    hi = (cells + 1 - ply) // 2
    if weak:
        lo = -1
        hi = 1
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and half_toward_zero(lo) < med:
            med = half_toward_zero(lo)
        elif med >= 0 and half_toward_zero(hi) > med:
            med = half_toward_zero(hi)
        r = negamax(current, mask, ply, med, med + 1, rows, columns, inarow, bottom, full, order, table, buf, stats)
        if stats[ABORTED] != 0:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    if weak:
        return 1 if lo > 0 else (-1 if lo < 0 else 0)
    return lo


@hot
def probe(current, mask, ply, alpha, beta, rows, columns, inarow, bottom, full, order, table, buf, stats):
    """One window search (``negamax``) for callers that test a bound, e.g. "is this move optimal"."""
    cells = rows * columns
    if ply >= cells:
        return 0
    if can_win_next(current, mask, rows, columns, inarow, bottom, full):
        return (cells + 1 - ply) // 2
    return negamax(current, mask, ply, alpha, beta, rows, columns, inarow, bottom, full, order, table, buf, stats)
