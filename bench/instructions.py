"""Instructions executed by one workload, this tree against a baseline commit: a before/after
ratio that load on the machine cannot move (valgrind's callgrind counts instructions, not
seconds), for a shared machine where timed ratios swing by 20-30% between runs.

    python -m bench.instructions --before 0360e46 --workload solver --sets L3_R1,L2_R1,L1_R1 --limit 100
    python -m bench.instructions --before 4495222 --workload mcts --game quixo --sims 2000
    python -m bench.instructions --before 0360e46 --workload dfs --depth 14
    python -m bench.instructions --before 8f5f45a --workload macro --iters 300
    python -m bench.instructions --before 2756b19 --workload compile --agent "einstein expectimax" [--agent ...]

Each tree runs the workload twice in a fresh process: once plainly (numba compiles, or loads its
kernel cache), then under ``valgrind --tool=callgrind --instr-atstart=no``, counting only the
measured region (``callgrind_control -i on`` / ``off`` around it: imports, compiles and set-up
are left out). The workloads call only what both trees have (``agents.connectx.solver.Solver``'s
``solve``, ``agents.engine.mcts.MCTSAgent``'s ``choose``, ConnectX's ``negamax`` at a fixed
depth, ``agents.engine.macro_mcts.MacroMCTSAgent``'s ``plan_turn`` at a fixed number of turn
evaluations), and each reports its work (nodes, simulations, evaluations): the trees must do
equal work, or the ratio is refused (exit 1). Instruction counts are not time: a cache miss
costs one; they answer "did the change add work", the timed benchmarks "is it faster".

``compile`` counts the compile itself instead: one agent's ``warm_up`` (each ``--agent`` is
``"GAME SPEC"``, as in :mod:`bench.kernel_compile`) in a fresh process with the kernel cache
off (``CONNECTX_JIT_CACHE=0``), counted once, with no plain run first; its work is the number
of functions numba compiled (numba's ``numba:compile`` events), which must be equal. Nothing is
written to a shared cache then, so the two trees are counted at once, in parallel.
Needs valgrind (Debian's package); about a minute a tree for the defaults, a few minutes a tree
for a compile.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from base.cli import OneLineParser, positive_int
from bench.ab import checkout
from bench.figures import emit
from core.games import add_game_arguments, game_from_args

ROOT = Path(__file__).resolve().parent.parent

TOGGLE = """
import os, subprocess
def instrument(on):
    subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(os.getpid())], capture_output=True)
"""

SOLVER = TOGGLE + """
import sys
from agents.connectx.solver import Solver
from core.connectx.position import Position
sets, limit = sys.argv[1].split(","), int(sys.argv[2])
cases = []
for name in sets:
    lines = [ln.split() for ln in open(f"data/pons/Test_{name}").read().split("\\n") if ln.strip()][:limit]
    cases += [(Position.from_moves(m), int(s)) for m, s in lines]
solver = Solver(tt_size=1 << 20)
solver.warm_up()
solver.solve(cases[0][0])
solver.reset()
nodes = 0
instrument(True)
for position, expected in cases:
    assert solver.solve(position) == expected
    nodes += solver.nodes
instrument(False)
print("work", nodes)
"""

MCTS = TOGGLE + """
import sys, time
from agents.engine.mcts import MCTSAgent
from bench.engine_mcts_speed import start_state
from core.games import parse_game
game, sims = parse_game(sys.argv[1]), int(sys.argv[2])
def agent():
    return MCTSAgent(game=game, jit=True, max_sims=sims, capacity=sims + 64, solver=False, leaf="rollout",
                     open_loop=False, reuse=False, seed=len(str(sims)), background_compile=False)
state = start_state(game)
agent().choose(state, time.perf_counter() + 1e9)
measured = agent()
instrument(True)
measured.choose(state, time.perf_counter() + 1e9)
instrument(False)
print("work", measured.info()["simulations"])
"""

DFS = TOGGLE + """
import sys, time
from agents.connectx.alphabeta import NegamaxAgent
from core.connectx.position import Position
from core.connectx.shape import Shape
depth, openings = int(sys.argv[1]), sys.argv[2].split(",")
agent = NegamaxAgent(max_depth=depth, background_compile=False)
agent.warm_up(Shape())  # older trees take the board
choose = getattr(agent, "choose_position", agent.choose)  # older trees: choose(position, deadline)
choose(Position.from_moves(openings[0]), time.perf_counter() + 1e9)
nodes = 0
instrument(True)
for moves in openings:
    choose(Position.from_moves(moves), time.perf_counter() + 1e9)
    nodes += agent.info()["nodes"]
instrument(False)
print("work", nodes)
"""

MACRO = TOGGLE + """
import sys, time
from agents.engine.macro_mcts import MacroMCTSAgent
from core.game import first_decision
from core.games import parse_game
game, iters = parse_game(sys.argv[1]), int(sys.argv[2])
def agent():
    return MacroMCTSAgent(game=game, max_iters=iters, seed=3, background_compile=False)
state = first_decision(game)
agent().plan_turn(state, time.perf_counter() + 1e9)
measured = agent()
instrument(True)
measured.plan_turn(state, time.perf_counter() + 1e9)
instrument(False)
print("work", measured.info()["evaluations"])
"""

COMPILE = TOGGLE + """
import sys
from numba.core import event
from agents.registry import make
from core.games import make_game
names = []
class Count(event.Listener):
    def on_start(self, ev):
        fn = ev.data["dispatcher"].py_func
        names.append(f"{fn.__module__}.{fn.__qualname__}")
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
agent = make(sys.argv[2], make_game(sys.argv[1]))
instrument(True)
agent.warm_up()
instrument(False)
print("compiled", " ".join(sorted(names)))
print("work", len(names))
"""

WORKLOADS = {"solver": SOLVER, "mcts": MCTS, "dfs": DFS, "macro": MACRO, "compile": COMPILE}
COLD = {"compile"}
"""Workloads counted cold (kernel cache off, no plain run first): both trees at once."""


def collected(stderr: str) -> int | None:
    """The instructions callgrind counted (its ``Collected : N`` line), None without one."""
    found = re.search(r"Collected : (\d+)", stderr)
    return int(found.group(1)) if found else None


def work_of(stdout: str) -> int | None:
    """The workload's ``work N`` line, None without one."""
    found = re.search(r"^work (\d+)", stdout, re.M)
    return int(found.group(1)) if found else None


def compiled_names(stdout: str) -> list[str]:
    """The compile workload's ``compiled NAME ...`` line: the functions numba compiled."""
    found = re.search(r"^compiled ?(.*)$", stdout, re.M)
    return found.group(1).split() if found else []


def last_line(out: subprocess.CompletedProcess) -> str:
    return ((out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"])[0]


def count(tree: Path, code: str, args: list[str], cold: bool = False) -> tuple[int, int, list[str]]:
    """``(instructions, work, compiled names)`` of the workload ``code`` run in ``tree``;
    ``cold``: the kernel cache off and no plain run first."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    if cold:
        env["CONNECTX_JIT_CACHE"] = "0"
    else:
        warm = subprocess.run([sys.executable, "-c", code, *args], cwd=tree, env=env, capture_output=True, text=True)
        if warm.returncode != 0:
            raise SystemExit(f"instructions: the workload failed in {tree}: {last_line(warm)}")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                              f"--callgrind-out-file={tmp}/callgrind.out", sys.executable, "-c", code, *args],
                             cwd=tree, env=env, capture_output=True, text=True)
    found, work = collected(out.stderr), work_of(out.stdout)
    if out.returncode != 0 or found is None or work is None:
        raise SystemExit(f"instructions: the counted run failed in {tree}: {last_line(out)}")
    return found, work, compiled_names(out.stdout)


def report(label: str, before: str, counts: dict[str, tuple[int, int, list[str]]]) -> dict[str, float] | None:
    """Print one workload's table; its figures, or None (said on stderr) when the trees did
    different work."""
    (b, bw, bn), (a, aw, an) = counts["before"], counts["after"]
    print(f"bench.instructions --workload {label}: before {before}, after this tree")
    print(f"{'':12} {'instructions':>15} {'work':>12} {'per unit':>10}")
    print(f"{'before':12} {b:>15,} {bw:>12,} {b / max(bw, 1):>10.1f}")
    print(f"{'after':12} {a:>15,} {aw:>12,} {a / max(aw, 1):>10.1f}")
    print(f"after/before {a / b:.4f} (work {aw / max(bw, 1):.3f})", flush=True)
    if aw != bw:
        only = [f"before only: {' '.join(sorted(set(bn) - set(an)))}" if set(bn) - set(an) else "",
                f"after only: {' '.join(sorted(set(an) - set(bn)))}" if set(an) - set(bn) else ""]
        extra = "; ".join(x for x in only if x)
        print(f"instructions: {label}: the trees did different work ({bw} against {aw}"
              f"{'; ' + extra if extra else ''}): no ratio", file=sys.stderr)
        return None
    return {"instructions_ratio": a / b, "work_ratio": aw / bw}


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.instructions", description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the baseline revision")
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="solver", help="what to count (default solver)")
    ap.add_argument("--sets", default="L3_R1,L2_R1,L1_R1", help="solver: Pons' sets (default L3_R1,L2_R1,L1_R1)")
    ap.add_argument("--limit", type=positive_int, default=100, help="solver: positions a set (default 100)")
    add_game_arguments(ap, default="quixo", note="mcts: the game searched")
    ap.add_argument("--sims", type=positive_int, default=2000, help="mcts: simulations (default 2000)")
    ap.add_argument("--depth", type=positive_int, default=14, help="dfs: ConnectX negamax's fixed depth (default 14)")
    ap.add_argument("--openings", default="44,4453,435,3443,4455,2233", help="dfs: the positions, Pons' move digits")
    ap.add_argument("--turn-game", default="reinforce_tactics:map=beginner",
                    help="macro: the game of macro-move MCTS's turn (default reinforce_tactics:map=beginner)")
    ap.add_argument("--iters", type=positive_int, default=300, help="macro: turn evaluations (default 300)")
    ap.add_argument("--agent", action="append",
                    help='compile: "GAME SPEC", repeatable (default "einstein expectimax")')
    args = ap.parse_args(argv)
    agents = [a.split(None, 1) for a in (args.agent or ["einstein expectimax"])]
    if any(len(a) != 2 for a in agents):
        print('instructions: give --agent as "GAME SPEC", e.g. --agent "einstein expectimax"', file=sys.stderr)
        return 2
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("instructions: valgrind is not installed; apt-get install valgrind", file=sys.stderr)
        return 2
    cases = cases_of(args, ap, agents)
    cold = args.workload in COLD
    code = WORKLOADS[args.workload]
    counts: dict[tuple[str, str], tuple[int, int, list[str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        before = checkout(args.before, Path(tmp) / "before")
        try:
            if cold:  # nothing shared is written: both trees at once
                with ThreadPoolExecutor(2) as pool:
                    futures = {(label, side): pool.submit(count, tree, code, wargs, True)
                               for label, wargs in cases for side, tree in (("before", before), ("after", ROOT))}
                    counts = {k: f.result() for k, f in futures.items()}
            else:
                for label, wargs in cases:
                    counts[label, "before"] = count(before, code, wargs)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
    if not cold:
        for label, wargs in cases:
            counts[label, "after"] = count(ROOT, code, wargs)
    figures: dict[str, float] = {}
    refused = False
    for label, _ in cases:
        got = report(label, args.before, {side: counts[label, side] for side in ("before", "after")})
        if got is None:
            refused = True
            continue
        prefix = label if cold else args.workload
        figures.update({f"{prefix}_{k}": v for k, v in got.items()})
    if refused:
        return 1
    emit(figures)
    return 0


def cases_of(args: argparse.Namespace, ap: OneLineParser, agents: list[list[str]]) -> list[tuple[str, list[str]]]:
    """``(label, workload arguments)`` of each run the command asks for."""
    if args.workload == "compile":
        return [(f"compile {game} {spec}", [game, spec]) for game, spec in agents]
    wargs = {"solver": lambda: [args.sets, str(args.limit)],
             "mcts": lambda: [game_from_args(ap, args).spec(), str(args.sims)],
             "dfs": lambda: [str(args.depth), args.openings],
             "macro": lambda: [args.turn_game, str(args.iters)]}[args.workload]()
    return [(f"{args.workload} {' '.join(wargs)}", wargs)]


if __name__ == "__main__":
    sys.exit(main())
