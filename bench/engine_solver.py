"""Time of the engine's exact solver (:mod:`agents.engine.solver`) on positions of any game.

    python -m bench.engine_solver --game quantik                      # the empty board
    python -m bench.engine_solver --game quantik:canonical=0  # exact keys, for the ratio
    python -m bench.engine_solver --game connect4_count:rows=4,columns=5 --moves "" --moves "3"

Prints, for each position, the value for the side to move, the nodes, the null-window probes,
the seconds (median of ``--repeat`` solves, each from an empty table; the compile is done
before the clock starts) and the nodes per second.
"""
from __future__ import annotations

import statistics
import sys
import time

from base.cli import OneLineParser, positive_int


def main(argv: list[str] | None = None) -> int:
    from agents.engine.solver import SolveError, Solver
    from bench.figures import emit
    from core.game import parse_line
    from core.games import add_game_arguments, game_from_args

    parser = OneLineParser(prog="python -m bench.engine_solver", description=__doc__.split("\n\n")[0])
    add_game_arguments(parser, default=None)
    parser.add_argument("--moves", action="append", default=None, help="a position as a move list (repeatable; default: initial)")
    parser.add_argument("--tt-bits", type=positive_int, default=22, help="table of about 2**N entries (default 22)")
    parser.add_argument("--max-plies", type=positive_int, default=256, help="longest line followed (default 256)")
    parser.add_argument("--repeat", type=positive_int, default=3, help="solves per position, median (default 3)")
    parser.add_argument("--no-jit", action="store_true", help="plain Python kernels")
    args = parser.parse_args(argv)
    game = game_from_args(parser, args)
    try:
        states = [parse_line(game, m) for m in (args.moves or [""])]
        solver = Solver(game, tt_bits=args.tt_bits, jit=False if args.no_jit else None, max_plies=args.max_plies)
    except ValueError as exc:
        parser.error(str(exc))
    if solver.jit:
        t0 = time.perf_counter()
        for s in states:
            if not s.is_terminal() and not s.is_chance_node():
                solver.value(s, node_limit=1)  # compiles the kernel (the result is not used)
        print(f"# compile {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"# {game.spec()}; {'compiled' if solver.jit else 'plain'}; tt 2^{args.tt_bits}; medians of {args.repeat}")
    print(f"{'position':<24} {'value':>6} {'nodes':>12} {'probes':>6} {'seconds':>9} {'nodes/s':>11}")
    figures = {}
    for text, s in zip(args.moves or [""], states):
        times, value = [], None
        try:
            for _ in range(args.repeat):
                solver.search.clear()
                t0 = time.perf_counter()
                value = solver.value(s)
                times.append(time.perf_counter() - t0)
        except SolveError as exc:
            print(f"{text or '(initial)'}: {exc}", file=sys.stderr)
            return 2
        t = statistics.median(times)
        print(f"{text or '(initial)':<24} {value:>6g} {solver.nodes:>12,} {solver.probes:>6} {t:>9.3f} "
              f"{solver.nodes / max(t, 1e-9):>11,.0f}", flush=True)
        label = text.replace(" ", "_") or "initial"
        figures[f"{label}_seconds"] = t
        figures[f"{label}_nodes_per_s"] = solver.nodes / max(t, 1e-9)
    emit(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
