"""A ConnectX position as a small immutable value: two bitboards, the ply count and the shape.

``current`` holds the stones of the side to move, ``mask`` every stone (layout in
:mod:`core.connectx.bitboard`). Methods here run as plain Python on Python ints, exact for any board
size; search code that needs speed uses the compiled kernels on ``(current, mask)`` directly.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.connectx import bitboard as bb
from core.connectx.shape import STANDARD, Shape


class Position:
    """A legal ConnectX position. Build one with :meth:`empty`, :meth:`from_moves`,
    :meth:`from_board`, or :meth:`play` from another position."""

    __slots__ = ("shape", "current", "mask", "ply")

    def __init__(self, shape: Shape, current: int, mask: int, ply: int) -> None:
        # Trusted constructor: the public builders validate their input.
        self.shape = shape
        self.current = current
        self.mask = mask
        self.ply = ply

    # --- builders -------------------------------------------------------------------------
    @classmethod
    def empty(cls, shape: Shape = STANDARD) -> Position:
        return cls(shape, 0, 0, 0)

    @classmethod
    def from_moves(cls, moves: str | Iterable[int], shape: Shape = STANDARD, *, one_based: bool | None = None) -> Position:
        """Replay moves from the empty board.

        A string is Pons' notation: 1-based column digits (``"4453"``). A sequence of ints is
        0-based unless ``one_based=True``. Raises ValueError on a bad digit, a column out of
        range or full, or a move after the game has ended.
        """
        if isinstance(moves, str):
            text = moves.strip()
            if not (text.isascii() and text.isdigit()) and text != "":
                raise ValueError(f"move string {moves!r} must hold only column digits 1-{min(shape.columns, 9)}")
            if shape.columns > 9:
                raise ValueError("Pons' digit notation needs at most 9 columns; pass a list of ints instead")
            cols = [int(ch) - 1 for ch in text]
        else:
            cols = [int(c) - (1 if one_based else 0) for c in moves]
        pos = cls.empty(shape)
        for i, col in enumerate(cols):
            if pos.is_terminal():
                raise ValueError(f"move {i + 1} ({col + 1}) comes after the game has ended")
            pos = pos.play(col)
        return pos

    @classmethod
    def from_board(cls, board: Sequence[int], shape: Shape = STANDARD, mark: int | None = None) -> Position:
        """From Kaggle's flat board (index ``row * columns + col``, row 0 at the top; 0 empty,
        1 and 2 the players' marks; mark 1 moves first).

        The side to move follows from the stone counts; if ``mark`` is given it must agree.
        Raises ValueError naming the problem for a wrong length, an unknown value, a floating
        stone, impossible stone counts, or a game that ended before the last move.
        """
        rows, columns = shape.rows, shape.columns
        try:
            cells = list(board)
        except TypeError:
            raise ValueError(f"board must be a sequence of ints, got {type(board).__name__}") from None
        if len(cells) != rows * columns:
            raise ValueError(f"board has {len(cells)} cells, expected rows*columns = {rows}*{columns} = {rows * columns}")
        stones = [0, 0, 0]
        for i, v in enumerate(cells):
            if isinstance(v, bool) or not isinstance(v, int) or v not in (0, 1, 2):
                try:
                    ok = not isinstance(v, bool) and float(v) == int(v) and int(v) in (0, 1, 2)
                except (TypeError, ValueError, OverflowError):
                    ok = False
                if not ok:
                    raise ValueError(f"board cell {i} is {v!r}; cells must be 0 (empty), 1 or 2")
                cells[i] = int(v)
            stones[cells[i]] += 1
        n1, n2 = stones[1], stones[2]
        if n1 != n2 and n1 != n2 + 1:
            raise ValueError(f"impossible stone counts: {n1} of mark 1 and {n2} of mark 2 (mark 1 moves first)")
        to_move = 1 if n1 == n2 else 2
        if mark is not None and mark != to_move:
            raise ValueError(f"mark {mark} is not the side to move: the stone counts ({n1}, {n2}) say mark {to_move}")
        h = rows + 1
        mine = 0
        mask = 0
        for col in range(columns):
            seen_empty = False
            for row in range(rows):  # from the bottom: Kaggle row index rows-1-row
                v = cells[(rows - 1 - row) * columns + col]
                if v == 0:
                    seen_empty = True
                    continue
                if seen_empty:
                    raise ValueError(f"floating stone in column {col} (0-based): a stone above an empty cell")
                bit = 1 << (col * h + row)
                mask |= bit
                if v == to_move:
                    mine |= bit
        pos = cls(shape, mine, mask, n1 + n2)
        if bb.has_won(mine, rows, shape.inarow):
            raise ValueError(f"impossible position: mark {to_move} (to move) already has {shape.inarow} in a row")
        return pos

    # --- queries --------------------------------------------------------------------------
    @property
    def opponent(self) -> int:
        """Stones of the side that just moved."""
        return self.current ^ self.mask

    @property
    def side_to_move(self) -> int:
        """Kaggle mark (1 or 2) of the side to move."""
        return 1 + (self.ply & 1)

    def can_play(self, col: int) -> bool:
        return 0 <= col < self.shape.columns and bb.can_play(self.mask, self.shape.rows, col)

    def legal_columns(self) -> list[int]:
        """Columns that are not full (empty list once the game is over)."""
        if self.is_terminal():
            return []
        return [c for c in range(self.shape.columns) if bb.can_play(self.mask, self.shape.rows, c)]

    def is_winning_move(self, col: int) -> bool:
        """Whether dropping a stone in ``col`` makes a line for the side to move."""
        self._check_column(col)
        s = self.shape
        return bb.has_won(self.current | bb.move_bit(self.mask, s.rows, col), s.rows, s.inarow)

    def last_player_won(self) -> bool:
        return bb.has_won(self.opponent, self.shape.rows, self.shape.inarow)

    @property
    def winner(self) -> int:
        """Mark of the winner (only the side that just moved can have won), else 0."""
        return (2 - (self.ply & 1)) if self.ply and self.last_player_won() else 0

    def is_full(self) -> bool:
        return self.ply == self.shape.cells

    def is_draw(self) -> bool:
        return self.is_full() and not self.last_player_won()

    def is_terminal(self) -> bool:
        return self.is_full() or (self.ply > 0 and self.last_player_won())

    def key(self) -> int:
        """Exact unique key (see :func:`core.connectx.bitboard.position_key`)."""
        return bb.position_key(self.current, self.mask, self.shape.rows, self.shape.columns)

    def mirror_key(self) -> int:
        return bb.mirror_key(self.current, self.mask, self.shape.rows, self.shape.columns)

    def symmetric_key(self) -> int:
        """The same for a position and its mirror image: ``min(key, mirror_key)``."""
        return min(self.key(), self.mirror_key())

    def mirror(self) -> Position:
        s = self.shape
        return Position(s, bb.mirror(self.current, s.rows, s.columns), bb.mirror(self.mask, s.rows, s.columns), self.ply)

    def height(self, col: int) -> int:
        """Stones in column ``col``."""
        return bb.popcount(self.mask & bb.column_mask(self.shape.rows, col))

    # --- moves ----------------------------------------------------------------------------
    def play(self, col: int) -> Position:
        """The position after the side to move drops a stone in ``col`` (0-based)."""
        self._check_column(col)
        if self.is_terminal():
            raise ValueError("the game is over: no move can be played")
        new_mask = self.mask | bb.move_bit(self.mask, self.shape.rows, col)
        return Position(self.shape, self.current ^ self.mask, new_mask, self.ply + 1)

    def _check_column(self, col: int) -> None:
        if isinstance(col, bool) or not isinstance(col, int):
            raise ValueError(f"column must be an int, got {col!r}")
        if not 0 <= col < self.shape.columns:
            raise ValueError(f"column {col} is out of range 0..{self.shape.columns - 1}")
        if not bb.can_play(self.mask, self.shape.rows, col):
            raise ValueError(f"column {col} is full")

    # --- conversions ----------------------------------------------------------------------
    def to_board(self) -> list[int]:
        """Kaggle's flat board (row 0 at the top, marks 1 and 2)."""
        s = self.shape
        me, other = self.side_to_move, 3 - self.side_to_move
        board = [0] * s.cells
        for col in range(s.columns):
            for row in range(s.rows):
                bit = 1 << (col * s.height + row)
                if self.mask & bit:
                    board[(s.rows - 1 - row) * s.columns + col] = me if self.current & bit else other
        return board

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and self.shape == other.shape
            and self.current == other.current
            and self.mask == other.mask
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.current, self.mask))

    def __repr__(self) -> str:
        return f"Position(shape={self.shape}, ply={self.ply}, key={self.key():#x})"

    def __str__(self) -> str:
        s = self.shape
        symbols = {0: ".", 1: "X", 2: "O"}
        board = self.to_board()
        lines = [" ".join(symbols[board[r * s.columns + c]] for c in range(s.columns)) for r in range(s.rows)]
        lines.append(" ".join(str((c + 1) % 10) for c in range(s.columns)))
        return "\n".join(lines)
