"""Tic-tac-toe: the engine's smallest game (see :mod:`core.tictactoe.kernels`)."""
from __future__ import annotations

import functools
import math

from core.game import Game, State, Symmetry, lines_through, picture_frame, picture_moves

_ROT = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # cell -> cell after a quarter turn clockwise
_FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]  # left-right mirror


def _perm_bits(b: int, perm: list[int]) -> int:
    return sum(1 << perm[c] for c in range(9) if (b >> c) & 1)


def _perm_state(s: tuple, perm: list[int]) -> tuple:
    return (_perm_bits(s[0], perm), _perm_bits(s[1], perm))


def _compose(p: list[int], q: list[int]) -> list[int]:
    return [q[p[c]] for c in range(9)]


class TicTacToe(Game):
    name = "tictactoe"
    words = 2
    num_actions = 9
    kernels = "core.tictactoe.kernels"

    def initial_words(self):
        return (0, 0)

    def positions_log10(self) -> float:
        return 9 * math.log10(3)  # each cell empty, X or O

    def action_to_string(self, state: State, action: int) -> str:
        return "abc"[action % 3] + str(3 - action // 3)

    def string_to_action(self, state: State, text: str) -> int:
        t = text.strip().lower()
        if len(t) != 2 or t[0] not in "abc" or t[1] not in "123":
            raise ValueError(f"{text!r} is not a cell: write a column a-c and a row 1-3, e.g. b2")
        return (3 - int(t[1])) * 3 + "abc".index(t[0])

    def symmetries(self):
        out = []
        perm = list(range(9))
        for flip in (False, True):
            p = _compose(perm, _FLIP) if flip else perm
            for r in range(4):
                pp = list(p)
                out.append(Symmetry(f"{'flip+' if flip else ''}rot{90 * r}",
                                    functools.partial(_perm_state, perm=pp), pp.__getitem__))
                p = _compose(p, _ROT)
        return out

    def grid(self, state: State) -> list[list[str]]:
        x, o = state.words
        return [["0" if (x >> (3 * r + c)) & 1 else "1" if (o >> (3 * r + c)) & 1 else "" for c in range(3)] for r in range(3)]

    def action_cell(self, state: State, action: int) -> tuple[int, int]:
        return divmod(action, 3)

    def picture(self, state: State) -> dict:
        """X (first) and O marks; a move is a ``cell``; the line of three marked."""
        cells = [[None if not label else {"p": int(label)} for label in row] for row in self.grid(state)]
        moves = [{"action": a, "text": self.action_to_string(state, a), "cell": list(divmod(a, 3))}
                 for a in picture_moves(state)]
        return picture_frame(state, "tictactoe", cells, ("X", "O"), moves, lines=lines_through(cells, 3))

    def render(self, state: State) -> str:
        x, o = state.words
        rows = []
        for r in range(3):
            rows.append(" ".join("X" if (x >> (3 * r + c)) & 1 else "O" if (o >> (3 * r + c)) & 1 else "." for c in range(3)))
        return "\n".join(rows)
