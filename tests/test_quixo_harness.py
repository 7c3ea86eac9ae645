"""The course-harness adapters (agents/quixo/harness.py), played through the stand-in CourseGame
whose pushes are written on the 2-D array apart from the engine's kernels."""
from __future__ import annotations

import random
from enum import Enum

import numpy as np
import pytest

from agents.engine.random_agent import RandomAgent
from agents.quixo.harness import CourseGame, CourseMinimaxPlayer, CoursePlayerAgent, CourseRandomPlayer, EnginePlayer, Move, course_to_action, state_from_board
from core.games import make_game


class Recorder:
    """Wraps a course Player; the game records the moves it accepts."""

    def __init__(self, player):
        self.player = player

    def make_move(self, game):
        return self.player.make_move(game)


class RecordingGame(CourseGame):
    def __init__(self, size):
        super().__init__(size)
        self.accepted = []

    def move(self, from_pos, slide, player_id):
        ok = super().move(from_pos, slide, player_id)
        if ok:
            self.accepted.append((tuple(from_pos), slide, self.get_board()))
        return ok


def board_of(state) -> np.ndarray:
    n = state.game.n
    x, o, _ = state.words
    return np.array([[0 if (x >> (r * n + c)) & 1 else 1 if (o >> (r * n + c)) & 1 else -1 for c in range(n)]
                     for r in range(n)], dtype=np.int8)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_course_games_replayed_on_the_engine_give_the_same_boards_and_winner(n):
    g = make_game("quixo", size=n, max_plies=0)
    for seed in range(6):
        game = RecordingGame(n)
        game.max_plies = 120
        engine = EnginePlayer(RandomAgent(game=g, seed=seed), game=g, seconds=1.0)
        players = [engine, CourseRandomPlayer(seed)] if seed % 2 else [CourseRandomPlayer(seed), engine]
        winner = game.play(*players)
        state = g.initial()
        for from_pos, slide, board in game.accepted:
            state = state.apply(course_to_action(g, from_pos, slide))
            assert np.array_equal(board_of(state), board)
        if winner >= 0:
            assert state.is_terminal() and state.returns()[winner] == 1.0
        else:
            assert not state.is_terminal() and len(game.accepted) == 120


def test_engine_player_answers_with_the_callers_move_enum():
    class TheirMove(Enum):
        TOP = 0
        BOTTOM = 1
        LEFT = 2
        RIGHT = 3

    g = make_game("quixo", size=5)
    p = EnginePlayer(RandomAgent(game=g, seed=1), game=g, move_enum=TheirMove)
    game = CourseGame(5)
    game.current_player_idx = 0
    (x, y), slide = p.make_move(game)
    assert isinstance(slide, TheirMove) and (x in (0, 4) or y in (0, 4))


def test_state_from_board_reads_columns_as_x_and_rows_as_y():
    g = make_game("quixo", size=5)
    board = np.full((5, 5), -1)
    board[4, 0] = 0  # row 4, column 0
    board[0, 3] = 1
    s = state_from_board(g, board, 1)
    assert s.words == (1 << 20, 1 << 3, 1) and s.current_player() == 1
    with pytest.raises(ValueError, match="shape"):
        state_from_board(g, np.full((4, 4), -1), 0)


def test_course_player_agent_plays_legal_moves_and_takes_a_win_in_one():
    g = make_game("quixo", size=4, max_plies=0)
    agent = CoursePlayerAgent(player=CourseMinimaxPlayer(depth=1), game=g)
    rng = random.Random(2)
    wins_found = 0
    for _ in range(120):
        s = g.initial()
        for _ in range(rng.randrange(2, 30)):
            if s.is_terminal():
                break
            s = s.apply(rng.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        me = s.current_player()
        a = agent.choose(s, 0.0)
        assert a in s.legal_actions()
        if any(s.apply(b).is_terminal() and s.apply(b).returns()[me] == 1.0 for b in s.legal_actions()):
            assert s.apply(a).returns()[me] == 1.0
            wins_found += 1
    assert wins_found >= 3


def test_course_player_agent_falls_back_to_a_legal_move_when_the_player_never_gives_one():
    class Stubborn:
        def make_move(self, game):
            return (2, 2), Move.TOP  # not a border cell

    g = make_game("quixo", size=5)
    agent = CoursePlayerAgent(player=Stubborn(), game=g, max_tries=5)
    s = g.initial()
    assert agent.choose(s, 0.0) in s.legal_actions() and agent.info()["fallback"]


def test_course_minimax_depth_2_beats_the_course_random_player_on_3x3():
    wins = 0
    for seed in range(6):
        game = CourseGame(3, max_plies=60)
        mm = CourseMinimaxPlayer(depth=2, seed=seed)
        if seed % 2:
            wins += game.play(mm, CourseRandomPlayer(seed)) == 0
        else:
            wins += game.play(CourseRandomPlayer(seed), mm) == 1
    assert wins >= 5
