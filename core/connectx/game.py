"""ConnectX (Connect Four on any ``rows x columns``, ``inarow`` to win) as a :class:`core.game.Game`.

The fast ConnectX agents (perfect, negamax, mcts, ...) work on :class:`core.connectx.position.Position`;
this class is the same game for the game-generic tools (arena, web app, engine searches).
Actions are 0-based columns; people read and type 1-based columns (Pons' notation).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from base.params import Param, table
from core.connectx import bitboard as bb
from core.connectx import kernels as _kernels  # noqa: F401 (Game loads them by name: a bundle must carry them)
from core.connectx.position import Position
from core.connectx.shape import MAX_COLUMNS, MAX_ROWS, Shape
from core.game import Game, State, Symmetry, lines_through, picture_frame, picture_moves


def gravity_grid(words: tuple, rows: int, columns: int) -> list[list[str]]:
    """Rows of cell labels, top row first (``"0"`` first player, ``"1"`` second), of a
    ``(current, mask)`` state in the Tromp layout: the picture of every gravity game here."""
    current, mask = words
    first = current if bb.popcount(mask) % 2 == 0 else current ^ mask
    out = []
    for r in range(rows - 1, -1, -1):
        line = []
        for c in range(columns):
            bit = 1 << (c * (rows + 1) + r)
            line.append("" if not mask & bit else "0" if first & bit else "1")
        out.append(line)
    return out


def landing_cell(words: tuple, rows: int, column: int) -> tuple[int, int]:
    """Grid cell (row from the top, column) where a stone dropped in ``column`` lands."""
    height = bb.popcount(words[1] & bb.column_mask(rows, column))
    return (rows - 1 - height, column)


def gravity_picture(state: State, rows: int, columns: int, inarow: int, kind: str, **more) -> dict:
    """The picture of a gravity game (:meth:`Game.picture`): stones ``{"p": 0|1}``, a move
    per playable ``column`` with the ``cell`` its stone lands on, the lines of ``inarow`` made."""
    cells = [[None if not label else {"p": int(label)} for label in row]
             for row in gravity_grid(state.words, rows, columns)]
    moves = [{"action": a, "text": str(a + 1), "column": a, "cell": list(landing_cell(state.words, rows, a))}
             for a in picture_moves(state)]
    return picture_frame(state, kind, cells, ("Red", "Yellow"), moves, lines=lines_through(cells, inarow), **more)


class ConnectX(Game):
    """Connect Four on any board: drop a stone, ``inarow`` in a line wins, full board draws."""

    name = "connectx"
    words = 2
    kernels = "core.connectx.kernels"
    heuristics = "heuristics.connectx.engine"
    solve_front = "agents.connectx.solver"  # Pons' notation and scores (python -m agents.engine.solve --game connectx)
    click_whole_column = True
    kaggle_board_env = "connectx"
    kaggle_builtins = ("negamax", "random")
    action_noun = "column"
    PARAMS = table(
        Param("rows", 6, 1, MAX_ROWS, "board rows"),
        Param("columns", 7, 1, MAX_COLUMNS, "board columns"),
        Param("inarow", 4, 1, max(MAX_ROWS, MAX_COLUMNS), "stones in a line to win (at most max(rows, columns))"),
    )

    def validate(self) -> None:
        self.shape = Shape(self.params["rows"], self.params["columns"], self.params["inarow"])
        self.num_actions = self.shape.columns

    def positions_log10(self) -> float:
        return self.shape.rows * self.shape.columns * math.log10(3)  # each cell empty or a player's

    def constants(self) -> list[int]:
        # masks for the search hooks (core.connectx.search_hooks); last: 1 = Pons' score (core.connectx.pons)
        return [self.shape.rows, self.shape.columns, self.shape.inarow, self.shape.board_mask, self.shape.bottom_mask, 0]

    def fits_int64(self) -> bool:
        return self.shape.bits <= 63

    def initial_words(self):
        return (0, 0)

    def action_to_string(self, state: State, action: int) -> str:
        return str(action + 1)

    def string_to_action(self, state: State, text: str) -> int:
        t = text.strip()
        if not (t.isascii() and t.isdigit() and len(t) <= 3) or not 1 <= int(t) <= self.shape.columns:
            raise ValueError(f"{text!r} is not a column: write a number from 1 to {self.shape.columns}")
        return int(t) - 1

    def parse_moves(self, text: str) -> list[int]:
        """Pons' digits (``4453``) or 1-based columns separated by spaces or commas."""
        t = text.strip()
        tokens = t.replace(",", " ").split()
        if len(tokens) == 1 and self.shape.columns <= 9:
            tokens = list(tokens[0])
        return [self.string_to_action(None, tok) for tok in tokens]  # type: ignore[arg-type]

    def symmetries(self):
        rows, columns = self.shape.rows, self.shape.columns
        mirror = Symmetry("mirror", lambda w: (bb.mirror(w[0], rows, columns), bb.mirror(w[1], rows, columns)),
                          lambda a: columns - 1 - a)
        return [Symmetry("identity", lambda w: tuple(w), lambda a: a), mirror]

    def position(self, state: State) -> Position:
        """The state as the fast agents' :class:`Position`."""
        return Position(self.shape, state.words[0], state.words[1], bb.popcount(state.words[1]))

    def state_of(self, position: Position) -> State:
        return State(self, (position.current, position.mask))

    def grid(self, state: State) -> list[list[str]]:
        return gravity_grid(state.words, self.shape.rows, self.shape.columns)

    def action_cell(self, state: State, action: int) -> tuple[int, int]:
        return landing_cell(state.words, self.shape.rows, action)

    def render(self, state: State) -> str:
        return str(self.position(state))

    def picture(self, state: State) -> dict:
        """Red (first) and yellow stones; a whole column is one click; the winning line marked."""
        pic = gravity_picture(state, self.shape.rows, self.shape.columns, self.shape.inarow, "connectx")
        if state.is_terminal():
            pic["note"] = f"{self.shape.inarow} in a row" if pic["lines"] else "the board is full"
        return pic

    # --- the arena's hooks (core.game.Game): Kaggle's board, the opening suite, the old store keys
    def kaggle_observation(self, state: State, remaining: float = 60.0) -> dict:
        """Kaggle's ConnectX observation for the side to move."""
        position = self.position(state)
        return {"board": position.to_board(), "mark": position.side_to_move, "step": position.ply,
                "remainingOverageTime": remaining}

    def kaggle_configuration(self, time_per_move: float) -> dict:
        """Kaggle's ConnectX configuration of this board with ``actTimeout = time_per_move``."""
        s = self.shape
        return {"rows": s.rows, "columns": s.columns, "inarow": s.inarow, "actTimeout": time_per_move,
                "episodeSteps": 1000, "runTimeout": 1200, "timeout": time_per_move, "agentTimeout": 60}

    def opening_suite(self) -> list[tuple[int, ...]]:
        from core.connectx.openings import suite
        return suite(self.shape)

    def legacy_key(self) -> str:
        return str(self.shape)

    @classmethod
    def from_legacy_key(cls, text: str) -> ConnectX:
        s = Shape.parse(text)
        return cls(rows=s.rows, columns=s.columns, inarow=s.inarow)

    def max_plies(self) -> int:
        return self.shape.cells

    def illegal_action_text(self, state: State, action: int) -> str:
        why = "full" if 0 <= action < self.num_actions else f"out of range 0..{self.num_actions - 1}"
        return f"column {action} is {why}"  # as ConnectX players have always been told

    def input_hint(self, state: State) -> str:
        return f"1-{self.num_actions}"

    def refused_input_text(self, state: State, text: str) -> str:
        return f"column {text} is full: choose another"

    def play_kaggle(self, first: Any, second: Any, time_per_move: float, opening: Sequence[int] = ()) -> dict:
        from core.connectx.kaggle_play import play_kaggle
        return play_kaggle(first, second, self.shape, time_per_move, opening)

    def replay_html(self, moves: Sequence[int], forfeit_mark: int = 0) -> str:
        from core.connectx.kaggle_play import replay_html
        return replay_html(moves, self.shape, forfeit_mark)
