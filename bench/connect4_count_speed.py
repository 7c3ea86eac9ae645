"""Speed of count-the-fours Connect Four's kernels: perft leaves per second (compiled and plain)
against ConnectX's engine kernels on the same board, and the ``lines`` heuristic's evaluations
per second, all measured in this run (medians of ``--repeat``).

    python -m bench.connect4_count_speed --rows 6 --columns 7 --depth 6

ConnectX stops at a line, count-the-fours does not, so their perft counts differ a little;
the figure compared is leaves per second. Compile time is excluded (one warm-up call first).
Heuristic calls are made one by one from Python, so the compiled figure includes numba's
dispatch (microseconds): inside a search each evaluation costs far less.
"""
from __future__ import annotations

import random
import statistics
import time

from base.cli import OneLineParser, positive_int


def _perft_rate(game, depth: int, jit: bool, repeat: int) -> tuple[int, float]:
    from agents.engine import perft

    perft.count(game, 1, jit=jit)  # compile / bind outside the timing
    times, n = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        n = perft.count(game, depth, jit=jit)
        times.append(time.perf_counter() - t0)
    return n, n / statistics.median(times)


def _eval_rate(game, jit: bool, positions: int, repeat: int) -> float:
    import numpy as np

    from base.jit import compiled
    from heuristics import connect4_count as H

    rng = random.Random(0)
    states = []
    for _ in range(positions):
        s = game.initial()
        for _ in range(rng.randrange(0, game.rows * game.columns)):
            s = s.apply(rng.choice(s.legal_actions()))
        states.append(s.words)
    fn = compiled(H).evaluate_lines if jit else H.evaluate_lines
    g = np.asarray(game.g, dtype=np.int64) if jit else list(game.g)
    params = np.asarray(H.DEFAULT_PARAMS["lines"]) if jit else list(H.DEFAULT_PARAMS["lines"])
    fn(g, states[0], params)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for w in states:
            fn(g, w, params)
        times.append(time.perf_counter() - t0)
    return len(states) / statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    from base.jit import numba_available
    from core.games import make_game

    parser = OneLineParser(prog="python -m bench.connect4_count_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=positive_int, default=6, help="board rows (default 6)")
    parser.add_argument("--columns", type=positive_int, default=7, help="board columns (default 7)")
    parser.add_argument("--depth", type=positive_int, default=6, help="perft depth (default 6)")
    parser.add_argument("--repeat", type=positive_int, default=3, help="runs per figure, median (default 3)")
    parser.add_argument("--positions", type=positive_int, default=2000, help="random positions evaluated (default 2000)")
    args = parser.parse_args(argv)
    try:
        game = make_game("connect4_count", rows=args.rows, columns=args.columns)
        peer = make_game("connectx", rows=args.rows, columns=args.columns)
    except ValueError as exc:
        parser.error(str(exc))
    jits = [False] + ([True] if numba_available() and game.fits_int64() else [])
    rates: dict = {}
    print(f"connect4_count {args.rows}x{args.columns}, perft depth {args.depth}, medians of {args.repeat}")
    for jit in jits:
        path = "compiled" if jit else "plain"
        n, r = _perft_rate(game, args.depth, jit, args.repeat)
        pn, pr = _perft_rate(peer, args.depth, jit, args.repeat)
        e = _eval_rate(game, jit, args.positions, args.repeat)
        rates[jit] = (r, e)
        print(f"{path:9s} perft {n:>10,d} leaves {r:>12,.0f}/s | connectx {pn:>10,d} leaves {pr:>12,.0f}/s "
              f"| ratio {r / pr:.2f} | lines heuristic {e:>10,.0f} evals/s")
    if len(jits) == 2:
        print(f"compiled / plain: perft {rates[True][0] / rates[False][0]:.1f}x, heuristic {rates[True][1] / rates[False][1]:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
