"""EinStein würfelt nicht! kernels against the plain 2-D reference (``tests/reference_einstein``):
hypothesis random games compared at every step, the compiled and plain kernels compared, and
the Python face (texts, grid, cells, extra) checked. OpenSpiel: ``test_einstein_openspiel.py``."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from base.jit import numba_available
from core.einstein import Einstein, permutation
from core.einstein import kernels as K
from core.game import CHANCE
from core.games import make_game
from tests.reference_einstein import PERMS, Ref

GAME = Einstein()


def _play_both(seed: int, check) -> int:
    """A random game in the kernels and the reference; ``check(state, ref)`` at every step."""
    rng = random.Random(seed)
    s, ref = GAME.initial(), Ref()
    steps = 0
    while True:
        check(s, ref)
        if ref.is_terminal():
            return steps
        a = rng.choice(ref.legal())
        s, ref = s.apply(a), ref.apply(a)
        steps += 1


def _same(s, ref) -> None:
    assert s.is_terminal() == ref.is_terminal()
    assert s.legal_actions() == ref.legal()
    assert s.returns() == ref.returns()
    assert "".join(str(s).split("\n")[:5]) == ref.picture()
    if ref.is_terminal():
        return
    assert s.is_chance_node() == ref.is_chance()
    if ref.is_chance():
        assert s.current_player() == CHANCE
        ours, theirs = s.chance_outcomes(), ref.chance_outcomes()
        assert [a for a, _ in ours] == [a for a, _ in theirs]
        assert [p for _, p in ours] == pytest.approx([p for _, p in theirs], rel=1e-12)
        assert sum(p for _, p in s.chance_outcomes()) == pytest.approx(1.0)
    else:
        assert s.current_player() == ref.player
    assert all(0 <= w < 2 ** 63 for w in s.words)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32))
def test_random_games_match_reference(seed):
    steps = _play_both(seed, _same)
    assert steps >= 4  # two set-ups, at least one roll and one move


def test_reference_games_end_both_ways():
    wins = {1.0: 0, -1.0: 0}
    for seed in range(60):
        rng = random.Random(seed)
        ref = Ref()
        while not ref.is_terminal():
            ref = ref.apply(rng.choice(ref.legal()))
        wins[ref.returns()[0]] += 1
    assert wins[1.0] > 5 and wins[-1.0] > 5


def test_setup_permutations_lexicographic():
    assert [permutation(a) for a in range(720)] == PERMS


@pytest.mark.skipif(not numba_available(), reason="numba not importable")
def test_compiled_kernels_agree_with_plain():
    import numpy as np

    from base.jit import compiled

    C = compiled(K)
    g = np.zeros(1, dtype=np.int64)
    out_c = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    out_p = [0] * K.NUM_ACTIONS
    for seed in range(40):
        rng = random.Random(seed)
        s = GAME.initial().words
        while True:
            assert int(C.to_move(g, s)) == K.to_move([0], s)
            assert bool(C.terminal(g, s)) == K.terminal([0], s)
            assert float(C.outcome(g, s)) == K.outcome([0], s)
            n = int(C.legal(g, s, out_c, 0))
            assert n == K.legal([0], s, out_p, 0)
            assert list(out_c[:n]) == out_p[:n]
            if n == 0:
                break
            for a in out_p[:n]:
                assert float(C.chance_prob(g, s, a)) == K.chance_prob([0], s, a)
            a = out_p[rng.randrange(n)]
            nxt = tuple(int(w) for w in C.play(g, s, a))
            assert nxt == K.play([0], s, a)
            s = nxt


def _midgame(seed: int):
    rng = random.Random(seed)
    s = GAME.initial()
    while not s.is_terminal() and (len(s.history) < 9 or s.is_chance_node()):
        s = s.apply(rng.choice(s.legal_actions()))
    return s


def test_texts_round_trip_and_bad_text():
    for seed in range(20):
        s = _midgame(seed)
        if s.is_terminal():
            continue
        for a in s.legal_actions():
            assert s.string_to_action(s.action_to_string(a)) == a
        with pytest.raises(ValueError, match="not a legal action"):
            s.string_to_action("Z9-sideways")
    s = GAME.initial()
    assert s.action_to_string(0) == "black 123456" and s.action_to_string(719) == "black 654321"
    assert s.string_to_action("black 123465") == 1


def test_grid_cells_and_extra():
    s = GAME.initial().apply(0).apply(0)
    grid = GAME.grid(s)
    assert grid[0][:3] == ["01", "02", "03"] and grid[4][2:] == ["14", "15", "16"] and grid[2][2] == ""
    assert GAME.extra(s) == {"die": "White rolls next"}
    s = s.apply(2)  # White rolls a 3
    assert GAME.extra(s) == {"die": "3 (White to move)"}
    # White's cube 3 is on (3, 4): its moves go up, up-left, left
    assert sorted(GAME.action_cell(s, a) for a in s.legal_actions()) == [(2, 3), (2, 4), (3, 3)]
    assert GAME.action_cell(GAME.initial(), 5) is None


def test_registered():
    assert make_game("einstein") == GAME
    assert GAME.has_chance and GAME.num_actions >= 720
