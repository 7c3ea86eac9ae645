"""Kuhn poker and Leduc hold'em (``core/kuhn_poker``, ``core/leduc_poker``) against their plain
references written from the rules (``tests/reference_kuhn.py``, ``tests/reference_leduc.py``):
every state of both games compared (the trees are small), the hidden-information contract
(information states partition like the reference's, the determinizer never samples a state the
observations rule out, reads only what the player saw and draws the hidden card uniformly),
and the compiled kernels against the plain ones on random games (hypothesis).
OpenSpiel, when installed: ``tests/test_poker_openspiel.py``."""
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
from tests import reference_kuhn, reference_leduc

GAMES = {"kuhn_poker": reference_kuhn.Ref, "leduc_poker": reference_leduc.Ref}
SIZES = {"kuhn_poker": (58, 30, 12), "leduc_poker": (9457, 5520, 936)}  # states, terminal states, information states at decisions


def walk(game, ref_class):
    """Every (state, reference) pair of the game, depth first."""
    stack = [(game.initial(), ref_class())]
    while stack:
        s, r = stack.pop()
        yield s, r
        for a in s.legal_actions():
            stack.append((s.apply(a), r.apply(a)))


def _same(s, r) -> None:
    assert s.is_terminal() == r.is_terminal()
    assert s.legal_actions() == r.legal()
    assert s.returns() == r.returns()
    if r.is_terminal():
        return
    assert s.is_chance_node() == r.is_chance()
    assert s.current_player() == r.player()
    if r.is_chance():
        ours, theirs = s.chance_outcomes(), r.chance_outcomes()
        assert [a for a, _ in ours] == [a for a, _ in theirs]
        assert [q for _, q in ours] == pytest.approx([q for _, q in theirs], rel=1e-12)


@pytest.mark.parametrize("name", GAMES)
def test_every_state_matches_the_reference(name):
    game = make_game(name)
    seen = 0
    for s, r in walk(game, GAMES[name]):
        _same(s, r)
        seen += 1
    assert seen == SIZES[name][0] == game.states  # what positions_log10 tells the exact solver's size rule


@pytest.mark.parametrize("name", GAMES)
def test_information_states_partition_as_the_references_do(name):
    """Two states share a player's information state exactly when the reference's do."""
    game = make_game(name)
    ours: dict = {}
    theirs: dict = {}
    terminals = 0
    for s, r in walk(game, GAMES[name]):
        terminals += s.is_terminal()
        for p in (0, 1):
            key, text = game.information_state(s, p), r.info(p)
            assert ours.setdefault(key, text) == text
            assert theirs.setdefault(text, key) == key
    decisions = {game.information_state(s, s.current_player()) for s, _ in walk(game, GAMES[name])
                 if not s.is_terminal() and not s.is_chance_node()}
    assert (terminals, len(decisions)) == SIZES[name][1:]


@pytest.mark.parametrize("name", GAMES)
def test_the_determinizer_never_samples_what_the_observations_rule_out(name):
    game = make_game(name)
    states = [s for s, _ in walk(game, GAMES[name])]
    assert determinizer_mismatch(game, states, range(0, 400, 7), {s.words for s in states}) is None


@pytest.mark.parametrize("name", GAMES)
def test_the_determinizer_draws_the_hidden_card_uniformly(name):
    """Over 3,000 seeds each card the player has not seen comes up about equally often."""
    game = make_game(name)
    rng = random.Random(5)
    states = [s for s, _ in walk(game, GAMES[name]) if not s.is_chance_node() and not s.is_terminal()]
    for s in rng.sample(states, 6):
        p = s.current_player()
        seen = {s.words[p]} | ({s.words[2]} if name == "leduc_poker" and s.words[2] != 6 else set())
        hidden = Counter(game.determinize(s, p, seed).words[1 - p] for seed in range(3000))
        cards = 3 if name == "kuhn_poker" else 6
        assert set(hidden) == set(range(cards)) - seen
        for count in hidden.values():
            assert abs(count - 3000 / len(hidden)) < 0.15 * 3000 / len(hidden)


def test_the_determinizer_check_catches_a_peek_and_a_wrong_sample(monkeypatch):
    """The check can fail: a determinizer that returns the true state (it reads the hidden card)
    and one that changes the player's own card are both caught."""
    from core.kuhn_poker import kernels as K

    game = make_game("kuhn_poker")
    states = [s for s, _ in walk(game, reference_kuhn.Ref)]
    monkeypatch.setattr(K, "determinize", lambda g, s, p, seed: tuple(s))
    assert "sample differently" in determinizer_mismatch(game, states, range(5))
    monkeypatch.setattr(K, "determinize", lambda g, s, p, seed: (s[1], s[0], s[2], s[3]) if s[1] != K.NONE else tuple(s))
    assert "information state" in determinizer_mismatch(game, states, range(5))


@pytest.mark.parametrize("name", GAMES)
def test_actions_read_back_from_their_text(name):
    game = make_game(name)
    for s, _ in walk(game, GAMES[name]):
        for a in s.legal_actions():
            assert s.string_to_action(s.action_to_string(a)) == a
        if not s.is_terminal():
            with pytest.raises(ValueError, match="not a legal action here; legal: "):
                s.string_to_action("nosuch")


def _random_states(name: str, seed: int):
    game = make_game(name)
    rng = random.Random(seed)
    s = game.initial()
    out = [s]
    while not s.is_terminal():
        s = s.apply(rng.choice(s.legal_actions()))
        out.append(s)
    return game, out


@pytest.mark.skipif(not numba_available(), reason="numba not importable")
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(GAMES)), st.integers(0, 2 ** 32))
def test_compiled_kernels_agree_with_plain(name, seed):
    import numpy as np

    from base.jit import compiled

    game, states = _random_states(name, seed)
    K = game.kernel_module
    C = compiled(K)
    g = np.zeros(1, dtype=np.int64)
    out_c = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    out_p = [0] * K.NUM_ACTIONS
    for state in states:
        s = state.words
        assert int(C.to_move(g, s)) == K.to_move([0], s)
        assert bool(C.terminal(g, s)) == K.terminal([0], s)
        n = int(C.legal(g, s, out_c, 0))
        assert n == K.legal([0], s, out_p, 0) and list(out_c[:n]) == out_p[:n]
        if n == 0:
            assert float(C.outcome(g, s)) == K.outcome([0], s)
        elif K.to_move([0], s) == CHANCE:
            assert [float(C.chance_prob(g, s, a)) for a in out_p[:n]] == [K.chance_prob([0], s, a) for a in out_p[:n]]
        for a in out_p[:n]:
            assert tuple(C.play(g, s, a)) == K.play([0], s, a)
        for p in (0, 1):
            assert tuple(C.info_key(g, s, p)) == K.info_key([0], s, p)
            assert tuple(C.observe(g, s, p)) == K.observe([0], s, p)
            for r in (0, seed % 1000, seed):
                assert tuple(C.determinize(g, s, p, r)) == K.determinize([0], s, p, r)


@pytest.mark.parametrize("name", GAMES)
def test_the_observation_shows_the_chips_and_nothing_the_information_state_hides(name):
    """Two states a player cannot tell apart look the same to it now; the chips it sees are the
    reference's pot shares, its card its own."""
    game = make_game(name)
    seen: dict = {}
    for s, r in walk(game, GAMES[name]):
        for p in (0, 1):
            obs = game.observation(s, p)
            assert seen.setdefault((p,) + game.information_state(s, p), obs) == obs
            card = r.cards[p] if name == "kuhn_poker" and len(r.cards) > p else \
                r.private[p] if name == "leduc_poker" and len(r.private) > p else None
            assert obs[0] == (card if card is not None else game.kernel_module.NONE)
            if name == "kuhn_poker":
                pot = [1 + r.moves[0::2].count("b"), 1 + r.moves[1::2].count("b")]
                assert list(obs[1:]) == pot
            else:
                assert list(obs[2:4]) == r.put and obs[1] == (r.public if r.public >= 0 else game.kernel_module.NONE)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(GAMES)), st.integers(0, 2 ** 32), st.integers(0, 2 ** 40))
def test_determinizations_along_random_games_keep_what_each_player_saw(name, seed, draw_seed):
    """Along a random game, for both players and a random seed: the sample has the player's
    information state and observation, is over exactly when the game is, and keeps the legal
    actions of the player when it is to move."""
    game, states = _random_states(name, seed)
    for s in states:
        for p in (0, 1):
            d = game.determinize(s, p, draw_seed)
            assert game.information_state(d, p) == game.information_state(s, p)
            assert game.observation(d, p) == game.observation(s, p)
            assert d.is_terminal() == s.is_terminal()
            if s.current_player() == p and not s.is_terminal():
                assert d.legal_actions() == s.legal_actions()


def test_perfect_information_games_keep_their_state_as_what_a_player_sees():
    """The contract's defaults: every game before the poker ones is of perfect information, has
    none of the hooks, and its information state, observation and determinization are the state."""
    from core.games import names

    for name in names():
        game = make_game(name)
        hooks = [h for h in ("info_key", "observe", "determinize") if hasattr(game.kernel_module, h)]
        assert game.perfect_information == (not hooks), name
        if game.perfect_information and not game.array_state:
            s = game.initial()
            while s.is_chance_node():
                s = s.apply(s.legal_actions()[0])
            for p in (0, 1):
                assert game.information_state(s, p) == s.words == game.observation(s, p)
                assert game.determinize(s, p, 7) is s
    assert {"kuhn_poker", "leduc_poker"} <= {n for n in names() if not make_game(n).perfect_information}
