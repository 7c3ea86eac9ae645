"""Instructions executed by one workload, this tree against a baseline commit: a before/after
ratio that load on the machine cannot move (valgrind's callgrind counts instructions, not
seconds), for a shared machine where timed ratios swing by 20-30% between runs.

    python -m bench.instructions --before 0360e46 --workload solver --sets L3_R1,L2_R1,L1_R1 --limit 100
    python -m bench.instructions --before 4495222 --workload mcts --game quixo --sims 2000
    python -m bench.instructions --before 0360e46 --workload dfs --depth 14
    python -m bench.instructions --before 8f5f45a --workload macro --iters 300

Each tree runs the workload twice in a fresh process: once plainly (numba compiles, or loads its
kernel cache), then under ``valgrind --tool=callgrind --instr-atstart=no``, counting only the
measured region (``callgrind_control -i on`` / ``off`` around it: imports, compiles and set-up
are left out). The workloads call only what both trees have (``agents.connectx.solver.Solver``'s
``solve``, ``agents.engine.mcts.MCTSAgent``'s ``choose``, ConnectX's ``negamax`` at a fixed
depth, ``agents.engine.macro_mcts.MacroMCTSAgent``'s ``plan_turn`` at a fixed number of turn
evaluations), and each reports its work (nodes, simulations, evaluations): equal work in both trees is checked. Instruction counts are not time: a cache miss
costs one; they answer "did the change add work", the timed benchmarks "is it faster".
Needs valgrind (Debian's package); about a minute a tree for the defaults.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
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

WORKLOADS = {"solver": SOLVER, "mcts": MCTS, "dfs": DFS, "macro": MACRO}


def count(tree: Path, code: str, args: list[str]) -> tuple[int, int]:
    """``(instructions, work)`` of the workload ``code`` run in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    warm = subprocess.run([sys.executable, "-c", code, *args], cwd=tree, env=env, capture_output=True, text=True)
    if warm.returncode != 0:
        tail = (warm.stderr or warm.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"instructions: the workload failed in {tree}: {tail[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                              f"--callgrind-out-file={tmp}/callgrind.out", sys.executable, "-c", code, *args],
                             cwd=tree, env=env, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    work = re.search(r"^work (\d+)", out.stdout, re.M)
    if out.returncode != 0 or not found or not work:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"instructions: the counted run failed in {tree}: {tail[0]}")
    return int(found.group(1)), int(work.group(1))


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
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("instructions: valgrind is not installed; apt-get install valgrind", file=sys.stderr)
        return 2
    wargs = {"solver": [args.sets, str(args.limit)], "mcts": [game_from_args(ap, args).spec(), str(args.sims)],
             "dfs": [str(args.depth), args.openings], "macro": [args.turn_game, str(args.iters)]}[args.workload]
    with tempfile.TemporaryDirectory() as tmp:
        before = checkout(args.before, Path(tmp) / "before")
        try:
            b, bw = count(before, WORKLOADS[args.workload], wargs)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
    a, aw = count(ROOT, WORKLOADS[args.workload], wargs)
    print(f"bench.instructions --workload {args.workload} {' '.join(wargs)}: before {args.before}, after this tree")
    print(f"{'':12} {'instructions':>15} {'work':>12} {'per unit':>10}")
    print(f"{'before':12} {b:>15,} {bw:>12,} {b / bw:>10.1f}")
    print(f"{'after':12} {a:>15,} {aw:>12,} {a / aw:>10.1f}")
    print(f"after/before {a / b:.3f} (work {aw / bw:.3f})")
    if aw != bw:
        print("instructions: the trees did different work: the ratio compares different searches", file=sys.stderr)
    emit({f"{args.workload}_instructions_ratio": a / b, f"{args.workload}_work_ratio": aw / bw})
    return 0


if __name__ == "__main__":
    sys.exit(main())
