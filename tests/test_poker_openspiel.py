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


def _walk(game, theirs, keep=None):
    """Every (state, OpenSpiel state) pair, depth first; with ``keep`` (the chance outcomes so far
    -> bool), only under the chance outcomes it keeps."""
    stack = [(game.initial(), theirs.new_initial_state(), ())]
    while stack:
        s, t, dealt = stack.pop()
        yield s, t
        for a in s.legal_actions():
            after = dealt + (a,) if s.is_chance_node() else dealt
            if keep is not None and s.is_chance_node() and not keep(after):
                continue
            c = t.clone()
            c.apply_action(a)
            stack.append((s.apply(a), c, after))


def _compare(game, pairs) -> tuple[int, int]:
    """Each pair alike (player to move, legal actions, chance outcomes and probabilities, returns)
    and the information states partitioned alike: (states, information states at decisions)."""
    ours_to_theirs: dict = {}
    theirs_to_ours: dict = {}
    states = 0
    for s, t in pairs:
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
    assert len(ours_to_theirs) == len(theirs_to_ours)
    return states, len(ours_to_theirs)


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_every_state_matches_openspiel(name):
    game, theirs = make_game(name), pyspiel.load_game(name)
    states, infos = _compare(game, _walk(game, theirs))
    assert infos == {"kuhn_poker": 12, "leduc_poker": 936}[name]
    assert states > 50


def test_liars_dice_matches_openspiel_under_four_rolls():
    """Liar's Dice (one die each) against OpenSpiel's ``liars_dice``, action by action, over the
    states under four rolls (a wild six, a pair, two sixes, neither): 32,769 states."""
    from tests.test_liars_dice import SOME_ROLLS

    game, theirs = make_game("liars_dice"), pyspiel.load_game("liars_dice")
    faces = {tuple(f - 1 for f in pair) for pair in SOME_ROLLS}
    under = lambda dealt: any(pair[:len(dealt)] == dealt for pair in faces)
    assert _compare(game, _walk(game, theirs, under)) == (5 + 4 * 8191, 7 * 2048)
