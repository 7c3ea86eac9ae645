"""Where one more stone completes a line, and the bit primitives behind it: rule facts of
ConnectX (a heuristic, a search hook and MCTS playouts all ask them), so they live with the
rules and ``heuristics/`` builds on them.

Shifts go through :func:`rsh` / :func:`lsh` so that the same source is exact on Python's
unbounded ints (boards over 63 bits) and defined on numba's int64 (a shift by 64 or more is
undefined behaviour in LLVM: they are split into steps of at most 62). Layout: :mod:`core.connectx.bitboard`.
"""
from __future__ import annotations

from base.hints import bit_count  # noqa: F401  (the CPU's popcount when compiled; heuristics import it from here)
from base.jit import hot


@hot
def rsh(x: int, n: int) -> int:
    while n > 62:
        x >>= 62
        n -= 62
    return x >> n


@hot
def lsh(x: int, n: int) -> int:
    """``x << n``; when compiled the bits above 63 wrap away, callers mask to the board."""
    while n > 62:
        x <<= 62
        n -= 62
    return x << n


@hot
def popcnt(x: int) -> int:
    """Number of set bits of a non-negative ``x``."""
    return bit_count(x)


@hot
def direction(rows: int, d: int) -> int:
    """Bit shift of direction ``d`` (0 vertical, 1 horizontal, 2 and 3 diagonals)."""
    if d == 0:
        return 1
    if d == 1:
        return rows + 1
    if d == 2:
        return rows
    return rows + 2


@hot
def threat_cells(stones: int, empty: int, rows: int, inarow: int) -> int:
    """Cells of ``empty`` where one more of ``stones`` completes a line (reachable or not).

    The same set as :func:`core.connectx.bitboard.winning_cells` with ``empty = board & ~mask``, but
    with the board mask passed in and each direction done as "``a`` stones on one side and
    ``inarow - 1 - a`` on the other": about 40 shift-and steps for 4 in a row, no loops over
    columns, which matters at every node of a search.
    """
    n1 = inarow - 1
    m = empty  # vertical: only stones below an empty cell can exist
    for k in range(1, n1 + 1):
        m &= lsh(stones, k)
    result = m
    for d in range(1, 4):
        shift = direction(rows, d)
        fwd = empty  # cells with a stone at +shift, ..., +a*shift
        for a in range(inarow):
            b = fwd
            for k in range(1, n1 - a + 1):
                b &= lsh(stones, k * shift)
                if b == 0:
                    break
            result |= b
            fwd &= rsh(stones, (a + 1) * shift)
            if fwd == 0:
                break
    return result & empty


@hot(inline=True)  # compiled into expand and order (a call cost ~15 instructions and its result's stores, per use)
def win_cells(stones: int, mask: int, rows: int, columns: int, inarow: int, full: int) -> int:
    """Empty cells where one more stone of ``stones`` completes a line (reachable or not); four
    in a row is unrolled (nine shift-and steps: this runs at every node of a solve), other
    lengths take :func:`threat_cells` (the same set, no loop over columns)."""
    if inarow != 4:
        return threat_cells(stones, full & ~mask, rows, inarow)
    h = rows + 1
    r = (stones << 1) & (stones << 2) & (stones << 3)  # vertical: only the cell above three
    for s in (h, h - 1, h + 1):
        p = (stones << s) & (stones << (2 * s))
        r |= p & (stones << (3 * s))  # three to the left (or below-left), cell on the right
        r |= p & (stones >> s)  # two on the left, one on the right
        p = (stones >> s) & (stones >> (2 * s))
        r |= p & (stones << s)  # one on the left, two on the right
        r |= p & (stones >> (3 * s))  # three on the right
    return r & (full ^ mask)
