"""A plain Quixo, written from the rules text and not from the kernels: the tests' oracle.

The board is a list of rows (``board[y][x]``, x the column) of ``None`` (blank), 0 (crosses,
who move first) or 1 (circles). A move is ``(x, y, side)`` with ``side`` in TOP, BOTTOM,
LEFT, RIGHT: the cube at column x, row y is taken, marked with the mover's symbol and pushed
back in at that end of its column (TOP, BOTTOM) or row (LEFT, RIGHT).
"""
from __future__ import annotations

from dataclasses import dataclass, field

SIDES = ("TOP", "BOTTOM", "LEFT", "RIGHT")


@dataclass
class RefQuixo:
    n: int = 5
    max_plies: int = 0  # 0: no cap
    board: list = field(default=None)  # type: ignore[assignment]
    player: int = 0  # to move
    plies: int = 0

    def __post_init__(self) -> None:
        if self.board is None:
            self.board = [[None] * self.n for _ in range(self.n)]

    def copy(self) -> RefQuixo:
        return RefQuixo(self.n, self.max_plies, [row[:] for row in self.board], self.player, self.plies)

    def on_border(self, x: int, y: int) -> bool:
        return x in (0, self.n - 1) or y in (0, self.n - 1)

    def end_of(self, x: int, y: int, side: str) -> tuple[int, int]:
        last = self.n - 1
        return {"TOP": (x, 0), "BOTTOM": (x, last), "LEFT": (0, y), "RIGHT": (last, y)}[side]

    def moves(self) -> list[tuple[int, int, str]]:
        if self.is_over():
            return []
        out = []
        for y in range(self.n):
            for x in range(self.n):
                if not self.on_border(x, y) or self.board[y][x] == 1 - self.player:
                    continue
                for side in SIDES:
                    if self.end_of(x, y, side) != (x, y):  # not back where it came from
                        out.append((x, y, side))
        return out

    def play(self, move: tuple[int, int, str]) -> RefQuixo:
        x, y, side = move
        assert move in self.moves(), move
        nxt = self.copy()
        b = nxt.board
        if side in ("TOP", "BOTTOM"):
            column = [b[r][x] for r in range(self.n)]
            del column[y]
            column.insert(0 if side == "TOP" else self.n - 1, self.player)
            for r in range(self.n):
                b[r][x] = column[r]
        else:
            row = b[y][:]
            del row[x]
            row.insert(0 if side == "LEFT" else self.n - 1, self.player)
            b[y] = row
        nxt.player = 1 - self.player
        nxt.plies = self.plies + 1
        return nxt

    def lines(self) -> list[list]:
        n, b = self.n, self.board
        out = [row[:] for row in b] + [[b[r][c] for r in range(n)] for c in range(n)]
        out.append([b[i][i] for i in range(n)])
        out.append([b[i][n - 1 - i] for i in range(n)])
        return out

    def has_line(self, who: int) -> bool:
        return any(all(v == who for v in line) for line in self.lines())

    def winner(self) -> int | None:
        """The player who just moved is ``1 - player``: if they made their opponent's line,
        the opponent wins, whatever else they made."""
        if self.has_line(self.player):
            return self.player
        if self.has_line(1 - self.player):
            return 1 - self.player
        return None

    def is_over(self) -> bool:
        return self.winner() is not None or (self.max_plies > 0 and self.plies >= self.max_plies)

    def returns(self) -> tuple[float, float]:
        w = self.winner() if self.is_over() else None
        if w is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if w == 0 else (-1.0, 1.0)

    def planes(self) -> tuple[int, int]:
        """Bit (y * n + x) set for each cube of crosses, then of circles (for comparisons)."""
        xs = sum(1 << (y * self.n + x) for y in range(self.n) for x in range(self.n) if self.board[y][x] == 0)
        os_ = sum(1 << (y * self.n + x) for y in range(self.n) for x in range(self.n) if self.board[y][x] == 1)
        return xs, os_


def perft(pos: RefQuixo, depth: int) -> int:
    if depth == 0:
        return 1
    moves = pos.moves()
    if depth == 1:
        return len(moves)
    return sum(perft(pos.play(m), depth - 1) for m in moves)
