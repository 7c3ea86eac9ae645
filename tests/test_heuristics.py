"""Heuristics against an independent 2-D reference (every window enumerated by coordinates),
on hand-checked positions and random games of several shapes; mirror symmetry, sign, and the
compiled path against the plain one."""
from __future__ import annotations

import importlib
import random

import numpy as np
import pytest

from base.jit import compiled, numba_available
from core.connectx import Position, Shape
from core.connectx import bitboard as bb
from heuristics.connectx.lines import threat_cells
from heuristics.connectx.params import DEFAULTS, HEURISTIC_IDS, PARAM_NAMES, params_array

SHAPES = [Shape(6, 7, 4), Shape(5, 4, 3), Shape(4, 9, 4), Shape(10, 10, 5), Shape(3, 9, 8), Shape(7, 8, 5)]
NAMES = [n for n in HEURISTIC_IDS if n != "none"]


# --- the reference: a grid[row][col] with row 0 at the bottom, 0 empty, 1 mover, 2 other ----
def grid_of(pos: Position) -> list[list[int]]:
    s = pos.shape
    g = [[0] * s.columns for _ in range(s.rows)]
    for c in range(s.columns):
        for r in range(s.rows):
            bit = 1 << (c * (s.rows + 1) + r)
            if pos.mask & bit:
                g[r][c] = 1 if pos.current & bit else 2
    return g


DIRS = [(1, 0), (0, 1), (1, 1), (-1, 1)]


def windows(shape: Shape, d: tuple[int, int]):
    dr, dc = d
    for r in range(shape.rows):
        for c in range(shape.columns):
            cells = [(r + k * dr, c + k * dc) for k in range(shape.inarow)]
            if all(0 <= rr < shape.rows and 0 <= cc < shape.columns for rr, cc in cells):
                yield cells


def ref_threats(g, shape: Shape, p: int) -> set:
    out = set()
    for d in DIRS:
        for cells in windows(shape, d):
            vals = [g[r][c] for r, c in cells]
            if vals.count(p) == shape.inarow - 1 and vals.count(0) == 1:
                out.add(cells[vals.index(0)])
    return out


def ref_side(g, shape: Shape, p: int, name: str, prm: dict, first: bool) -> float:
    q = 3 - p
    open_counts = [0] * (shape.inarow + 1)
    for d in DIRS:
        for cells in windows(shape, d):
            vals = [g[r][c] for r, c in cells]
            if q not in vals:
                open_counts[vals.count(p)] += 1
    threats = ref_threats(g, shape, p)
    if name in ("bitsquares", "oddeven"):
        total = sum(open_counts[n] * float(n) ** prm["power"] for n in range(1, shape.inarow + 1))
    if name == "gameovers":
        total = open_counts[1] * prm["single_square"] + sum(open_counts[n] * n for n in range(2, shape.inarow + 1))
        if len(threats) >= 2:
            total += prm["double_attack"] * (len(threats) - 1)
    if name == "liberties":
        count = 0
        for dr, dc in DIRS:
            cover = set()
            for cells in windows(shape, (dr, dc)):
                if all(g[r][c] != q for r, c in cells):
                    cover.update(cells)
            for r, c in cover:
                if g[r][c] != 0:
                    continue
                for s in (1, -1):
                    rr, cc = r + s * dr, c + s * dc
                    if 0 <= rr < shape.rows and 0 <= cc < shape.columns and g[rr][cc] == p:
                        count += 1
                        break
        total = count + prm["threat"] * len(threats)
    if name == "oddeven":
        good_rows = {r for r in range(shape.rows) if (r % 2 == 0) == first}
        total += prm["threat_pair"] * sum(1 for r, c in threats if (r + 1, c) in threats)
        total += prm["parity_threat"] * sum(1 for r, c in threats if r in good_rows)
        twos = 0
        for d in DIRS:
            for cells in windows(shape, d):
                vals = [g[r][c] for r, c in cells]
                if q not in vals and vals.count(p) == shape.inarow - 2:
                    if all(r in good_rows for (r, c), v in zip(cells, vals) if v == 0):
                        twos += 1
        total += prm["parity_two"] * twos
    return total


def reference(pos: Position, name: str, prm: dict) -> float:
    g = grid_of(pos)
    first = pos.ply % 2 == 0
    return ref_side(g, pos.shape, 1, name, prm, first) - ref_side(g, pos.shape, 2, name, prm, not first)


def evaluate(pos: Position, name: str, params=None, jit: bool = False) -> float:
    """Heuristic ``name`` (its function in ``heuristics/connectx/<name>.py``; "none": 0) of
    ``pos`` for the side to move, plain or compiled."""
    if name == "none":
        return 0.0
    s = pos.shape
    params = params_array(name) if params is None else params
    module = importlib.import_module(f"heuristics.connectx.{name}")
    fn = getattr(compiled(module) if jit else module, name)
    return fn(pos.current, pos.mask, s.rows, s.columns, s.inarow, params)


def random_positions(shape: Shape, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.empty(shape)
        for _ in range(rng.randrange(shape.cells)):
            cols = [c for c in pos.legal_columns() if not pos.is_winning_move(c)]
            if not cols:
                break
            pos = pos.play(rng.choice(cols))
        out.append(pos)
    return out


# --- interface -----------------------------------------------------------------------------
def test_params_array_defaults_and_order():
    assert list(params_array("bitsquares")) == [1.75]
    assert list(params_array("gameovers")) == [0.5, 0.1]
    assert list(params_array("oddeven")) == [1.75, 0.0, 1.0, 0.05]
    assert list(params_array("oddeven", parity_two=0.2)) == [1.75, 0.0, 1.0, 0.2]
    assert params_array("none").dtype == np.float64
    for name, names in PARAM_NAMES.items():
        assert set(DEFAULTS[name]) == set(names)


def test_params_array_rejects_unknown_names():
    with pytest.raises(ValueError, match="has no parameter 'pow'; its parameters: power"):
        params_array("bitsquares", pow=2)
    with pytest.raises(ValueError, match="parameter power of heuristic 'bitsquares' must be a number from 0 to 8"):
        params_array("bitsquares", power=9)
    with pytest.raises(ValueError, match="unknown heuristic"):
        params_array("squares")


# --- hand-checked values -------------------------------------------------------------------
def test_empty_board_scores_zero():
    for name in HEURISTIC_IDS:
        assert evaluate(Position.empty(), name) == 0.0


def test_one_centre_stone_hand_checked():
    # The opponent's stone at the bottom of column 4 lies in 7 windows (1 vertical, 4
    # horizontal, 2 diagonal), each with one stone; the side to move has none.
    pos = Position.from_moves("4")
    assert evaluate(pos, "bitsquares") == -7.0
    assert evaluate(pos, "gameovers") == pytest.approx(-0.7)
    assert evaluate(pos, "oddeven") == -7.0
    # Liberties: above it, left, right, and up-left / up-right diagonally.
    assert evaluate(pos, "liberties") == -5.0


def test_three_in_a_row_threat_hand_checked():
    # "11223": X holds columns 1-3 of the bottom row, O columns 1-2 of the row above; O to
    # move. X's only threat cell is column 4 bottom.
    pos = Position.from_moves("11223")
    cur, mask, s = pos.current, pos.mask, pos.shape
    empty = s.board_mask & ~mask
    assert threat_cells(pos.opponent, empty, s.rows, s.inarow) == bb.bottom_cell(s.rows, 3)
    assert threat_cells(cur, empty, s.rows, s.inarow) == 0
    # power 2 minus power 1 sums n * n - n over open windows, so only windows with n >= 2
    # count: X has bottom-row windows 1-4 (n = 3: 6) and 2-5 (n = 2: 2); O has the row-2
    # window 1-4 (n = 2: 2); no diagonal holds two stones of one side.
    p2 = evaluate(pos, "bitsquares", params_array("bitsquares", power=2.0))
    p1 = evaluate(pos, "bitsquares", params_array("bitsquares", power=1.0))
    assert p2 - p1 == 2 - (6 + 2)


def test_gameovers_double_attack_bonus():
    # X: bottom row columns 3, 4, 5 with 2 and 6 empty: two threat cells, one bonus.
    pos = Position.from_moves("31415")  # O to move; O holds column 1 twice
    base = evaluate(pos, "gameovers", params_array("gameovers", double_attack=0.0))
    bonus = evaluate(pos, "gameovers", params_array("gameovers", double_attack=0.5))
    assert base - bonus == pytest.approx(0.5)


# --- against the reference -----------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_matches_reference_on_random_positions(shape, name):
    prm = dict(DEFAULTS[name])
    if name == "oddeven":
        prm["threat_pair"] = 0.7  # default 0 would leave the term untested
    params = params_array(name, **prm)
    for pos in random_positions(shape, 25, seed=hash((str(shape), name)) % 1000):
        assert evaluate(pos, name, params) == pytest.approx(reference(pos, name, prm), rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_threat_cells_match_core(shape):
    for pos in random_positions(shape, 40, seed=7):
        empty = shape.board_mask & ~pos.mask
        for stones in (pos.current, pos.opponent):
            expected = bb.winning_cells(stones, pos.mask, shape.rows, shape.columns, shape.inarow)
            assert threat_cells(stones, empty, shape.rows, shape.inarow) == expected


# --- symmetry and sign ---------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_mirror_gives_the_same_score(shape, name):
    for pos in random_positions(shape, 25, seed=3):
        assert evaluate(pos.mirror(), name) == evaluate(pos, name)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_swapping_sides_negates(shape, name):
    # oddeven's parity terms follow who moved first, which a colour swap keeps: exact only
    # without them (see heuristics/connectx/oddeven.py).
    params = params_array(name, parity_threat=0.0, parity_two=0.0) if name == "oddeven" else params_array(name)
    for pos in random_positions(shape, 25, seed=4):
        swapped = Position(shape, pos.opponent, pos.mask, pos.ply)
        assert evaluate(swapped, name, params) == -evaluate(pos, name, params)


def test_oddeven_parity_threat_hand_checked():
    # "11223": X moved first; its threat cell (column 4, bottom row = row 1, odd) is on its
    # parity rows; O (to move) has none. With power 0 every open window weighs 1, which
    # bitsquares(power 0) removes, leaving the parity terms: 0 - 1.
    pos = Position.from_moves("11223")
    only = params_array("oddeven", power=0.0, parity_threat=1.0, parity_two=0.0)
    lines = evaluate(pos, "bitsquares", params_array("bitsquares", power=0.0))
    assert evaluate(pos, "oddeven", only) - lines == -1.0
    # "5112233": X's row-2 stones on columns 1-3 threaten column 4 row 2 (even: O's parity);
    # O's bottom row 1-3 threatens column 4 row 1 (odd: X's parity). Neither earns a reward.
    pos = Position.from_moves("5112233")
    g = grid_of(pos)
    assert ref_threats(g, pos.shape, 1) == {(0, 3)} and ref_threats(g, pos.shape, 2) == {(1, 3)}
    lines = evaluate(pos, "bitsquares", params_array("bitsquares", power=0.0))
    assert evaluate(pos, "oddeven", only) - lines == 0.0


# --- compiled path -------------------------------------------------------------------------
@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("name", list(HEURISTIC_IDS))
def test_compiled_and_plain_agree(name):
    for shape in [s for s in SHAPES if s.fits_int64]:
        for pos in random_positions(shape, 15, seed=11):
            assert evaluate(pos, name, jit=True) == evaluate(pos, name)
