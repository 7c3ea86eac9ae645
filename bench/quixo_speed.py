"""Quixo kernels' speed: perft leaves per second, compiled vs plain (the baseline, same run).

``python -m bench.quixo_speed --size 5 --depth 4`` (plain runs one ply less; the last ply is counted
by the move generator, not played, on both paths); medians of runs.
"""
from __future__ import annotations

import statistics
import time

from base.cli import OneLineParser, positive_int


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m bench.quixo_speed", description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, choices=(3, 4, 5), default=5, help="board side (default 5)")
    p.add_argument("--depth", type=positive_int, default=4, help="perft depth of the compiled run (default 4)")
    p.add_argument("--runs", type=positive_int, default=3, help="runs per path (median; default 3)")
    args = p.parse_args(argv)
    from agents.engine import perft
    from core.games import make_game

    g = make_game("quixo", size=args.size, max_plies=0)
    perft.count(g, 1, jit=True)  # compile outside the timing
    rates = {}
    for jit, depth in ((False, max(1, args.depth - 1)), (True, args.depth)):
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            leaves = perft.count(g, depth, jit=jit)
            times.append(time.perf_counter() - t0)
        rates[jit] = leaves / statistics.median(times)
        print(f"{'compiled' if jit else 'plain   '} perft({depth}) = {leaves:,} leaves, median {statistics.median(times):.3f} s, "
              f"{rates[jit] / 1e6:.2f} M leaves/s")
    print(f"compiled / plain: {rates[True] / rates[False]:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
