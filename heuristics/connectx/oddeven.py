"""oddeven: bitsquares plus the odd/even threat terms of Connect Four endgames.

When the columns fill up, the first player tends to get the cells of odd rows (1st, 3rd, ...
counted from the bottom) and the second player those of even rows, so a threat on one's own
parity rows is worth more. Terms per player, mine minus theirs:
- ``power``: bitsquares part;
- ``threat_pair``: per pair of my threat cells stacked one on top of the other (whoever
  blocks the lower one lets me win on the upper one);
- ``parity_threat``: per threat cell of mine on my parity rows;
- ``parity_two``: per open window with ``inarow - 2`` of my stones whose two empty cells both
  lie on my parity rows.

The first player is the side to move when the stone count is even. Mirror symmetric. Swapping
the stones with the same mask keeps who is "first", so the parity terms are not antisymmetric
under a colour swap; with ``parity_threat = parity_two = 0`` the score is exactly antisymmetric.
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import board_mask, bottom_mask
from heuristics.connectx.lines import direction, line_diff, lsh, open_windows, popcnt, rsh, threat_cells, window_starts, windows_with


@hot
def parity_rows(rows: int, columns: int, first: bool) -> int:
    """Cells of the odd rows from the bottom (row index 0, 2, ...) for the first player, the
    even rows for the second."""
    bottom = bottom_mask(rows, columns)
    out = 0
    start = 0 if first else 1
    for r in range(start, rows, 2):
        out |= lsh(bottom, r)
    return out


@hot
def parity_extras(me: int, other: int, mask: int, rows: int, columns: int, inarow: int, params, first: bool) -> float:
    """The odd/even terms of one player (the bitsquares part is added once for both)."""
    pair, parity_threat, parity_two = params[1], params[2], params[3]
    if pair == 0.0 and parity_threat == 0.0 and parity_two == 0.0:
        return 0.0
    board = board_mask(rows, columns)
    threats = threat_cells(me, board & ~mask, rows, inarow)
    total = 0.0
    if pair != 0.0:
        total += pair * popcnt(threats & rsh(threats, 1))
    if parity_threat == 0.0 and parity_two == 0.0:
        return total
    good = parity_rows(rows, columns, first)
    if parity_threat != 0.0:
        total += parity_threat * popcnt(threats & good)
    if parity_two != 0.0 and inarow >= 2:
        bad_empty = board & ~mask & ~good
        count = 0
        for d in range(4):
            shift = direction(rows, d)
            w = open_windows(window_starts(board, shift, inarow), other, shift, inarow)
            if w == 0:
                continue
            w = windows_with(w, me, shift, inarow, inarow - 2)
            w = open_windows(w, bad_empty, shift, inarow)
            count += popcnt(w)
        total += parity_two * count
    return total


@hot
def oddeven(current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    """params: (power, threat_pair, parity_threat, parity_two)."""
    other = current ^ mask
    first = popcnt(mask) % 2 == 0
    lines = line_diff(current, other, rows, columns, inarow, params[0], -1.0, True)
    return lines + (parity_extras(current, other, mask, rows, columns, inarow, params, first)
                    - parity_extras(other, current, mask, rows, columns, inarow, params, not first))
