"""bench.core_speed: its hot loop gives the same result compiled and plain, and its CLI works."""
from __future__ import annotations

import pytest

import bench.core_speed as cs
from base.jit import compiled, numba_available
from core.connectx import Shape


@pytest.mark.parametrize("shape", [Shape(6, 7, 4), Shape(5, 4, 3), Shape(6, 9, 5), Shape(10, 10, 5)], ids=str)
def test_plain_loop_plays_whole_games(shape):
    games = 40
    plies = cs.random_games(shape.rows, shape.columns, shape.inarow, games, 3)
    # a game lasts from the shortest possible win to a full board
    assert games * (2 * shape.inarow - 1) <= plies <= games * shape.cells
    assert plies != cs.random_games(shape.rows, shape.columns, shape.inarow, games, 4)  # the seed matters


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("shape", [Shape(6, 7, 4), Shape(5, 4, 3), Shape(6, 9, 5)], ids=str)
def test_compiled_loop_plays_the_same_games(shape):
    fast = compiled(cs).random_games
    for seed in range(5):
        args = (shape.rows, shape.columns, shape.inarow, 30, seed)
        assert fast(*args) == cs.random_games(*args)


def test_position_games_count():
    plies = cs.position_games(Shape(), 20, 0)
    assert 20 * 7 <= plies <= 20 * 42


def test_cli_prints_table(capsys):
    assert cs.main(["--repeats", "1", "--games", "5", "--numba-games", "50"]) == 0
    out = capsys.readouterr().out
    assert "pure Python, same source" in out and "Position object API" in out


@pytest.mark.parametrize("argv", [["--shape", "6x7"], ["--repeats", "0"], ["--games", "x"], ["--bogus"]])
def test_cli_bad_input_exits_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cs.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m bench.core_speed: error: ")
