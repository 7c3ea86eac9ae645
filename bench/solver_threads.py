"""The exact ConnectX solver on one thread against several (``Solver(threads=T)``: parallel null
windows over one shared table, :mod:`agents.engine.parallel`), compiled, in one run, interleaved.

For each of the first ``--positions`` positions of a Pons set: the value (checked against the
set's), each side's nodes and wall seconds (the median of ``--repeats`` solves, the table
emptied before each, outside the timing, as in Pons' protocol); then the medians over the
positions and the wall speedup (one thread's median seconds over T threads'). Two cores give
at most 2x; a busy machine gives less, so the load average is printed beside the figures.
T threads' nodes vary from run to run (which thread proves what first); the values do not.

    python -m bench.solver_threads [--set L1_R2] [--positions 6] [--threads 2] [--windows W] [--repeats 3]
"""
from __future__ import annotations

import os
import statistics
import sys
import time

from agents.connectx.solver import Solver
from base.cli import OneLineParser, positive_int
from bench.figures import emit
from core.connectx.pons_data import PONS, pons_lines
from core.connectx.position import Position


def timed(solver: Solver, position: Position) -> tuple[int | None, int, float]:
    """Value, nodes and wall seconds of one solve from an empty table."""
    solver.reset()
    t = time.perf_counter()
    value = solver.solve(position)
    return value, solver.nodes, time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.solver_threads", description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="L1_R2", help="Pons' set, e.g. L1_R2 (default)")
    parser.add_argument("--positions", type=positive_int, default=6, help="the set's first K positions (default 6)")
    parser.add_argument("--threads", type=positive_int, default=2, help="threads of the parallel side (default 2)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="solves per figure (median, default 3)")
    parser.add_argument("--windows", type=positive_int, default=None,
                        help="most distinct null windows in flight (default: one a thread)")
    parser.add_argument("--tt-bits", type=positive_int, default=23, help="table of 2**bits entries (default 23)")
    args = parser.parse_args(argv)
    if not (PONS / f"Test_{args.set}").is_file():
        parser.error(f"--set {args.set}: no file Test_{args.set} in {PONS}")
    if args.threads < 2:
        parser.error(f"--threads {args.threads}: give 2 or more (1 is the baseline side)")
    try:
        one, many = Solver(tt_size=1 << args.tt_bits), Solver(tt_size=1 << args.tt_bits, threads=args.threads)
    except ValueError as exc:
        parser.error(str(exc))
    if args.windows is not None:
        many.windows = args.windows
    one.warm_up()
    many.warm_up()
    cases = pons_lines(args.set)[:args.positions]
    t = args.threads
    print(f"load average at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"set {args.set}, {len(cases)} positions, table 2**{args.tt_bits}, shared={getattr(many, 'shared', False)}, windows={getattr(many, 'windows', t)}")
    print(f"{'#':>3} {'value':>5} {'1 thr nodes':>12} {'1 thr s':>8} {f'{t} thr nodes':>12} {f'{t} thr s':>8} {'speedup':>7}")
    rows = []
    for i, (moves, expected) in enumerate(cases):
        position = Position.from_moves(moves)
        a, b = [], []
        for _ in range(args.repeats):  # interleaved, so load changes hit both alike
            a.append(timed(one, position))
            b.append(timed(many, position))
        if any(v != expected for v, _, _ in a + b):
            print(f"wrong value on {moves}: {[v for v, _, _ in a + b]} (the set says {expected})", file=sys.stderr)
            return 1
        row = (statistics.median(n for _, n, _ in a), statistics.median(s for _, _, s in a),
               statistics.median(n for _, n, _ in b), statistics.median(s for _, _, s in b))
        rows.append(row)
        print(f"{i:3} {expected:5} {row[0]:12,.0f} {row[1]:8.3f} {row[2]:12,.0f} {row[3]:8.3f} {row[1] / row[3]:7.2f}")
    med = [statistics.median(r[j] for r in rows) for j in range(4)]
    total = [sum(r[j] for r in rows) for j in range(4)]
    print(f"{'med':>3} {'':5} {med[0]:12,.0f} {med[1]:8.3f} {med[2]:12,.0f} {med[3]:8.3f} {med[1] / med[3]:7.2f}")
    print(f"{'sum':>3} {'':5} {total[0]:12,.0f} {total[1]:8.3f} {total[2]:12,.0f} {total[3]:8.3f} {total[1] / total[3]:7.2f}")
    print(f"nodes {t} threads / 1: median {med[2] / med[0]:.2f}, total {total[2] / total[0]:.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    emit({"median_seconds_1": med[1], f"median_seconds_{t}": med[3], "wall_speedup_median": med[1] / med[3],
          "wall_speedup_total": total[1] / total[3], "nodes_ratio_total": total[2] / total[0]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
