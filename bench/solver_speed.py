"""Exact solver speed on Pons' test sets, next to the published figures of the reference C++
solver, and compiled (numba) against plain Python in one run.

For each set: positions solved, wrong answers (must be 0), mean and median time, mean nodes,
and positions (nodes) per second. The table is emptied before each position, outside the
timing, as in Pons' protocol. ``pos/s`` is nodes per wall-clock second; ``cpu pos/s`` per
second of this process's CPU time, which a busy shared machine disturbs less. The plain-Python path runs on a small sample of the same
positions; the ratio printed is its nodes/s against the compiled nodes/s on that same sample.

    python -m bench.solver_speed                       # the five fast/medium sets
    python -m bench.solver_speed --sets L1_R3 --limit 20
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.connectx.solver import Solver  # noqa: E402
from base.cli import OneLineParser
from bench.figures import emit
from core.connectx.pons_data import PONS  # noqa: E402
from core.connectx.position import Position  # noqa: E402

# Published mean time (s) and mean nodes of the reference C++ solver (design.md section 4).
PUBLISHED = {
    "L3_R1": (4.6e-6, 51),
    "L2_R1": (37e-6, 450),
    "L2_R2": (3.2e-3, 39_900),
    "L1_R1": (255e-6, 3_298),
    "L1_R2": (97e-3, 1_200_000),
    "L1_R3": (5.5, 65_900_000),
}
DEFAULT_SETS = "L3_R1,L2_R1,L2_R2,L1_R1,L1_R2"


def load(name: str, limit: int | None) -> list[tuple[Position, int]]:
    lines = [ln.split() for ln in (PONS / f"Test_{name}").read_text().split("\n") if ln.strip()]
    return [(Position.from_moves(m), int(s)) for m, s in lines[:limit]]


def run_set(solver: Solver, cases: list[tuple[Position, int]], weak: bool) -> dict:
    times, nodes, wrong, cpu = [], [], 0, 0.0
    for pos, expected in cases:
        solver.reset()
        c0, t0 = time.process_time(), time.perf_counter()
        score = solver.solve(pos, weak)
        times.append(time.perf_counter() - t0)
        cpu += time.process_time() - c0
        nodes.append(solver.nodes)
        want = (expected > 0) - (expected < 0) if weak else expected
        wrong += score != want
    total = sum(times)
    return {
        "n": len(cases),
        "wrong": wrong,
        "mean_s": total / len(cases),
        "median_s": statistics.median(times),
        "mean_nodes": sum(nodes) / len(cases),
        "nps": sum(nodes) / total if total else 0.0,
        "cpu_nps": sum(nodes) / cpu if cpu else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.solver_speed", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--sets", default=DEFAULT_SETS, help=f"comma-separated sets among {', '.join(PUBLISHED)} (default {DEFAULT_SETS})")
    parser.add_argument("--limit", type=int, default=None, help="positions per set (default: all 1000)")
    parser.add_argument("--plain-sample", type=int, default=20, help="positions per set for the plain-Python run (default 20; 0 skips it)")
    parser.add_argument("--plain-sets", default="L3_R1,L2_R1", help="sets for the plain-Python comparison (default L3_R1,L2_R1)")
    parser.add_argument("--weak", action="store_true", help="weak solving (win/draw/loss) instead of exact scores")
    parser.add_argument("--tt-size", type=int, default=1 << 23, help="table slots (default 2^23)")
    args = parser.parse_args(argv)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    plain_sets = [s.strip() for s in args.plain_sets.split(",") if s.strip()]
    for name in sets + plain_sets:
        if name not in PUBLISHED:
            print(f"solver_speed: error: unknown set {name!r}; choose among {', '.join(PUBLISHED)}", file=sys.stderr)
            return 2
    if (args.limit is not None and args.limit < 1) or args.plain_sample < 0 or args.tt_size < 1:
        print("solver_speed: error: --limit and --tt-size must be at least 1, --plain-sample at least 0", file=sys.stderr)
        return 2

    fast = Solver(tt_size=args.tt_size)
    mode = "numba" if fast.jit else "plain (numba unavailable)"
    t0 = time.perf_counter()
    fast.solve(load("L3_R1", 1)[0][0])
    print(f"solver: {mode}, table {fast.search.size:,} slots, {'weak' if args.weak else 'strong'}; first call (compile) {time.perf_counter() - t0:.1f} s")
    print(f"{'set':6} {'n':>5} {'wrong':>5} {'mean':>10} {'median':>10} {'nodes':>11} {'pos/s':>11} {'cpu pos/s':>11} | "
          f"{'pub mean':>9} {'pub nodes':>10} {'time x':>7}")
    failed = 0
    figures = {}
    for name in sets:
        r = run_set(fast, load(name, args.limit), args.weak)
        figures[f"{name}_pos_per_s"] = 1.0 / r["mean_s"]
        figures[f"{name}_nodes_per_s"] = r["nps"]
        failed += r["wrong"]
        pub_t, pub_n = PUBLISHED[name]
        print(
            f"{name:6} {r['n']:5d} {r['wrong']:5d} {r['mean_s'] * 1e3:8.3f}ms {r['median_s'] * 1e3:8.3f}ms {r['mean_nodes']:11,.0f} "
            f"{r['nps'] / 1e6:9.2f} M {r['cpu_nps'] / 1e6:9.2f} M | {pub_t * 1e3:7.3f}ms {pub_n:10,} {r['mean_s'] / pub_t:7.1f}",
            flush=True,
        )
    if args.plain_sample and fast.jit:
        plain = Solver(tt_size=1 << 20, use_numba=False)
        fast_small = Solver(tt_size=1 << 20)
        print(f"plain Python vs numba on the first {args.plain_sample} positions of {', '.join(plain_sets)}:")
        for name in plain_sets:
            cases = load(name, args.plain_sample)
            p, f = run_set(plain, cases, args.weak), run_set(fast_small, cases, args.weak)
            failed += p["wrong"] + f["wrong"]
            print(f"{name:6} plain {p['nps'] / 1e3:8.1f} K pos/s   numba {f['nps'] / 1e6:6.2f} M pos/s   numba/plain x{f['nps'] / max(p['nps'], 1e-9):6.0f}")
    emit(figures)
    if failed:
        print(f"solver_speed: {failed} wrong answers", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
