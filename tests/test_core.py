"""Core rules against two independent oracles: kaggle-environments' ConnectX code and the plain
2-D reference in tests/reference.py, over random games on several shapes (hypothesis)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kaggle_environments.envs.connectx import connectx as kx

import core.connectx.bitboard as bb
import core.connectx.perft as perft_mod
from base.jit import compiled, numba_available
from core.connectx import Position, Shape
from tests.pons import PONS
from tests.reference import RefBoard, ref_perft

SHAPES = [
    Shape(6, 7, 4), Shape(5, 4, 3), Shape(7, 9, 5), Shape(10, 10, 5), Shape(4, 4, 4), Shape(3, 8, 3),
    Shape(9, 6, 9),  # 60 bits, long lines: shifts near 63 in the compiled path
    Shape(20, 20, 10),  # 420 bits: shifts far beyond 63 in the plain path
]


def play_random_game(shape: Shape, choices: list[int]):
    """Yield (position, reference) after every ply of a game whose moves come from ``choices``."""
    pos, ref = Position.empty(shape), RefBoard(shape.rows, shape.columns, shape.inarow)
    yield pos, ref
    for pick in choices:
        legal = ref.legal()
        if not legal:
            return
        col = legal[pick % len(legal)]
        pos, _ = pos.play(col), ref.play(col)
        yield pos, ref


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@settings(max_examples=60, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), min_size=0, max_size=120))
def test_random_games_match_reference_and_kaggle(shape, choices):
    config = SimpleNamespace(rows=shape.rows, columns=shape.columns, inarow=shape.inarow)
    for pos, ref in play_random_game(shape, choices):
        assert pos.legal_columns() == ref.legal()
        assert pos.to_board() == ref.flat()
        assert pos.is_draw() == ref.is_draw()
        assert pos.winner == ref.winner
        assert pos.is_terminal() == (not ref.legal())
        assert Position.from_board(ref.flat(), shape) == pos
        for col in pos.legal_columns():
            board = ref.flat()
            expected = kx.is_win(board, col, pos.side_to_move, config, has_played=False)
            assert pos.is_winning_move(col) == expected == ref.wins_if_played(col)
        if ref.moves and ref.winner:
            assert kx.is_win(ref.flat(), ref.moves[-1], ref.winner, config, has_played=True)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@settings(max_examples=40, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), min_size=0, max_size=80))
def test_keys_exact_and_mirror(shape, choices):
    seen: dict[int, tuple] = {}
    for pos, ref in play_random_game(shape, choices):
        assert seen.setdefault(pos.key(), tuple(ref.flat())) == tuple(ref.flat())
        mirrored = pos.mirror()
        assert mirrored.mirror() == pos
        assert mirrored.key() == pos.mirror_key()
        assert pos.symmetric_key() == mirrored.symmetric_key()
        flat = ref.flat()
        mirror_flat = [flat[r * shape.columns + (shape.columns - 1 - c)] for r in range(shape.rows) for c in range(shape.columns)]
        assert mirrored.to_board() == mirror_flat


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.fits_int64], ids=str)
@settings(max_examples=30, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), min_size=0, max_size=60))
def test_compiled_kernels_agree_with_python(shape, choices):
    if not numba_available():
        pytest.skip("numba not installed")
    k = compiled(bb)
    r, c, n = shape.rows, shape.columns, shape.inarow
    for pos, _ in play_random_game(shape, choices):
        cur, mask = pos.current, pos.mask
        assert k.has_won(cur, r, n) == bb.has_won(cur, r, n)
        assert k.has_won(cur ^ mask, r, n) == bb.has_won(cur ^ mask, r, n)
        assert k.winning_cells(cur, mask, r, c, n) == bb.winning_cells(cur, mask, r, c, n)
        assert k.possible_moves(mask, r, c) == bb.possible_moves(mask, r, c)
        assert k.position_key(cur, mask, r, c) == pos.key()
        assert k.mirror_key(cur, mask, r, c) == pos.mirror_key()


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@settings(max_examples=40, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), min_size=0, max_size=80))
def test_winning_cells_match_reference(shape, choices):
    for pos, ref in play_random_game(shape, choices):
        if pos.is_terminal():
            continue
        cells = bb.winning_cells(pos.current, pos.mask, shape.rows, shape.columns, shape.inarow)
        mark = pos.side_to_move
        for col in range(shape.columns):
            for row in range(shape.rows):  # row from the bottom
                g = shape.rows - 1 - row
                if ref.grid[g][col] != 0:
                    continue
                ref.grid[g][col] = mark
                expected = ref.line_through(g, col)
                ref.grid[g][col] = 0
                assert bool(cells >> (col * shape.height + row) & 1) == expected, (str(pos), col, row)


@pytest.mark.parametrize("depth", range(1, 7))
def test_perft_matches_reference(depth):
    ref = ref_perft(RefBoard(6, 7, 4), depth)
    assert perft_mod.perft(0, 0, 6, 7, 4, depth) == ref
    if numba_available():
        assert compiled(perft_mod).perft(0, 0, 6, 7, 4, depth) == ref


def test_perft_depth_8_matches_reference():
    expected = ref_perft(RefBoard(6, 7, 4), 8)
    assert expected == 5_686_266  # pinned so that a reference regression shows too
    k = compiled(perft_mod) if numba_available() else perft_mod
    assert k.perft(0, 0, 6, 7, 4, 8) == expected


@pytest.mark.parametrize("shape", [Shape(5, 4, 3), Shape(4, 5, 4), Shape(10, 10, 5)], ids=str)
def test_perft_other_shapes(shape):
    ref = ref_perft(RefBoard(shape.rows, shape.columns, shape.inarow), 5)
    assert perft_mod.perft(0, 0, shape.rows, shape.columns, shape.inarow, 5) == ref


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3"])
def test_pons_positions_parse_and_replay(name):
    lines = (PONS / name).read_text().split("\n")
    lines = [ln for ln in lines if ln.strip()]
    assert len(lines) == 1000
    for line in lines:
        moves, score = line.split()
        pos = Position.from_moves(moves)
        assert pos.ply == len(moves)
        assert not pos.is_terminal()
        int(score)
        ref = RefBoard(6, 7, 4)
        for ch in moves:
            ref.play(int(ch) - 1)
        assert pos.to_board() == ref.flat()
        assert Position.from_board(pos.to_board(), mark=pos.side_to_move) == pos


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: Position.from_board([0] * 41), "41 cells"),
        (lambda: Position.from_board([1, 1] + [0] * 40), "impossible stone counts"),
        (lambda: Position.from_board([2] + [0] * 41), "impossible stone counts"),
        (lambda: Position.from_board([0] * 41 + [1], mark=1), "not the side to move"),
        (lambda: Position.from_board([1] + [0] * 34 + [0, 0, 0, 0, 0, 0, 2]), "floating stone"),
        (lambda: Position.from_board([0] * 41 + [7]), "cells must be 0"),
        (lambda: Position.from_board(None), "sequence"),
        (lambda: Position.from_moves("48x"), "digits"),
        (lambda: Position.from_moves("8"), "out of range"),
        (lambda: Position.from_moves("0"), "out of range"),
        (lambda: Position.from_moves("1111111"), "full"),
        (lambda: Position.from_moves("12121212"), "after the game has ended"),
        (lambda: Position.empty().play(7), "out of range"),
        (lambda: Position.empty().play(-1), "out of range"),
        (lambda: Position.empty().play(2.0), "must be an int"),
        (lambda: Shape(6, 7, 8), "inarow=8 is larger than the board"),
        (lambda: Shape(0, 7, 4), "rows must be an integer from 1 to 32, got 0"),
        (lambda: Shape(6, 100000, 4), "columns must be an integer from 1 to 32"),
        (lambda: Shape(6, "7", 4), "columns must be an int"),
    ],
)
def test_illegal_input_raises_clear_value_error(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_board_with_winner_to_move_is_rejected():
    # Mark 1 wins with four in the bottom row; a mark-2 stone after that is impossible.
    with_extra = Position.from_moves("1122334").to_board()
    with_extra[5 * 7 + 6] = 2  # column 7 bottom
    with pytest.raises(ValueError, match="already has 4 in a row"):
        Position.from_board(with_extra)


def _winning_cells_by_reference(pos: Position, ref: RefBoard) -> int:
    shape, mark, out = pos.shape, pos.side_to_move, 0
    for col in range(shape.columns):
        for row in range(shape.rows):
            g = shape.rows - 1 - row
            if ref.grid[g][col] == 0:
                ref.grid[g][col] = mark
                if ref.line_through(g, col):
                    out |= 1 << (col * shape.height + row)
                ref.grid[g][col] = 0
    return out


@pytest.mark.parametrize(
    "shape, moves",
    [
        # One side builds inarow-1 stones up column 0 (vertical), or along the bottom row
        # (horizontal, the other side stacking on top), on boards where the line spans shifts of
        # 63 bits and more: long lines are exactly where shift guards go wrong.
        (Shape(20, 20, 10), [c for i in range(9) for c in (0, 1 + i)]),
        (Shape(20, 20, 10), [c for i in range(9) for c in (i, i)]),
        (Shape(20, 20, 10), [c for i in range(9) for c in (i, 19 - (i % 3))]),
        (Shape(9, 6, 9), [c for i in range(8) for c in (0, 1 + i % 5)]),
        (Shape(3, 30, 12), [c for i in range(11) for c in (i, i)]),
    ],
)
def test_winning_cells_on_long_lines(shape, moves):
    pos = Position.from_moves(moves, shape)
    ref = RefBoard(shape.rows, shape.columns, shape.inarow)
    for col in moves:
        ref.play(col)
    expected = _winning_cells_by_reference(pos, ref)
    assert expected != 0  # the construction does make a threat
    assert bb.winning_cells(pos.current, pos.mask, shape.rows, shape.columns, shape.inarow) == expected
    if shape.fits_int64 and numba_available():
        assert compiled(bb).winning_cells(pos.current, pos.mask, shape.rows, shape.columns, shape.inarow) == expected
