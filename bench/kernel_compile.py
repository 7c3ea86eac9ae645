"""Cold compile time of the engine's kernels, this tree against a baseline commit: CPU seconds
of one agent's ``warm_up`` in a fresh process with the on-disk kernel cache off
(``CONNECTX_JIT_CACHE=0``), so every run compiles everything. CPU time, not wall time: the
machine may be loaded, and numba compiles in one thread.

    python -m bench.kernel_compile --before 4495222 [--repeats 3] [--jobs 4] [--agent "connect4_count mcts"] ...

Each ``--agent`` is ``"GAME SPEC"`` (a game of ``core.games``, an agent spec of
``agents.registry``); the default set covers MCTS (a game without chance, one with), alpha-beta,
expectimax and the exact solver. The two trees run alternately (before, after, before, ...), so
that load changes hit both alike; figures are medians, printed with the ratio after / before.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from base.cli import OneLineParser, positive_int
from bench.ab import checkout
from bench.figures import emit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_AGENTS = ["connect4_count mcts", "einstein mcts", "connect4_count alphabeta", "einstein expectimax",
                  "tictactoe solver"]
CHILD = """
import sys, time
from agents.registry import make
from core.games import make_game
agent = make(sys.argv[2], make_game(sys.argv[1]))
t = time.process_time()
agent.warm_up()
print(time.process_time() - t)
"""


def compile_cpu(tree: Path, game: str, spec: str) -> float:
    """CPU seconds of one cold ``warm_up`` of ``spec`` on ``game``, run in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree), CONNECTX_JIT_CACHE="0")
    out = subprocess.run([sys.executable, "-c", CHILD, game, spec], cwd=tree, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]
        print(f"kernel_compile: {game} {spec} failed in {tree}: {tail[0]}", file=sys.stderr)
        raise SystemExit(1)
    return float(out.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.kernel_compile", description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the baseline revision")
    ap.add_argument("--repeats", type=positive_int, default=3, help="compiles of each side, alternated (median)")
    ap.add_argument("--jobs", type=positive_int, default=1,
                    help="compiles at once (CPU time is per process: concurrent compiles of both trees share the load alike)")
    ap.add_argument("--agent", action="append", help='"GAME SPEC", repeatable (default: MCTS, alpha-beta, expectimax, solver)')
    args = ap.parse_args(argv)
    agents = [a.split(None, 1) for a in (args.agent or DEFAULT_AGENTS)]
    if any(len(a) != 2 for a in agents):
        print('kernel_compile: give --agent as "GAME SPEC", e.g. --agent "connect4_count mcts"', file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="kc_"))
    before = checkout(args.before, tmp / "before")
    figures = {}
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            futures = {(game, spec, side, i): pool.submit(compile_cpu, tree, game, spec)
                       for game, spec in agents for i in range(args.repeats)
                       for side, tree in (("before", before), ("after", ROOT))}
        for game, spec in agents:
            runs = {side: [futures[game, spec, side, i].result() for i in range(args.repeats)] for side in ("before", "after")}
            b, a = statistics.median(runs["before"]), statistics.median(runs["after"])
            name = f"{game} {spec}"
            print(f"{name:32s} compile CPU s: before {b:6.2f} (runs {', '.join(f'{x:.1f}' for x in runs['before'])}), "
                  f"after {a:6.2f} (runs {', '.join(f'{x:.1f}' for x in runs['after'])}), ratio {a / b:.3f}", flush=True)
            figures[f"{name} before s"] = b
            figures[f"{name} after s"] = a
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    emit(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
