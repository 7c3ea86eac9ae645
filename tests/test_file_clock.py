"""Agent files in the arena play on Kaggle's clock: ``--time`` is the ``actTimeout`` they read,
each game gives them an overage bank (``--overage``, Kaggle's 60 s by default) that pays for
moves past it, the file is loaded inside its first move, and a move past actTimeout and the bank
loses on time (base.clock.KaggleBank, util.arena.players.FilePlayer, util.arena.match.play).

The stand-in files sleep: every bound here is what the clock charges for the measured times, not
a wall-clock bound load could break (a slow machine only makes the sleeps look longer, and the
assertions read the measured times)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from base.clock import KaggleBank, kaggle_overage
from core.connectx.shape import STANDARD
from core.games import parse_game
from util.arena import match, players
from util.arena.store import Store
from util.arena.tournament import main

ROOT = Path(__file__).resolve().parent.parent
ACT = 0.2  # --time of these tests: the hard limit of the arena's own clock is ACT + 1 s
NAP = 1.5  # a stand-in's slow move: past that hard limit, within a few seconds of bank

# A ConnectX file that logs what Kaggle's clock tells it, and sleeps NAP on moves while SLOW_MOVES
# (or every move when it is None) and LOAD seconds while loading.
CONNECTX = """
import json, time
time.sleep({load})
def agent(obs, config):
    with open({log!r}, "a") as f:
        f.write(json.dumps([obs.step, obs.remainingOverageTime, config.actTimeout]) + "\\n")
    slow = {slow_moves}
    if slow is None or len(open({log!r}).read().splitlines()) <= slow:
        time.sleep({nap})
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""


def stand_in(tmp_path: Path, name: str, slow_moves: int | None, load: float = 0.0) -> tuple[str, Path]:
    log = tmp_path / f"{name}.log"
    path = tmp_path / f"{name}.py"
    path.write_text(CONNECTX.format(load=load, log=str(log), slow_moves=slow_moves, nap=NAP))
    return str(path), log


def seen(log: Path) -> list[list[float]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def play_file(path: str, overage: float, opponent: str = "kaggle:random") -> dict:
    game = players.as_game(STANDARD)
    first = players.build(players.resolve(path), game, ACT, 0, overage=overage)
    second = players.build(players.resolve(opponent), game, ACT, 0)
    try:
        return match.play(first, second, game, ACT)
    finally:
        first.close()


def overruns(r: dict, mark: int = 1) -> list[float]:
    return [max(0.0, t - ACT) for t, m in zip(r["move_times"], r["movers"]) if m == mark]


# --- the bank, as kaggle-environments keeps it ----------------------------------------------
def test_bank_pays_overruns_and_times_out_past_what_it_holds() -> None:
    bank = KaggleBank(2.0, 5.0)
    assert bank.spend(1.9) and bank.left == 5.0  # inside actTimeout: nothing charged
    assert bank.spend(4.5) and bank.left == pytest.approx(2.5)
    assert bank.spend(4.5) and bank.left == pytest.approx(0.0)  # exactly the bank: Kaggle's ">" lets it pass
    assert not bank.spend(2.1)  # 0.1 s past actTimeout with nothing left: DeadlineExceeded
    bank.reset()
    assert bank.left == 5.0


def test_a_turn_of_several_decisions_is_charged_once_by_its_running_total() -> None:
    bank = KaggleBank(1.0, 3.0)
    assert bank.spend(2.0, first=True) and bank.left == pytest.approx(2.0)
    assert bank.spend(2.5, first=False) and bank.left == pytest.approx(1.5)  # the same turn, 2.5 s in all
    assert not bank.spend(4.6, first=False)  # 3.6 s past actTimeout; the turn started with 3 s
    assert bank.spend(0.5, first=True) is False  # a new turn starts from what is left: nothing


def test_the_default_bank_is_kaggle_environments_own() -> None:
    import kaggle_environments
    spec = Path(kaggle_environments.__file__).parent / "envs" / "connectx" / "connectx.json"
    assert kaggle_overage("connectx") == float(json.loads(spec.read_text())["observation"]["remainingOverageTime"])
    assert kaggle_overage("no_such_env") == 60.0


def test_the_bank_a_kaggle_environments_episode_reports_is_the_one_we_keep() -> None:
    """kaggle-environments charges each call's logged duration to the agent's bank: the banks its
    agent saw must be ours for the same durations."""
    import time

    from kaggle_environments import make
    banks: list[float] = []

    def slow(obs, config):
        banks.append(float(obs.remainingOverageTime))
        time.sleep(0.25 if len(banks) <= 3 else 0.0)
        return [c for c in range(config.columns) if obs.board[c] == 0][0]

    env = make("connectx", configuration={"actTimeout": 0.1}, debug=False)
    env.run([slow, "negamax"])
    durations = [step[0]["duration"] for step in env.logs if step and "duration" in step[0]]
    ours = KaggleBank(0.1, banks[0])
    expected = []
    for d in durations[:len(banks)]:
        expected.append(ours.left)
        ours.spend(d)
    assert len(banks) > 4 and banks == pytest.approx(expected[:len(banks)], abs=1e-5)


# --- agent files in the arena's loop ----------------------------------------------------------
def test_a_file_slower_than_the_time_but_within_its_bank_is_not_forfeited(tmp_path: Path) -> None:
    path, log = stand_in(tmp_path, "sleepy", slow_moves=2)
    r = play_file(path, overage=5.0)
    assert r["termination"] in ("win", "draw"), r["errors"]  # the arena's old clock: lost at 1.2 s
    assert max(r["move_times"]) > ACT + 1.0  # the slow moves were past the old hard limit
    told = seen(log)
    assert all(act == ACT for _step, _bank, act in told)
    # Each move is told the bank less what the moves before it overran, exactly as charged.
    left, expected = 5.0, []
    for over in overruns(r):
        expected.append(left)
        left -= over
    assert [bank for _step, bank, _act in told] == pytest.approx(expected)


def test_a_file_that_overruns_its_bank_loses_on_time_when_the_bank_is_spent(tmp_path: Path) -> None:
    # Each move overruns by NAP - ACT (1.3 s): a 3.4 s bank pays two and leaves 0.8 s, so the third
    # returns 0.5 s before the arena would kill it (ACT + 0.8 s + 1 s of grace: a 3.0 s bank left
    # 0.1 s, which a loaded machine's process overhead took, and the file was killed instead).
    path, _ = stand_in(tmp_path, "slow", slow_moves=None)
    r = play_file(path, overage=3.4)
    assert r["termination"] == "timeout" and r["winner"] == 2, r
    assert "overage bank (Kaggle's clock)" in r["errors"][1]
    spent = overruns(r)
    assert sum(spent[:-1]) <= 3.4 < sum(spent)  # not one move before the bank ran out


def test_loading_the_file_counts_against_its_first_move(tmp_path: Path) -> None:
    path, log = stand_in(tmp_path, "heavy", slow_moves=0, load=1.0)
    r = play_file(path, overage=5.0)
    assert r["termination"] in ("win", "draw"), r["errors"]
    first = r["move_times"][r["movers"].index(1)]
    assert first >= 1.0  # the load ran inside the first move's time, as in kaggle-environments
    assert seen(log)[1][1] == pytest.approx(5.0 - (first - ACT))


def test_a_file_that_never_answers_is_killed_and_loses_on_time(tmp_path: Path) -> None:
    path = tmp_path / "hung.py"
    path.write_text("import time\ndef agent(obs, config):\n    time.sleep(600)\n")
    job = match.schedule([players.resolve(str(path)), players.resolve("kaggle:random")], 1, "round-robin", STANDARD, ACT,
                         "direct", seed=0, overage=1.0)[0]
    r = match.run_job(job)
    loser = 1 if job.first.kind == "file" else 2
    assert r["termination"] == "timeout" and r["winner"] == 3 - loser, r
    assert "gave no reply in time" in r["errors"][loser]


def test_a_tournament_of_two_slow_files_has_no_forfeits(tmp_path: Path) -> None:
    one, _ = stand_in(tmp_path, "one", slow_moves=2)
    two, _ = stand_in(tmp_path, "two", slow_moves=3)
    db = tmp_path / "t.sqlite"
    assert main(["--agents", f"{one},{two}", "--games", "2", "--time", str(ACT), "--overage", "8", "--workers", "2",
                 "--db", str(db), "--quiet"]) == 0
    with Store(db) as store:
        games = list(store.games())
    assert len(games) == 2 and all(g.termination in ("win", "draw") for g in games), [(g.termination, g.errors) for g in games]
    assert max(t for g in games for t in g.move_times) > ACT + 1.0


@pytest.mark.parametrize("extra", [["--overage", "-1"], ["--overage", "nan"], ["--overage", "5", "--engine", "kaggle"]])
def test_overage_is_checked_on_the_command_line(tmp_path: Path, extra: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "util.arena.tournament", "--agents", "random,rules", *extra,
                           "--db", str(tmp_path / "t.sqlite"), "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "--overage" in lines[0] and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "t.sqlite").exists()  # refused before the store was made


# --- Reinforce Tactics files ---------------------------------------------------------------------
RT_SPEC = "reinforce_tactics:map=beginner,episode_steps=20"
RT_FILE = """
import json, time
def agent(obs, config):
    with open({log!r}, "a") as f:
        f.write(json.dumps([obs.turnNumber, obs.remainingOverageTime, config.actTimeout]) + "\\n")
    if obs.turnNumber <= 2:
        time.sleep({nap})
    return [{{"type": "end_turn"}}]
"""


def test_a_reinforce_tactics_file_is_asked_once_a_turn_on_kaggles_clock(tmp_path: Path) -> None:
    game = parse_game(RT_SPEC)
    log = tmp_path / "rt.log"
    path = tmp_path / "rt.py"
    path.write_text(RT_FILE.format(log=str(log), nap=NAP))
    spec = players.resolve(str(path), game)
    assert spec.kind == "file"
    first = players.state_player(spec, game, ACT, 0, overage=5.0)
    second = players.state_player(players.resolve("kaggle:aggressive", game), game, ACT, 0)
    try:
        r = match.play(first, second, game, ACT)
    finally:
        first.close()
    assert r["termination"] in ("win", "draw"), r["errors"]  # the arena's old clock: lost at 1.2 s
    told = seen(log)
    assert len(told) >= 2 and all(act == ACT for _turn, _bank, act in told)
    assert told[0][1] == 5.0 and told[-1][1] < 5.0 - (NAP - ACT)  # a slow turn was paid from the bank


# --- the built perfect file ----------------------------------------------------------------------
@pytest.mark.slow
def test_the_built_perfect_file_plays_a_tournament_against_a_second_file_without_forfeits(tmp_path: Path) -> None:
    """The README's SPRT line with a real submission: the perfect file (its numba compile in its
    first games' moves, paid from the bank as on Kaggle) against a file that is slow to answer."""
    built = tmp_path / "submission.py"
    subprocess.run([sys.executable, "build_submission.py", "--output", str(built), "--no-validate"], cwd=ROOT, check=True,
                   capture_output=True, timeout=900)
    other, _ = stand_in(tmp_path, "other", slow_moves=2)
    db = tmp_path / "t.sqlite"
    assert main(["--agents", f"{built},{other}", "--sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05", "--games", "2",
                 "--time", "0.5", "--workers", "1", "--db", str(db), "--quiet"]) == 0
    with Store(db) as store:
        games = list(store.games())
    assert len(games) == 2 and all(g.termination in ("win", "draw") for g in games), [(g.termination, g.errors) for g in games]



@pytest.mark.slow
def test_the_built_reinforce_tactics_file_plays_a_tournament_on_its_clock_without_forfeits(tmp_path: Path) -> None:
    """The Reinforce Tactics submission asked once a turn, on its own clock (a turn's time, the bank)."""
    built = tmp_path / "rt.py"
    subprocess.run([sys.executable, "build_submission.py", "--game", "reinforce_tactics", "--output", str(built),
                    "--no-validate"], cwd=ROOT, check=True, capture_output=True, timeout=900)
    db = tmp_path / "t.sqlite"
    assert main(["--game", RT_SPEC, "--agents", f"{built},kaggle:aggressive", "--games", "2", "--time", "1",
                 "--workers", "1", "--db", str(db), "--quiet"]) == 0
    with Store(db) as store:
        games = list(store.games())
    assert len(games) == 2 and all(g.termination in ("win", "draw") for g in games), [(g.termination, g.errors) for g in games]
