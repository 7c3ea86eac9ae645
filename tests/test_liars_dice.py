"""Liar's Dice (``core/liars_dice``) against its plain reference written from the rules
(``tests/reference_liars_dice.py``): every one of its 294,883 states compared in one walk, the
hidden-information contract (information states partition like the reference's, the observation
hides nothing the information state keeps, the determinizer never samples a state the
observations rule out and rolls the hidden die uniformly), action texts, and the compiled kernels
against the plain ones on random games (hypothesis). OpenSpiel, when installed:
``tests/test_poker_openspiel.py``; CFR on it: ``tests/test_cfr.py``."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from base.jit import numba_available
from core.game import CHANCE
from core.games import make_game
from core.hidden import determinizer_mismatch
from tests.reference_liars_dice import Ref

GAME = make_game("liars_dice")
K = GAME.kernel_module


def walk(rolls=None):
    """Every (state, reference) pair depth first; with ``rolls`` (pairs of roll outcomes), the
    chance nodes and the states under those rolls only."""
    stack = [(GAME.initial(), Ref())]
    while stack:
        s, r = stack.pop()
        yield s, r
        for a in s.legal_actions():
            if rolls is None or not s.is_chance_node() or any(tuple(r.rolls) + (a + 1,) == pair[:len(r.rolls) + 1]
                                                                 for pair in rolls):
                stack.append((s.apply(a), r.apply(a)))


SOME_ROLLS = ((1, 6), (4, 4), (6, 6), (3, 2))  # faces; a wild six, a pair, two sixes, neither


def check_against_the_reference(rolls=None) -> tuple[int, int, int]:
    """Every state (under ``rolls``) against the reference: (states, terminal states, information
    states at decisions)."""
    ours: dict = {}
    theirs: dict = {}
    seen: dict = {}
    states = terminals = 0
    decisions = set()
    for s, r in walk(rolls):
        states += 1
        assert s.is_terminal() == r.is_terminal()
        assert s.legal_actions() == r.legal()
        assert s.returns() == r.returns()
        for p in (0, 1):
            key, text = GAME.information_state(s, p), r.info(p)
            assert ours.setdefault(key, text) == text
            assert theirs.setdefault(text, key) == key
            obs = GAME.observation(s, p)
            assert seen.setdefault((p,) + key, obs) == obs
            assert obs[0] == (r.rolls[p] - 1 if len(r.rolls) > p else K.NONE)
            bids = [b for b in r.bids if b != K.LIAR]
            assert obs[1:] == (bids[-1] if bids else -1, len(bids), int(r.is_terminal()))
        if s.is_terminal():
            terminals += 1
            continue
        assert s.is_chance_node() == r.is_chance()
        assert s.current_player() == r.player()
        if r.is_chance():
            rolls, exact = s.chance_outcomes(), r.chance_outcomes()
            assert [a for a, _ in rolls] == [a for a, _ in exact]
            assert [q for _, q in rolls] == pytest.approx([q for _, q in exact], rel=1e-12)
        else:
            decisions.add(GAME.information_state(s, s.current_player()))
    return states, terminals, len(decisions)


def test_the_states_under_four_rolls_match_the_reference():
    # 5 chance nodes (the first roll, and the second after 1, 4, 6 and 3) and 4 x (2 ** 12 bid sequences + 2 ** 12 - 1 called ones); information states:
    # player 0 holds 4 faces (1, 4, 6, 3) and moves after an even number of bids (2,048 sequences),
    # player 1 holds 3 (6, 4, 2) and moves after an odd number
    assert check_against_the_reference(SOME_ROLLS) == (5 + 4 * 8191, 4 * 4095, (4 + 3) * 2048)


@pytest.mark.slow
def test_every_state_matches_the_reference_and_partitions_alike():
    # 36 rolls x (2 ** 12 bid sequences + 2 ** 12 - 1 called ones) + 7 chance nodes; Lanctot's 24,576 information sets
    assert check_against_the_reference() == (294_883, 147_420, 24_576) == (GAME.states, 36 * 4095, 24_576)


class Reachable:
    """The words of every state of the game, as a rule: both dice rolled before any bid, player
    0's die before player 1's, liar called only after a bid."""

    def __contains__(self, w) -> bool:
        d0, d1, mask, called = w
        if d0 == K.NONE or d1 == K.NONE:
            return d1 == K.NONE and mask == 0 and called == 0 and 0 <= d0 <= K.NONE
        return 0 <= d0 < 6 and 0 <= d1 < 6 and 0 <= mask < 2 ** K.BIDS and called in ((0, 1) if mask else (0,))


def test_the_determinizer_never_samples_what_the_observations_rule_out():
    under = [s for s, _ in walk(SOME_ROLLS)]
    assert all(s.words in Reachable() for s in under)
    assert (K.NONE, 0, 0, 0) not in Reachable() and (1, 2, 0, 1) not in Reachable()
    rng = random.Random(3)
    assert determinizer_mismatch(GAME, rng.sample(under, 3000) + under[:50], range(0, 200, 7), Reachable()) is None


def test_the_determinizer_rolls_the_hidden_die_uniformly():
    rng = random.Random(5)
    for _ in range(6):
        s = GAME.initial().apply(rng.randrange(6)).apply(rng.randrange(6))
        for _ in range(rng.randrange(4)):
            s = s.apply(s.legal_actions()[rng.randrange(2)])
        p = s.current_player()
        hidden = Counter(GAME.determinize(s, p, seed).words[1 - p] for seed in range(3000))
        assert set(hidden) == set(range(6))
        for n in hidden.values():
            assert abs(n - 500) < 75


def test_the_determinizer_check_catches_a_peek(monkeypatch):
    """The check can fail: a determinizer that keeps the other die (it reads the hidden roll) is caught."""
    states = [s for s, _ in walk(SOME_ROLLS) if s.words[K.MASK] < 8]
    monkeypatch.setattr(K, "determinize", lambda g, s, p, seed: tuple(s))
    assert "sample differently" in determinizer_mismatch(GAME, states, range(5))


def test_actions_read_back_from_their_text():
    rng = random.Random(1)
    for _ in range(50):
        s = GAME.initial()
        while not s.is_terminal():
            for a in s.legal_actions():
                assert s.string_to_action(s.action_to_string(a)) == a
            s = s.apply(rng.choice(s.legal_actions()))
    s = GAME.initial().apply(0).apply(5).apply(3)
    assert s.action_to_string(K.LIAR) == "liar" and s.action_to_string(6) == "2-1"
    assert GAME.render(s) == "player 0: 1 player 1: 6\nbids: 1-4"
    with pytest.raises(ValueError, match="not a legal action here; legal: "):
        s.string_to_action("1-1")  # below the last bid


def test_the_bid_is_resolved_with_sixes_wild():
    def after(d0, d1, *bids):
        s = GAME.initial().apply(d0 - 1).apply(d1 - 1)
        for b in bids:
            s = s.apply(b)
        return s.apply(K.LIAR).returns()[0]
    two_fours = 1 * 6 + 3
    assert after(4, 6, two_fours) == 1.0  # player 0 bids two 4s: a 4 and a wild 6 make it true, the bidder wins
    assert after(4, 3, two_fours) == -1.0  # one 4 only: player 1's call wins
    assert after(4, 3, 0, two_fours) == 1.0  # player 1 bids two 4s, player 0 calls and wins
    assert after(6, 6, 11) == 1.0  # two 6s: both wild and sixes
    assert after(1, 2, 0) == 1.0 and after(2, 3, 0) == -1.0  # one 1: player 0's, then none


@pytest.mark.skipif(not numba_available(), reason="numba not importable")
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32))
def test_compiled_kernels_agree_with_plain(seed):
    import numpy as np

    from base.jit import compiled

    C = compiled(K)
    rng = random.Random(seed)
    g = np.zeros(1, dtype=np.int64)
    out_c = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    out_p = [0] * K.NUM_ACTIONS
    state = GAME.initial()
    while True:
        s = state.words
        assert int(C.to_move(g, s)) == K.to_move([0], s)
        n = int(C.legal(g, s, out_c, 0))
        assert n == K.legal([0], s, out_p, 0) and list(out_c[:n]) == out_p[:n]
        if n == 0:
            assert float(C.outcome(g, s)) == K.outcome([0], s)
            break
        if K.to_move([0], s) == CHANCE:
            assert [float(C.chance_prob(g, s, a)) for a in out_p[:n]] == [K.chance_prob([0], s, a) for a in out_p[:n]]
        for a in out_p[:n]:
            assert tuple(C.play(g, s, a)) == K.play([0], s, a)
        for p in (0, 1):
            assert tuple(C.info_key(g, s, p)) == K.info_key([0], s, p)
            assert tuple(C.observe(g, s, p)) == K.observe([0], s, p)
            assert tuple(C.determinize(g, s, p, seed)) == K.determinize([0], s, p, seed)
        state = state.apply(rng.choice(state.legal_actions()))
