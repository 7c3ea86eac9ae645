"""The direct game loop: each termination, the opening, the timing limit, and agreement with the
2-D reference on who won."""
from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from agents.connectx.random_agent import RandomAgent
from core.connectx import Position, Shape
from tests.reference import RefBoard
from util.arena.game import GameResult, default_hard_limit, play_game


@dataclass
class Script:
    """Plays a fixed list of answers in turn (any object, to test the judge)."""

    answers: list
    delay: float = 0.0
    resets: int = 0

    def reset(self) -> None:
        self.resets += 1
        self._i = 0

    def choose(self, state, deadline):
        answer = self.answers[self._i]
        self._i += 1
        if self.delay:
            time.sleep(self.delay)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_win_first_player_vertical():
    r = play_game(Script([3, 3, 3, 3]), Script([0, 1, 2]))
    assert (r.winner, r.termination, r.errors) == (1, "win", {})
    assert r.moves == [3, 0, 3, 1, 3, 2, 3]
    assert len(r.move_times) == 7 and r.opening == ()


def test_win_second_player():
    r = play_game(Script([0, 1, 0, 1]), Script([3, 3, 3, 3]))
    assert (r.winner, r.termination) == (2, "win")
    assert r.moves == [0, 3, 1, 3, 0, 3, 1, 3]


def test_draw_on_full_small_board():
    # 2x2 board, inarow 2 is easy to win; use 2x3 inarow 3: no line fits in 2 rows vertically,
    # and rows can be blocked. Columns order 0,1,2,0,1,2 fills bottom row X O X, top O X O.
    shape = Shape(2, 3, 3)
    r = play_game(Script([0, 2, 1]), Script([1, 0, 2]), shape=shape)
    assert (r.winner, r.termination) == (0, "draw")
    assert len(r.moves) == 6


def test_error_forfeits_with_message():
    r = play_game(Script([3, RuntimeError("boom")]), Script([3, 3]))
    assert (r.winner, r.termination) == (2, "error")
    assert r.errors == {1: "RuntimeError: boom"}
    assert r.moves == [3, 3]


@pytest.mark.parametrize("bad", [7, -1, "3", 3.0, None, True], ids=repr)
def test_illegal_answer_forfeits(bad):
    r = play_game(Script([bad]), Script([0]))
    assert (r.winner, r.termination) == (2, "illegal")
    assert list(r.errors) == [1] and r.moves == []


def test_full_column_forfeits():
    shape = Shape(2, 3, 3)
    r = play_game(Script([0, 1]), Script([0, 0]), shape=shape)
    assert (r.winner, r.termination) == (1, "illegal")
    assert "full" in r.errors[2] and r.moves == [0, 0, 1]


def test_numpy_integer_is_accepted():
    np = pytest.importorskip("numpy")
    r = play_game(Script([np.int64(3)] * 4), Script([np.int32(0), 1, 2]))
    assert (r.winner, r.termination) == (1, "win")
    assert all(type(m) is int for m in r.moves)


def test_timeout_past_hard_limit():
    r = play_game(Script([3], delay=0.3), Script([0]), time_per_move=0.05, hard_limit=0.1)
    assert (r.winner, r.termination) == (2, "timeout")
    assert r.move_times[0] >= 0.3 and "hard limit" in r.errors[1]


def test_late_but_within_hard_limit_is_fine():
    r = play_game(Script([3, 3, 3, 3], delay=0.06), Script([0, 1, 2]), time_per_move=0.05, hard_limit=5.0)
    assert (r.winner, r.termination) == (1, "win")


def test_default_hard_limit_is_generous():
    assert default_hard_limit(1.0) == 2.0 and default_hard_limit(0.1) == pytest.approx(1.1)


def test_deadline_given_is_start_plus_budget():
    seen = []

    class Probe:
        def choose(self, state, deadline):
            seen.append(deadline - time.perf_counter())
            return state.legal_actions()[0]

    play_game(Probe(), Probe(), time_per_move=0.25)
    assert seen and all(0.2 < d <= 0.25 for d in seen)


def test_opening_is_played_first_and_recorded():
    r = play_game(Script([3, 3, 3]), Script([0, 1, 2]), opening=(3, 0))
    assert r.opening == (3, 0) and r.moves[:2] == [3, 0]
    assert (r.winner, r.termination) == (1, "win") and len(r.move_times) == 5


def test_opening_that_ends_the_game():
    r = play_game(Script([]), Script([]), opening=(3, 0, 3, 0, 3, 0, 3))
    assert (r.winner, r.termination, r.move_times) == (1, "win", [])


@pytest.mark.parametrize("opening", [(7,), (-1,), (0, 0, 0, 0, 0, 0, 0), (3, 0, 3, 0, 3, 0, 3, 1)], ids=str)
def test_illegal_opening_raises(opening):
    with pytest.raises(ValueError):
        play_game(Script([]), Script([]), opening=opening)


def test_reset_called_once_per_agent_and_self_play():
    a, b = Script([3, 3, 3, 3]), Script([0, 1, 2])
    play_game(a, b)
    assert (a.resets, b.resets) == (1, 1)
    rnd = RandomAgent(seed=5)
    r = play_game(rnd, rnd)
    assert r.termination in ("win", "draw")


@pytest.mark.parametrize("shape", [Shape(6, 7, 4), Shape(5, 4, 3), Shape(10, 10, 5)], ids=str)
def test_random_games_judged_like_reference(shape):
    """Winner and end of game agree with tests/reference.py over many seeded random games."""
    for seed in range(60):
        r = play_game(RandomAgent(seed=seed), RandomAgent(seed=1000 + seed), shape=shape)
        assert isinstance(r, GameResult) and r.termination in ("win", "draw") and r.errors == {}
        ref = RefBoard(shape.rows, shape.columns, shape.inarow)
        for col in r.moves:
            assert ref.legal(), "the loop played on after the game ended"
            ref.play(col)
        assert not ref.legal()
        assert ref.winner == r.winner
        assert Position.from_moves(r.moves, shape).winner == r.winner
