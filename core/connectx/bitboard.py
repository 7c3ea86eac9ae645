"""Bitboard kernels in the Tromp/Pons layout, for any ``rows x columns x inarow``.

Each column takes ``rows + 1`` bits; bit ``col * (rows + 1) + row`` is the cell in that column
and row, row 0 at the **bottom**. The top bit of each column is a sentinel that is always
empty: it stops shifted lines from wrapping into the next column. A position is two integers:
``mask`` (every stone) and ``current`` (the stones of the side to move).

Every function here is hot (see :mod:`base.jit`): plain Python on unbounded ints, or compiled
by numba on int64 when the board fits 63 bits. They take the shape as plain ints so that the
compiled versions need no objects.
"""
from __future__ import annotations

from base.jit import hot


@hot
def bottom_mask(rows: int, columns: int) -> int:
    """One bit at the bottom cell of every column."""
    m = 0
    for c in range(columns):
        m |= 1 << (c * (rows + 1))
    return m


@hot
def board_mask(rows: int, columns: int) -> int:
    """Every playable cell (sentinels excluded)."""
    return bottom_mask(rows, columns) * ((1 << rows) - 1)


@hot
def column_mask(rows: int, col: int) -> int:
    """Every playable cell of column ``col``."""
    return ((1 << rows) - 1) << (col * (rows + 1))


@hot
def top_cell(rows: int, col: int) -> int:
    """The highest playable cell of column ``col``."""
    return 1 << (rows - 1 + col * (rows + 1))


@hot
def bottom_cell(rows: int, col: int) -> int:
    return 1 << (col * (rows + 1))


@hot
def can_play(mask: int, rows: int, col: int) -> bool:
    return (mask & top_cell(rows, col)) == 0


@hot
def move_bit(mask: int, rows: int, col: int) -> int:
    """The cell a stone dropped in ``col`` lands on (the column must not be full)."""
    return (mask + bottom_cell(rows, col)) & column_mask(rows, col)


@hot
def possible_moves(mask: int, rows: int, columns: int) -> int:
    """The landing cell of every column that is not full."""
    return (mask + bottom_mask(rows, columns)) & board_mask(rows, columns)


@hot
def has_won(stones: int, rows: int, inarow: int) -> bool:
    """True when ``stones`` (one player's) hold ``inarow`` in a line. Runs double along each
    direction (``m & m >> span``: a run of ``span`` becomes one of ``2 * span``), then one last
    overlapping step: two steps for four in a row, not three (it runs on every solver call)."""
    h = rows + 1
    if inarow == 4:  # the usual board: two steps a direction, no loop
        for shift in (1, h, h - 1, h + 1):
            m = stones & (stones >> shift)
            if m & (m >> (2 * shift)) != 0:
                return True
        return False
    for shift in (1, h, h - 1, h + 1):
        m = stones
        span = 1  # m: the cells that start a run of span stones
        while m != 0 and 2 * span <= inarow:
            d = span * shift
            m = m & (m >> d) if d < 63 else 0  # a shift past the board leaves nothing (compiled: below 64)
            span *= 2
        if m != 0 and span < inarow:
            d = (inarow - span) * shift
            m = m & (m >> d) if d < 63 else 0
        if m != 0:
            return True
    return False


@hot
def winning_cells(stones: int, mask: int, rows: int, columns: int, inarow: int) -> int:
    """Empty cells (reachable or not) where one more stone of ``stones`` makes a line.

    For each direction and each place ``j`` of the empty cell inside a line of ``inarow`` cells,
    the cell wins when all the other ``inarow - 1`` cells of that line hold a stone.
    """
    h = rows + 1
    bits = h * columns  # every stone lies below this bit, so a shift this long leaves nothing
    full = board_mask(rows, columns)
    result = 0
    for shift in (1, h, h - 1, h + 1):
        for j in range(inarow):
            m = full
            for i in range(inarow):
                if i == j:
                    continue
                d = (i - j) * shift  # offset from the empty cell to the stone at place i
                if d >= bits or -d >= bits:
                    m = 0  # also keeps compiled int64 shifts below 64
                elif d > 0:
                    m &= stones >> d
                else:
                    m &= stones << -d
                if m == 0:
                    break
            result |= m
    return result & full & ~mask


@hot
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@hot
def mirror(bits: int, rows: int, columns: int) -> int:
    """Left-right mirror image of a bitboard (sentinel bits included)."""
    h = rows + 1
    col = (1 << h) - 1
    out = 0
    for c in range(columns):
        out |= ((bits >> (c * h)) & col) << ((columns - 1 - c) * h)
    return out


@hot
def position_key(current: int, mask: int, rows: int, columns: int) -> int:
    """Exact unique key: in each column, the side to move's stones plus a bit above the top stone.

    ``mask + bottom_mask`` has, per column, exactly the bit just above the column's top stone, so
    ``current + mask + bottom_mask`` reads column by column as "which stones are the mover's,
    and how high the column is": unique, never zero, and below ``2 ** (columns * (rows + 1))``.
    """
    return current + mask + bottom_mask(rows, columns)


@hot
def mirror_key(current: int, mask: int, rows: int, columns: int) -> int:
    return position_key(mirror(current, rows, columns), mirror(mask, rows, columns), rows, columns)
