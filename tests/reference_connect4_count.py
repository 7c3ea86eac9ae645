"""A plain 2-D reference of count-the-fours Connect Four, written apart from core/ as a test oracle.

The board is a list of columns, each a list of marks from the bottom up (0 for player 0's
stones, 1 for player 1's). Gravity is "append to the column"; the score scans every cell and
every direction for a line of ``inarow`` cells of one mark. Nothing clever, nothing shared with
the bitboard kernels.
"""
from __future__ import annotations

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))  # (drow, dcol): up, right, up-right, up-left


class RefCount:
    def __init__(self, rows: int, columns: int, inarow: int = 4) -> None:
        self.rows, self.columns, self.inarow = rows, columns, inarow
        self.cols: list[list[int]] = [[] for _ in range(columns)]
        self.moves: list[int] = []

    def to_move(self) -> int:
        return len(self.moves) % 2

    def full(self) -> bool:
        return len(self.moves) == self.rows * self.columns

    def legal(self) -> list[int]:
        return [c for c in range(self.columns) if len(self.cols[c]) < self.rows]

    def play(self, col: int) -> None:
        assert col in self.legal(), (col, self.legal())
        self.cols[col].append(self.to_move())
        self.moves.append(col)

    def undo(self) -> None:
        self.cols[self.moves.pop()].pop()

    def cell(self, row: int, col: int) -> int | None:
        """The mark at (row, col), row 0 at the bottom; None if empty or off the board."""
        if 0 <= col < self.columns and 0 <= row < len(self.cols[col]):
            return self.cols[col][row]
        return None

    def scores(self) -> tuple[int, int]:
        """Lines of each player: every start cell, every direction, all ``inarow`` cells one mark."""
        found = [0, 0]
        for col in range(self.columns):
            for row in range(self.rows):
                for dr, dc in DIRECTIONS:
                    marks = {self.cell(row + k * dr, col + k * dc) for k in range(self.inarow)}
                    if len(marks) == 1 and None not in marks:
                        found[marks.pop()] += 1
        return found[0], found[1]

    def outcome(self) -> int:
        a, b = self.scores()
        return a - b

    def key(self) -> tuple:
        return tuple(tuple(c) for c in self.cols)

    def mirrored(self) -> RefCount:
        m = RefCount(self.rows, self.columns, self.inarow)
        for col in self.moves:
            m.play(self.columns - 1 - col)
        return m

    def text(self) -> str:
        """Rows top to bottom, X for player 0, O for player 1 (for failure messages)."""
        out = []
        for row in range(self.rows - 1, -1, -1):
            out.append(" ".join(".XO"[1 + m] if (m := self.cell(row, c)) is not None else "." for c in range(self.columns)))
        return "\n".join(out)


def ref_perft(board: RefCount, depth: int, memo: dict | None = None) -> int:
    """Move sequences of length ``depth`` (a full board before that counts nothing), memo on the grid."""
    if depth == 0:
        return 1
    if board.full():
        return 0
    memo = {} if memo is None else memo
    k = (board.key(), depth)
    if k not in memo:
        total = 0
        for col in board.legal():
            board.play(col)
            total += ref_perft(board, depth - 1, memo)
            board.undo()
        memo[k] = total
    return memo[k]
