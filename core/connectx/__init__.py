"""ConnectX (Connect Four on any ``rows x columns``, ``inarow`` to win) as a :class:`core.game.Game`.

The fast ConnectX agents (perfect, negamax, mcts, ...) work on :class:`core.position.Position`;
this class is the same game for the game-generic tools (arena, web app, engine searches).
Actions are 0-based columns; people read and type 1-based columns (Pons' notation).
"""
from __future__ import annotations

from core import bitboard as bb
from core.game import Game, State, Symmetry
from core.position import Position
from core.shape import Shape


class ConnectX(Game):
    """Connect Four on any board: drop a stone, ``inarow`` in a line wins, full board draws."""

    name = "connectx"
    words = 2
    kernels = "core.connectx.kernels"
    heuristics = "heuristics.connectx"
    click_whole_column = True
    PARAMS = {
        "rows": (int, 6, "board rows"),
        "columns": (int, 7, "board columns"),
        "inarow": (int, 4, "stones in a line to win"),
    }

    def validate(self) -> None:
        self.shape = Shape(self.params["rows"], self.params["columns"], self.params["inarow"])
        self.num_actions = self.shape.columns

    def constants(self) -> list[int]:
        return [self.shape.rows, self.shape.columns, self.shape.inarow]

    def fits_int64(self) -> bool:
        return self.shape.bits <= 63

    def initial_words(self):
        return (0, 0)

    def action_to_string(self, state: State, action: int) -> str:
        return str(action + 1)

    def string_to_action(self, state: State, text: str) -> int:
        t = text.strip()
        if not t.isdigit() or not 1 <= int(t) <= self.shape.columns:
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
        rows, columns = self.shape.rows, self.shape.columns
        first = state.words[0] if bb.popcount(state.words[1]) % 2 == 0 else state.words[0] ^ state.words[1]
        out = []
        for r in range(rows - 1, -1, -1):
            line = []
            for c in range(columns):
                bit = 1 << (c * (rows + 1) + r)
                line.append("" if not state.words[1] & bit else "0" if first & bit else "1")
            out.append(line)
        return out

    def action_cell(self, state: State, action: int) -> tuple[int, int]:
        """The cell the stone lands on (grid rows count from the top)."""
        height = bb.popcount(state.words[1] & bb.column_mask(self.shape.rows, action))
        return (self.shape.rows - 1 - height, action)

    def render(self, state: State) -> str:
        return str(self.position(state))
