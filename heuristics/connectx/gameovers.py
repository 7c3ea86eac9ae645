"""gameovers: open lines ("ways the game can still be won") weighted by their stones, lines
with a single stone discounted, plus a bonus for double attacks; mine minus theirs.

An open line with ``n >= 2`` stones weighs ``n``; with one stone ``single_square``. A player
with ``t`` threat cells (empty cells that complete a line, reachable or not) gets
``double_attack * (t - 1)`` when ``t >= 2``: two threats are much harder to meet than one.
Exactly antisymmetric and mirror symmetric.
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import board_mask
from heuristics.connectx.lines import line_value, popcnt, threat_cells


@hot
def gameovers_side(me: int, other: int, mask: int, rows: int, columns: int, inarow: int, double_attack: float, single: float) -> float:
    total = line_value(me, other, rows, columns, inarow, 1.0, single)
    threats = popcnt(threat_cells(me, board_mask(rows, columns) & ~mask, rows, inarow))
    if threats >= 2:
        total += double_attack * (threats - 1)
    return total


@hot
def gameovers(current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    """params: (double_attack, single_square)."""
    other = current ^ mask
    return gameovers_side(current, other, mask, rows, columns, inarow, params[0], params[1]) - gameovers_side(
        other, current, mask, rows, columns, inarow, params[0], params[1]
    )
