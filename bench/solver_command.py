"""What Ctrl-C costs: the solver command's search (``python -m agents.connectx.solver``: a long call runs
in a thread watched every 0.2 s) against ``Solver().solve`` (one call in this thread, as the
agents solve), on the same positions in one run.

Each position is solved by both, one after the other, each solver keeping its table between
positions as the command does; the order of the two alternates, so a load that changes during
the run weighs on both alike. Per set: positions, wrong answers (must be 0), median wall time
of each, and the ratios command / solver of the total nodes, wall time and CPU time (this
process's, every thread). A ratio above 1.05 is flagged; the exit code is 1 when the nodes
ratio of a set exceeds it or an answer is wrong (times are the machine's business).

    python -m bench.solver_command                  # a sample of each set, a few minutes
    python -m bench.solver_command --all            # every position (hours: L1_R3)
    python -m bench.solver_command --long 167257    # also time this slow position both ways

Sets: Pons' six (data/pons) and random positions of 6 to 12 plies (seeded, not yet won).
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.connectx.solver import DEFAULT_TT_SIZE, SLICE_SECONDS, Solver  # noqa: E402
from base.cli import OneLineParser, raise_if_signalled, stop_on_signals  # noqa: E402
from bench.figures import emit  # noqa: E402
from core.connectx.pons_data import pons_lines  # noqa: E402
from core.connectx.position import Position  # noqa: E402

PONS_SETS = ("L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3")
SAMPLE = {"L3_R1": 300, "L2_R1": 300, "L2_R2": 100, "L1_R1": 300, "L1_R2": 30, "L1_R3": 3, "random": 40}
"""Positions per set in the default run (a few minutes on a loaded 2-core machine)."""
RANDOM_POSITIONS = 300
BOUND = 1.05  # the cost Ctrl-C may add


def random_positions(count: int, seed: int) -> list[tuple[str, int | None]]:
    """``count`` distinct positions of 6 to 12 random plies in which nobody has won, seeded."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < count:
        plies = rng.randint(6, 12)
        pos, moves = Position.empty(), ""
        while pos.ply < plies:
            safe = [c for c in pos.legal_columns() if not pos.is_winning_move(c)]
            if not safe:
                break
            col = rng.choice(safe)
            pos, moves = pos.play(col), moves + str(col + 1)
        if pos.ply == plies:
            out[moves] = None
    return [(m, None) for m in out]


def sample(cases: list, n: int | None, seed: int) -> list:
    """``n`` cases spread over the whole list (Pons' sets are not in order of difficulty, but a
    spread sample keeps any order out of it), or all."""
    if n is None or n >= len(cases):
        return cases
    return sorted(random.Random(seed).sample(cases, n), key=cases.index)


def run_set(name: str, cases: list, command: Solver, solver: Solver) -> dict:
    rows = []
    wrong = 0
    for i, (moves, expected) in enumerate(cases):
        pos = Position.from_moves(moves)
        got = {}
        for who in ((command, solver) if i % 2 == 0 else (solver, command)):
            c0, t0 = time.process_time(), time.perf_counter()
            score = who.solve(pos)
            got[who is command] = (score, who.nodes, time.perf_counter() - t0, time.process_time() - c0)
        (sc, nc, tc, cc), (ss, ns, ts, cs) = got[True], got[False]
        wrong += sc != ss or (expected is not None and sc != expected)
        rows.append((nc, tc, cc, ns, ts, cs))
    cols = list(zip(*rows))
    total = [sum(c) for c in cols]
    return {"set": name, "n": len(rows), "wrong": wrong,
            "median_command_s": statistics.median(cols[1]), "median_solver_s": statistics.median(cols[4]),
            "nodes_ratio": total[0] / max(total[3], 1), "time_ratio": total[1] / max(total[4], 1e-9),
            "cpu_ratio": total[2] / max(total[5], 1e-9), "total_solver_s": total[4]}


def show(r: dict) -> None:
    over = [k.split("_")[0] for k in ("nodes_ratio", "time_ratio", "cpu_ratio") if r[k] > BOUND]
    note = f"   over {BOUND}: {', '.join(over)}" if over else ""
    print(f"{r['set']:8} {r['n']:5d} {r['wrong']:5d} {r['median_command_s'] * 1e3:11.3f} {r['median_solver_s'] * 1e3:11.3f} "
          f"{r['total_solver_s']:9.2f} {r['nodes_ratio']:8.4f} {r['time_ratio']:8.4f} {r['cpu_ratio']:8.4f}{note}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.solver_command", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--all", action="store_true", help="every position of every set (hours), not a sample")
    parser.add_argument("--sets", default=",".join(PONS_SETS + ("random",)),
                        help="comma-separated sets among " + ", ".join(PONS_SETS + ("random",)) + " (default all)")
    parser.add_argument("--random", type=int, default=RANDOM_POSITIONS, help=f"random positions generated (default {RANDOM_POSITIONS})")
    parser.add_argument("--long", default="", help="comma-separated move strings to time both ways as well (e.g. 167257)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the random positions and the samples (default 0)")
    parser.add_argument("--tt-size", type=int, default=DEFAULT_TT_SIZE, help="table slots (default the command's, 2^23)")
    args = parser.parse_args(argv)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    bad = [s for s in sets if s not in PONS_SETS + ("random",)]
    if bad or args.random < 1 or args.tt_size < 1:
        parser.error(f"unknown set {bad[0]!r}" if bad else "--random and --tt-size must be at least 1")
    longs = [m.strip() for m in args.long.split(",") if m.strip()]
    for moves in longs:
        try:
            Position.from_moves(moves)
        except ValueError as exc:
            parser.error(f"--long {moves}: {exc}")
    command = Solver(tt_size=args.tt_size, slice_seconds=SLICE_SECONDS, on_slice=lambda nodes: raise_if_signalled())
    solver = Solver(tt_size=args.tt_size)
    print(f"compiled: {solver.jit}; warm-up (compile) {solver.warm_up():.1f} s; table {solver.search.size:,} slots each")
    print(f"{'set':8} {'n':>5} {'wrong':>5} {'cmd med ms':>11} {'slv med ms':>11} {'slv tot s':>9} {'nodes x':>8} {'time x':>8} {'cpu x':>8}")
    figures, failed = {}, 0
    with stop_on_signals():
        try:
            for name in sets:
                cases = random_positions(args.random, args.seed) if name == "random" else pons_lines(name)
                r = run_set(name, sample(cases, None if args.all else SAMPLE[name], args.seed), command, solver)
                show(r)
                failed += r["wrong"] + (r["nodes_ratio"] > BOUND)
                figures.update({f"{name}_nodes_ratio": r["nodes_ratio"], f"{name}_time_ratio": r["time_ratio"]})
            for moves in longs:
                r = run_set(moves, [(moves, None)], command, solver)
                print(f"{moves}: command {r['median_command_s']:.1f} s, Solver().solve {r['median_solver_s']:.1f} s, "
                      f"nodes x{r['nodes_ratio']:.6f}, time x{r['time_ratio']:.3f}, cpu x{r['cpu_ratio']:.3f}", flush=True)
        except KeyboardInterrupt:
            print("interrupted: the sets above are complete", file=sys.stderr)
            return 130
    emit(figures)
    if failed:
        print(f"solver_command: {failed} set(s) with a wrong answer or a nodes ratio over {BOUND}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
