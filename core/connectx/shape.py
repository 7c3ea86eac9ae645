"""The board's shape: ``rows x columns`` with ``inarow`` stones in a line to win."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from base.bounds import as_int
from core.connectx import bitboard

MAX_ROWS = 32
MAX_COLUMNS = 32
"""The largest board (1,056 bits with the sentinels): past 63 bits only the plain path runs,
every operation on Python ints of that size; 100,000 columns would take hours a move."""


@dataclass(frozen=True)
class Shape:
    """A ConnectX board shape. Kaggle's default is 6 rows, 7 columns, 4 in a row."""

    rows: int = 6
    columns: int = 7
    inarow: int = 4

    def __post_init__(self) -> None:
        for name in ("rows", "columns", "inarow"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be an int, got {value!r}")
            as_int(value, name, 1, {"rows": MAX_ROWS, "columns": MAX_COLUMNS}.get(name))
        if self.inarow > max(self.rows, self.columns):
            raise ValueError(
                f"inarow={self.inarow} is larger than the board ({self.rows} rows x {self.columns} columns):"
                " no line can be made"
            )

    @property
    def height(self) -> int:
        """Bits a column takes: its rows plus the empty sentinel."""
        return self.rows + 1

    @property
    def bits(self) -> int:
        """Bits a bitboard of this shape takes, sentinels included."""
        return self.columns * (self.rows + 1)

    @property
    def cells(self) -> int:
        return self.rows * self.columns

    @property
    def fits_int64(self) -> bool:
        """Whether numba's int64 kernels can hold this board (63 bits at most)."""
        return self.bits <= 63

    @cached_property
    def bottom_mask(self) -> int:
        return bitboard.bottom_mask(self.rows, self.columns)

    @cached_property
    def board_mask(self) -> int:
        return bitboard.board_mask(self.rows, self.columns)

    def center_order(self) -> tuple[int, ...]:
        """Columns from the centre outwards (left first on ties): the usual move order."""
        mid = (self.columns - 1) / 2
        return tuple(sorted(range(self.columns), key=lambda c: (abs(c - mid), c)))

    @classmethod
    def parse(cls, text: str) -> Shape:
        """``"6x7x4"`` -> ``Shape(6, 7, 4)``; ValueError saying what is wrong otherwise."""
        parts = str(text).strip().lower().split("x")
        if len(parts) != 3 or not all(p.isascii() and p.isdigit() and len(p) <= 9 for p in parts):
            raise ValueError(f"shape {text!r} must be ROWSxCOLUMNSxINAROW such as 6x7x4")
        rows, columns, inarow = (int(p) for p in parts)
        return cls(rows, columns, inarow)

    def __str__(self) -> str:
        return f"{self.rows}x{self.columns}x{self.inarow}"

    def game(self) -> Any:
        """ConnectX on this board (a :class:`core.connectx.game.ConnectX`): tools that take a
        game or a shape ask a shape for its game (:func:`util.arena.players.as_game`)."""
        import importlib

        games = importlib.import_module("core.games")  # not in submissions: by name, the game's module imports this one
        return games.make_game("connectx", rows=self.rows, columns=self.columns, inarow=self.inarow)


STANDARD = Shape(6, 7, 4)
