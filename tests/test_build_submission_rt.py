"""The Reinforce Tactics submission: ``build_submission.py --game reinforce_tactics``
(the game's hooks: agents/reinforce_tactics/submission.py), its Kaggle adapter (agents/reinforce_tactics/kaggle_agent.py) and its
validator (util/bundle_validate_rt.py), and the compiled worker process
(agents/reinforce_tactics/jit_worker.py: the switch to it, each way it fails back to the plain
agent, its labels against TurnPlanAgent.plan_labels).

The adapter must answer every observation with a list of dicts that the engine executes in full;
the validator must notice an action the engine skips; a built file must play in a process that
cannot see the repo, with and without numba."""
from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import build_submission
from agents import registry
from agents.reinforce_tactics import submission as build_submission_rt  # the game's submission hooks
from agents.reinforce_tactics.jit_worker import BOOT, FD_VAR, CompiledWorker, labels_from_json, numba_present
from agents.reinforce_tactics.kaggle_agent import END_TURN_ONLY, RTKaggleAdapter
from agents.reinforce_tactics.random_turn import RandomTurnAgent
from base.clock import ClockPolicy
from core.reinforce_tactics import ReinforceTactics
from core.reinforce_tactics.kaggle import dict_to_action
from util.bundle_validate_rt import skipped_entries

ROOT = Path(__file__).resolve().parents[1]
VALIDATOR = ROOT / "util" / "bundle_validate_rt.py"
END = {"type": "end_turn"}
CONFIG = {"episodeSteps": 200, "actTimeout": 5, "mapName": "", "seed": None}


def adapter(seed: int = 0, actions: int = 8) -> RTKaggleAdapter:
    """Random turns of at most ``actions`` decisions (few: the plain rules are slow with many units)."""
    return RTKaggleAdapter(lambda game: RandomTurnAgent(game=game, seed=seed, max_actions=actions), verbose=False)


def play_env(map_name: str, seed: int, steps: int, agents: list) -> tuple[list, object]:
    from kaggle_environments import make

    random.seed(seed)
    env = make("reinforce_tactics", configuration={"mapName": map_name, "seed": seed, "episodeSteps": steps})
    return env.run(agents), env


@pytest.fixture(scope="module")
def observations() -> list[dict]:
    """Observations (as plain dicts) met by the adapter in short games on a small, a middle and
    a 20 x 20 map, random turns against Kaggle's random and aggressive bots."""
    seen: list[dict] = []
    for map_name, opponent, seed, steps in (("beginner", "random", 1, 30), ("crossroads", "aggressive", 3, 14)):
        ours = adapter(seed)

        def record(obs, config, ours=ours):
            seen.append(json.loads(json.dumps(dict(obs))))
            return ours(obs, config)

        play_env(map_name, seed, steps, [record, opponent])
    return seen


def replayed(obs: dict, answer: list[dict]) -> list[int]:
    """Our actions for ``answer`` played from ``obs``'s position along the first line of dice;
    AssertionError at an entry the engine would skip on ANY line of dice (not accepted, or not
    legal where it stands after either outcome of a Rogue's evasion)."""
    game = ReinforceTactics(board="".join(c.split("_")[0] for row in obs["board"] for c in row), episode_steps=200)
    lines = [game.from_observation(obs)]
    out = []
    for d in answer:
        acts = [dict_to_action(game.g, s.words, d, check=True) for s in lines]
        assert all(a is not None and a in s.legal_actions() for s, a in zip(lines, acts)), f"entry {d} would be skipped"
        out.append(acts[0])
        if acts[0] == game.end_turn_action:
            break
        nxt = [s.apply(a) for s, a in zip(lines, acts)]
        lines = []
        while nxt:
            t = nxt.pop()
            if t.is_chance_node():
                nxt.extend(t.apply(o) for o, _p in t.chance_outcomes())
            else:
                lines.append(t)
        if any(t.is_terminal() for t in lines):
            break
    return out


# --- the validator's check of skipped actions ------------------------------------------------------
MOVE = {"type": "move", "from_x": 1, "from_y": 1, "to_x": 1, "to_y": 2}
SEIZE = {"type": "seize", "x": 1, "y": 2}


@pytest.mark.parametrize("sent, executed, over, skipped", [
    ([MOVE, SEIZE, END], [MOVE, SEIZE, END], False, 0),
    ([MOVE, SEIZE, END], [SEIZE, END], False, 1),  # the move skipped
    ([MOVE, SEIZE, END], [MOVE, END], False, 1),  # the seize skipped
    ([MOVE, SEIZE], [MOVE], False, 1),  # no end_turn: the list ran out, the seize was skipped
    ([MOVE, SEIZE, END], [MOVE], True, 0),  # the move won the game: the rest was never reached
    ([END, MOVE], [END], False, 0),  # after end_turn nothing is read
    ([MOVE, END], [END], False, 1),
    ([MOVE, END], [SEIZE, END], False, 2),  # not a subsequence: everything counts
    ([], [], False, 0),
])
def test_skipped_entries_are_those_the_engine_did_not_execute(sent, executed, over, skipped):
    assert skipped_entries(sent, executed, over) == skipped


def test_the_validator_sees_skipped_actions_and_a_clean_agent(tmp_path):
    """A file that sends an illegal move and an illegal recruitment each turn is caught, from the
    engine's own record; one that only ends its turn is clean."""
    from util.bundle_validate_rt import play

    bad = tmp_path / "bad.py"
    bad.write_text("def agent(observation, configuration):\n"
                   "    return [{'type': 'move', 'from_x': 0, 'from_y': 0, 'to_x': 1, 'to_y': 0},\n"
                   "            {'type': 'create_unit', 'unit_type': 'W', 'x': 0, 'y': 0}, {'type': 'end_turn'}]\n")
    good = tmp_path / "good.py"
    good.write_text("def agent(observation, configuration):\n    return [{'type': 'end_turn'}]\n")
    r_bad = play(str(bad), "beginner", "random", 0, 5, 12, 5.0)
    r_good = play(str(good), "beginner", "random", 1, 5, 12, 5.0)
    assert r_bad["turns"] >= 5 and r_bad["skipped"] == 2 * r_bad["turns"], r_bad
    assert r_good["turns"] >= 5 and r_good["skipped"] == 0 and r_good["status"] == "DONE", r_good


# --- the adapter -------------------------------------------------------------------------------------
def check_no_action_skipped(games):
    """The engine executes every entry the adapter sends (its executed list equals what was
    sent, up to end_turn or the game's end)."""
    for map_name, seed, seat, length in games:
        ours = adapter(seed)
        sent: dict[int, list] = {}

        def record(obs, config, ours=ours, sent=sent):
            out = ours(obs, config)
            sent[int(obs.step)] = copy.deepcopy(out)
            return out

        steps, _ = play_env(map_name, seed, length, [record, "aggressive"] if seat == 0 else ["aggressive", record])
        assert steps[-1][seat].status == "DONE"
        acted = [k for k in sent if sent[k] != [END]]
        assert len(acted) >= 5, f"{map_name}: the random turns did almost nothing"
        for k, answer in sent.items():
            if k + 1 < len(steps):
                assert skipped_entries(answer, list(steps[k + 1][seat].action or []), steps[k + 1][seat].status == "DONE") == 0, (map_name, k, answer)
        assert ours.stats["errors"] == 0 and ours.stats["dropped"] == 0


def test_the_adapter_plays_a_whole_game_with_no_action_skipped():
    check_no_action_skipped([("beginner", 11, 0, 40)])


@pytest.mark.slow
def test_the_adapter_plays_longer_games_in_both_seats_with_no_action_skipped():
    check_no_action_skipped([("beginner", 21, 1, 80), ("crossroads", 12, 1, 60), ("rogue_flank", 13, 0, 60)])


def test_every_answer_on_real_observations_is_legal_in_order(observations):
    ours = adapter(3)
    assert len(observations) >= 15
    busy = 0
    for obs in observations:
        answer = ours(copy.deepcopy(obs), CONFIG)
        assert answer[-1] == END
        busy += len(replayed(obs, answer)) > 1
    assert busy > len(observations) // 4 and ours.stats["errors"] == 0


class Raises(RandomTurnAgent):
    def plan_turn(self, state, deadline):
        raise RuntimeError("planned failure")


class Nonsense(RandomTurnAgent):
    def plan_labels(self, state, deadline):
        return [None, 5, "move", (("type", "move"), ("from_x", 99)), (("type", "end_turn"),), 3.5]


@pytest.mark.parametrize("cls", [Raises, Nonsense])
def test_an_agent_that_raises_or_answers_nonsense_still_gets_a_legal_turn(observations, cls):
    ours = RTKaggleAdapter(lambda game: cls(game=game), verbose=False)
    for obs in observations[::7]:
        assert ours(copy.deepcopy(obs), CONFIG) == END_TURN_ONLY
    assert ours.stats["errors"] + ours.stats["dropped"] > 0


def test_an_agent_that_cannot_be_created_costs_its_turns_and_one_error_line(observations):
    def factory(game):
        raise ValueError("no such agent")

    ours = RTKaggleAdapter(factory, verbose=False)
    for obs in observations[:5]:
        assert ours(copy.deepcopy(obs), CONFIG) == END_TURN_ONLY
    assert ours.stats["errors"] == 1 and ours.stats["fallbacks"] == 5


def test_a_turn_with_no_time_left_ends_at_once(observations):
    ours = RTKaggleAdapter(lambda game: RandomTurnAgent(game=game), policy=ClockPolicy(min_budget=0.0), verbose=False)
    obs = observations[len(observations) // 2]
    assert ours(copy.deepcopy(obs), {**CONFIG, "actTimeout": 0}) == END_TURN_ONLY
    assert ours.stats["late"] == 1
    assert len(ours(copy.deepcopy(obs), CONFIG)) > 1  # with time, the same position gets a plan


GARBAGE = st.sampled_from([None, 0, -3, 10**30, 1.5, float("nan"), "", "x", [], {}, [[]], True, object()])


@st.composite
def garbled(draw, observations):
    obs = copy.deepcopy(draw(st.sampled_from(observations)))
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["drop", "garbage", "board", "unit", "water", "twin", "structure", "whole"]))
        if how == "drop" and obs:
            obs.pop(draw(st.sampled_from(sorted(obs))), None)
        elif how == "garbage" and obs:
            obs[draw(st.sampled_from(sorted(obs)))] = draw(GARBAGE)
        elif how == "board":
            obs["board"] = draw(st.sampled_from([[], [["p"] * 20] * 19, [["p"] * 19] * 20, [["zz"] * 20] * 20, [[5] * 20] * 20, "p" * 400]))
        elif how in ("unit", "water", "twin") and isinstance(obs.get("units"), list) and obs["units"]:
            u = draw(st.sampled_from(obs["units"]))
            if how == "unit":
                u[draw(st.sampled_from(["x", "y", "hp", "type", "owner", "canMove"]))] = draw(st.sampled_from([-1, 20, 99, None, "Q", 0, 3]))
            elif how == "water":
                u["x"], u["y"] = 0, 0  # ocean on every map smaller than 20 x 20, else a corner
            else:
                obs["units"].append(dict(u))
        elif how == "structure" and isinstance(obs.get("structures"), list) and obs["structures"]:
            s = draw(st.sampled_from(obs["structures"]))
            s[draw(st.sampled_from(["x", "owner", "hp"]))] = draw(st.sampled_from([0, 7, -4, None]))
        elif how == "whole":
            return draw(GARBAGE)
    return obs


@pytest.fixture(scope="module")
def garbage_adapter():
    return adapter(7)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_garbled_observations_get_a_list_of_dicts_that_ends_the_turn(observations, garbage_adapter, data):
    obs = data.draw(garbled(observations))
    config = data.draw(st.sampled_from([CONFIG, None, {}, {"episodeSteps": "abc"}, {"actTimeout": -1}, {"episodeSteps": 10**9}, 7]))
    answer = garbage_adapter(obs, config)
    assert isinstance(answer, list) and answer and all(type(d) is dict for d in answer)
    assert answer[-1] == END


def test_a_unit_on_water_or_two_units_on_a_cell_is_refused(observations):
    obs = next(o for o in observations if o["units"] and o["board"][0][0] == "o")
    for change in ("water", "twin"):
        bad = copy.deepcopy(obs)
        if change == "water":
            bad["units"][0]["x"], bad["units"][0]["y"] = 0, 0
        else:
            bad["units"].append(dict(bad["units"][0]))
        ours = adapter()
        assert ours(bad, CONFIG) == END_TURN_ONLY and ours.stats["fallbacks"] == 1


# --- the builder -----------------------------------------------------------------------------------
def test_only_game_reinforce_tactics_goes_to_its_builder():
    from util.submission_builder import hooks_of

    assert hooks_of(["--game", "reinforce_tactics", "--list"], "connectx") == ("reinforce_tactics", build_submission_rt)
    assert hooks_of(["--game=reinforce_tactics"], "connectx") == ("reinforce_tactics", build_submission_rt)
    assert hooks_of(["--agent", "rules"], "connectx")[0] == "connectx"


@pytest.mark.parametrize("args, expected", [
    (["--maps", "nowhere"], "unknown map nowhere"),
    (["--opponents", "negamax"], "--opponents"),
    (["--agent", "nobody"], "unknown agent"),
    (["--agent", "quixo_perfect"], "does not play 'reinforce_tactics'"),
    (["--episode-steps", "1"], "--episode-steps"),
    (["--act-timeout", "0"], "seconds"),
    (["--param", "max_actions=-2"], "max_actions"),
    (["--clock", "nonsense=1"], "unknown --clock"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, args, expected):
    code = build_submission.main(["--game", "reinforce_tactics", "--output", str(tmp_path / "x.py"), "--no-validate", *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and expected in err, err


def run_validator(path: Path, *args: str) -> dict:
    out = path.with_suffix(".json")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONNECTX_NUMBA")}
    cmd = [sys.executable, "-I", str(VALIDATOR), str(path), "--repo", str(ROOT), "--out", str(out), *args]
    proc = subprocess.run(cmd, cwd=path.parent, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def test_a_built_file_plays_in_a_fresh_process_without_the_repo_or_numba(tmp_path, capsys):
    """Built with --no-validate into tmp, then played by the validator (``python -I``, repo
    hidden) with numba unimportable: the plain path, one short game in each seat. The fast
    random-turn agent here; the default agent (naive_mcts) in the slow test below, with and without numba."""
    out = tmp_path / "rt.py"
    assert build_submission.main(["--game", "reinforce_tactics", "--output", str(out), "--no-validate",
                                  "--agent", build_submission_rt.RANDOM_TURN, "--param", "max_actions=8"]) == 0
    text = out.read_text()
    assert "Reinforce Tactics submission" in text and text.rstrip().splitlines()[-1].startswith("    return")
    report = run_validator(out, "--maps", "starter", "--opponents", "random", "--seats", "0,1", "--episode-steps", "12",
                           "--act-timeout", "2", "--no-numba")
    assert "fatal" not in report and not report["numba_loaded"], report
    for g in report["games"]:
        ours = (g["steps"] + 1 - g["seat"]) // 2  # the turns that were ours (seat 0 moves at even steps)
        assert g["status"] == "DONE" and g["turns"] == ours, g  # the file played every one of them
        assert g["steps"] == 11 or g["reward"] != 0, g  # the full 12 steps, or decided before them
        assert g["skipped"] == 0 and g["forfeits"] == 0 and g["error_count"] == 0, g


NEEDS_DATA = {"mc_learner": "give the .npz"}  # agent -> what the builder's refusal says


@pytest.mark.parametrize("name", registry.names("reinforce_tactics"))
def test_every_listed_agent_builds_a_file_that_plays_without_the_repo(tmp_path, capsys, name):
    """Each agent ``--list`` offers, built with --no-validate and played for one turn by the
    validator (repo hidden, no numba): the agent is created and its turn executed in full. A
    generic agent reaches the game's heuristics only by name (``Game.import_module``): the
    builder once left them out and naive_mcts's file ended every turn at once. An agent that
    needs data (mc_learner's table) is refused with one line saying so."""
    out = tmp_path / "rt.py"
    code = build_submission.main(["--game", "reinforce_tactics", "--output", str(out), "--no-validate", "--agent", name])
    if name in NEEDS_DATA:
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and NEEDS_DATA[name] in err and not out.exists(), err
        return
    assert code == 0
    report = run_validator(out, "--maps", "beginner", "--opponents", "random", "--seats", "0", "--episode-steps", "2",
                           "--act-timeout", "0.5", "--no-numba")
    assert "fatal" not in report, report
    for g in report["games"]:
        assert g["status"] == "DONE" and g["turns"] == 1, g
        assert g["error_count"] == 0 and g["skipped"] == 0 and g["forfeits"] == 0, g


def test_the_builder_shows_each_validation_game_as_it_ends(tmp_path):
    """A quick whole build (random turns, no worker): a progress line per game, in order of
    their ends, with the running count and the time left; the summary says no worker was expected."""
    out = tmp_path / "rt.py"
    cmd = [sys.executable, str(ROOT / "build_submission.py"), "--game", "reinforce_tactics", "--output", str(out),
           "--agent", build_submission_rt.RANDOM_TURN, "--param", "max_actions=8", "--maps", "beginner", "--opponents", "random",
           "--act-timeout", "1", "--episode-steps", "12"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "OK: ready to submit" in proc.stdout, proc.stderr + proc.stdout
    progress = [line for line in proc.stdout.splitlines() if line.startswith("  game ")]
    assert [line.split(":")[0] for line in progress] == [f"  game {k}/3" for k in (1, 2, 3)], proc.stdout
    assert all(" turns compiled, " in line and line.endswith(" left") for line in progress), progress
    assert sum("beginner (no numba) against random in seat 0" in line for line in progress) == 1, progress
    assert "  compiled worker: none expected" in proc.stdout, proc.stdout


@pytest.mark.slow
def test_the_builder_validates_and_says_ok(tmp_path):
    """The whole command on two maps with a short clock: every game DONE, nothing skipped, OK.
    Under load the worker's compile may outlast 10 turns and 50 s: --worker-ready-turns 40 (the
    whole game) lifts that rule, not the one on its share once ready."""
    out = tmp_path / "rt.py"
    cmd = [sys.executable, str(ROOT / "build_submission.py"), "--game", "reinforce_tactics", "--output", str(out),
           "--maps", "beginner,crossroads", "--act-timeout", "1", "--episode-steps", "40", "--worker-ready-turns", "40"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "OK: ready to submit" in proc.stdout and "crossroads" in proc.stdout and out.is_file()
    assert "  game 9/9: " in proc.stdout and "  compiled worker: " in proc.stdout, proc.stdout


BROKEN_AGENT = '''
from agents.reinforce_tactics.random_turn import RandomTurnAgent


class Broken(RandomTurnAgent):
    def plan_turn(self, state, deadline):
        if state.words[2] >= 4:  # Kaggle's step: fail from the third turn on
            raise RuntimeError("planned failure")
        return super().plan_turn(state, deadline)
'''


@pytest.mark.slow
def test_a_build_whose_agent_fails_is_refused_and_kept_aside(tmp_path):
    pkg = tmp_path / "brokenrt"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "agent.py").write_text(BROKEN_AGENT)
    out = tmp_path / "rt.py"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    cmd = [sys.executable, str(ROOT / "build_submission.py"), "--game", "reinforce_tactics", "--agent", "brokenrt.agent:Broken",
           "--output", str(out), "--maps", "beginner", "--opponents", "random", "--act-timeout", "1", "--episode-steps", "12"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 1 and "validation failed" in proc.stderr, proc.stderr + proc.stdout
    assert not out.exists() and (tmp_path / "rt.failed.py").is_file()


# --- the compiled worker (agents/reinforce_tactics/jit_worker.py) ----------------------------------
def worker_adapter(tmp_path, seed: int = 0, fakes: str = "tests.rt_worker_fakes:Gated", **fake) -> tuple[RTKaggleAdapter, CompiledWorker]:
    """An adapter whose own agent plans plain random turns, with a worker process (on the repo)
    planning by ``fakes`` (:class:`tests.rt_worker_fakes.Gated`; ``fake``: its failure switches)."""
    compile_limit = fake.pop("compile_limit", 120.0)  # the worker's, not the fake agent's
    module, cls = fakes.split(":")
    header = {"root": str(ROOT), "module": module, "cls": cls, "params": {"seed": seed, "max_actions": 8, **fake}}
    worker = CompiledWorker(header, nice=0, compile_limit=compile_limit)
    return RTKaggleAdapter(lambda game: RandomTurnAgent(game=game, seed=seed, max_actions=8), verbose=False,
                           worker=worker), worker


def wait_ready(worker: CompiledWorker, seconds: float = 120.0) -> bool:
    give_up = time.perf_counter() + seconds
    while not worker.ready() and not worker.dead and time.perf_counter() < give_up:
        time.sleep(0.05)
    return worker.ready()


def play_observations(ours: RTKaggleAdapter, observations: list[dict], n: int) -> list[str]:
    """The adapter's paths on ``n`` observations, each answer checked legal in order."""
    paths = []
    for obs in observations[:n]:
        answer = ours(obs, CONFIG)
        replayed(obs, answer)
        paths.append(ours.last_path)
    return paths


def test_the_turns_switch_to_the_worker_once_it_is_ready(tmp_path, observations):
    """Plain (the adapter's own agent) while the worker 'compiles', the worker's plans once it
    says ready; every answer legal on both paths; the worker's turns act (not only end_turn)."""
    gate = tmp_path / "gate"
    ours, worker = worker_adapter(tmp_path, gate=str(gate))
    try:
        assert play_observations(ours, observations, 4) == ["agent"] * 4
        assert not worker.ready() and not worker.dead
        assert ours.stats["plain_turns"] == 4 and ours.stats["worker_wait_s"] > 0  # who planned each turn: validation reads it
        gate.touch()
        assert wait_ready(worker), worker.info()
        sent = [ours(obs, CONFIG) for obs in observations[4:16]]
        assert ours.last_path == "worker" and ours.stats["worker_turns"] == 12 and worker.served == 12
        assert ours.stats["plain_turns"] == 4 and ours.stats["fallback_turns"] == 0
        assert sum(len(a) > 1 for a in sent) >= 3, sent
        for obs, answer in zip(observations[4:16], sent):
            replayed(obs, answer)
        assert ours.stats["errors"] == 0 and ours.stats["dropped"] == 0
    finally:
        worker.stop()


def test_a_worker_whose_libraries_print_still_serves(tmp_path, observations):
    """The worker's answers have a pipe of their own: prints and native writes on its stdout and
    stderr, a numba warning and kaggle-environments imported without OpenSpiel (its "Loading
    environment open_spiel_env failed" line on stdout), at import, in the warm-up and in every
    turn (tests/rt_worker_noisy.py), never end it. On the old protocol (answers on stdout) the
    worker was declared dead at its first line and every turn was plain."""
    ours, worker = worker_adapter(tmp_path, fakes="tests.rt_worker_noisy:Noisy")
    try:
        assert wait_ready(worker), worker.info()
        sent = [ours(obs, CONFIG) for obs in observations[:8]]
        assert not worker.dead and worker.served == 8, worker.info()
        assert ours.stats["worker_turns"] == 8 and ours.stats["plain_turns"] == ours.stats["fallback_turns"] == 0, ours.stats
        assert sum(len(a) > 1 for a in sent) >= 2, sent
        for obs, answer in zip(observations, sent):
            replayed(obs, answer)
    finally:
        worker.stop()


@pytest.mark.parametrize("fake, when", [
    ({"fail": True}, "ready"),  # the compile fails
    ({"gate": "/nonexistent/never", "compile_limit": 1.0}, "limit"),  # the compile outlasts compile_limit
    ({"die": True}, "turn"),  # the worker dies while planning
    ({"hang": True}, "turn"),  # the worker does not answer by the deadline: killed
])
def test_a_failing_worker_leaves_the_game_to_the_plain_agent(tmp_path, observations, fake, when):
    ours, worker = worker_adapter(tmp_path, **fake)
    try:
        if when == "ready":
            assert not wait_ready(worker) and "failed to get ready" in worker.dead
        elif when == "limit":
            time.sleep(1.5)
            assert not worker.ready() and "not ready within" in worker.dead
        else:
            assert wait_ready(worker)
            obs = observations[0]
            first = ours(obs, {**CONFIG, "actTimeout": 1})  # a hanging worker is waited for until the deadline only
            assert worker.dead and ours.worker is None
            if fake.get("hang"):  # no time left for the plain agent: the turn ends
                assert first == END_TURN_ONLY and ours.stats["late"] == 1
            replayed(obs, first)
        paths = play_observations(ours, observations[1:], 3)
        assert paths == ["agent"] * 3 and ours.worker is None and worker.dead
        assert ours.worker_stopped == worker.dead  # validation reads why (a worker dead before it was ready fails it)
        assert worker._proc is None  # killed, not left running
        # a worker that failed after it was ready leaves fallback turns; one that never was, plain ones
        counts = (ours.stats["plain_turns"], ours.stats["fallback_turns"], ours.stats["worker_turns"])
        assert counts == ((0, 4, 0) if when == "turn" else (3, 0, 0)), counts
    finally:
        worker.stop()


def worker_game(expected: bool = True, plain: int = 0, worker: int = 0, fallback: int = 0, wait: float = 0.0) -> dict:
    """A validation game's report (util/bundle_validate_rt.py's fields), won, with who planned its turns."""
    turns = plain + worker + fallback
    return {"map": "crossroads", "opponent": "aggressive", "seat": 0, "seed": 0, "status": "DONE", "reward": 1,
            "steps": 2 * turns, "turns": turns, "durations": [1.0] * turns, "load_s": 0.1, "errors": [], "error_count": 0,
            "skipped": 0, "skipped_examples": [], "forfeits": 0, "act_timeout": 5.0, "wall_s": 2.0 * turns, "bank_used": 0.0,
            "worker_turns": worker, "plain_turns": plain, "fallback_turns": fallback, "worker_expected": expected,
            "worker_wait_s": wait}


@pytest.mark.parametrize("game, reason", [
    (worker_game(plain=10, worker=40, wait=200.0), ""),  # ready by our 11th turn: in time
    (worker_game(plain=11, worker=40, wait=51.0), "not ready within our first 10 turns"),
    (worker_game(plain=11, worker=40, wait=49.0), ""),  # 11 quick turns: it had not had 10 of Kaggle's turns yet
    (dict(worker_game(plain=11, worker=40, wait=49.0), act_timeout=1.0), ""),  # nor at a quick run's clock
    (worker_game(plain=40, wait=300.0), "it was never ready"),  # the shipped file's case (issue 34)
    (worker_game(plain=3, worker=9, fallback=1), ""),  # 9 of 10 once ready: 90%
    (worker_game(plain=3, worker=8, fallback=2), "planned 8 of the 10 turns once it was ready"),
    (worker_game(expected=False, plain=40, wait=300.0), ""),  # no numba here, or the file names no worker
    (dict(worker_game(plain=11, worker=40, wait=90.0), load_per_core=2.0), ""),  # a loaded machine: 10 x 5 s x 2
    (dict(worker_game(plain=11, worker=40, wait=110.0), load_per_core=2.0), "x the load per core (2.0)"),
    (dict(worker_game(plain=5, wait=3.0), worker_stopped="it wrote 'Loading environment open_spiel_env failed'"),
     "stopped before it was ready (it wrote"),  # a short game still shows the dead worker
    (dict(worker_game(plain=3, worker=9, fallback=1), worker_stopped="no answer before the deadline"), ""),  # served, then 90%
])
def test_validation_fails_where_numba_is_here_but_the_compiled_worker_does_not_serve(game, reason):
    nonumba = {"no_numba": True, "games": [], "numba_loaded": False, "finished": True}
    lines, failures = build_submission_rt.summary([{"games": [game], "finished": True}], nonumba, 30.0)
    assert failures == ([f"crossroads against aggressive in seat 0: {build_submission_rt.worker_failure(game)}"] if reason else []), failures
    assert reason in " ".join(failures)
    summary = lines[-1]
    if game["worker_expected"]:
        after = game["worker_turns"] + game["fallback_turns"]
        assert f"compiled worker: {game['worker_turns']} of the {after} turns once it was ready in 1 games" in summary, summary
        assert f"plain turns before it was ready: {game['plain_turns']}" in summary, summary
    else:
        assert "none expected" in summary, summary
    # --worker-ready-turns 100 lifts the readiness rule, not the share once ready nor a worker dead before it
    assert bool(build_submission_rt.worker_failure(game, ready_turns=100)) == ("once it was ready" in reason or "stopped" in reason)


def test_a_worker_that_answers_garbage_or_cannot_start_is_dropped(tmp_path, observations):
    garbage = [sys.executable, "-c", f"import os, sys; out = os.fdopen(int(os.environ[{FD_VAR!r}]), 'w'); sys.stdin.readline(); "
               "print('{\"ready\": 0}', file=out, flush=True); sys.stdin.readline(); print('not json', file=out, flush=True); sys.stdin.read()"]
    for command in (garbage, ["/nonexistent/python"]):
        worker = CompiledWorker({}, command=command)
        ours = RTKaggleAdapter(lambda game: RandomTurnAgent(game=game, seed=1, max_actions=8), verbose=False, worker=worker)
        if command is garbage:
            assert wait_ready(worker, 30)
        assert play_observations(ours, observations, 3) == ["agent"] * 3
        assert worker.dead and ours.stats["errors"] == 0


def test_no_worker_without_numba(monkeypatch):
    """The main process never imports numba to decide: CONNECTX_NUMBA=0 or a hidden numba mean no worker."""
    assert numba_present()
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    assert not numba_present()
    monkeypatch.delenv("CONNECTX_NUMBA")
    monkeypatch.setitem(sys.modules, "numba", None)
    assert not numba_present()


def test_labels_survive_the_round_trip(observations):
    game_obs = observations[5]
    game = ReinforceTactics(board="".join(c.split("_")[0] for row in game_obs["board"] for c in row))
    s = game.from_observation(game_obs)
    labels = [game.action_label(s, a) for a in s.legal_actions()]
    rows = json.loads(json.dumps([[list(p) for p in label] for label in labels]))
    assert labels_from_json(rows) == labels
    for bad in ("x", [["type", "end_turn"]], [[[1, 2]]], [[["a", 1, 2]]]):
        with pytest.raises(ValueError):
            labels_from_json(bad)


def test_the_default_build_starts_a_worker_and_jit_false_does_not(tmp_path):
    out = tmp_path / "rt.py"
    assert build_submission.main(["--game", "reinforce_tactics", "--output", str(out), "--no-validate"]) == 0
    line = out.read_text().split("\n_WORKER = ")[1].splitlines()[0]
    target, spec_params = build_submission_rt.resolve_agent(None)
    assert line.startswith(f"{{'module': '{target.module}', 'cls': '{target.cls.__name__}', 'params': {{'jit': True")
    assert spec_params["plan_share"] == "0.2" and "'plan_share': 0.2" in line  # the measured default, its worker too
    assert spec_params["heuristic"] == "learned" and "'heuristic': 'learned'" in line and "'weights': 'cxdata1:" in line
    assert build_submission_rt.worker_spec(target, {}, {"jit": False})["params"] == {"jit": True}
    for asked in ({"jit": "false"}, {"jit": "true"}):  # --param jit=...: no worker
        assert build_submission_rt.worker_spec(target, asked, {"jit": asked["jit"] == "true"}) is None
    plain, _ = build_submission_rt.resolve_agent(build_submission_rt.RANDOM_TURN)
    assert build_submission_rt.worker_spec(plain, {}, {}) is None  # no jit field: no worker


# --- serving a plan's labels by the compiled rules (jit_worker.plan_labels_by) --------------------
class FixedPlan(RandomTurnAgent):
    """``plan_labels`` (TurnPlanAgent's, the reference) of a given plan."""

    plan: list[int] = []

    def plan_turn(self, state, deadline):
        return list(self.plan)


@pytest.mark.skipif(not numba_present(), reason="numba not installed")
def test_the_workers_warm_up_turn_has_a_short_deadline(monkeypatch):
    """Before saying ready, the worker serves one turn to compile the labels' rules. A turn
    search plans until its deadline: that deadline was an hour away, and naive_mcts's worker
    was not ready after 240 s on an idle machine (its compile alone takes 31 s)."""
    import agents.reinforce_tactics.jit_worker as jw

    seen: list[float] = []

    class Timed(FixedPlan):
        jit = True

        def plan_turn(self, state, deadline):
            seen.append(deadline - time.perf_counter())
            return []

    monkeypatch.setattr(jw, "plan_labels_by", lambda *args: [])  # the labels' compile is not this test's
    jw._turn_server(Timed(game=ReinforceTactics(map="beginner")), "")
    assert len(seen) == 1 and 0 < seen[0] <= jw.WARM_SECONDS, seen


def plans_to_label(seed: int, maps: tuple[str, ...], turns: int) -> list[tuple[object, list[int]]]:
    """(state, plan) pairs from random games of ``turns`` single turns on ``maps``: each of our turns' random plan
    (attacks and seizes first: Rogue evasions inside), the same with junk actions mixed in (not
    legal where they stand), and an empty plan."""
    rng = random.Random(seed)
    out = []
    for map_name in maps:
        game = ReinforceTactics(map=map_name)
        mover = RandomTurnAgent(game=game, seed=rng.randrange(1000), max_actions=10)
        s = game.initial()
        while not s.is_terminal() and game.turn_index(s) < turns:
            if s.is_chance_node():
                s = s.apply(rng.choice(s.chance_outcomes())[0])
                continue
            plan = mover.plan_turn(s, time.perf_counter() + 60)
            junk = list(plan)
            for _ in range(3):
                junk.insert(rng.randrange(len(junk) + 1), rng.randrange(game.num_actions))
            out += [(s, plan), (s, junk), (s, [])]
            for a in plan:  # play the turn along random dice
                while s.is_chance_node():
                    s = s.apply(rng.choice(s.chance_outcomes())[0])
                if s.is_terminal() or a not in s.legal_actions():
                    continue
                s = s.apply(a)
                if a == game.end_turn_action:
                    break
    return out


def check_labels_by(jit: bool, seed: int, maps: tuple[str, ...], turns: int, acting: int) -> int:
    import numpy as np

    from agents.reinforce_tactics.jit_worker import plan_labels_by
    from base import jit as J
    from core.reinforce_tactics import kernels as RK
    from core.reinforce_tactics.layout import NUM_ACTIONS

    k = J.compiled(RK) if jit else RK
    cases = plans_to_label(seed, maps, turns)
    acted = 0
    for s, plan in cases:
        ref = FixedPlan(game=s.game)
        ref.plan = plan
        want = ref.plan_labels(s, time.perf_counter() + 60)
        if jit:
            got = plan_labels_by(np.asarray(s.game.g, np.int64), np.asarray(s.words, np.int64), plan, k.legal, k.play,
                                 np.empty(NUM_ACTIONS, np.int64))
        else:
            got = plan_labels_by(list(s.game.g), list(s.words), plan, k.legal, k.play, [0] * NUM_ACTIONS)
        assert got == want, (s.game.params, plan)
        acted += len(want) > 1
    assert acted >= acting, acted  # the cases were not all empty turns
    return len(cases)


def test_labels_by_the_plain_rules_are_plan_labels():
    assert check_labels_by(False, 3, ("beginner", "rogue_flank"), 10, 8) >= 25


@pytest.mark.slow
def test_labels_by_the_compiled_rules_are_plan_labels():
    pytest.importorskip("numba")
    assert check_labels_by(True, 4, ("beginner", "rogue_flank", "crossroads"), 24, 20) > 60


def test_a_worker_imports_the_bundle_sent_on_its_input(tmp_path, observations):
    """The worker process of a built file: no repo on its path, the project served from the
    bundle's sources sent on its input (BOOT's finder), as on Kaggle; a random-turn agent there
    (no compile) plans turns the adapter sends, legal in order."""
    from kaggle_environments.agent import get_last_callable

    out = tmp_path / "rt.py"
    assert build_submission.main(["--game", "reinforce_tactics", "--output", str(out), "--no-validate",
                                  "--agent", build_submission_rt.RANDOM_TURN, "--param", "max_actions=8"]) == 0
    env = get_last_callable(out.read_text(), path=str(out)).__globals__
    assert env["_WORKER"] is None  # no jit field: the file starts no worker itself
    header = {"prefix": env["_PREFIX"], "sources": env["_SOURCES"], "module": "agents.reinforce_tactics.random_turn",
              "cls": "RandomTurnAgent", "params": {"seed": 3, "max_actions": 8}}
    worker = CompiledWorker(header, command=[sys.executable, "-I", "-c", BOOT])  # -I: not even the current folder
    ours = RTKaggleAdapter(lambda game: RandomTurnAgent(game=game, seed=3, max_actions=8), verbose=False, worker=worker)
    try:
        assert wait_ready(worker, 120), worker.info()
        sent = [ours(obs, CONFIG) for obs in observations[:6]]
        assert ours.stats["worker_turns"] == 6 and sum(len(a) > 1 for a in sent) >= 2, sent
        for obs, answer in zip(observations, sent):
            replayed(obs, answer)
    finally:
        worker.stop()


def test_a_learned_evaluation_travels_inside_the_file(tmp_path, capsys):
    """``--agent greedy:heuristic=learned,weights=F``: the file carries F's bytes (packed by
    base.codec, not its path) and plays with the weights file gone and the repo hidden."""
    import ast

    from base import codec
    from heuristics.reinforce_tactics import learned as L

    weights = tmp_path / "gen.npz"
    m = L.init_model(4, 2)
    m["w2"] = np.linspace(-0.5, 0.5, 4)
    L.save(weights, m)
    raw = weights.read_bytes()
    out = tmp_path / "rt.py"
    assert build_submission.main(["--game", "reinforce_tactics", "--output", str(out), "--no-validate",
                                  "--agent", f"greedy:heuristic=learned,weights={weights}", "--param", "jit=false"]) == 0
    text = out.read_text()
    assert str(weights) not in text
    params = next(ast.literal_eval(line.split("=", 1)[1].strip()) for line in text.splitlines() if line.startswith("_PARAMS = "))
    assert params["heuristic"] == "learned" and codec.unpack(params["weights"]) == raw
    weights.unlink()
    report = run_validator(out, "--maps", "beginner", "--opponents", "random", "--seats", "0,1", "--episode-steps", "4",
                           "--act-timeout", "1", "--no-numba")
    assert "fatal" not in report, report
    for g in report["games"]:
        assert g["status"] == "DONE" and g["turns"] == (g["steps"] + 1 - g["seat"]) // 2 > 0, g
        assert g["error_count"] == 0 and g["skipped"] == 0 and g["forfeits"] == 0, g


def _literal(text: str, name: str):
    import ast

    return next(ast.literal_eval(line.split("=", 1)[1].strip()) for line in text.splitlines() if line.startswith(f"{name} = "))


def test_a_plain_stand_in_plays_beside_the_worker_and_same_keeps_the_agent(tmp_path, capsys):
    """Beside a compiled worker the file's own process plays ``--plain-agent`` (greedy, plain);
    ``same`` keeps the agent itself; no worker (jit=false): the agent itself; a bad spec: one line."""
    out = tmp_path / "rt.py"
    base = ["--game", "reinforce_tactics", "--output", str(out), "--no-validate", "--agent", "naive_mcts:plan_share=0.2"]
    assert build_submission.main(base) == 0
    text = out.read_text()
    assert _literal(text, "_AGENT_MODULE") == "agents.reinforce_tactics.greedy" and _literal(text, "_PARAMS") == {"jit": False}
    assert _literal(text, "_WORKER")["module"] == "agents.engine.naive_mcts"
    assert _literal(text, "_WORKER")["params"] == {"jit": True, "plan_share": 0.2}
    for extra in (["--plain-agent", "same"], ["--param", "jit=false"]):
        assert build_submission.main(base + extra) == 0
        text = out.read_text()
        assert _literal(text, "_AGENT_MODULE") == "agents.engine.naive_mcts", extra
        assert _literal(text, "_PARAMS")["plan_share"] == 0.2, extra
    capsys.readouterr()
    assert build_submission.main(base + ["--plain-agent", "nobody"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown agent" in err, err
