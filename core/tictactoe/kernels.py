"""Tic-tac-toe on the kernel contract (:mod:`core.game`): the smallest complete example, and the
engine's test game (solved: a draw; 255,168 complete games).

State: ``(x, o)``, two 9-bit boards, cell ``3 * row + col``; X (player 0) moves first, so the side
to move follows from the stone counts. Action = cell. ``g`` is unused (``[0]``).
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import popcount as popcount9

LINES = (0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100, 0b100010001, 0b001010100)


@hot
def has_line(b: int) -> bool:
    for line in LINES:
        if b & line == line:
            return True
    return False


@hot
def to_move(g, s) -> int:
    return 0 if popcount9(s[0]) == popcount9(s[1]) else 1


@hot
def terminal(g, s) -> bool:
    return has_line(s[0]) or has_line(s[1]) or (s[0] | s[1]) == 511


@hot
def outcome(g, s) -> float:
    if has_line(s[0]):
        return 1.0
    if has_line(s[1]):
        return -1.0
    return 0.0


@hot
def legal(g, s, out, base) -> int:
    if terminal(g, s):
        return 0
    n = 0
    full = s[0] | s[1]
    for cell in range(9):
        if not (full >> cell) & 1:
            out[base + n] = cell
            n += 1
    return n


@hot
def play(g, s, a):
    if to_move(g, s) == 0:
        return (s[0] | (1 << a), s[1])
    return (s[0], s[1] | (1 << a))
