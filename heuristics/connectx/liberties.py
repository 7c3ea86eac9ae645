"""liberties: how far each player's lines can still be extended; mine minus theirs.

For each direction, a *liberty* is an empty cell next to one of my stones along that direction
that lies in one of my open windows in that direction (a cell where the line can grow). The
score counts liberties over the four directions (a cell counts once per direction) plus
``threat`` per threat cell (an empty cell that completes a line). Exactly antisymmetric; the
mirror swaps the two diagonals, so the sum over directions is mirror symmetric.
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import board_mask
from heuristics.connectx.lines import direction, lsh, open_windows, popcnt, rsh, threat_cells, window_starts


@hot
def liberties_side(me: int, other: int, mask: int, rows: int, columns: int, inarow: int, threat: float) -> float:
    board = board_mask(rows, columns)
    empty = board & ~mask
    count = 0
    for d in range(4):
        shift = direction(rows, d)
        w = open_windows(window_starts(board, shift, inarow), other, shift, inarow)
        if w == 0:
            continue
        covered = 0
        for k in range(inarow):
            covered |= lsh(w, k * shift)
        near = lsh(me, shift) | rsh(me, shift)
        count += popcnt(near & covered & empty)
    total = float(count)
    if threat != 0.0:
        total += threat * popcnt(threat_cells(me, empty, rows, inarow))
    return total


@hot
def liberties(current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    """params: (threat,)."""
    other = current ^ mask
    return liberties_side(current, other, mask, rows, columns, inarow, params[0]) - liberties_side(
        other, current, mask, rows, columns, inarow, params[0]
    )
