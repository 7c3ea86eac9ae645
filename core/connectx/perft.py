"""Perft: the number of move sequences of a given length from a position (games that end
early stop there). A standard check of move generation and win detection."""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import can_play, has_won, move_bit


@hot
def perft(current: int, mask: int, rows: int, columns: int, inarow: int, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for col in range(columns):
        if can_play(mask, rows, col):
            new_mask = mask | move_bit(mask, rows, col)
            mover = current | (new_mask ^ mask)
            if depth == 1 or has_won(mover, rows, inarow):
                total += 1
            else:
                total += perft(current ^ mask, new_mask, rows, columns, inarow, depth - 1)
    return total
