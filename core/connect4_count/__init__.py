"""Count-the-fours Connect Four (``connect4_count``) as a :class:`core.game.Game`.

The seeds' variant of Connect Four: the board fills up completely and every line of ``inarow``
stones counts a point (rules and state in :mod:`core.connect4_count.kernels`). Actions are
0-based columns; people read and type 1-based columns (Pons' notation, ``4453``).
"""
from __future__ import annotations

import math

from base.params import Param, table
from core.connect4_count import kernels as K
from core.connectx import bitboard as bb
from core.connectx.shape import MAX_COLUMNS, MAX_ROWS
from core.game import Game, State, Symmetry


def windows(rows: int, columns: int, inarow: int) -> list[tuple[tuple[int, int], ...]]:
    """Every line of ``inarow`` cells as ``(row, column)`` pairs (row 0 at the bottom)."""
    out = []
    for dr, dc in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for r in range(rows):
            for c in range(columns):
                cells = tuple((r + k * dr, c + k * dc) for k in range(inarow))
                if all(0 <= rr < rows and 0 <= cc < columns for rr, cc in cells):
                    out.append(cells)
    return out


def score_bound(rows: int, columns: int, inarow: int) -> int:
    """An upper bound on ``|outcome|``: at most the lines of the player with more stones
    (``ceil(cells / 2)``), and a player whose stones sit on cells lying in ``d_1, d_2, ...``
    windows makes at most ``sum(d_i) / inarow`` lines (each line uses ``inarow`` of them), so
    at most the sum of the largest ``ceil(cells / 2)`` degrees over ``inarow`` (and at most
    every window). Not tight, but a cheap honest scale for MCTS rewards."""
    lines = windows(rows, columns, inarow)
    degree: dict[tuple[int, int], int] = {}
    for cells in lines:
        for cell in cells:
            degree[cell] = degree.get(cell, 0) + 1
    stones = (rows * columns + 1) // 2
    top = sorted(degree.values(), reverse=True)[:stones]
    return min(len(lines), sum(top) // inarow)


class Connect4Count(Game):
    """Connect Four played to a full board; each line of inarow counts a point; return = difference."""

    name = "connect4_count"
    words = 2
    kernels = "core.connect4_count.kernels"
    heuristics = "heuristics.connect4_count"
    PARAMS = table(
        Param("rows", 6, 1, MAX_ROWS, "board rows"),
        Param("columns", 7, 1, MAX_COLUMNS, "board columns"),
        Param("inarow", 4, 2, max(MAX_ROWS, MAX_COLUMNS), "cells in a line that scores (2 .. max(rows, columns))"),
    )

    def __init__(self, **params) -> None:
        super().__init__(**params)
        # Instance attribute: the largest |outcome| depends on the shape.
        self.win_value = float(max(1, score_bound(self.rows, self.columns, self.inarow)))

    def positions_log10(self) -> float:
        return self.rows * self.columns * math.log10(3)  # each cell empty or a player's

    def validate(self) -> None:
        rows, columns, inarow = self.params["rows"], self.params["columns"], self.params["inarow"]
        if rows < 1 or columns < 1:
            raise ValueError(f"game {self.name!r}: rows={rows}, columns={columns}: both must be at least 1")
        if not 2 <= inarow <= max(rows, columns):
            raise ValueError(f"game {self.name!r}: inarow={inarow} must be from 2 to max(rows, columns) = "
                             f"{max(rows, columns)}, else no line fits or every stone is one")
        self.rows, self.columns, self.inarow = rows, columns, inarow
        self.bits = columns * (rows + 1)
        self.num_actions = columns

    def constants(self) -> list[int]:
        return [self.rows, self.columns, self.inarow, bb.board_mask(self.rows, self.columns), self.bits]

    def fits_int64(self) -> bool:
        return self.bits <= 63

    def initial_words(self):
        return (0, 0)

    def action_to_string(self, state: State, action: int) -> str:
        return str(action + 1)

    def string_to_action(self, state: State, text: str) -> int:
        t = str(text).strip()
        if not (t.isascii() and t.isdigit() and len(t) <= 3) or not 1 <= int(t) <= self.columns:
            raise ValueError(f"{text!r} is not a column: write a number from 1 to {self.columns}")
        col = int(t) - 1
        if state is not None and not bb.can_play(state.words[1], self.rows, col):
            raise ValueError(f"column {t} is full; playable: {' '.join(str(a + 1) for a in state.legal_actions())}")
        return col

    def parse_moves(self, text: str) -> list[int]:
        """Pons' digits (``4453``, boards of at most 9 columns) or 1-based columns separated by
        spaces or commas (``4 10 3``); legality is checked when the moves are played."""
        tokens = text.replace(",", " ").split()
        if len(tokens) == 1 and self.columns <= 9:
            tokens = list(tokens[0])
        return [self.string_to_action(None, tok) for tok in tokens]  # type: ignore[arg-type]

    def symmetries(self):
        rows, columns = self.rows, self.columns
        mirror = Symmetry("mirror", lambda w: (bb.mirror(w[0], rows, columns), bb.mirror(w[1], rows, columns)),
                          lambda a: columns - 1 - a)
        return [Symmetry("identity", lambda w: tuple(w), lambda a: a), mirror]

    def scores(self, state: State) -> tuple[int, int]:
        """Each player's lines on the board as it stands."""
        current, mask = state.words
        mover = K.to_move(self.g, state.words)
        mine = K.count_lines(current, self.rows, self.columns, self.inarow)
        theirs = K.count_lines(current ^ mask, self.rows, self.columns, self.inarow)
        return (mine, theirs) if mover == 0 else (theirs, mine)

    click_whole_column = True

    def grid(self, state: State) -> list[list[str]]:
        from core.connectx.game import gravity_grid

        return gravity_grid(state.words, self.rows, self.columns)

    def action_cell(self, state: State, action: int) -> tuple[int, int]:
        from core.connectx.game import landing_cell

        return landing_cell(state.words, self.rows, action)

    def picture(self, state: State) -> dict:
        """Connect Four's picture with every scoring line marked and each player's count."""
        from core.connectx.game import gravity_picture

        first, second = self.scores(state)
        note = f"{first} lines to {second}" if state.is_terminal() else ""
        return gravity_picture(state, self.rows, self.columns, self.inarow, "connectx", scores=[first, second], note=note)

    def extra(self, state: State) -> dict:
        first, second = self.scores(state)
        return {"lines": f"first {first}, second {second}"}

    def render(self, state: State) -> str:
        current, mask = state.words
        mover = K.to_move(self.g, state.words)
        p0 = current if mover == 0 else current ^ mask
        h = self.rows + 1
        lines = []
        for r in range(self.rows - 1, -1, -1):
            cells = []
            for c in range(self.columns):
                bit = 1 << (c * h + r)
                cells.append("X" if p0 & bit else "O" if mask & bit else ".")
            lines.append(" ".join(cells))
        lines.append(" ".join(str((c + 1) % 10) for c in range(self.columns)))
        x, o = self.scores(state)
        tail = "final" if K.terminal(self.g, state.words) else f"{'XO'[mover]} to move"
        lines.append(f"X {x} - O {o} ({tail})")
        return "\n".join(lines)
