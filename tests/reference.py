"""A plain 2-D ConnectX reference, written independently of core/ to serve as a test oracle.

The board is a list of rows, row 0 at the top, as Kaggle draws it. Nothing clever: a win is
found by walking every line through the last stone.
"""
from __future__ import annotations


class RefBoard:
    def __init__(self, rows: int, columns: int, inarow: int) -> None:
        self.rows, self.columns, self.inarow = rows, columns, inarow
        self.grid = [[0] * columns for _ in range(rows)]
        self.moves: list[int] = []
        self.winner = 0

    def mark_to_move(self) -> int:
        return 1 if len(self.moves) % 2 == 0 else 2

    def legal(self) -> list[int]:
        if self.winner or len(self.moves) == self.rows * self.columns:
            return []
        return [c for c in range(self.columns) if self.grid[0][c] == 0]

    def play(self, col: int) -> None:
        assert col in self.legal()
        mark = self.mark_to_move()
        row = max(r for r in range(self.rows) if self.grid[r][col] == 0)
        self.grid[row][col] = mark
        self.moves.append(col)
        if self.line_through(row, col):
            self.winner = mark

    def undo(self) -> None:
        col = self.moves.pop()
        row = min(r for r in range(self.rows) if self.grid[r][col] != 0)
        self.grid[row][col] = 0
        self.winner = 0

    def line_through(self, row: int, col: int) -> bool:
        mark = self.grid[row][col]
        for dr, dc in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.columns and self.grid[r][c] == mark:
                    n += 1
                    r, c = r + sign * dr, c + sign * dc
            if n >= self.inarow:
                return True
        return False

    def has_line(self, mark: int) -> bool:
        return any(self.grid[r][c] == mark and self.line_through(r, c) for r in range(self.rows) for c in range(self.columns))

    def is_draw(self) -> bool:
        return not self.winner and len(self.moves) == self.rows * self.columns

    def flat(self) -> list[int]:
        return [v for row in self.grid for v in row]

    def wins_if_played(self, col: int) -> bool:
        self.play(col)
        won = self.winner != 0
        self.undo()
        return won


def ref_perft(board: RefBoard, depth: int, memo: dict | None = None) -> int:
    """Perft with a memo on the exact grid (perft depends only on the position)."""
    if depth == 0:
        return 1
    memo = {} if memo is None else memo
    key = (tuple(board.flat()), depth)
    if key in memo:
        return memo[key]
    total = 0
    for col in board.legal():
        board.play(col)
        total += 1 if (depth == 1 or board.winner) else ref_perft(board, depth - 1, memo)
        board.undo()
    memo[key] = total
    return total
