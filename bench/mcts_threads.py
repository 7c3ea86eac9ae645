"""Simulations per second of root-parallel MCTS (``agents/engine/root_parallel.py``) on several
threads against one tree, compiled, in one run, interleaved: ConnectX's own MCTS (random
rollouts, the agent of ``bench/mcts_speed.py``, which also times OpenSpiel's) and the engine's
generic MCTS on other games.

Each figure is the median of ``--repeats`` searches of ``--sims`` simulations in all (each of
the T trees runs sims / T) from a fresh tree at the game's first decision; the ratio is T trees'
rate over one tree's, measured in the same run. Two cores give at most 2x; a busy machine
gives less, so the load average is printed beside the figures.

    python -m bench.mcts_threads [--threads 2] [--sims 200000] [--repeats 5] [--game quixo]
"""
from __future__ import annotations

import math
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from agents.connectx.mcts import MCTSAgent as ConnectXMCTS
from agents.engine.mcts import MCTSAgent
from agents.engine.root_parallel import SEED_STRIDE, search_at_once
from base.cli import OneLineParser, positive_int
from bench.engine_mcts_speed import start_state
from bench.figures import emit
from core.games import parse_game


def trees_of(game, threads: int, sims: int) -> list:
    share = math.ceil(sims / threads)
    if game.name == "connectx":  # the game's own MCTS: what its submission and bench/mcts_speed.py run
        return [ConnectXMCTS(leaf="rollout", c=2.0, cache="", capacity=share + 64, max_sims=share, reuse=False,
                             seed=1 + i * SEED_STRIDE, background_compile=False) for i in range(threads)]
    return [MCTSAgent(game=game, max_sims=share, capacity=share + 64, solver=False, reuse=False,
                      seed=1 + i * SEED_STRIDE, background_compile=False) for i in range(threads)]


def rate(game, threads: int, sims: int, pool: ThreadPoolExecutor) -> float:
    trees = trees_of(game, threads, sims)
    state = start_state(game)
    search_at_once(trees, state, math.inf, pool if threads > 1 else None)  # the trees' arrays allocated
    t = time.perf_counter()
    _, info = search_at_once(trees, state, math.inf, pool if threads > 1 else None)
    return (info.simulations or 0) / (time.perf_counter() - t)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.mcts_threads", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="game spec, repeatable (default connectx and quixo)")
    parser.add_argument("--threads", type=positive_int, default=2, help="trees searched at once (default 2)")
    parser.add_argument("--sims", type=positive_int, default=200_000, help="simulations a search, over all trees")
    parser.add_argument("--repeats", type=positive_int, default=5, help="runs per figure (median)")
    args = parser.parse_args(argv)
    games = []
    for spec in args.game or ["connectx", "quixo"]:
        try:
            games.append(parse_game(spec))
        except ValueError as exc:
            parser.error(f"--game {spec}: {exc}")
    pool = ThreadPoolExecutor(max_workers=args.threads)
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'game':28} {'1 tree sims/s':>14} {f'{args.threads} trees sims/s':>16} {'ratio':>6}")
    figures = {}
    for game in games:
        for tree in trees_of(game, 1, 1000):
            tree.warm_up()
        one, many = [], []
        for _ in range(args.repeats):  # interleaved, so load changes hit both alike
            one.append(rate(game, 1, args.sims, pool))
            many.append(rate(game, args.threads, args.sims, pool))
        a, b = statistics.median(one), statistics.median(many)
        label = game.spec().replace(":", "_").replace(",", "_").replace("=", "")
        figures[f"{label}_1_tree_sims_per_s"], figures[f"{label}_{args.threads}_trees_sims_per_s"] = a, b
        print(f"{game.spec():28} {a:14,.0f} {b:16,.0f} {b / a:6.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    pool.shutdown()
    emit(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
