"""The game interface (core.game) and its binding into a generic search, on tic-tac-toe."""
from __future__ import annotations

import pytest

from agents.engine import perft
from core.game import CHANCE, parse_line, play_line
from core.games import describe, make_game, parse_game

TTT_PERFT = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]  # published move-sequence counts


@pytest.mark.parametrize("jit", [False, True])
def test_tictactoe_perft_matches_the_published_counts_on_both_paths(jit):
    g = make_game("tictactoe")
    assert [perft.count(g, d, jit=jit) for d in range(1, 8)] == TTT_PERFT[:7]


def test_state_api_legal_apply_returns_and_text():
    g = make_game("tictactoe")
    s = g.initial()
    assert s.current_player() == 0 and not s.is_terminal() and s.current_player() != CHANCE
    assert s.legal_actions() == list(range(9))
    with pytest.raises(ValueError):
        s.apply(9)
    end = play_line(g, [0, 3, 1, 4, 2])
    assert end.is_terminal() and end.returns() == (1.0, -1.0) and end.legal_actions() == []
    assert parse_line(g, "a3 a2 b3 b2 c3").words == end.words
    assert all(s.string_to_action(s.action_to_string(a)) == a for a in range(9))


def test_symmetries_map_states_and_actions_consistently():
    g = make_game("tictactoe")
    s = play_line(g, [0, 4, 5])
    for sym in g.symmetries():
        image = g.new_state(sym.state(s.words))
        assert sorted(sym.action(a) for a in s.legal_actions()) == image.legal_actions()
        for a in s.legal_actions():
            assert g.new_state(sym.state(s.apply(a).words)).words == image.apply(sym.action(a)).words


def test_registry_parses_specs_and_lists_games():
    assert parse_game("tictactoe").spec() == "tictactoe"
    with pytest.raises(ValueError, match="unknown game"):
        make_game("chess")
    with pytest.raises(ValueError, match="no parameter"):
        make_game("tictactoe", rows=3)
    assert "tictactoe" in describe()


@pytest.mark.parametrize("shape", [(6, 7, 4), (4, 5, 3), (5, 4, 4), (9, 9, 5)])
def test_connectx_game_agrees_with_position_over_random_games(shape):
    """The engine's ConnectX (kernel contract) against core.connectx.position.Position, itself checked
    against kaggle-environments and a 2-D reference in tests/test_core.py."""
    import random

    from core.connectx.position import Position

    rows, columns, inarow = shape
    g = make_game("connectx", rows=rows, columns=columns, inarow=inarow)
    rng = random.Random(sum(shape))
    for _ in range(30):
        s, pos = g.initial(), Position.empty(g.shape)
        while True:
            assert s.is_terminal() == pos.is_terminal()
            if pos.is_terminal():
                winner = (2 - (pos.ply & 1)) if pos.last_player_won() else 0
                assert s.returns()[0] == {0: 0.0, 1: 1.0, 2: -1.0}[winner]
                break
            assert s.legal_actions() == [c for c in range(columns) if pos.can_play(c)]
            assert s.current_player() == pos.ply % 2
            col = rng.choice(s.legal_actions())
            s, pos = s.apply(col), pos.play(col)
            assert g.position(s).mask == pos.mask and g.position(s).current == pos.current


def test_connectx_perft_matches_published_counts_both_paths():
    g = make_game("connectx")
    published = [7, 49, 343, 2401, 16807, 117649, 823536]  # Connect Four perft, 6x7 (as core.connectx.perft)
    assert [perft.count(g, d, jit=False) for d in range(1, 6)] == published[:5]
    assert [perft.count(g, d, jit=True) for d in range(1, 8)] == published
