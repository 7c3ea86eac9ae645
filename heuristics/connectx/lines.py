"""Line (window) counting on bitboards, shared by every heuristic.

A *window* is ``inarow`` cells in a row along one direction (shift 1 vertical, ``rows + 1``
horizontal, ``rows`` and ``rows + 2`` diagonal; layout in :mod:`core.connectx.bitboard`). A window is
named by its first cell, so a set of windows is a bitboard of start cells. The sentinel row
is never a board cell, so windows that would wrap across columns are excluded automatically.

Shifts go through :func:`core.connectx.threats.rsh` / ``lsh`` (exact on Python's unbounded
ints, defined on numba's int64); threat cells and bit counts are rule facts in :mod:`core.connectx.threats`.
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import board_mask

# The rule-level primitives, re-exported for the heuristics that import them from here.
from core.connectx.threats import bit_count, direction, lsh, popcnt, rsh, threat_cells  # noqa: F401


@hot
def window_starts(board: int, shift: int, inarow: int) -> int:
    """Start cells of the windows whose ``inarow`` cells are all on the board."""
    w = board
    for k in range(1, inarow):
        w &= rsh(board, k * shift)
    return w


@hot
def open_windows(starts: int, other: int, shift: int, inarow: int) -> int:
    """Windows among ``starts`` holding none of ``other``'s stones."""
    w = starts
    for k in range(inarow):
        w &= ~rsh(other, k * shift)
    return w


@hot
def count_planes(open_: int, stones: int, shift: int, inarow: int) -> tuple:
    """Bit-sliced counter, for ``inarow <= 7``: planes ``(b0, b1, b2)`` hold, per window start
    in ``open_``, the 3-bit count of ``stones`` in that window (cells added one at a time)."""
    b0 = 0
    b1 = 0
    b2 = 0
    for k in range(inarow):
        c = rsh(stones, k * shift) & open_
        t = b0 & c
        b0 ^= c
        c = t
        t = b1 & c
        b1 ^= c
        b2 ^= t
    return b0, b1, b2


@hot
def select_count(open_: int, b0: int, b1: int, b2: int, n: int) -> int:
    """Window starts of ``open_`` whose count in the planes of :func:`count_planes` is ``n``."""
    sel = open_
    sel &= b0 if n & 1 else ~b0
    sel &= b1 if n & 2 else ~b1
    sel &= b2 if n & 4 else ~b2
    return sel


@hot
def windows_with(open_: int, stones: int, shift: int, inarow: int, n: int) -> int:
    """Windows among ``open_`` holding exactly ``n`` of ``stones``: the bit-sliced counter of
    :func:`direction_counts` for ``inarow <= 7``, else :func:`windows_with_slow`."""
    if inarow > 7:
        return windows_with_slow(open_, stones, shift, inarow, n)
    b0, b1, b2 = count_planes(open_, stones, shift, inarow)
    return select_count(open_, b0, b1, b2, n)


@hot
def windows_with_slow(open_: int, stones: int, shift: int, inarow: int, n: int) -> int:
    """The same for any ``inarow`` (dynamic programming over the window's cells: ``e[j]`` =
    windows with ``j`` stones among the cells seen so far; a list, slower when compiled)."""
    e = [0] * (inarow + 1)
    e[0] = open_
    for k in range(inarow):
        x = rsh(stones, k * shift)
        for j in range(k + 1, 0, -1):
            e[j] = (e[j] & ~x) | (e[j - 1] & x)
        e[0] &= ~x
    return e[n]


@hot
def field_bits(rows: int, columns: int) -> int:
    """Width of one count field in a packed count (see :func:`direction_counts`): 9 bits hold
    the <= 4 * 63 windows of a board that fits int64 (7 fields fit 63 bits); bigger boards run
    as Python ints, where 32-bit fields cost nothing."""
    return 9 if (rows + 1) * columns <= 63 else 32


@hot
def direction_counts(open_: int, stones: int, shift: int, inarow: int, width: int) -> int:
    """Packed counts, for ``inarow <= 7``: field ``n - 1`` (``width`` bits each) holds how many
    windows of ``open_`` contain exactly ``n >= 1`` of ``stones``.

    A bit-sliced counter (planes b0, b1, b2 = a 3-bit count per window start) adds the window's
    cells one at a time; no allocation, so it is cheap when compiled. Integer counts make every
    heuristic built on them exactly mirror symmetric (float sums in a fixed order of ``n``).
    """
    b0, b1, b2 = count_planes(open_, stones, shift, inarow)
    packed = 0
    for n in range(1, inarow + 1):
        sel = select_count(open_, b0, b1, b2, n)
        if sel != 0:
            packed += lsh(popcnt(sel), width * (n - 1))
    return packed


@hot
def weigh(mine: int, theirs: int, inarow: int, width: int, power: float, single: float) -> float:
    """Sum over ``n`` of ``(count_mine(n) - count_theirs(n)) * weight(n)`` for two packed
    counts, where ``weight(n) = n ** power`` except ``weight(1) = single`` when ``single >= 0``.
    One power per ``n`` and exact negation when the two counts are swapped."""
    field = lsh(1, width) - 1
    total = 0.0
    for n in range(1, inarow + 1):
        c = (rsh(mine, width * (n - 1)) & field) - (rsh(theirs, width * (n - 1)) & field)
        if c != 0:
            if n == 1:
                total += c * (single if single >= 0.0 else 1.0)  # 1 ** power == 1
            else:
                total += c * float(n) ** power
    return total


@hot
def line_value(me: int, other: int, rows: int, columns: int, inarow: int, power: float, single: float) -> float:
    """Sum over ``me``'s open windows with ``n >= 1`` stones of ``n ** power``, except that a
    window with one stone weighs ``single`` when ``single >= 0``."""
    return line_diff(me, other, rows, columns, inarow, power, single, False)


@hot
def line_diff(me: int, other: int, rows: int, columns: int, inarow: int, power: float, single: float, both: bool) -> float:
    """:func:`line_value` of ``me``, minus that of ``other`` when ``both`` (one pass)."""
    board = board_mask(rows, columns)
    if inarow > 7:
        return line_value_slow(me, other, board, rows, inarow, power, single, both)
    width = field_bits(rows, columns)
    mine = 0
    theirs = 0
    for d in range(4):
        shift = direction(rows, d)
        starts = window_starts(board, shift, inarow)
        w = open_windows(starts, other, shift, inarow)
        if w != 0:
            mine += direction_counts(w, me, shift, inarow, width)
        if both:
            w = open_windows(starts, me, shift, inarow)
            if w != 0:
                theirs += direction_counts(w, other, shift, inarow, width)
    return weigh(mine, theirs, inarow, width, power, single)


@hot
def line_value_slow(me: int, other: int, board: int, rows: int, inarow: int, power: float, single: float, both: bool) -> float:
    """The same for any ``inarow`` (lists of counts; slower when compiled)."""
    cm = [0] * (inarow + 1)
    co = [0] * (inarow + 1)
    for d in range(4):
        shift = direction(rows, d)
        starts = window_starts(board, shift, inarow)
        w = open_windows(starts, other, shift, inarow)
        for n in range(1, inarow + 1):
            cm[n] += popcnt(windows_with_slow(w, me, shift, inarow, n))
        if both:
            w = open_windows(starts, me, shift, inarow)
            for n in range(1, inarow + 1):
                co[n] += popcnt(windows_with_slow(w, other, shift, inarow, n))
    total = 0.0
    for n in range(1, inarow + 1):
        weight = single if (n == 1 and single >= 0.0) else float(n) ** power
        total += (cm[n] - co[n]) * weight if both else cm[n] * weight
    return total
