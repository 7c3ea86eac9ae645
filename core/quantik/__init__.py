"""Quantik (Gigamic): the Python face of :mod:`core.quantik.kernels` (rules and layout there).

Text: an action is a shape letter then a cell, chess style: ``Ab2`` places an ``A`` on ``b2``.
Shapes ``A`` ``B`` ``C`` ``D`` (``cube``, ``cylinder``, ``cone``, ``sphere``); cells are a
column ``a``-``d`` and a row ``1``-``4`` (row 4 is the top row, printed first). Parsing accepts
either order, any case and a separator (``b2A``, ``b2:a``, ``cube@b2``). On the board picture
player 0's pieces are upper case, player 1's lower case.
"""
from __future__ import annotations

import functools
import itertools
import math
import re

from base.params import Param, table
from core.game import Game, State, Symmetry, picture_frame, picture_moves
from core.quantik import kernels as K
from core.quantik.frames import SHAPE_PERMS, canonical_symmetry_index

SHAPES = "ABCD"
SHAPE_NAMES = ("cube", "cylinder", "cone", "sphere")
COLS = "abcd"
SWAP = ((0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 1))


def _line_perm(swap_top: int, swap_bottom: int, swap_bands: int) -> list[int]:
    """A permutation of rows (or columns) keeping the two bands {0,1} and {2,3}."""
    out = []
    for r in range(4):
        band, i = r >> 1, r & 1
        i ^= swap_top if band == 0 else swap_bottom
        out.append(2 * (band ^ swap_bands) + i)
    return out


def board_maps() -> list[list[int]]:
    """The 128 cell permutations (index ``64 * transpose + 8 * rows + columns``; 0 = identity)."""
    maps = []
    for t in (0, 1):
        for rs in SWAP:
            rp = _line_perm(*rs)
            for cs in SWAP:
                cp = _line_perm(*cs)
                m = []
                for cell in range(16):
                    r, c = rp[cell >> 2], cp[cell & 3]
                    m.append(4 * c + r if t else 4 * r + c)
                maps.append(m)
    return maps


BOARD_MAPS = board_maps()


def map_plane(p: int, m: list[int]) -> int:
    return sum(1 << m[c] for c in range(16) if (p >> c) & 1)


def image(words: tuple, m: list[int], perm: tuple, swap: bool) -> tuple:
    """``words`` under cell map ``m``, shape relabelling ``perm`` (k -> perm[k]) and colour swap."""
    out = [0, 0, 0, 0]
    for k in range(4):
        lo, hi = map_plane(words[k] & 0xFFFF, m), map_plane(words[k] >> 16, m)
        out[perm[k]] = (hi | lo << 16) if swap else (lo | hi << 16)
    return tuple(out) + ((1 - words[4]) if swap else words[4],)


@functools.lru_cache(maxsize=1)
def symmetry_tables() -> tuple[int, ...]:
    """The tables of ``g`` after its two parameters (layout in :mod:`core.quantik.kernels`):
    nibble images of the 128 board maps, then each occupied plane's set of least-image maps.
    Whole-array numpy (about 30 ms of CPU; the loops it replaces took 0.7 s in every process
    that made the game): the image of a plane is its low byte's image (rows 0-1) or
    its high byte's (rows 2-3), a broadcast over 128 x 256 x 256, and the least-image sets are
    the 128 booleans of each plane packed into bits."""
    import numpy as np

    maps = np.array(BOARD_MAPS, dtype=np.int64)  # [b, cell] -> image cell
    bits = (np.arange(16)[:, None] >> np.arange(4)) & 1  # [v, c]: column c of nibble v is set
    cells = 4 * np.arange(4)[:, None] + np.arange(4)  # [row, c] -> cell
    nib = (bits[None, None] << maps[:, cells][:, :, None, :]).sum(axis=3)  # [b, row, v]
    assert nib.size == K.TIES - K.TABLES
    half = nib.astype(np.uint16)
    low = (half[:, 1, :, None] | half[:, 0, None, :]).reshape(K.NUM_BOARD_SYMS, 256)  # rows 0-1
    high = (half[:, 3, :, None] | half[:, 2, None, :]).reshape(K.NUM_BOARD_SYMS, 256)  # rows 2-3
    images = (high[:, :, None] | low[:, None, :]).reshape(K.NUM_BOARD_SYMS, 1 << 16)  # [b, plane]
    least = images == images.min(axis=0)
    # Bit b of a plane's 128-bit set is least[b]: packed little-endian into two 64-bit halves,
    # then cut into the kernel's three words of TIE_BITS (43, 43, 42 bits).
    halves = np.packbits(least, axis=0, bitorder="little").T.copy().view("<u8")  # [plane, 2]
    lo, hi = halves[:, 0], halves[:, 1]
    t = K.TIE_BITS
    ties = np.stack([lo & ((1 << t) - 1), (lo >> t) | ((hi & ((1 << (2 * t - 64)) - 1)) << (64 - t)),
                     hi >> (2 * t - 64)], axis=1)
    return tuple(nib.ravel().tolist()) + tuple(ties.astype(np.int64).ravel().tolist())


def _image_action(a: int, m: list[int], perm: tuple) -> int:
    """Action ``a`` (16 x shape + cell) under cell map ``m`` and shape relabelling ``perm``."""
    return 16 * perm[a >> 4] + m[a & 15]


@functools.lru_cache(maxsize=1)
def _symmetries() -> tuple[Symmetry, ...]:
    out = []
    for swap in (False, True):
        for pi, perm in enumerate(SHAPE_PERMS):
            for bi, m in enumerate(BOARD_MAPS):
                out.append(Symmetry(f"board{bi}+shapes{pi}{'+colours' if swap else ''}",
                                    functools.partial(image, m=m, perm=perm, swap=swap),
                                    functools.partial(_image_action, m=m, perm=perm)))
    return tuple(out)


def cell_name(cell: int) -> str:
    return COLS[cell & 3] + str(4 - (cell >> 2))


@functools.cache
def quantik_positions_log10(canonical: bool) -> float:
    """log10 of the placements of at most two of each of the 8 pieces (4 shapes, 2 players) on
    the 16 cells with the players' counts equal or the first one ahead (13.1), divided by the
    6,144 symmetries with canonical keys (9.3): an upper estimate of Quantik's positions."""
    total = 0
    for counts in itertools.product(range(3), repeat=8):
        placed, first = sum(counts), sum(counts[:4])
        if placed <= 16 and first - (placed - first) in (0, 1):
            ways = math.factorial(16) // math.factorial(16 - placed)
            for c in counts:
                ways //= math.factorial(c)
            total += ways
    return math.log10(total) - (math.log10(6144) if canonical else 0.0)


class Quantik(Game):
    """Quantik: 4x4, four shapes; complete a line of four different shapes, or leave the opponent no move."""

    name = "quantik"
    words = 5
    num_actions = 64
    kernels = "core.quantik.kernels"
    PARAMS = table(
        Param("first", 0, 0, 1, "the player who moves first (0 or 1)"),
        Param("canonical", 1, 0, 1, "1: transposition keys are canonical under the 6,144 symmetries; 0: exact states"),
    )

    def positions_log10(self) -> float:
        return quantik_positions_log10(bool(self.params["canonical"]))

    def validate(self) -> None:
        for k in ("first", "canonical"):
            if self.params[k] not in (0, 1):
                raise ValueError(f"game quantik: parameter {k}={self.params[k]} must be 0 or 1")

    def constants(self) -> list[int]:
        return [self.params["canonical"], self.params["first"]] + list(symmetry_tables())

    def initial_words(self):
        return (0, 0, 0, 0, self.params["first"])

    # --- text ---------------------------------------------------------------------------------
    def action_to_string(self, state: State, action: int) -> str:
        return SHAPES[action >> 4] + cell_name(action & 15)

    def string_to_action(self, state: State, text: str) -> int:
        t = text.strip().lower()
        m = re.fullmatch(r"([a-z]+)[:@/\-]?([a-z]\d)|([a-z]\d)[:@/\-]?([a-z]+)", t)
        if not m:
            raise ValueError(f"{text!r} is not a Quantik move: write a shape A-D and a cell a1-d4, e.g. Ab2")
        shape_txt, cell_txt = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if shape_txt.upper() in SHAPES and len(shape_txt) == 1:
            k = SHAPES.index(shape_txt.upper())
        elif shape_txt in SHAPE_NAMES:
            k = SHAPE_NAMES.index(shape_txt)
        else:
            raise ValueError(f"{text!r}: {shape_txt!r} is not a shape; shapes are A-D ({', '.join(SHAPE_NAMES)})")
        if cell_txt[0] not in COLS or cell_txt[1] not in "1234":
            raise ValueError(f"{text!r}: {cell_txt!r} is not a cell; columns are a-d, rows 1-4")
        cell = 4 * (4 - int(cell_txt[1])) + COLS.index(cell_txt[0])
        action = 16 * k + cell
        why = self.illegal_reason(state, action)
        if why:
            raise ValueError(f"{text!r} is not legal here: {why}")
        return action

    def illegal_reason(self, state: State, action: int) -> str:
        """Why ``action`` is not legal in ``state`` ("" when it is)."""
        w, me = state.words, state.words[4]
        k, cell = action >> 4, action & 15
        if state.is_terminal():
            return "the game is over"
        if (K.occupied(w) >> cell) & 1:
            return f"{cell_name(cell)} is occupied"
        own = (w[k] >> (16 * me)) & 0xFFFF
        if K.popcount16(own) >= 2:
            return f"player {me} has no {SHAPES[k]} left"
        opp = (w[k] >> (16 * (1 - me))) & 0xFFFF
        if (K.spread(opp) >> cell) & 1:
            return f"the opponent's {SHAPES[k]} is in the row, column or zone of {cell_name(cell)}"
        return ""

    # --- symmetries ---------------------------------------------------------------------------
    def symmetries(self):
        """All 6,144: 128 board maps x 24 shape relabellings x colour swap (which also swaps
        the side to move, so values for the side to move are kept). Built once per process
        (a quarter of a second): searches ask for them after each move."""
        return list(_symmetries())

    def canonical_symmetry(self, state: State) -> Symmetry:
        """A symmetry taking ``state`` to its canonical key (fast; books map actions by it)."""
        return _symmetries()[canonical_symmetry_index(self.g, state.words)]

    # --- pictures -----------------------------------------------------------------------------
    def piece_at(self, state: State, cell: int) -> tuple[int, int] | None:
        """(colour, shape) of the piece on ``cell``, or None."""
        for k in range(4):
            for colour in (0, 1):
                if (state.words[k] >> (cell + 16 * colour)) & 1:
                    return colour, k
        return None

    def in_hand(self, state: State, colour: int) -> str:
        return "".join(SHAPES[k] * (2 - K.popcount16((state.words[k] >> (16 * colour)) & 0xFFFF)) for k in range(4))

    def render(self, state: State) -> str:
        lines = []
        for r in range(4):
            cells = []
            for c in range(4):
                p = self.piece_at(state, 4 * r + c)
                cells.append("." if p is None else (SHAPES[p[1]] if p[0] == 0 else SHAPES[p[1]].lower()))
            lines.append(f"{4 - r} {cells[0]} {cells[1]} | {cells[2]} {cells[3]}")
            if r == 1:
                lines.append("  ----+----")
        lines.append("  a b   c d")
        lines.append(f"to move: player {state.words[4]}; in hand: 0 {self.in_hand(state, 0) or '-'}, "
                     f"1 {self.in_hand(state, 1).lower() or '-'}")
        return "\n".join(lines)

    def grid(self, state: State) -> list[list[str]]:
        out = []
        for r in range(4):
            row = []
            for c in range(4):
                p = self.piece_at(state, 4 * r + c)
                row.append("" if p is None else f"{p[0]}{SHAPES[p[1]]}")
            out.append(row)
        return out

    def action_cell(self, state: State, action: int) -> tuple[int, int]:
        return (action & 15) >> 2, action & 3

    def picture(self, state: State) -> dict:
        """Pieces ``{"p": colour, "shape": 0..3}`` (cube, cylinder, cone, sphere), the ``hand``
        (pieces left per colour and shape), a move per (``shape``, ``cell``), and for each shape
        the empty cells it may not go to with the reason (``blocked``); zones are the 2×2 quarters."""
        cells = [[None if (pc := self.piece_at(state, 4 * r + c)) is None else {"p": pc[0], "shape": pc[1]}
                  for c in range(4)] for r in range(4)]
        hand = [[2 - K.popcount16((state.words[k] >> (16 * colour)) & 0xFFFF) for k in range(4)] for colour in (0, 1)]
        moves = [{"action": a, "text": self.action_to_string(state, a), "shape": a >> 4, "cell": list(divmod(a & 15, 4))}
                 for a in picture_moves(state)]
        blocked: list[list] = [[], [], [], []]
        if moves:
            legal = {m["action"] for m in moves}
            for k in range(4):
                if hand[state.words[4]][k]:
                    blocked[k] = [[cell >> 2, cell & 3, self.illegal_reason(state, 16 * k + cell)]
                                  for cell in range(16) if cells[cell >> 2][cell & 3] is None and 16 * k + cell not in legal]
        groups = [[(r, c) for c in range(4)] for r in range(4)] + [[(r, c) for r in range(4)] for c in range(4)]
        groups += [[(2 * (z >> 1) + i // 2, 2 * (z & 1) + i % 2) for i in range(4)] for z in range(4)]
        shapes = [[None if piece is None else piece["shape"] for piece in row] for row in cells]
        lines = [[[r, c] for r, c in g] for g in groups
                 if None not in (seen := {shapes[r][c] for r, c in g}) and len(seen) == 4]
        note = ""
        if state.is_terminal():
            note = "four different shapes in a row, column or zone" if lines else "the loser had no legal move"
        return picture_frame(state, "quantik", cells, ("Dark", "Light"), moves, hand=hand, shapes=list(SHAPE_NAMES),
                             blocked=blocked, lines=lines, note=note)

    def extra(self, state: State) -> dict:
        return {"in hand (player 0)": self.in_hand(state, 0) or "-", "in hand (player 1)": self.in_hand(state, 1) or "-"}
