"""Expectimax speed: nodes per second of the compiled kernel (:mod:`agents.engine.expectimax`)
on fixed-depth searches from random positions of a game (default EinStein würfelt nicht!).

Figures measured in this one run (the kernel compiled first, its compile not counted):
- ``nodes/s``: all searches' nodes / their wall seconds (the median of ``--rounds`` rounds, each
  searching every position once);
- ``nodes per CPU s``: the same over CPU seconds (``time.process_time``), the figure that holds
  better when other processes share the cores; ``best round``: the fastest round's, the least
  disturbed by them (on 2 cores at load 5, medians of one tree ranged 0.8-1.1x between runs);
- ``nodes``: the searches' node count, a check that two trees searched the same trees (their
  ratio in :mod:`bench.ab` must be 1.000).

Positions: decision nodes after a random number of random actions (``--seed``); each search is
one call to ``--depth`` decision plies with an empty table, with the agent's default heuristic
and settings (Star1, the table; ``--star2`` adds Star2's probes). The node counts do not depend
on the machine, so runs of one tree differ in their times only. Example:

    python -m bench.ab --before 4495222 --repeats 3 -- bench.expectimax_speed --depth 5
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any

from base.cli import OneLineParser, positive_int
from base.jit import numba_available
from bench.figures import emit
from core.games import add_game_arguments, game_from_args


def positions(game: Any, count: int, seed: int, max_plies: int = 30) -> list[Any]:
    """``count`` decision nodes (not terminal) after 4 to ``max_plies`` random actions each."""
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < count:
        s, stop, plies = game.initial(), rng.randrange(4, max_plies), 0
        while not s.is_terminal() and (plies < stop or s.is_chance_node()):
            s = s.apply(rng.choice(s.legal_actions()))
            plies += 1
        if not s.is_terminal():
            out.append(s)
    return out


def one_round(search: Any, todo: list[Any], depth: int) -> tuple[int, float, float]:
    """(nodes, wall seconds, CPU seconds) of one search of each position, each from an empty table."""
    nodes, wall, cpu = 0, 0.0, 0.0
    for s in todo:
        search.clear()
        c0, w0 = time.process_time(), time.perf_counter()
        nodes += search.run(s, depth).nodes
        wall, cpu = wall + time.perf_counter() - w0, cpu + time.process_time() - c0
    return nodes, wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.expectimax_speed", description=__doc__.split("\n\n")[0])
    add_game_arguments(ap, default="einstein")
    ap.add_argument("--depth", type=positive_int, default=5, help="decision plies per search (default 5)")
    ap.add_argument("--positions", type=positive_int, default=12, help="random positions (default 12)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random positions (default 1)")
    ap.add_argument("--rounds", type=positive_int, default=5, help="searches of every position, median (default 5)")
    ap.add_argument("--star2", action="store_true", help="Star2's probes at chance nodes (off by default)")
    args = ap.parse_args(argv)
    from agents.engine.expectimax import Search
    from agents.registry import make

    game = game_from_args(ap, args)
    if not (numba_available() and game.fits_int64()):
        print(f"expectimax_speed: no compiled kernel for {game.spec()} here (numba missing or the state too wide)",
              file=sys.stderr)
        return 2
    agent = make("expectimax", game)  # its default heuristic (with that heuristic's default parameters)
    search = Search(game, agent.heuristic, None, jit=True, star2=args.star2)
    todo = positions(game, args.positions, args.seed)
    t0 = time.perf_counter()
    search.run(todo[0], 1)
    print(f"expectimax on {args.game}, heuristic {agent.heuristic}, depth {args.depth}, {len(todo)} positions"
          f"{', star2' if args.star2 else ''}; compile {time.perf_counter() - t0:.1f} s")
    rounds = [one_round(search, todo, args.depth) for _ in range(args.rounds)]
    nodes = rounds[0][0]
    rate = statistics.median(n / max(w, 1e-9) for n, w, _ in rounds)
    cpu_rate = statistics.median(n / max(c, 1e-9) for n, _, c in rounds)
    best = max(n / max(c, 1e-9) for n, _, c in rounds)
    print(f"compiled nodes/s {rate:,.0f}, per CPU second {cpu_rate:,.0f}, best round {best:,.0f} (median of "
          f"{len(rounds)} rounds of {nodes:,} nodes; CPU s {', '.join(f'{c:.2f}' for _, _, c in rounds)})")
    emit({"nodes/s": rate, "nodes per CPU s": cpu_rate, "nodes per CPU s, best round": best, "nodes": nodes})
    return 0


if __name__ == "__main__":
    sys.exit(main())
