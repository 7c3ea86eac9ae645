"""Quixo's kernels against the plain reference (tests/reference_quixo.py): random games, perft,
first moves, the both-lines rule, symmetries and the canonical key, text, both paths."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.engine import perft
from base import jit as J
from core.game import parse_line, play_line
from core.games import make_game
from tests.reference_quixo import RefQuixo
from tests.reference_quixo import perft as ref_perft

SIZES = (3, 4, 5)


def decoded(game, state) -> set:
    return {game.decode(a) for a in state.legal_actions()}


def check_same(game, state, ref: RefQuixo) -> None:
    x, o, meta = state.words
    assert (x, o) == ref.planes()
    assert state.current_player() == ref.player and meta >> 1 == ref.plies
    assert state.is_terminal() == ref.is_over()
    assert state.returns() == ref.returns()
    assert decoded(game, state) == set(ref.moves())


def random_state(game, rng: random.Random, plies: int):
    s = game.initial()
    for _ in range(plies):
        if s.is_terminal():
            break
        s = s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("n,count", [(3, 20), (4, 32), (5, 44)])
def test_first_moves_are_8_plus_12_per_inner_side_cell(n, count):
    g = make_game("quixo", size=n)
    s = g.initial()
    assert len(s.legal_actions()) == count == 8 + 12 * (n - 2)
    assert decoded(g, s) == set(RefQuixo(n).moves())


@settings(max_examples=60, deadline=None)
@given(n=st.sampled_from(SIZES), seed=st.integers(0, 2**32 - 1), cap=st.sampled_from([0, 0, 7, 30]))
def test_random_games_agree_with_the_reference_at_every_step(n, seed, cap):
    rng = random.Random(seed)
    g = make_game("quixo", size=n, max_plies=cap)
    s, ref = g.initial(), RefQuixo(n, cap)
    check_same(g, s, ref)
    for _ in range(80):
        if s.is_terminal():
            break
        a = rng.choice(s.legal_actions())
        s, ref = s.apply(a), ref.play(g.decode(a))
        check_same(g, s, ref)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("n", SIZES)
def test_perft_agrees_with_the_reference_to_depth_3(n, jit):
    g = make_game("quixo", size=n)
    assert [perft.count(g, d, jit=jit) for d in (1, 2, 3)] == [ref_perft(RefQuixo(n), d) for d in (1, 2, 3)]


@pytest.mark.parametrize("jit", [False, True])
def test_perft_from_a_midgame_state_agrees_with_the_reference(jit):
    g = make_game("quixo", size=5)
    rng = random.Random(5)
    s, ref = g.initial(), RefQuixo(5)
    for _ in range(12):
        a = rng.choice(s.legal_actions())
        s, ref = s.apply(a), ref.play(g.decode(a))
    assert perft.count(g, 2, state=s, jit=jit) == ref_perft(ref, 2)


def test_making_both_lines_loses_and_the_side_to_moves_line_counts_first():
    g = make_game("quixo", size=3)
    # X takes the blank (0,2) and pushes it in at TOP: column 0 becomes X,O,O, completing
    # X's row 0 and O's row 2 at once: X loses.
    ref = RefQuixo(3, board=[[1, 0, 0], [1, None, None], [None, 1, 1]], player=0)
    assert not ref.is_over()
    res = ref.play((0, 2, "TOP"))
    assert res.board == [[0, 0, 0], [1, None, None], [1, 1, 1]]
    s = g.new_state(ref.planes() + (0,)).apply(g.encode(0, 2, "TOP"))
    assert s.words[:2] == res.planes()
    assert s.is_terminal() and s.returns() == (-1.0, 1.0) == res.returns()
    # The same board read directly: whoever is to move owns the line that counts.
    x_plane, o_plane = res.planes()
    assert g.new_state((x_plane, o_plane, 0)).returns() == (1.0, -1.0)


def test_every_move_found_that_completes_both_lines_loses_for_the_mover():
    # Random 3×3 boards with X to move: each legal move that makes both lines, per the reference.
    rng = random.Random(3)
    g = make_game("quixo", size=3, max_plies=0)
    found = 0
    for _ in range(20000):
        if found >= 10:
            break
        board = [[rng.choice([None, 0, 1]) for _ in range(3)] for _ in range(3)]
        ref = RefQuixo(3, board=board, player=0)
        if ref.is_over():
            continue
        for mv in ref.moves():
            res = ref.play(mv)
            if res.has_line(0) and res.has_line(1):
                s = g.new_state(ref.planes() + (0,)).apply(g.encode(*mv))
                assert s.is_terminal() and s.returns() == (-1.0, 1.0) == res.returns()
                found += 1
    assert found >= 10  # the rule was exercised


def random_states(n: int, count: int, seed: int):
    g = make_game("quixo", size=n, max_plies=0)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = random_state(g, rng, rng.randrange(0, 30))
        if not s.is_terminal():
            out.append(s)
    return g, out


@pytest.mark.parametrize("n", SIZES)
def test_symmetries_map_successors_to_successors_of_images(n):
    g, states = random_states(n, 12, seed=n)
    syms = g.symmetries()
    assert len(syms) == 16
    for s in states:
        for sym in syms:
            image = g.new_state(sym.state(s.words))
            assert sorted(sym.action(a) for a in s.legal_actions()) == image.legal_actions()
            for a in s.legal_actions():
                assert sym.state(s.apply(a).words) == image.apply(sym.action(a)).words
            swapped = sym.name.startswith("swap")
            assert image.current_player() == (1 - s.current_player() if swapped else s.current_player())


@pytest.mark.parametrize("n", SIZES)
def test_key_is_the_same_on_the_whole_class_and_is_one_of_its_images(n):
    g, states = random_states(n, 20, seed=10 + n)
    for s in states:
        keys = {g.new_state(sym.state(s.words)).key() for sym in g.symmetries()}
        assert len(keys) == 1
        (k,) = keys
        images = {sym.state(s.words)[:2] + (sym.state(s.words)[2] & 1,) for sym in g.symmetries()}
        assert k in images and k[2] == 0
        assert k == min(im for im in images if im[2] == 0)
    # states of different classes get different keys (the planes are recoverable up to symmetry)
    ks = {}
    for s in states:
        cls = frozenset(sym.state(s.words)[:2] + (sym.state(s.words)[2] & 1,) for sym in g.symmetries())
        ks.setdefault(s.key(), set()).add(cls)
    assert all(len(v) == 1 for v in ks.values())


@pytest.mark.parametrize("n", SIZES)
def test_compiled_kernels_agree_with_plain_ones(n):
    g, states = random_states(n, 40, seed=20 + n)
    k = g.kernel_module
    c = J.compiled(k)
    ga = np.asarray(g.g, dtype=np.int64)
    buf_p, buf_c = [0] * g.num_actions, np.zeros(g.num_actions, dtype=np.int64)
    for s in states + [random_state(g, random.Random(i), 60) for i in range(20)]:
        w = s.words
        np_ = k.legal(g.g, w, buf_p, 0)
        nc = c.legal(ga, w, buf_c, 0)
        assert np_ == nc and buf_p[:np_] == list(buf_c[:nc])
        assert bool(k.terminal(g.g, w)) == bool(c.terminal(ga, w))
        assert k.outcome(g.g, w) == c.outcome(ga, w)
        assert tuple(k.key(g.g, w)) == tuple(int(v) for v in c.key(ga, w))
        for a in buf_p[:np_]:
            assert tuple(k.play(g.g, w, a)) == tuple(int(v) for v in c.play(ga, w, a))


def test_text_round_trips_and_bad_text_says_how_to_write_a_move():
    g = make_game("quixo", size=5)
    s = g.initial()
    for a in s.legal_actions():
        t = s.action_to_string(a)
        assert s.string_to_action(t) == a
        x, y, side = t.split(",")
        assert s.string_to_action(f"{x}{y}{side[0].lower()}") == a
    assert s.action_to_string(g.encode(0, 4, "TOP")) == "0,4,TOP"
    line = parse_line(g, "0,4,TOP 4,2,LEFT; 14T")
    assert line.words == play_line(g, [g.encode(0, 4, "TOP"), g.encode(4, 2, "LEFT"), g.encode(1, 4, "TOP")]).words
    with pytest.raises(ValueError, match="x,y,SIDE"):
        s.string_to_action("e5")
    with pytest.raises(ValueError, match="border"):
        s.string_to_action("2,2,TOP")
    with pytest.raises(ValueError, match="came from"):
        s.string_to_action("0,0,TOP")
    with pytest.raises(ValueError, match="size must be an integer from 3 to 5"):
        make_game("quixo", size=6)
    assert "quixo" in make_game("quixo", size=4).spec()


def test_ply_cap_ends_the_game_as_a_draw():
    g = make_game("quixo", size=5, max_plies=4)
    s = play_line(g, [g.encode(0, 0, "BOTTOM"), g.encode(4, 4, "TOP"), g.encode(1, 0, "BOTTOM"), g.encode(3, 4, "TOP")])
    assert s.is_terminal() and s.returns() == (0.0, 0.0) and s.legal_actions() == []


def test_lines_heuristic_is_symmetric_bounded_and_agrees_on_both_paths():
    from heuristics.quixo import DEFAULT_PARAMS, HEURISTICS

    fn, params = HEURISTICS["lines"], DEFAULT_PARAMS["lines"]
    g, states = random_states(5, 15, seed=30)
    c = J.compiled("heuristics.quixo").evaluate_lines
    ga, pa = np.asarray(g.g, dtype=np.int64), np.asarray(params, dtype=np.float64)
    for s in states:
        v = fn(g.g, s.words, params)
        assert abs(v) < params[5] and v == pytest.approx(c(ga, s.words, pa))
        for sym in g.symmetries():  # the side to move's view survives board maps and the swap
            assert fn(g.g, sym.state(s.words), params) == pytest.approx(v)
    four = g.new_state((0b1111, 0, 0))  # X to move with four in row 0
    assert fn(g.g, four.words, params) > 0 > fn(g.g, (0b1111, 0, 1), params)
