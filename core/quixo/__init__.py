"""Quixo (Gigamic) on n×n boards, n = 3, 4, 5: rules in :mod:`core.quixo.kernels`.

Text of an action: the course harness's convention ``x,y,SIDE`` with ``x`` the column and
``y`` the row of the cube taken (0-based, row 0 on top) and ``SIDE`` one of TOP, BOTTOM, LEFT,
RIGHT, the side where it is pushed back in: ``0,4,TOP``. Also read: the compact form ``04T``
(column digit, row digit, side initial) and ``0 4 TOP``-like forms with any separators of
``,;:/ `` inside one action. A line of several actions (:meth:`Quixo.parse_moves`) separates
them with spaces, semicolons or commas between complete actions (``04T 40L``, ``0,4,TOP 4,0,LEFT``).
"""
from __future__ import annotations

import functools
import math
import re

from base.params import Param, table
from core.game import Game, State, Symmetry, lines_through, picture_frame, picture_moves
from core.quixo import kernels as K


def _perm_plane(b: int, perm: list[int]) -> int:
    return sum(1 << perm[c] for c in range(len(perm)) if (b >> c) & 1)


def _perm_state(s: tuple, perm: list[int], swap: bool) -> tuple:
    """``s`` under the cell map ``perm``, the symbols (and the side to move) swapped if ``swap``."""
    if swap:
        return (_perm_plane(s[1], perm), _perm_plane(s[0], perm), s[2] ^ 1)
    return (_perm_plane(s[0], perm), _perm_plane(s[1], perm), s[2])


class Quixo(Game):
    """Quixo: take a blank or own border cube, push it back in at an end of its row or column."""

    name = "quixo"
    words = 3
    kernels = "core.quixo.kernels"
    heuristics = "heuristics.quixo"
    PARAMS = table(
        Param("size", 5, 3, 5, "board side n (3, 4 or 5); a line is n long"),
        Param("max_plies", 200, 0, 1_000_000, "ply cap: the game is a draw after this many plies (0: no cap; play can cycle)"),
    )

    def positions_log10(self) -> float:
        # each cell blank or a player's, at each ply the cap counts (the count is in the state)
        return self.n * self.n * math.log10(3) + math.log10(self.params["max_plies"] + 1)

    def validate(self) -> None:
        if self.params["size"] not in (3, 4, 5):
            raise ValueError(f"quixo: size={self.params['size']} is not supported; use 3, 4 or 5")
        if self.params["max_plies"] < 0:
            raise ValueError("quixo: max_plies must be >= 0 (0: no cap)")

    @property
    def n(self) -> int:
        return self.params["size"]

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return 16 * (self.n - 1)

    @property
    def key_plane_bits(self) -> int:  # type: ignore[override]
        return self.n * self.n  # the canonical key is the two n*n-bit planes, packed exactly

    def constants(self) -> list[int]:
        return K.constants(self.n, self.params["max_plies"])

    def initial_words(self):
        return (0, 0, 0)

    # --- actions as (x, y, side) -------------------------------------------------------------
    def decode(self, action: int) -> tuple[int, int, str]:
        """``(x, y, SIDE)`` of an action: column and row of the cube taken, side pushed in."""
        x, y = K.ring_cells(self.n)[action // 4]
        return x, y, K.SIDES[action % 4]

    def encode(self, x: int, y: int, side: str) -> int:
        """The action taking the cube at column ``x``, row ``y``, pushed in at ``side``; raises
        ValueError for a cell off the border or a side that puts it back where it was."""
        n = self.n
        side = side.upper()
        if side not in K.SIDES:
            raise ValueError(f"side {side!r} must be one of {', '.join(K.SIDES)}")
        try:
            ring = K.ring_cells(n).index((x, y))
        except ValueError:
            raise ValueError(f"({x}, {y}) is not a border cell of the {n}×{n} board (x column, y row, 0..{n - 1})") from None
        s = K.SIDES.index(side)
        if K.end_cell(n, x, y, s) == (x, y):
            raise ValueError(f"the cube at ({x}, {y}) cannot be pushed back in from {side}: that is where it came from")
        return ring * 4 + s

    def action_to_string(self, state: State | None, action: int) -> str:
        x, y, side = self.decode(action)
        return f"{x},{y},{side}"

    _TOKEN = re.compile(r"^\s*(\d+)\s*[,;:/ ]?\s*(\d+)\s*[,;:/ ]?\s*(top|bottom|left|right|t|b|l|r)\s*$", re.I)

    def string_to_action(self, state: State | None, text: str) -> int:
        m = self._TOKEN.match(text)
        if not m:
            raise ValueError(f"{text!r} is not a Quixo move: write x,y,SIDE (x column, y row, SIDE TOP/BOTTOM/LEFT/RIGHT), e.g. 0,4,TOP or 04T")
        side = {"T": "TOP", "B": "BOTTOM", "L": "LEFT", "R": "RIGHT"}.get(m.group(3).upper(), m.group(3).upper())
        return self.encode(int(m.group(1)), int(m.group(2)), side)

    def parse_moves(self, text: str) -> list[int]:
        """Actions of a line: ``x,y,SIDE`` or compact ``xyS`` tokens separated by spaces,
        semicolons or commas (a comma after a side name ends that action)."""
        tokens = re.findall(r"\d+\s*[,:/]?\s*\d+\s*[,:/]?\s*(?:top|bottom|left|right|t|b|l|r)(?![a-z])", text, re.I)
        rest = re.sub(r"\d+\s*[,:/]?\s*\d+\s*[,:/]?\s*(?:top|bottom|left|right|t|b|l|r)(?![a-z])", "", text, flags=re.I)
        if rest.strip(" ,;\t\n"):
            raise ValueError(f"cannot read {rest.strip()!r} in {text!r} as Quixo moves (x,y,SIDE or xyS, e.g. 0,4,TOP 04T)")
        return [self.string_to_action(None, t) for t in tokens]

    # --- symmetries --------------------------------------------------------------------------
    def symmetries(self):
        """8 board maps × symbol swap (which also swaps the side to move): 16 maps, identity
        first. Actions map through (source cell, end cell), which fix an action; the swap
        leaves actions unchanged (the mover keeps its moves under its new symbol)."""
        n = self.n
        cells = K.ring_cells(n)
        by_ends = {}
        for a in range(self.num_actions):
            x, y = cells[a // 4]
            ex, ey = K.end_cell(n, x, y, a % 4)
            by_ends[(y * n + x, ey * n + ex)] = a
        out = []
        for swap in (False, True):
            for k, perm in enumerate(K.symmetry_maps(n)):
                amap = list(range(self.num_actions))
                for (src, dst), a in by_ends.items():
                    amap[a] = by_ends[(perm[src], perm[dst])]
                out.append(Symmetry(f"{'swap+' if swap else ''}sym{k}", functools.partial(_perm_state, perm=perm, swap=swap),
                                    amap.__getitem__))
        return out

    def grid(self, state: State) -> list[list[str]]:
        """Cubes: ``0X`` crosses (player 0), ``1O`` circles, ``""`` blank; row 0 on top."""
        x, o, _meta = state.words
        n = self.n
        return [["0X" if (x >> (r * n + c)) & 1 else "1O" if (o >> (r * n + c)) & 1 else "" for c in range(n)]
                for r in range(n)]

    def action_cell(self, state: State, action: int) -> tuple[int, int]:
        """The cube taken (the page then asks at which side it goes back in)."""
        x, y, _side = self.decode(action)
        return (y, x)

    def picture(self, state: State) -> dict:
        """Cubes: blank None, ``{"p": 0}`` X, ``{"p": 1}`` O; a move is a cube taken (``from``)
        and the ``side`` it is pushed back in at, where it ends (``to``); lines of n marked."""
        n = self.n
        cells = [[None if not label else {"p": int(label[0])} for label in row] for row in self.grid(state)]
        moves = []
        for a in picture_moves(state):
            x, y, side = self.decode(a)
            ex, ey = K.end_cell(n, x, y, K.SIDES.index(side))
            moves.append({"action": a, "text": self.action_to_string(state, a), "from": [y, x], "side": side, "to": [ey, ex]})
        ply, cap = state.words[2] >> 1, self.params["max_plies"]
        lines = lines_through(cells, n)
        note = f"ply {ply}" + (f" of {cap} (then a draw)" if cap else "")
        if state.is_terminal():
            note = f"a line of {n}" if lines else f"{cap} plies played: a draw"
        return picture_frame(state, "quixo", cells, ("X", "O"), moves, lines=lines, note=note)

    def extra(self, state: State) -> dict:
        return {"to move": "XO"[state.words[2] & 1] + f" (ply {state.words[2] >> 1})"}

    def render(self, state: State) -> str:
        x, o, meta = state.words
        n = self.n
        rows = ["  " + " ".join(str(c) for c in range(n))]
        for r in range(n):
            rows.append(f"{r} " + " ".join("X" if (x >> (r * n + c)) & 1 else "O" if (o >> (r * n + c)) & 1 else "."
                                            for c in range(n)))
        rows.append(f"{'XO'[meta & 1]} to move, ply {meta >> 1}")
        return "\n".join(rows)
