"""One way for every command line to read its game: ``--game NAME[:key=value,...]`` and ConnectX's
``--shape RxCxK`` (:func:`core.games.add_game_arguments`, :func:`core.games.game_from_args`)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from base.cli import OneLineParser
from core.games import add_game_arguments, game_from_args, game_from_text, make_game, names

ROOT = Path(__file__).resolve().parent.parent


def read(argv: list[str], default: str | None = "connectx", without_chance: str = ""):
    parser = OneLineParser(prog="tool")
    add_game_arguments(parser, default=default)
    return game_from_args(parser, parser.parse_args(argv), without_chance)


def test_the_game_and_its_parameters_come_in_one_argument() -> None:
    assert read(["--game", "connect4_count:rows=4,columns=5"]).spec() == make_game("connect4_count", rows=4, columns=5).spec()
    assert read(["--game", "tictactoe"]).spec() == make_game("tictactoe").spec()


def test_shape_is_connectx_shorthand_and_the_default_applies() -> None:
    assert read(["--shape", "5x6x4"]).spec() == make_game("connectx", rows=5, columns=6, inarow=4).spec()
    assert read(["--game", "connectx", "--shape", "4x5x3"]).spec() == make_game("connectx", rows=4, columns=5, inarow=3).spec()
    assert read([]).spec() == make_game("connectx").spec()
    assert read([], default="quixo:size=4").spec() == make_game("quixo", size=4).spec()


def test_a_tool_can_tell_whether_a_game_was_named() -> None:
    parser = OneLineParser(prog="tool")
    add_game_arguments(parser, default="connectx")
    args = parser.parse_args([])
    assert args.game is None and args.shape is None


@pytest.mark.parametrize("argv, default, words", [
    (["--game", "nosuch"], "connectx", "unknown game 'nosuch'; games: " + ", ".join(names())),
    (["--game", "tictactoe:size=4"], "connectx", "has no parameter size"),
    (["--game", "connect4_count:rows"], "connectx", "write key=value"),
    (["--game", "tictactoe", "--shape", "5x6x4"], "connectx", "--shape is ConnectX's board"),
    (["--game", "connectx:rows=5", "--shape", "5x6x4"], "connectx", "give the board once"),
    (["--shape", "5x6"], "connectx", "bad --shape '5x6'"),
    ([], None, "give --game NAME[:key=value,...]; games: " + ", ".join(names())),
])
def test_bad_game_arguments_are_one_line_and_exit_2(capsys: pytest.CaptureFixture, argv: list, default, words: str) -> None:
    with pytest.raises(SystemExit) as exc:
        read(argv, default=default)
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and words in err[0], err


def test_games_with_chance_are_refused_when_the_tool_says_why(capsys: pytest.CaptureFixture) -> None:
    assert read(["--game", "einstein"]).has_chance
    with pytest.raises(SystemExit) as exc:
        read(["--game", "einstein"], without_chance="this tool solves games without chance")
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and "--game einstein: has chance nodes; this tool solves games without chance" in err


def test_game_from_text_raises_one_line_value_errors() -> None:
    assert game_from_text(None).spec() == make_game("connectx").spec()
    with pytest.raises(ValueError, match=r"bad --game 'chess': unknown game 'chess'; games: .*python -m core --list"):
        game_from_text("chess")


def _engine_tools():
    from agents.engine import mc_learner, opening_book, solve
    from bench import engine_solver, minimax_vs_alphabeta

    return [(solve.main, []), (opening_book.main, []), (mc_learner.main, ["train", "--episodes", "1", "--out", "x.npz"]),
            (engine_solver.main, []), (minimax_vs_alphabeta.main, [])]


@pytest.mark.parametrize("k", range(5))
def test_every_engine_tool_reads_the_one_form(capsys: pytest.CaptureFixture, k: int) -> None:
    main, argv = _engine_tools()[k]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--game", "nosuch"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "unknown game 'nosuch'; games: connectx" in err[0], err
    with pytest.raises(SystemExit) as exc:  # game parameters go in --game: no separate --param
        main([*argv, "--game", "tictactoe", "--param", "x=1"])
    assert exc.value.code == 2 and "unrecognized arguments: --param" in capsys.readouterr().err


@pytest.mark.parametrize("tool", ["tournament", "play"])
def test_the_arena_tools_read_the_one_form(capsys: pytest.CaptureFixture, tool: str) -> None:
    if tool == "tournament":
        from util.arena.tournament import main
        argv = ["--agents", "random,random:seed=1", "--quiet"]
    else:
        from util.arena.play import main
        argv = ["--agent", "random"]
    assert main([*argv, "--game", "tictactoe", "--shape", "5x6x4"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--shape is ConnectX's board" in err[0], err


# Tools that define their own --game on purpose: ConnectX only (build_submission), a benchmark
# over several games at once.
# The builders take --game to pick a builder (a Kaggle file's board comes from Kaggle's
# configuration or observation, not from game parameters): build_submission.py hands
# --game reinforce_tactics to build_submission_rt.py, which accepts the same option.
OWN_GAME_OPTION = {"build_submission.py", "build_submission_rt.py", "bench/engine_mcts_speed.py",
                   "core/games.py"}


def test_no_other_tool_defines_its_own_game_option() -> None:
    found = set()
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.split("/")[0] in ("tests", "submissions") or "/." in "/" + rel:
            continue
        if re.search(r"add_argument\(\s*[\"']--game[\"']", path.read_text(errors="replace")):
            found.add(rel)
    assert found - OWN_GAME_OPTION == set(), "use core.games.add_game_arguments"
    assert "core/games.py" in found


def test_connectx_solver_takes_the_board_from_game_parameters(capsys: pytest.CaptureFixture, monkeypatch) -> None:
    """`python -m agents.connectx.solver --game connectx:rows=...` solves on that board (the same answer
    as --shape), and refuses the board given twice or a misspelt parameter in one line."""
    import io

    from agents.connectx import solver

    def run(argv: list) -> tuple[int, str, str]:
        monkeypatch.setattr("sys.stdin", io.StringIO("4453\n"))
        code = solver.main(argv)
        out, err = capsys.readouterr()
        return code, out.strip(), err.strip()

    by_game = run(["--game", "connectx:rows=4,columns=5,inarow=3"])
    by_shape = run(["--shape", "4x5x3"])
    assert by_game == by_shape and by_game[0] == 0 and by_game[1].startswith("4453 ")
    assert by_game[1] != run([])[1]  # the standard board scores 4453 otherwise
    code, _, err = run(["--game", "connectx:rows=4,columns=5,inarow=3", "--shape", "6x7x4"])
    assert code == 2 and "once" in err and "\n" not in err
    code, _, err = run(["--game", "connectx:rows=4,colums=5"])
    assert code == 2 and "colums" in err and "\n" not in err
