"""A plain Quantik written from the rules alone, as an oracle for core.quantik's bitboards.

The board is a 4x4 list of lists holding ``None`` or ``(colour, shape)``; no bit tricks, no
shared code with :mod:`core.quantik`. Moves are ``(row, col, shape)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field


def region_cells(row: int, col: int) -> set[tuple[int, int]]:
    """The cells of the row, the column and the 2x2 zone of (row, col)."""
    cells = {(row, c) for c in range(4)} | {(r, col) for r in range(4)}
    r0, c0 = 2 * (row // 2), 2 * (col // 2)
    cells |= {(r0 + i, c0 + j) for i in range(2) for j in range(2)}
    return cells


def lines() -> list[list[tuple[int, int]]]:
    out = [[(r, c) for c in range(4)] for r in range(4)]
    out += [[(r, c) for r in range(4)] for c in range(4)]
    out += [[(r0 + i, c0 + j) for i in range(2) for j in range(2)] for r0 in (0, 2) for c0 in (0, 2)]
    return out


@dataclass
class RefQuantik:
    to_move: int = 0
    board: list = field(default_factory=lambda: [[None] * 4 for _ in range(4)])

    def pieces_left(self, colour: int, shape: int) -> int:
        used = sum(1 for row in self.board for p in row if p == (colour, shape))
        return 2 - used

    def is_legal(self, row: int, col: int, shape: int) -> bool:
        if self.board[row][col] is not None or self.pieces_left(self.to_move, shape) <= 0:
            return False
        opponent = 1 - self.to_move
        return all(self.board[r][c] != (opponent, shape) for r, c in region_cells(row, col))

    def someone_completed(self) -> bool:
        for line in lines():
            shapes = [self.board[r][c][1] for r, c in line if self.board[r][c] is not None]
            if len(shapes) == 4 and len(set(shapes)) == 4:
                return True
        return False

    def moves(self) -> list[tuple[int, int, int]]:
        if self.someone_completed():
            return []
        return [(r, c, k) for r in range(4) for c in range(4) for k in range(4) if self.is_legal(r, c, k)]

    def is_over(self) -> bool:
        return self.someone_completed() or not self.moves()

    def winner(self) -> int | None:
        """The winner once over: whoever completed a line (the player who just moved), or the
        opponent of a player left with no legal placement."""
        if self.someone_completed():
            return 1 - self.to_move
        if not self.moves():
            return 1 - self.to_move
        return None

    def play(self, row: int, col: int, shape: int) -> RefQuantik:
        assert self.is_legal(row, col, shape)
        board = [list(r) for r in self.board]
        board[row][col] = (self.to_move, shape)
        return RefQuantik(1 - self.to_move, board)
