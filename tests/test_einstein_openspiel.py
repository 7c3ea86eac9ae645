"""Our EinStein würfelt nicht! against OpenSpiel's ``einstein_wurfelt_nicht``, step by step.

Both use the same action numbers (set-up permutations, die faces minus one, OpenSpiel's move
encoding), so no mapping is needed: random games are replayed in both and the player to move,
legal actions, chance outcomes with their probabilities, move and roll texts, the board and the
returns must agree at every step. Skipped when pyspiel is not importable (optional dependency).
"""
from __future__ import annotations

import random

import pytest

from core.einstein import Einstein

pyspiel = pytest.importorskip("pyspiel")

GAMES = 60  # seeded random games in the default run (each ~30-100 steps); the slow test plays 1,000


def _their_board(text: str) -> str:
    return "".join(text.split("\n")[:5])


def _our_board(state) -> str:
    return "".join(str(state).split("\n")[:5])


def _compare(ours, theirs) -> None:
    assert ours.is_terminal() == theirs.is_terminal()
    assert _our_board(ours) == _their_board(str(theirs))
    if ours.is_terminal():
        assert list(ours.returns()) == list(theirs.returns())
        return
    assert ours.is_chance_node() == theirs.is_chance_node()
    if ours.is_chance_node():
        mine = ours.chance_outcomes()
        their = theirs.chance_outcomes()
        assert [a for a, _ in mine] == [a for a, _ in their]
        assert [p for _, p in mine] == pytest.approx([p for _, p in their], rel=1e-12)
        assert ours.legal_actions() == list(theirs.legal_actions())
    else:
        assert ours.current_player() == theirs.current_player()
        assert ours.legal_actions() == list(theirs.legal_actions())
        for a in ours.legal_actions():
            assert ours.action_to_string(a) == theirs.action_to_string(theirs.current_player(), a)
    assert list(theirs.returns()) == [0.0, 0.0] and ours.returns() == (0.0, 0.0)


def _replay(seeds) -> None:
    game = Einstein()
    them = pyspiel.load_game("einstein_wurfelt_nicht")
    for seed in seeds:
        rng = random.Random(seed)
        ours, theirs = game.initial(), them.new_initial_state()
        steps = 0
        while True:
            _compare(ours, theirs)
            if ours.is_terminal():
                break
            if ours.is_chance_node() and game.phase(ours) == 2:
                for a in ours.legal_actions():
                    assert ours.action_to_string(a) == theirs.action_to_string(-1, a)
            a = rng.choice(ours.legal_actions())
            ours = ours.apply(a)
            theirs.apply_action(a)
            steps += 1
        assert steps <= them.max_game_length() + 2


def test_random_games_agree_with_openspiel():
    _replay(range(GAMES))


@pytest.mark.slow
def test_many_random_games_agree_with_openspiel():
    _replay(range(GAMES, GAMES + 1000))


def test_both_return_signs_occur():
    """The seeded games above end both ways (so the returns check can fail both ways)."""
    game = Einstein()
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        s = game.initial()
        while not s.is_terminal():
            s = s.apply(rng.choice(s.legal_actions()))
        seen.add(s.returns()[0])
    assert seen == {1.0, -1.0}


def test_action_numbers_and_texts():
    game = Einstein()
    them = pyspiel.load_game("einstein_wurfelt_nicht")
    assert them.num_distinct_actions() <= game.num_actions and them.max_chance_outcomes() <= game.num_actions
    s = game.initial()
    for a in (5, 7, 2):
        s = s.apply(a)
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["W3-up", "W3-diag", "W3-left"]
