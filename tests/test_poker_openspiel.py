"""Kuhn poker and Leduc hold'em against OpenSpiel's ``kuhn_poker`` and ``leduc_poker``, action
by action over every state of both games (they are small), and Liar's Dice against ``liars_dice``
under four rolls: the player to move, legal actions,
chance outcomes with their probabilities, returns, and the information states (ours and
OpenSpiel's ``information_state_string`` partition the states alike for each player). Both use
the same action numbers. Skipped when pyspiel is not importable (an optional test extra)."""
from __future__ import annotations

import pytest

from core.games import make_game

pyspiel = pytest.importorskip("pyspiel")


def _walk(game, theirs):
    stack = [(game.initial(), theirs.new_initial_state())]
    while stack:
        s, t = stack.pop()
        yield s, t
        for a in s.legal_actions():
            c = t.clone()
            c.apply_action(a)
            stack.append((s.apply(a), c))


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_every_state_matches_openspiel(name):
    game, theirs = make_game(name), pyspiel.load_game(name)
    ours_to_theirs: dict = {}
    theirs_to_ours: dict = {}
    states = 0
    for s, t in _walk(game, theirs):
        states += 1
        assert s.is_terminal() == t.is_terminal()
        assert list(s.returns()) == list(t.returns())
        if s.is_terminal():
            continue
        assert s.is_chance_node() == t.is_chance_node()
        assert s.legal_actions() == list(t.legal_actions())
        if s.is_chance_node():
            assert [a for a, _ in s.chance_outcomes()] == [a for a, _ in t.chance_outcomes()]
            assert [p for _, p in s.chance_outcomes()] == pytest.approx([p for _, p in t.chance_outcomes()], rel=1e-12)
            continue
        p = s.current_player()
        assert p == t.current_player()
        key, text = game.information_state(s, p), (p, t.information_state_string(p))
        assert ours_to_theirs.setdefault(key, text) == text
        assert theirs_to_ours.setdefault(text, key) == key
    assert len(ours_to_theirs) == len(theirs_to_ours) == {"kuhn_poker": 12, "leduc_poker": 936}[name]
    assert states > 50


def test_liars_dice_matches_openspiel_under_four_rolls():
    """Liar's Dice (one die each) against OpenSpiel's ``liars_dice``, action by action, over the
    states under four rolls (a wild six, a pair, two sixes, neither): 32,769 states."""
    from tests.test_liars_dice import SOME_ROLLS

    game, theirs = make_game("liars_dice"), pyspiel.load_game("liars_dice")
    ours_to_theirs: dict = {}
    theirs_to_ours: dict = {}
    states = 0
    stack = [(game.initial(), theirs.new_initial_state(), ())]
    while stack:
        s, t, rolls = stack.pop()
        states += 1
        assert s.is_terminal() == t.is_terminal()
        assert list(s.returns()) == list(t.returns())
        if s.is_terminal():
            continue
        assert s.is_chance_node() == t.is_chance_node()
        assert s.legal_actions() == list(t.legal_actions())
        if not s.is_chance_node():
            p = s.current_player()
            assert p == t.current_player()
            key, text = game.information_state(s, p), (p, t.information_state_string(p))
            assert ours_to_theirs.setdefault(key, text) == text
            assert theirs_to_ours.setdefault(text, key) == key
        else:
            assert s.chance_outcomes() == [(a, pytest.approx(q)) for a, q in t.chance_outcomes()]
        for a in s.legal_actions():
            after = rolls + (a + 1,) if s.is_chance_node() else rolls
            if s.is_chance_node() and not any(pair[:len(after)] == after for pair in SOME_ROLLS):
                continue
            c = t.clone()
            c.apply_action(a)
            stack.append((s.apply(a), c, after))
    assert states == 5 + 4 * 8191
    assert len(ours_to_theirs) == len(theirs_to_ours) == 7 * 2048
