"""Nodes and time of plain minimax against alpha-beta (with and without its table) at depths
1..N from one position of any game: how much pruning saves.

    python -m bench.minimax_vs_alphabeta --game connect4_count:rows=4,columns=5 --depth 8
    python -m bench.minimax_vs_alphabeta --game tictactoe --depth 9 --moves "b2"

All three run the one kernel of :mod:`agents.engine.negamax` (minimax is its no-pruning flag),
so the figures compare algorithms, not implementations; times are medians of ``--repeat`` runs,
each from an empty table. The values must agree (checked on every line).
"""
from __future__ import annotations

import statistics
import sys
import time

from base.cli import OneLineParser, positive_int


def timed(search, state, depth: int, repeat: int) -> tuple[float, int, float]:
    results, times = [], []
    for _ in range(repeat):
        search.clear()
        t0 = time.perf_counter()
        results.append(search.run(state, depth))
        times.append(time.perf_counter() - t0)
    return results[-1].value, results[-1].nodes, statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    from agents.engine.negamax import Search
    from core.game import parse_line
    from core.games import add_game_arguments, game_from_args

    parser = OneLineParser(prog="python -m bench.minimax_vs_alphabeta", description=__doc__.split("\n\n")[0])
    add_game_arguments(parser, default=None)
    parser.add_argument("--moves", default="", help="start from this move list (game notation; default: initial)")
    parser.add_argument("--depth", type=positive_int, default=6, help="deepest depth (default 6)")
    parser.add_argument("--heuristic", default="none", help="leaf heuristic of the game (default none)")
    parser.add_argument("--repeat", type=positive_int, default=3, help="runs per figure, median (default 3)")
    parser.add_argument("--no-jit", action="store_true", help="plain Python kernels")
    args = parser.parse_args(argv)
    game = game_from_args(parser, args)
    try:
        state = parse_line(game, args.moves)
        jit = False if args.no_jit else None
        mm = Search(game, args.heuristic, jit=jit, prune=False, use_tt=False, ply_cap=args.depth)
        ab = Search(game, args.heuristic, jit=jit, pvs=False, use_tt=False, ply_cap=args.depth)
        tt = Search(game, args.heuristic, jit=jit, pvs=True, use_tt=True, ply_cap=args.depth, tt_bits=20)
    except ValueError as exc:
        parser.error(str(exc))
    if state.is_terminal() or state.is_chance_node():
        parser.error("the position is over or a chance node: give a position where a player moves")
    if mm.jit:
        Search(game, args.heuristic, jit=True, tt_bits=4, ply_cap=1).run(state, 1)  # compile outside the timings
    print(f"# {game.spec()} from {args.moves or '(initial)'}; {'compiled' if mm.jit else 'plain'}; "
          f"medians of {args.repeat}")
    print(f"{'depth':>5} {'minimax nodes':>14} {'ms':>9} {'alphabeta nodes':>16} {'ms':>9} {'ratio':>7} "
          f"{'ab+tt+pvs nodes':>16} {'ms':>9} {'ratio':>7}")
    for depth in range(1, args.depth + 1):
        v1, n1, t1 = timed(mm, state, depth, args.repeat)
        v2, n2, t2 = timed(ab, state, depth, args.repeat)
        v3, n3, t3 = timed(tt, state, depth, args.repeat)
        if not v1 == v2 == v3:
            print(f"depth {depth}: values differ ({v1}, {v2}, {v3}): search bug", file=sys.stderr)
            return 1
        print(f"{depth:>5} {n1:>14,} {t1 * 1e3:>9.2f} {n2:>16,} {t2 * 1e3:>9.2f} {n1 / n2:>7.1f} "
              f"{n3:>16,} {t3 * 1e3:>9.2f} {n1 / n3:>7.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
