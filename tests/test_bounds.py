"""No input can hang a command: every size, count and time a command line takes is bounded and
parsed strictly, checked before any work, and refused in one line with exit code 2 (never a
traceback, never a hint at ``allow_pickle`` or ``sys.set_int_max_str_digits``). The shared
validator (:mod:`base.bounds`) is tested here too; the web's side is tests/test_web_bounds.py."""
from __future__ import annotations

import io
import math

import pytest

from base.bounds import as_float, as_int, as_seconds


# --- the validator ----------------------------------------------------------------------------
@pytest.mark.parametrize("value, lo, hi, expected", [
    (5, 1, 20, 5), ("5", 1, 20, 5), (" +5 ", 1, 20, 5), (6.0, 1, 20, 6), ("-3", -5, 0, -3),
    (2 ** 62, 0, None, 2 ** 62),
])
def test_integers_in_range_are_read(value, lo, hi, expected) -> None:
    assert as_int(value, "rows", lo, hi) == expected


@pytest.mark.parametrize("value", ["1.5", 1.5, "1e3", "\u0663", "\uff13", "", " ", "0x10", "1_000", True, None, [3],
                                   "9" * 5000, math.inf, math.nan, 1e308, 21, 0])
def test_anything_else_is_a_one_line_error_naming_the_parameter(value) -> None:
    with pytest.raises(ValueError) as exc:
        as_int(value, "rows", 1, 20)
    message = str(exc.value)
    assert message.startswith("rows must be an integer from 1 to 20, got ") and "\n" not in message
    assert len(message) < 100 and "int_max_str_digits" not in message


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", math.nan, math.inf, "1e400", 10 ** 400, "0", 0, "-1", "1,5", "\u0661"])
def test_times_are_finite_positive_and_bounded(value) -> None:
    with pytest.raises(ValueError, match=r"^time must be a number more than 0 and at most 86400, got "):
        as_seconds(value, "time")


def test_numbers_in_range_are_read() -> None:
    assert as_seconds("0.5", "time") == 0.5 and as_seconds(86400, "time") == 86400.0
    assert as_float("1e-3", "x", 0.0, 1.0) == 0.001 and as_float(".5", "x") == 0.5


# --- the command lines ------------------------------------------------------------------------
def one_line(capsys, main, argv, stdin: str = "") -> str:
    """Run ``main(argv)`` in this process; assert it refused in one line with exit code 2."""
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    for hint in ("allow_pickle", "set_int_max_str_digits"):
        assert hint not in err
    return lines[0]


def _solver(argv):
    from agents.connectx import solver
    return solver.main(argv)


def _solve(argv):
    from agents.engine import solve
    return solve.main(argv)


def _tournament(argv):
    from util.arena import tournament
    return tournament.main(argv)


def _play(argv):
    from util.arena import play
    return play.main(argv, io.StringIO("q\n"), io.StringIO())


def _book(argv):
    from agents.connectx import book
    return book.main(argv)


def _cache(argv):
    from agents.connectx import mcts_cache
    return mcts_cache._main(argv)


def _web(argv):
    from util.arena.web import __main__ as web
    return web.main(argv)


def _build(argv):
    import build_submission
    return build_submission.main([*argv, "--no-validate"])


AGENTS = ["--agents", "random,random:seed=1", "--quiet"]
CASES = [
    # board shapes
    (_solver, ["--game", "connectx:rows=100000,columns=100000"], "rows must be an integer from 1 to 32, got 100000"),
    (_solver, ["--game", "connectx:rows=1e308"], "rows must be an integer from 1 to 32, got '1e308'"),
    (_solver, ["--game", "connectx:rows=1.5"], "rows must be an integer"),
    (_solver, ["--shape", "\u0666x7x4"], "must be ROWSxCOLUMNSxINAROW"),
    (_solver, ["--shape", "6x100000x4"], "columns must be an integer from 1 to 32"),
    (_solve, ["--game", "connect4_count:rows=1000,columns=1000"], "rows must be an integer from 1 to 32, got 1000"),
    (_tournament, [*AGENTS, "--game", "connect4_count:columns=\u0663"], "columns must be an integer"),
    # tables
    (_solver, ["--tt-size", "99999999999999999999"], "--tt-size: value must be an integer from 1 to 268435456"),
    (_solver, ["--tt-size", "1e12"], "--tt-size: value must be an integer"),
    (_solve, ["--game", "tictactoe", "--tt-bits", "30"], "--tt-bits: value must be an integer from 4 to 26"),
    (_book, ["build", "--max-ply", "2", "--tt-size", "1e12"], "--tt-size: value must be an integer"),
    (_tournament, ["--agents", "perfect:tt_size=1e20,random", "--quiet"], "tt_size of agent 'perfect' must be an integer"),
    (_tournament, ["--agents", "alphabeta:tt_bits=30,random", "--quiet"], "tt_bits of agent 'alphabeta' must be an integer from 4 to 26"),
    (_tournament, ["--agents", "mcts:capacity=1e11,random", "--quiet"], "capacity of agent 'mcts' must be an integer"),
    # counts and times
    (_tournament, [*AGENTS, "--time", "nan"], "--time: value must be a number more than 0 and at most 86400"),
    (_tournament, [*AGENTS, "--time", "inf"], "--time: value must be a number"),
    (_tournament, [*AGENTS, "--games", "1.5"], "--games: value must be an integer"),
    (_tournament, [*AGENTS, "--game", "tictactoe", "--opening-plies", "1000"], "--opening-plies: value must be an integer from 0 to 40"),
    (_tournament, [*AGENTS, "--replay", "99999999999999999999"], "--replay: value must be an integer from 1 to 9223372036854775807"),
    (_play, ["--agent", "random", "--time", "nan"], "--time: value must be a number"),
    (_play, ["--agent", "random", "--tree-depth", "100"], "--tree-depth: value must be an integer from 1 to 12"),
    (_play, ["--agent", "random", "--seed", "-1"], "--seed: value must be an integer from 0"),
    (_cache, ["grow", "--seconds", "nan"], "--seconds: value must be a number from 0 to 86400"),
    (_cache, ["grow", "--seconds", "inf"], "--seconds: value must be a number"),
    (_build, ["--clock", "margin=1e308"], "--clock margin must be a number from 0 to 86400"),
    (_build, ["--games", "99999999999999999999"], "--games must be at least 1 and at most"),
    # the web server's own arguments (nothing is served)
    (_web, ["--host", "999.999.1.1"], "--host '999.999.1.1' is no address of this machine"),
    (_web, ["--port", "0"], "--port: value must be an integer from 1 to 65535"),
    (_web, ["--threads", "100000"], "--threads: value must be an integer from 1 to 64"),
]


@pytest.mark.parametrize("k", range(len(CASES)), ids=[" ".join(c[1])[:60] for c in CASES])
def test_commands_refuse_unbounded_input_in_one_line(capsys, monkeypatch, k) -> None:
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    main, argv, words = CASES[k]
    line = one_line(capsys, main, argv)
    assert words in line, line


def test_output_paths_are_checked_before_any_work(capsys, tmp_path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    db = str(tmp_path / "t.sqlite")
    line = one_line(capsys, _tournament, [*AGENTS, "--games", "2", "--time", "0.01", "--db", db, "--plot", str(afile / "plots")])
    assert "--plot" in line and "cannot be written" in line, line
    assert not (tmp_path / "t.sqlite").exists()  # no game was played
    line = one_line(capsys, _tournament, ["--replay", "1", "--out", str(afile), "--db", db])
    assert "--out" in line and "is a file, not a directory" in line, line
    line = one_line(capsys, _book, ["build", "--max-ply", "2", "--store", str(afile / "book.store")])
    assert "--store" in line and "cannot be written" in line, line
    line = one_line(capsys, _cache, ["grow", "--seconds", "600", "--out", str(afile / "cache.npz")])
    assert "--out" in line and "cannot be written" in line, line


def test_tune_checks_its_space_time_and_storage(capsys, tmp_path) -> None:
    pytest.importorskip("optuna")
    from util.arena import tune

    base = ["--agent", "random", "--opponents", "random:seed=1", "--out", str(tmp_path / "best.json"),
            "--storage", f"sqlite:///{tmp_path / 's.sqlite'}"]
    for argv, words in [
        (["--space", "seed=int:0:3", "--time", "nan"], "--time: value must be a number"),
        (["--space", "seed=int:1.5:3"], "bounds are LOW:HIGH (integers)"),
        (["--space", "seed=int:0:3,seed=int:1:2"], "--space names 'seed' twice"),
    ]:
        assert words in one_line(capsys, tune.main, [*base, *argv])
    afile = tmp_path / "afile"
    afile.write_text("x")
    argv = [*base[:-1], f"sqlite:///{afile / 'deeper' / 's.sqlite'}", "--space", "seed=int:0:3"]
    assert "--storage" in one_line(capsys, tune.main, argv)


def test_columns_are_ascii_digits(capsys) -> None:
    from core.connectx.cli import parse_moves
    from core.connectx.shape import STANDARD
    from core.games import make_game

    state = make_game("connectx").initial()
    with pytest.raises(ValueError, match="is not a column"):
        state.string_to_action("\u0664")  # Arabic-Indic four
    with pytest.raises(ValueError, match="is not a column"):
        state.string_to_action("9" * 5000)
    with pytest.raises(ValueError, match=r"move 1 \('\u0664'\) is not a column"):
        parse_moves("\u0664", STANDARD)
