"""util.arena.tournament: openings, spec parsing, bad input, failing agents, engines, resume, replay."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents.engine.spec import SpecError
from core.connectx import openings as cx_openings
from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape
from util.arena import match, players
from util.arena import store as store_mod
from util.arena.store import Store
from util.arena.tournament import format_report, main, standings

ROOT = Path(__file__).resolve().parent.parent
from tests.pons import PONS as PONS_DIR

PONS = PONS_DIR / "Test_L1_R3"

# Raises from step 5: its opponent cannot have four stones before that (a 5-ply opening gave
# random its fourth at step 6 while this agent, raising from step 6, still played at step 5;
# openings depend on the agents' names, here temporary paths). SLOW stalls from step 4, so it
# fails first when the two meet.
RAISES = """
def agent(obs, config):
    if obs.step >= 5:
        raise ValueError("boom at step %d" % obs.step)
    return [c for c in range(config.columns) if obs.board[c] == 0][-1]
"""
SLOW = """
import time
def agent(obs, config):
    if obs.step >= 4:
        time.sleep(60)
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""
GOOD = """
print("agents may print while loading")
def helper():
    return 0
def my_agent(obs, config):
    print("and while thinking")
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "util.arena.tournament", "--quiet", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


# --- openings ------------------------------------------------------------------------------
def test_standard_openings_are_solved_draws() -> None:
    scores = dict(line.split() for line in PONS.read_text().splitlines())
    scores["3"] = "0"  # first-move table in PROVENANCE.md: column 3 is a draw
    for text in cx_openings.STANDARD_OPENINGS:
        assert scores.get(text) == "0", text
    suite = set(cx_openings.STANDARD_OPENINGS)
    assert len(suite) == len(cx_openings.STANDARD_OPENINGS)
    for text in suite:
        mirror = "".join(str(8 - int(c)) for c in text)
        assert mirror == text or mirror not in suite, text  # no game twice, mirrored


@pytest.mark.parametrize("shape", [Shape(5, 6, 4), Shape(4, 4, 3), Shape(7, 8, 4)])
def test_other_shapes_get_legal_two_ply_openings(shape: Shape) -> None:
    suite = cx_openings.suite(shape)
    assert suite and all(len(o) == 2 for o in suite)
    for opening in suite:
        assert not Position.from_moves(list(opening), shape).is_terminal()
    assert len(set(suite)) == len(suite)


def test_each_opening_is_played_with_seats_swapped() -> None:
    seen = [cx_openings.opening_for(i) for i in range(4)]
    assert seen[0][0] == seen[1][0] != seen[2][0] == seen[3][0]
    assert [s for _, s in seen] == [0, 1, 0, 1]


# --- specs ---------------------------------------------------------------------------------
def test_split_specs_keeps_parameters_with_their_agent() -> None:
    text = "alphabeta:heuristic=bitsquares,depth=6,rules,kaggle:negamax,random:seed=3,/x/agent.py"
    assert players.split_specs(text) == ["alphabeta:heuristic=bitsquares,depth=6", "rules", "kaggle:negamax", "random:seed=3", "/x/agent.py"]


def test_resolve_canonical_text_and_kinds(tmp_path: Path) -> None:
    assert players.resolve(" random:seed=03 ").text == "random:seed=3"
    assert players.resolve("kaggle:negamax").kind == "kaggle"
    path = write(tmp_path, "a.py", GOOD)
    spec = players.resolve(path)
    assert spec.kind == "file" and len(spec.version) == 12
    assert players.resolve("random").version == players.resolve("random:seed=1").version


def test_new_data_at_the_same_path_is_a_new_player(tmp_path: Path) -> None:
    """A league of generations: weights rewritten at one path must not pass for the old player."""
    from core.reinforce_tactics import ReinforceTactics
    game = ReinforceTactics()
    weights = tmp_path / "w.npz"
    weights.write_bytes((ROOT / "data" / "rt_learned_gen2A.npz").read_bytes())
    spec = f"greedy:heuristic=learned,weights={weights}"
    first = players.resolve(spec, game)
    assert players.resolve(spec, game).version == first.version  # the same bytes: the same player
    assert first.version.startswith(players.resolve("greedy", game).version + "+")
    with np.load(weights) as z:
        data = {k: z[k] for k in z.files}
    data[next(k for k in data if data[k].dtype.kind == "f")] += 1e-3
    np.savez(weights, **data)
    assert players.resolve(spec, game).version != first.version


@pytest.mark.parametrize("spec, words", [
    ("nosuch", "unknown agent 'nosuch'"),
    ("random:colour=red", "no parameter 'colour'"),
    ("random:seed=abc", "seed of agent 'random' must be an integer from 0 to 9223372036854775807, got 'abc'"),
    ("random:seed", "write key=value"),
    ("kaggle:minimax", "unknown kaggle built-in"),
    ("/no/such/agent.py", "does not exist"),
])
def test_bad_specs_say_what_is_wrong(spec: str, words: str) -> None:
    with pytest.raises(SpecError, match=words.replace("(", r"\(")):
        players.resolve(spec)


# --- bad input on the command line ---------------------------------------------------------
def test_cli_bad_inputs_exit_2_with_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database" * 50)
    broken = write(tmp_path, "broken.py", "raise ImportError('no module named secret_sauce')\n")
    db = str(tmp_path / "t.sqlite")
    cases = [
        (["--agents", "nosuch,random", "--db", db], "unknown agent"),
        (["--agents", "random:seed=x,rules", "--db", db], "seed of agent 'random' must be an integer"),
        (["--agents", f"{broken},random", "--db", db], "failed to load"),
        (["--agents", "random,rules", "--db", str(junk)], "cannot use database"),
        (["--agents", "random,rules", "--db", db, "--shape", "6x7"], "bad --shape"),
        (["--agents", "random", "--db", db], "at least two"),
        (["--agents", "random,rules", "--db", db, "--games", "0"], "--games"),
    ]
    for args, words in cases:
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "Traceback" not in proc.stderr, (args, proc.stderr)


# --- failing agents lose the game and the tournament goes on --------------------------------
def test_failing_agents_lose_with_their_error_recorded(tmp_path: Path) -> None:
    raises = write(tmp_path, "raises.py", RAISES)
    slow = write(tmp_path, "slow.py", SLOW)
    db = tmp_path / "t.sqlite"
    code = main(["--agents", f"{raises},{slow},random", "--games", "2", "--time", "0.2", "--overage", "1", "--workers", "2",
                 "--db", str(db), "--quiet"])  # files have a bank of 1 s: SLOW is killed 1 s past it
    assert code == 0
    with Store(db) as store:
        names = {pid: spec for pid, (spec, _) in store.players().items()}
        games = list(store.games())
    assert len(games) == 6
    for g in games:
        loser = {1: g.second, 2: g.first}.get(g.winner)
        if "raises.py" in names[g.first] + names[g.second] and "slow.py" not in names[g.first] + names[g.second]:
            assert g.termination == "error" and "boom at step" in next(iter(g.errors.values()))
            assert "raises.py" in names[loser]
        if "slow.py" in names[g.first] + names[g.second]:
            assert g.termination == "timeout" and "slow.py" in names[loser], g


# --- engines -------------------------------------------------------------------------------
def test_direct_and_kaggle_engines_play_the_same_games() -> None:
    """Deterministic agents from the same openings: both engines must agree move for move."""
    specs = [players.resolve("rules"), players.resolve("kaggle:random"), players.resolve("random")]
    direct = match.schedule(specs, 2, "round-robin", STANDARD, 5.0, "direct", seed=11)
    kaggle = match.schedule(specs, 2, "round-robin", STANDARD, 5.0, "kaggle", seed=11)
    for d, k in zip(direct, kaggle):
        rd, rk = match.run_job(d), match.run_job(k)
        assert (rd["moves"], rd["winner"], rd["termination"]) == (rk["moves"], rk["winner"], rk["termination"]), (d, rd, rk)


def test_kaggle_engine_records_an_agent_error(tmp_path: Path) -> None:
    job = match.schedule([players.resolve(write(tmp_path, "r.py", RAISES)), players.resolve("random")], 1,
                         "round-robin", STANDARD, 1.0, "kaggle", seed=0)[0]
    result = match.run_job(job)
    assert result["termination"] == "error" and result["winner"] == 2
    assert "boom at step" in result["errors"][1]


def test_agent_file_prints_do_not_break_the_protocol(tmp_path: Path) -> None:
    player = players.build(players.resolve(write(tmp_path, "g.py", GOOD)), STANDARD, 1.0, 0)
    try:
        state = players.as_game(STANDARD).initial().apply(3).apply(3)
        assert player.choose(state, time.perf_counter() + 1.0) == 0
    finally:
        player.close()


# --- resume --------------------------------------------------------------------------------
def rows(db: Path) -> dict[str, tuple]:
    con = sqlite3.connect(db)
    try:
        return {k: (m, w) for k, m, w in con.execute("SELECT key, moves, winner FROM games")}
    except sqlite3.OperationalError:  # the driver has not created the tables yet
        return {}
    finally:
        con.close()


def _like_a_terminal_job() -> None:
    """In the child before exec: lowest priority, and SIGINT's default action (not inherited)."""
    os.nice(19)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupted_run_resumes_without_loss(tmp_path: Path) -> None:
    # Fast deterministic agents whose code others rarely edit (a code change is a new player).
    # 600 games, run at the lowest priority (nice 19) so that the poll below is scheduled before
    # the games on a loaded machine. The child gets a terminal's SIGINT (the default action):
    # a shell starts background jobs with SIGINT ignored and children inherit that, so a suite
    # run as `pytest &` had the run ignore the interrupt and finish all 600 games.
    args = ["--agents", "random,random:seed=7,kaggle:random", "--games", "200", "--time", "0.5", "--seed", "5", "--quiet"]
    db = tmp_path / "interrupted.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "util.arena.tournament", *args, "--workers", "2", "--db", str(db)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_like_a_terminal_job)
    end = time.time() + 60
    while time.time() < end and (not db.exists() or len(rows(db)) < 10):
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the driver and its workers
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "rerun the same command to resume" in err
    before = rows(db)
    assert 10 <= len(before) < 600
    assert main([*args, "--workers", "2", "--db", str(db)]) == 0
    after = rows(db)
    assert len(after) == 600 and all(after[k] == v for k, v in before.items())
    # The same games as an uninterrupted run with the same seed (deterministic agents).
    fresh = tmp_path / "fresh.sqlite"
    assert main([*args, "--workers", "1", "--db", str(fresh)]) == 0
    assert rows(fresh) == after
    assert main([*args, "--workers", "2", "--db", str(db)]) == 0  # nothing left: nothing replayed
    assert rows(db) == after


# --- output ---------------------------------------------------------------------------------
def test_ranking_follows_head_to_head_scores(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        ids = [store.player_id(name, "1", {}) for name in ("weak", "mid", "strong")]
        result = {"moves": [3], "termination": "win", "errors": {}, "move_times": [], "opening": []}
        k = 0
        for lo, hi, hi_wins in ((0, 1, 7), (1, 2, 7), (0, 2, 9)):
            for g in range(10):
                k += 1
                winner = 2 if g < hi_wins else 1
                store.add_game(str(k), ids[lo], ids[hi], "6x7x4", dict(result, winner=winner), time_per_move=1,
                               engine="direct", seed=0, source="tournament")
        names, ratings, n, s = standings(store, STANDARD)
    assert [r.name for r in ratings] == ["strong", "mid", "weak"]
    report = format_report(names, ratings, n, s)
    assert "7/10" in report and "strong" in report.splitlines()[1]


def test_clock_report_attributes_moves_and_forfeits_to_their_players(tmp_path: Path) -> None:
    from util.arena.tournament import clock_report

    with Store(tmp_path / "s.sqlite") as store:
        a, b = store.player_id("a", "1", {}), store.player_id("b", "1", {})
        # One ply of opening: the timed moves start with mark 2 (b), then a, b, a.
        store.add_game("1", a, b, "6x7x4", {"moves": [3, 3, 2, 2, 1], "opening": [3], "winner": 2, "termination": "timeout",
                                            "errors": {1: "timeout"}, "move_times": [0.5, 1.9, 0.25, 0.1]},
                       time_per_move=2, engine="kaggle", seed=0, source="tournament")
        lines = clock_report(store, STANDARD).splitlines()
    row = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert row["a"] == ["2", "1.900", "1.900", "1"]  # moves, median, slowest, forfeits
    assert row["b"] == ["2", "0.500", "0.500", "0"]


def test_replay_writes_kaggle_html(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    assert main(["--agents", "random,rules", "--games", "2", "--workers", "1", "--db", str(db), "--quiet"]) == 0
    assert main(["--db", str(db), "--replay", "1", "--out", str(tmp_path / "html")]) == 0
    html = (tmp_path / "html" / "game_1.html").read_text()
    assert "<html" in html.lower() and "connectx" in html.lower()
    assert main(["--db", str(db), "--replay", "99", "--out", str(tmp_path / "html")]) == 2


def test_plots_are_written(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    assert main(["--agents", "random,rules", "--games", "2", "--workers", "1", "--db", str(db), "--quiet", "--plot", str(tmp_path / "p")]) == 0
    for name in ("ratings.png", "crosstable.png"):
        assert (tmp_path / "p" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- OpenSpiel opponent -----------------------------------------------------------------------
def test_move_order_rebuilds_any_position() -> None:
    import random

    from agents.connectx.openspiel_player import move_order
    rng = random.Random(4)
    for shape in (STANDARD, Shape(5, 6, 4), Shape(4, 9, 3)):
        for _ in range(150):
            pos = Position.empty(shape)
            for _ in range(rng.randrange(shape.cells)):
                legal = pos.legal_columns()
                nxt = pos.play(rng.choice(legal)) if legal else pos
                if nxt.is_terminal():
                    break
                pos = nxt
            assert Position.from_moves(move_order(pos), shape) == pos


def test_openspiel_mcts_plays_legal_moves() -> None:
    pytest.importorskip("pyspiel")
    spec = players.resolve("openspiel_mcts:sims=50")
    job = match.schedule([spec, players.resolve("random")], 2, "round-robin", STANDARD, 1.0, "direct", seed=3)
    for j in job:
        result = match.run_job(j)
        assert result["termination"] in ("win", "draw"), result


def test_timed_openspiel_mcts_uses_the_move_time() -> None:
    pytest.importorskip("pyspiel")
    import time

    from agents.connectx.openspiel_player import OpenSpielMCTS

    bot = OpenSpielMCTS(STANDARD, seed=1, sims=200, timed=True)
    pos = Position.from_moves("4453")
    # It searches until the deadline, not for a fixed number of simulations.
    for budget in (0.1, 0.4):
        t0 = time.perf_counter()
        col = bot.choose_position(pos, t0 + budget)
        took = time.perf_counter() - t0
        assert pos.can_play(col)
        assert budget * 0.7 < took < budget + 0.3  # generous: a loaded machine
        assert bot.info()["seconds"] == pytest.approx(took, abs=0.05)


# --- SPRT matches ------------------------------------------------------------------------------
def stored(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        con.close()


def test_sprt_accepts_a_stronger_agent_and_stops(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "t.sqlite"
    code = main(["--agents", "rules,random", "--sprt", "elo0=0,elo1=100,alpha=0.05,beta=0.05", "--games", "400",
                 "--time", "0.5", "--workers", "1", "--db", str(db), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "H1 accepted" in out and "pentanomial [0, 0, 0, 0," in out, out
    # rules wins every pair: LLR = n log(2 s1) with s1 = 0.64 at 100 Elo crosses 2.94 at pair 12.
    assert stored(db) == 24
    assert main(["--agents", "rules,random", "--sprt", "elo0=0,elo1=100,alpha=0.05,beta=0.05", "--games", "400",
                 "--time", "0.5", "--workers", "1", "--db", str(db), "--quiet"]) == 0
    assert stored(db) == 24  # resumed: already decided, nothing more played
    assert "H1 accepted" in capsys.readouterr().out


def test_sprt_rejects_an_equal_agent(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "t.sqlite"
    code = main(["--agents", "random,kaggle:random", "--sprt", "elo0=0,elo1=150", "--games", "2000",
                 "--time", "0.5", "--workers", "1", "--db", str(db), "--quiet", "--seed", "3"])
    out = capsys.readouterr().out
    assert code == 0 and "H0 accepted" in out, out
    assert 10 < stored(db) < 2000


def test_sprt_needs_two_agents_and_a_valid_test(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = str(tmp_path / "t.sqlite")
    assert main(["--agents", "random,rules,kaggle:random", "--sprt", "elo1=10", "--db", db]) == 2
    assert main(["--agents", "random,rules", "--sprt", "elo0=5,elo1=1", "--db", db]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "exactly two" in err[0] and "elo0 must be below elo1" in err[1]


# --- runs and reports ----------------------------------------------------------------------------
def test_report_shows_the_latest_run_or_a_tag(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = str(tmp_path / "t.sqlite")
    assert main(["--agents", "random,rules", "--games", "4", "--workers", "1", "--db", db, "--quiet", "--tag", "first"]) == 0
    assert main(["--agents", "random:seed=3,kaggle:random", "--games", "4", "--workers", "1", "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["--report", "--db", db]) == 0
    latest = capsys.readouterr().out
    note, body = latest.split("\n", 1)
    assert "kaggle:random" in body and "rules" not in body
    assert "latest run" in note and "first" in note  # the other run is named, not pooled
    assert "game pairs" in latest and "LOS" in latest and "pentanomial" in latest
    assert main(["--report", "--db", db, "--tag", "first"]) == 0
    first = capsys.readouterr().out
    assert "rules" in first and "kaggle:random" not in first
    assert main(["--report", "--db", db, "--all"]) == 0
    pooled = capsys.readouterr().out
    assert all(name in pooled for name in ("rules", "kaggle:random", "random:seed=3"))
    assert main(["--report", "--db", db, "--tag", "nosuch"]) == 2
    assert "no run tagged 'nosuch'" in capsys.readouterr().err


def test_report_on_a_missing_db_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "nonexistent.sqlite"
    assert main(["--report", "--db", str(db)]) == 2
    assert main(["--replay", "1", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "no database at" in err[0]
    assert not db.exists() and list(tmp_path.iterdir()) == []


def test_optuna_db_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    optuna = pytest.importorskip("optuna")
    path = tmp_path / "tune.sqlite"
    optuna.create_study(storage=f"sqlite:///{path}", study_name="s")
    before = path.read_bytes()
    capsys.readouterr()  # optuna's own log line
    assert main(["--agents", "random,rules", "--games", "2", "--db", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Optuna studies" in err[0]
    assert path.read_bytes() == before


# --- several runners, failing stores --------------------------------------------------------------
def test_two_runners_on_one_db_split_the_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    played: dict[str, list[str]] = {}
    real = match.run_job

    def slow_job(job: match.GameJob) -> dict:
        time.sleep(0.03)  # long enough for both runners to be playing at once
        played.setdefault(threading.current_thread().name, []).append(job.key)
        return real(job)

    monkeypatch.setattr(match, "run_job", slow_job)
    db = str(tmp_path / "shared.sqlite")
    args = ["--agents", "random,random:seed=7", "--games", "60", "--workers", "1", "--db", db, "--quiet"]
    codes: list[int] = []
    threads = [threading.Thread(target=lambda: codes.append(main(list(args))), name=f"runner{k}") for k in range(2)]
    for t in threads:
        t.start()
        time.sleep(0.2)
    for t in threads:
        t.join(120)
    assert codes == [0, 0]
    a, b = played["runner0"], played["runner1"]
    assert not set(a) & set(b), "a game was played by both runners"
    assert len(a) + len(b) == 60 == stored(Path(db))
    assert len(a) >= 10 and len(b) >= 10, (len(a), len(b))


def test_expired_claim_of_a_dead_runner_is_taken_over(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        assert store.claim("k", "dead", lease=-1.0)  # already expired: its runner never came back
        assert store.claim("k", "alive", lease=60.0)
        assert not store.claim("k", "third", lease=60.0)
        store.release("alive")
        assert store.claim("k", "third", lease=60.0)


def test_claims_of_a_runner_gone_from_this_host_are_taken_over(tmp_path: Path) -> None:
    """A runner id names host, pid and start time: a pid that no longer exists, or that now
    names a process started at another time, is a dead runner; another host's runner is never
    known dead (its claims expire)."""
    me = store_mod.runner_id()
    host, pid, started, rand = me.split(":")
    gone = f"{host}:{2 ** 22 + 7}:{started}:{rand}"  # above pid_max: no such process
    reused = f"{host}:{pid}:{started}1:{rand}"  # this pid, another process's start
    assert not store_mod.runner_gone(me) and store_mod.runner_gone(gone) == store_mod.runner_gone(reused) == (os.name != "nt")
    assert not store_mod.runner_gone(f"another-host:{2 ** 22 + 7}:1:x") and not store_mod.runner_gone("dead")
    with Store(tmp_path / "s.sqlite") as store:
        assert store.claim("a", gone, lease=600.0) and store.claim("b", "elsewhere:1:1:x", lease=600.0)
        assert store.dead_claims(["a", "b"]) == {gone: 1}
        assert set(store.claimed_elsewhere(me, ["a", "b"])) == {"b"}
        assert store.claim("a", me, lease=60.0) and not store.claim("b", me, lease=60.0)


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(entry.name))
    return out


def _stored_yet(db: Path) -> int:
    """Games stored so far (0 while the runner is still creating the file)."""
    try:
        return stored(db) if db.exists() else 0
    except sqlite3.OperationalError:
        return 0


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow  # 18 s: a real runner and its pool, killed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killed_runner_takes_its_workers_along_and_a_rerun_plays_its_games(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``kill -9`` of a runner: its pool workers die with it (none left playing as an orphan),
    and a rerun at once takes over the games it had claimed and plays every game."""
    db = tmp_path / "k.sqlite"
    args = ["--agents", "mcts:leaf=rollout,mcts:leaf=rollout,c=2", "--games", "6", "--time", "0.1", "--seed", "3",
            "--workers", "2", "--db", str(db), "--quiet"]
    monkeypatch.setenv("CONNECTX_NUMBA", "0")  # no compile in the workers: games start at once
    proc = subprocess.Popen([sys.executable, "-m", "util.arena.tournament", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    end = time.time() + 180
    while time.time() < end and proc.poll() is None and _stored_yet(db) < 1:
        time.sleep(0.05)
    workers = _children(proc.pid)
    with sqlite3.connect(db) as con:
        claimed = con.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
    proc.kill()
    proc.wait(30)
    assert len(workers) >= 2 and claimed >= 1 and stored(db) < 6, (workers, claimed, proc.stderr.read())
    end = time.time() + 30
    while time.time() < end and any(map(_alive, workers)):
        time.sleep(0.05)
    assert not any(map(_alive, workers)), [p for p in workers if _alive(p)]
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "reclaiming" in err and "being played by another runner" not in err, err
    assert stored(db) == 6


class FillingStore(Store):
    """A store whose file may grow by only a few pages: SQLite's own 'database or disk is full'."""

    def __init__(self, *a, **k) -> None:
        super().__init__(*a, **k)
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        self._db.execute(f"PRAGMA max_page_count={pages + 16}")


def test_disk_full_exits_2_with_one_line_and_keeps_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture) -> None:
    import util.arena.tournament as tournament
    monkeypatch.setattr(tournament, "Store", FillingStore)
    db = tmp_path / "t.sqlite"
    code = main(["--agents", "random,random:seed=7", "--games", "400", "--workers", "1", "--db", str(db), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 2, err  # the "games scheduled" line, then the error
    assert "database or disk is full" in err[1] and "are kept" in err[1] and "Traceback" not in "".join(err)
    kept = rows(db)
    assert 0 < len(kept) < 400
    with Store(db) as store:  # what was kept is whole
        assert all(g.moves[:len(g.opening)] == g.opening for g in store.games())


def test_locked_db_exits_2_with_one_line_and_keeps_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture) -> None:
    import util.arena.tournament as tournament

    class Impatient(Store):
        def __init__(self, path, create=True, timeout=30.0) -> None:
            super().__init__(path, create, timeout=0.3)

    db = tmp_path / "t.sqlite"
    holder: list[sqlite3.Connection] = []
    real = match.run_job

    def locking_job(job: match.GameJob) -> dict:
        if stored(db) >= 6 and not holder:  # another program takes the write lock mid-run and keeps it
            con = sqlite3.connect(db, timeout=5)
            con.execute("BEGIN IMMEDIATE")
            holder.append(con)
        return real(job)

    monkeypatch.setattr(tournament, "Store", Impatient)
    monkeypatch.setattr(match, "run_job", locking_job)
    code = main(["--agents", "random,random:seed=7", "--games", "40", "--workers", "1", "--db", str(db), "--quiet"])
    holder[0].rollback()
    holder[0].close()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "database is locked" in err[-1] and "held its lock" in err[-1], err
    assert len(err) == 2 and stored(db) == 6


# --- help texts ---------------------------------------------------------------------------------
def test_every_spec_in_the_help_parses_and_builds() -> None:
    from util.arena.tournament import EXAMPLE_SPECS, build_parser

    text = build_parser().format_help()
    assert "alphabeta:depth=" not in text
    for spec in EXAMPLE_SPECS:
        assert spec in text.replace("\n", " ").replace("  ", " ") or spec in text, spec
        if spec.startswith("openspiel"):
            pytest.importorskip("pyspiel")
        player = players.build(players.resolve(spec), STANDARD, 0.1, 0)
        player.close()


def test_the_progress_bar_counts_the_games_to_play(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Found measuring the SPRT line: 20 games to play showed as 0/18 (the bar took off the
    length of a (set, note) pair, 2, instead of the games other runners hold)."""
    assert main(["--agents", "random,kaggle:random", "--games", "4", "--time", "0.2", "--workers", "1",
                 "--db", str(tmp_path / "t.sqlite")]) == 0
    err = capsys.readouterr().err
    assert "4 to play" in err and "4/4" in err and "/2 " not in err, err[-2000:]
