"""The arena on every game: tournaments, stores, reports, play and tune with ``--game``.

Engine agents run on the plain path here (``CONNECTX_NUMBA=0``): compiling numba kernels would
cost more than the games, and the rules are the same on both paths (tests/test_engine_*)."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.connectx.shape import STANDARD, Shape
from core.game import play_line
from core.games import parse_game
from tests.games_dicenim import DiceNim
from util.arena import match, openings, players
from util.arena.store import SCHEMA_VERSION, Store
from util.arena.tournament import main, standings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONNECTX_NUMBA", "0")


def replayed(spec: str, g) -> tuple:
    """Replay a stored game with the rules: the final state and where its chance nodes were."""
    game = parse_game(spec)
    state, chance = game.initial(), []
    for i, a in enumerate(g.moves):
        if state.is_chance_node():
            chance.append(i)
        state = state.apply(a)
    return state, tuple(chance)


def test_tictactoe_tournament_stores_the_game_and_rates(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "t.sqlite"
    assert main(["--game", "tictactoe", "--agents", "random,alphabeta:max_depth=4", "--games", "8", "--time", "0.5",
                 "--workers", "1", "--db", str(db), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "game tictactoe" in out and "alphabeta:max_depth=4" in out
    with Store(db) as store:
        games = list(store.games())
        assert len(games) == 8 and {g.game for g in games} == {"tictactoe"} and {g.shape for g in games} == {""}
        names, ratings, n, s = standings(store, parse_game("tictactoe"))
    assert ratings[0].name == "alphabeta:max_depth=4" and ratings[0].score > 4  # it never loses to random at depth 4
    assert n.sum() == 16  # each game counted for both sides
    by_opening: dict[tuple, list] = {}
    for g in games:
        assert len(g.opening) == 2 and g.moves[:2] == g.opening
        state, _ = replayed(g.game, g)
        assert state.is_terminal() and g.returns == state.returns()
        assert g.winner == (1 if g.returns[0] > 0 else 2 if g.returns[0] < 0 else 0)
        by_opening.setdefault(g.opening, []).append(g)
    for pair in by_opening.values():  # each opening twice, seats swapped
        assert len(pair) == 2 and {pair[0].first, pair[0].second} == {pair[1].first, pair[1].second}
        assert pair[0].first == pair[1].second
    assert len(by_opening) == 4


def test_connect4_count_keeps_the_score_difference(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "t.sqlite"
    spec = "connect4_count:rows=4,columns=4"
    assert main(["--game", spec, "--agents", "random,random:seed=5", "--games", "4", "--time", "0.2",
                 "--workers", "1", "--db", str(db), "--quiet"]) == 0
    out = capsys.readouterr().out
    full = parse_game(spec).spec()
    assert f"game {full}" in out and "mean score difference" in out
    with Store(db) as store:
        games = list(store.games(game=full))
    assert len(games) == 4
    assert any(abs(g.returns[0]) > 1 for g in games), [g.returns for g in games]  # scores, not only +-1
    for g in games:
        state, _ = replayed(full, g)
        assert state.is_terminal() and len(g.moves) == 16 and g.returns == state.returns()
        assert g.returns[1] == -g.returns[0] and g.movers == tuple(1 + k % 2 for k in range(2, 16))


def test_agent_that_does_not_play_the_game_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    proc = subprocess.run([sys.executable, "-m", "util.arena.tournament", "--game", "tictactoe", "--agents", "rules,random",
                           "--db", str(tmp_path / "t.sqlite"), "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "agent 'rules' does not play 'tictactoe'; it plays: connectx" in lines[0]
    assert "agents that play tictactoe: random" in lines[0] and "alphabeta" in lines[0]
    for agents, words in (("kaggle:negamax,random", "plays only connectx"), ("nosuch,random", "unknown agent 'nosuch'"),
                          (f"{tmp_path / 'bot.py'},random", "plays only the games Kaggle runs (connectx, reinforce_tactics)")):
        assert main(["--game", "tictactoe", "--agents", agents, "--db", str(tmp_path / "t.sqlite"), "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0] and "agents that play tictactoe: random" in err[0], err


@pytest.mark.parametrize("args, words", [
    (["--game", "nosuch"], "unknown game 'nosuch'"),
    (["--game", "tictactoe:size=4"], "has no parameter size"),
    (["--game", "tictactoe", "--shape", "5x6x4"], "--shape is ConnectX's board"),
    (["--game", "connectx:rows=5", "--shape", "5x6x4"], "give the board once"),
    (["--opening-plies", "2"], "opening suite"),
    (["--game", "tictactoe", "--engine", "kaggle"], "--engine kaggle"),
])
def test_bad_game_arguments_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture, args: list, words: str) -> None:
    assert main(["--agents", "random,random:seed=1", "--db", str(tmp_path / "t.sqlite"), "--quiet", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


def test_random_openings_are_seeded_legal_and_leave_a_game() -> None:
    game = parse_game("tictactoe")
    lines = [openings.random_opening(game, k, 4, seed=3) for k in range(30)]
    assert lines == [openings.random_opening(game, k, 4, seed=3) for k in range(30)]
    assert lines != [openings.random_opening(game, k, 4, seed=4) for k in range(30)]
    assert len(set(lines)) > 20
    for line in lines:
        assert len(line) == 4 and not play_line(game, line).is_terminal()
    # Seven plies of tic-tac-toe often end the game: such lines are drawn again.
    for k in range(20):
        assert not play_line(game, openings.random_opening(game, k, 7)).is_terminal()
    assert openings.game_opening(game, 5, 0) == ((), 1)


class Fixed:
    """Always the lowest legal action: deterministic, so a pair's games differ only by seat."""

    def choose(self, state, deadline):
        return state.legal_actions()[0]


class Last:
    def choose(self, state, deadline):
        return state.legal_actions()[-1]


def test_chance_outcomes_are_drawn_seeded_and_marked() -> None:
    game = DiceNim(pile=15)
    a = match.play(Fixed(), Last(), game, 1.0, chance_seed=42)
    b = match.play(Last(), Fixed(), game, 1.0, chance_seed=42)
    c = match.play(Fixed(), Last(), game, 1.0, chance_seed=43)
    for r in (a, b, c):
        state = game.initial()
        for i, x in enumerate(r["moves"]):
            assert state.is_chance_node() == (i in r["chance"])
            state = state.apply(x)
        assert state.is_terminal() and list(state.returns()) == r["returns"]
        assert len(r["move_times"]) == len(r["movers"]) == len(r["moves"]) - len(r["chance"])
    assert a["moves"][0] == b["moves"][0]  # the pair's first roll is the same
    assert a["moves"] == match.play(Fixed(), Last(), game, 1.0, chance_seed=42)["moves"]  # reproducible
    rolls = [[r["moves"][i] for i in r["chance"]] for r in (a, c)]
    assert rolls[0] != rolls[1]


def test_forfeits_on_any_game() -> None:
    class Raises:
        def choose(self, state, deadline):
            raise RuntimeError("boom")

    class Illegal:
        def choose(self, state, deadline):
            return 99

    game = parse_game("tictactoe")
    r = match.play(Fixed(), Raises(), game, 1.0)
    assert (r["winner"], r["termination"], r["returns"]) == (1, "error", None) and "boom" in r["errors"][2]
    r = match.play(Illegal(), Fixed(), game, 1.0)
    assert (r["winner"], r["termination"]) == (2, "illegal") and "not legal" in r["errors"][1]


def test_schema_2_store_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE players(id INTEGER PRIMARY KEY, spec TEXT NOT NULL, version TEXT NOT NULL, params TEXT NOT NULL, UNIQUE(spec, version));
        CREATE TABLE games(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, first INTEGER NOT NULL, second INTEGER NOT NULL,
            shape TEXT NOT NULL, opening TEXT NOT NULL, moves TEXT NOT NULL, winner INTEGER NOT NULL, termination TEXT NOT NULL,
            errors TEXT NOT NULL, move_times TEXT NOT NULL, time_per_move REAL NOT NULL, engine TEXT NOT NULL, seed INTEGER NOT NULL,
            source TEXT NOT NULL, finished REAL NOT NULL);
        CREATE INDEX games_shape ON games(shape);
        CREATE TABLE runs(id INTEGER PRIMARY KEY, tag TEXT NOT NULL UNIQUE, command TEXT NOT NULL, started REAL NOT NULL, updated REAL NOT NULL);
        CREATE TABLE run_games(run INTEGER NOT NULL, key TEXT NOT NULL, PRIMARY KEY(run, key));
        CREATE TABLE claims(key TEXT PRIMARY KEY, runner TEXT NOT NULL, expires REAL NOT NULL);
        INSERT INTO players VALUES (1, 'a', '1', '{}'), (2, 'b', '1', '{}');
        INSERT INTO games VALUES (1, 'k1', 1, 2, '6x7x4', '3,3', '3,3,2,2,1,1,0', 1, 'win', '{}', '[0.1,0.2,0.1,0.2,0.1]', 1, 'direct', 0, 'tournament', 0);
        INSERT INTO games VALUES (2, 'k2', 2, 1, '5x6x4', '', '0,1', 1, 'error', '{"2": "boom"}', '[0.1,0.3]', 1, 'direct', 0, 'tournament', 0);
        PRAGMA user_version=2;
    """)
    db.commit()
    db.close()
    with Store(path, create=False) as store:
        old = {g.id: g for g in store.games()}
        assert old[1].game == "connectx:rows=6,columns=7,inarow=4" and old[2].game == "connectx:rows=5,columns=6,inarow=4"
        assert old[1].moves == (3, 3, 2, 2, 1, 1, 0) and old[1].chance == () and old[1].returns is None
        assert old[1].mover_marks() == [1, 2, 1, 2, 1]  # alternating after the opening, as before schema 3
        assert [g.id for g in store.games(game=parse_game("connectx:rows=5,columns=6").spec())] == [2]
        names, ratings, n, s = standings(store, STANDARD)
        assert names == ["a", "b"] and n.sum() == 2
        assert standings(store, Shape(5, 6, 4))[2].sum() == 2  # the other board apart
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    con.close()


def test_report_never_pools_two_games(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = str(tmp_path / "t.sqlite")
    common = ["--games", "2", "--time", "0.2", "--workers", "1", "--db", db, "--quiet"]
    assert main(["--game", "tictactoe", "--agents", "random,random:seed=3", "--tag", "both", *common]) == 0
    assert main(["--agents", "random,random:seed=3", "--shape", "4x5x3", "--tag", "both", *common]) == 0
    capsys.readouterr()
    assert main(["--report", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "game tictactoe" in out and "game connectx:rows=4,columns=5,inarow=3" in out
    assert out.count("rank  agent") == 2
    with Store(db) as store:  # 2 games in each section, never the 4 pooled
        assert standings(store, "tictactoe")[2].sum() == 4 and standings(store, Shape(4, 5, 3))[2].sum() == 4
    assert main(["--report", "--db", db, "--game", "tictactoe"]) == 0
    out = capsys.readouterr().out
    assert "game tictactoe" in out and "connectx" not in out


def test_replay_of_another_game_is_html(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    assert main(["--game", "tictactoe", "--agents", "random,random:seed=3", "--games", "2", "--time", "0.2",
                 "--workers", "1", "--db", str(db), "--quiet"]) == 0
    assert main(["--db", str(db), "--replay", "1", "--out", str(tmp_path / "html")]) == 0
    html = (tmp_path / "html" / "game_1.html").read_text()
    assert "<html" in html and "tictactoe" in html and html.count("<pre>") >= 6


def test_engine_agent_on_connectx(tmp_path: Path) -> None:
    spec = players.resolve("minimax:max_depth=2")
    assert spec.kind == "engine"
    assert players.resolve("random").kind == "agent"  # ConnectX's own agents come first on ConnectX
    jobs = match.schedule([spec, players.resolve("rules")], 2, "round-robin", Shape(4, 5, 3), 0.5, "direct", seed=1)
    for job in jobs:
        result = match.run_job(job)
        assert result["termination"] in ("win", "draw"), result


def test_play_tictactoe_from_stdin(tmp_path: Path) -> None:
    # random:seed=0 replies deterministically; the person types illegal text, an occupied cell, undoes, then wins or draws.
    typed = "zz\nb2\nb2\nu\nb2\n" + "a1\nc3\na3\nc1\nb1\nc2\na2\nb3\n" + "q\n"
    proc = subprocess.run([sys.executable, "-m", "util.arena.play", "--game", "tictactoe", "--agent", "random", "--time", "0.2",
                           "--db", str(tmp_path / "p.sqlite")], cwd=ROOT, input=typed, capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ, "CONNECTX_NUMBA": "0"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "legal: a3 b3 c3 a2 b2 c2 a1 b1 c1" in out and "undone" in out
    assert "is not legal here" in out and "agent plays" in out
    assert ("you win" in out or "draw" in out or "the agent wins" in out) and "saved as game 1" in out
    with Store(tmp_path / "p.sqlite") as store:
        (g,) = list(store.games())
        people = store.players()
    assert g.game == "tictactoe" and g.engine == "human" and people[g.first][0] == "human"
    state, _ = replayed(g.game, g)
    assert state.is_terminal() and g.returns == state.returns()
    assert g.movers and set(g.movers) == {2} and len(g.move_times) == len(g.movers)


def test_play_help_and_tournament_help_point_to_games() -> None:
    from util.arena.play import build_parser as play_parser
    from util.arena.tournament import build_parser as tournament_parser

    for parser in (play_parser(), tournament_parser()):
        text = " ".join(parser.format_help().split())
        assert "--game" in text and "python -m core --list" in text


def test_build_submission_refuses_other_games() -> None:
    proc = subprocess.run([sys.executable, "build_submission.py", "--game", "quixo"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Kaggle submissions exist for connectx and reinforce_tactics, not 'quixo'" in lines[0], proc.stderr


def test_tune_on_another_game(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("optuna")
    from util.arena.tune import main as tune

    out = tmp_path / "best.json"
    args = ["--game", "tictactoe", "--agent", "alphabeta", "--space", "max_depth=int:1:3", "--opponents", "random",
            "--games", "2", "--time", "0.2", "--trials", "2", "--storage", f"sqlite:///{tmp_path / 's.sqlite'}",
            "--out", str(out), "--confirm", "4", "--confirm-sprt", "elo0=0,elo1=200"]
    assert tune(args) == 0
    assert set(json.loads(out.read_text())) == {"max_depth"}
    printed = capsys.readouterr().out
    assert "SPRT elo0=0,elo1=200" in printed or "confirmation skipped" in printed
    assert tune([*args[:3], "rules", *args[4:]]) == 2
    assert "does not play 'tictactoe'" in capsys.readouterr().err


def test_a_slash_in_a_parameter_value_is_not_an_agent_file():
    from util.arena import players

    assert not players._is_file("expectimax:params=1.5/0.9")
    assert players._is_file("submissions/x.py") and players._is_file("./dir/agent")


def test_workers_compile_agents_before_their_games():
    """match.warm_up calls the agent's warm_up (which compiles before returning) with no
    argument, every agent alike (ConnectX's own compile for the board of the game the registry
    built them for); players without one are skipped."""
    import types

    from agents import registry
    from core.connectx.shape import Shape
    from core.games import make_game
    from util.arena import match

    calls = []

    class Engine:
        def warm_up(self):
            calls.append("engine")

    cx = make_game("connectx")
    match.compile_now(types.SimpleNamespace(agent=Engine()), make_game("tictactoe"))
    match.compile_now(types.SimpleNamespace(agent=object()), cx)
    assert calls == ["engine"]
    small = registry.make("alphabeta", make_game("connectx", rows=5, columns=6, inarow=4))
    assert small.board() == Shape(5, 6, 4) and registry.make("alphabeta", cx).board() == cx.shape
