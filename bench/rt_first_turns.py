"""The first turns of a built Reinforce Tactics submission in a fresh process: how long each
takes, how many actions it sends, and from which turn the agent plays compiled code (the
default build: a second process compiles while the file plays plain, then plans each turn
compiled, agents/reinforce_tactics/jit_worker.py; a ``--param jit=true`` build: numba's compile
in a background thread; docs/reinforce-tactics-submission.md).

Runs the file with ``python -I`` (repo hidden, as on Kaggle) once with numba and once with
numba unimportable (the baseline: the plain path throughout), for ``--turns`` of our turns of
one game against Kaggle's ``random`` (``--opponent``) on ``--map``, at Kaggle's ``--act-timeout`` (5 s). Prints
one row a turn and the medians; the ratio of the two runs' median turn times; the worker's
times (``ready_after``: seconds from loading to compiled); the turns before and after the switch
against the plain run's turns of the same numbers (the worker's cost to the plain planner while
it compiles, and what compiling buys).
Usage: ``python -m bench.rt_first_turns FILE.py [--turns 12] [--map beginner] [--act-timeout 5]``.
``--compile-time`` instead measures, in a fresh process with the compile cache off, what one
compile of greedy's planner costs (``GreedyAgent.warm_up``): the time a first turn would wait.
``--worker-cost [--map crossroads] [--rounds 3]`` measures what the worker's compile costs the
plain planner in the main process (greedy's plain plans of fixed positions, alone and beside a
compiling worker at niceness 19 and 0, alternated).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from base.cli import OneLineParser  # noqa: E402

PROBE = r'''
import json, sys, time
if sys.argv[5] == "1":
    sys.modules["numba"] = None
t0 = time.perf_counter()
from kaggle_environments import make
from kaggle_environments.agent import get_last_callable
path, map_name, turns, act, opponent = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[6]
fn = get_last_callable(open(path).read(), path=path)
load = time.perf_counter() - t0
rows = []
def ours(obs, config):
    t = time.perf_counter()
    out = fn(obs, config)
    adapter = fn.__globals__.get("_ADAPTER")
    agent = getattr(adapter, "_agent_now", None)
    compiled = getattr(adapter, "last_path", "") == "worker" or bool(getattr(agent, "_jit", False))
    rows.append({"seconds": time.perf_counter() - t, "actions": len(out) - 1, "compiled": compiled})
    return out
env = make("reinforce_tactics", configuration={"mapName": map_name, "seed": 1, "episodeSteps": 2 * turns + 1, "actTimeout": act})
env.run([ours, opponent])
worker = getattr(fn.__globals__.get("_ADAPTER"), "worker", None)
print(json.dumps({"load": load, "rows": rows, "worker": worker.info() if worker is not None else None,
                  "rewards": [s.reward for s in env.state]}))
'''


COMPILE = r'''
import sys, time
t0 = time.perf_counter()
from agents.registry import make
from core.reinforce_tactics import ReinforceTactics
agent = make(sys.argv[1], ReinforceTactics(map="beginner"))
t1 = time.perf_counter()
print(f"{sys.argv[1]}: import and create {t1 - t0:.1f} s; compile (warm_up) {agent.warm_up():.1f} s")
'''


def compile_time(spec: str = "greedy") -> str:
    """One compile of ``spec``'s kernels (``warm_up``) in a fresh process, compile cache off."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "CONNECTX_JIT_CACHE": "0", "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", COMPILE, spec], capture_output=True, text=True, timeout=3600, env=env, cwd=root)
    return proc.stdout.strip() or proc.stderr.strip().splitlines()[-1]


def worker_cost(map_name: str, rounds: int, states: int) -> None:
    """What a compiling worker costs the plain planner beside it: greedy's plain ``plan_turn`` on
    the same ``states`` positions (our turns of a random game on ``map_name``), alone and with a
    worker compiling at niceness 19, 10 (the default) and 0, alternated ``rounds`` times; prints
    each condition's median time and its ratio to the run alone."""
    import time

    from agents.reinforce_tactics import jit_worker as jw
    from agents.reinforce_tactics.greedy import GreedyAgent
    from agents.reinforce_tactics.random_turn import RandomTurnAgent
    from core.reinforce_tactics import ReinforceTactics

    os.environ["CONNECTX_JIT_CACHE"] = "0"  # the worker compiles for real (inherited)
    game = ReinforceTactics(map=map_name)
    mover, s = RandomTurnAgent(game=game, seed=5, max_actions=6), game.initial()
    positions: list[Any] = []  # core.game.State
    while len(positions) < states and not s.is_terminal():
        if s.is_chance_node():
            s = s.apply(s.chance_outcomes()[0][0])
            continue
        if s.current_player() == 0 and game.turn_index(s) >= 4:
            positions.append(s)
        s = s.apply(mover.choose(s, time.perf_counter() + 60))
    planner = GreedyAgent(game=game, jit=False)

    def plan_all() -> float:
        t0 = time.perf_counter()
        for p in positions:
            planner.plan_turn(p, time.perf_counter() + 120)
        return time.perf_counter() - t0

    root = str(Path(__file__).resolve().parents[1])
    header = {"root": root, "module": "agents.reinforce_tactics.greedy", "cls": "GreedyAgent", "params": {"jit": True}}
    times: dict[str, list[float]] = {"alone": [], "nice 19": [], "nice 10": [], "nice 0": []}
    for r in range(rounds):
        for name in times:
            worker = None if name == "alone" else jw.CompiledWorker(header, nice=int(name.split()[1]))
            if worker is not None:
                time.sleep(2.0)  # started and importing: compiling from here
            times[name].append(plan_all())
            busy = worker is not None and not worker.ready() and not worker.dead
            if worker is not None:
                worker.stop()
            print(f"round {r + 1} {name:<8} {times[name][-1]:6.2f} s" + ("" if worker is None else f" (worker still compiling: {busy})"), flush=True)
    base = statistics.median(times["alone"])
    print(f"greedy plain plan_turn on {len(positions)} {map_name} positions, medians of {rounds}: "
          + ", ".join(f"{k} {statistics.median(v):.2f} s (ratio {statistics.median(v) / base:.2f})" for k, v in times.items()))


def label_cost(map_name: str, states: int) -> None:
    """Serving a plan: TurnPlanAgent.plan_labels (a plain ``legal`` per decision) against
    jit_worker.plan_labels_by with the compiled rules, on greedy's plans of our turns in a
    game of greedy against a random turn on ``map_name``; medians a turn."""
    import time

    import numpy as np

    from agents.engine.turn_plan import TurnPlanAgent
    from agents.reinforce_tactics.greedy import GreedyAgent
    from agents.reinforce_tactics.jit_worker import plan_labels_by
    from agents.reinforce_tactics.random_turn import RandomTurnAgent
    from base import jit as J
    from core.reinforce_tactics import ReinforceTactics
    from core.reinforce_tactics import kernels as RK
    from core.reinforce_tactics.layout import NUM_ACTIONS

    game = ReinforceTactics(map=map_name)
    ours, theirs = GreedyAgent(game=game, jit=False), RandomTurnAgent(game=game, seed=5, max_actions=6)
    k, buf, g = J.compiled(RK), np.empty(NUM_ACTIONS, np.int64), np.asarray(game.g, np.int64)
    s = game.initial()
    rows: list[tuple[float, float, int]] = []  # (plain seconds, compiled seconds, labels)
    plan_labels_by(g, np.asarray(s.words, np.int64), [0], k.legal, k.play, buf)  # compiled (or loaded) before timing
    while len(rows) < states and not s.is_terminal():
        if s.is_chance_node():
            s = s.apply(s.chance_outcomes()[0][0])
            continue
        if s.current_player() == 1:
            s = s.apply(theirs.choose(s, time.perf_counter() + 60))
            continue
        plan = ours.plan_turn(s, time.perf_counter() + 60)
        t0 = time.perf_counter()
        want = TurnPlanAgent.plan_labels(_Fixed(game, plan), s, 0.0)  # type: ignore[arg-type]
        t1 = time.perf_counter()
        got = plan_labels_by(g, np.asarray(s.words, np.int64), plan, k.legal, k.play, buf)
        t2 = time.perf_counter()
        assert got == want
        rows.append((t1 - t0, t2 - t1, len(want)))
        for label in want:
            a = game.label_action(s, label)
            if a is None or a == game.end_turn_action:
                break
            s = s.apply(a)
            while s.is_chance_node():
                s = s.apply(s.chance_outcomes()[0][0])
        else:
            continue
        if not s.is_terminal() and s.current_player() == 0:
            s = s.apply(game.end_turn_action)
    plain, fast = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
    print(f"{len(rows)} turns of greedy on {map_name} (median {statistics.median(r[2] for r in rows):.0f} labels): "
          f"plan_labels {plain * 1000:.1f} ms, plan_labels_by compiled {fast * 1000:.1f} ms (ratio {fast / plain:.2f})")


class _Fixed:
    """A stand-in ``self`` for TurnPlanAgent.plan_labels: its game and a fixed plan."""

    def __init__(self, game: object, plan: list[int]) -> None:
        self.game, self._plan = game, plan

    def plan_turn(self, state: object, deadline: float) -> list[int]:
        return list(self._plan)


def run(path: str, map_name: str, turns: int, act: float, no_numba: bool, opponent: str = "random") -> dict:
    proc = subprocess.run([sys.executable, "-I", "-c", PROBE, path, map_name, str(turns), str(act), "1" if no_numba else "0", opponent],
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"rt_first_turns: the probe failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m bench.rt_first_turns", description=__doc__.split("\n\n")[0])
    p.add_argument("file", nargs="?", help="a file built by build_submission.py --game reinforce_tactics")
    p.add_argument("--compile-time", action="store_true", help="only measure one compile of --agent's kernels")
    p.add_argument("--agent", default="greedy", help="--compile-time: the agent, an arena spec (default greedy)")
    p.add_argument("--turns", type=int, default=12, help="our turns to play (default 12)")
    p.add_argument("--map", default="beginner", help="built-in map (default beginner)")
    p.add_argument("--act-timeout", type=float, default=5.0, help="Kaggle's actTimeout, seconds (default 5)")
    p.add_argument("--opponent", default="random", choices=("random", "aggressive"), help="Kaggle's built-in opponent (default random)")
    p.add_argument("--no-baseline", action="store_true", help="play only one turn without numba (quicker; the plain columns then empty)")
    p.add_argument("--worker-cost", action="store_true", help="only measure what a compiling worker costs the plain planner")
    p.add_argument("--rounds", type=int, default=3, help="--worker-cost: alternations (default 3)")
    p.add_argument("--label-cost", action="store_true", help="only measure serving a plan's labels, plain against compiled")
    args = p.parse_args(argv)
    if args.label_cost:
        label_cost(args.map, args.turns)
        return 0
    if args.worker_cost:
        worker_cost(args.map, args.rounds, 6)
        return 0
    if args.compile_time:
        print(compile_time(args.agent))
        return 0
    if not args.file or not Path(args.file).is_file():
        p.error(f"no file {args.file}: build one with python build_submission.py --game reinforce_tactics")
    runs = {"numba": run(args.file, args.map, args.turns, args.act_timeout, False, args.opponent),
            "no numba": run(args.file, args.map, 1 if args.no_baseline else args.turns, args.act_timeout, True, args.opponent)}
    print(f"{args.file} on {args.map} against {args.opponent}, actTimeout {args.act_timeout:g} s; load: "
          + ", ".join(f"{k} {r['load']:.2f} s" for k, r in runs.items()))
    print(f"{'turn':>4} {'numba s':>8} {'acts':>4} {'compiled':>8} {'plain s':>8} {'acts':>4}")
    a, b = runs["numba"]["rows"], runs["no numba"]["rows"]
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else {"seconds": float("nan"), "actions": 0, "compiled": False}
        y = b[i] if i < len(b) else {"seconds": float("nan"), "actions": 0}
        print(f"{i + 1:>4} {x['seconds']:>8.2f} {x['actions']:>4} {str(x['compiled']):>8} {y['seconds']:>8.2f} {y['actions']:>4}")
    ma, mb = statistics.median(r["seconds"] for r in a), statistics.median(r["seconds"] for r in b)
    first = next((i + 1 for i, r in enumerate(a) if r["compiled"]), None)
    print(f"median turn: numba {ma:.2f} s, plain {mb:.2f} s (ratio {ma / mb:.2f}); first compiled turn: {first or 'none'}")
    print(f"compiled worker: {runs['numba'].get('worker')}; rewards: numba {runs['numba'].get('rewards')}, "
          f"plain {runs['no numba'].get('rewards')}")
    for name, after in (("before", False), ("after", True)):
        part = [r for r in a if r["compiled"] == after]
        base = [y for x, y in zip(a, b) if x["compiled"] == after]  # the plain run's turns of the same numbers
        if part:
            print(f"  {name} the switch: {len(part)} turns, median {_median(part, 'seconds'):.2f} s and "
                  f"{_median(part, 'actions'):.1f} actions; the plain run's same turns: "
                  f"{_median(base, 'seconds'):.2f} s and {_median(base, 'actions'):.1f} actions")
    return 0


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows) if rows else float("nan")


if __name__ == "__main__":
    sys.exit(main())
