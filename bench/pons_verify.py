"""Solve every position of a Pons set and check the exact score, resumably.

    python -m bench.pons_verify --set L1_R3 --workers 2            # hours: resumable, see below
    python -m bench.pons_verify --set L1_R3 --report               # what the log holds so far

The hard set (L1_R3: 65.9 M nodes a position on average, about 10 s each here) takes hours,
more than one sitting or CI allows. Each solved position is appended to ``--log`` (one line:
``<moves> <expected> <got> <nodes> <seconds>``) as soon as it is solved; rerunning the command
skips the positions already logged, so an interrupted run loses at most the positions in flight.
The default log lives in the repo (``bench/logs/``) and is committed: a session on a fresh
machine resumes where the last one stopped.
``--time-limit`` stops starting new positions after that many seconds. The summary counts the
positions checked, the mismatches (listed), mean nodes and positions per second of solver time.
Exit code 1 if any score differs, else 0.
"""
from __future__ import annotations

import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from base.cli import OneLineParser, check_writable, positive_int  # noqa: E402
from core.connectx.pons_data import PONS  # noqa: E402

SETS = ("L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3")
_SOLVER = None  # one solver per worker process (its table is reused across positions)


def _solve(moves: str, tt_size: int) -> tuple[str, int, int, float]:
    global _SOLVER
    from agents.connectx.solver import Solver
    from core.connectx.position import Position

    if _SOLVER is None:
        _SOLVER = Solver(tt_size=tt_size)
        _SOLVER.warm_up()  # numba's compile stays out of the timings
    t = time.perf_counter()
    score = _SOLVER.solve(Position.from_moves(moves))
    if score is None:  # never: the solver runs with no limit
        raise RuntimeError(f"{moves}: no score")
    return moves, int(score), int(_SOLVER.nodes), time.perf_counter() - t


def read_log(path: Path) -> dict[str, tuple[int, int, int, float]]:
    """moves -> (expected, got, nodes, seconds) of the positions already checked."""
    done = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 5:
                done[parts[0]] = (int(parts[1]), int(parts[2]), int(parts[3]), float(parts[4]))
    return done


def summary(name: str, total: int, done: dict) -> tuple[str, int]:
    wrong = [(m, e, g) for m, (e, g, _, _) in done.items() if e != g]
    nodes = sum(v[2] for v in done.values())
    seconds = sum(v[3] for v in done.values())
    n = max(1, len(done))
    text = (f"{name}: {len(done)} / {total} positions checked, {len(wrong)} wrong; mean nodes {nodes / n:,.0f}, "
            f"mean solve {seconds / n:.2f} s, {nodes / max(seconds, 1e-9) / 1e6:.2f} M positions/s of solver time")
    for m, e, g in wrong[:20]:
        text += f"\n  WRONG {m}: expected {e}, got {g}"
    return text, len(wrong)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.pons_verify", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--set", required=True, choices=SETS, help="which Pons set")
    parser.add_argument("--log", type=Path, default=None, help="results log (default bench/logs/pons_<set>.log)")
    parser.add_argument("--workers", type=positive_int, default=1, help="solver processes (default 1)")
    parser.add_argument("--time-limit", type=float, default=0.0, help="start no new position after this many seconds (0: none)")
    parser.add_argument("--tt-size", type=positive_int, default=1 << 24, help="solver table slots per worker (default 2^24)")
    parser.add_argument("--report", action="store_true", help="only summarise the log")
    args = parser.parse_args(argv)
    source = PONS / f"Test_{args.set}"
    if not source.is_file():
        parser.error(f"no Pons file {source}; set CONNECTX_PONS_DIR to the folder holding Test_{args.set}")
    log = args.log or Path(__file__).resolve().parent / "logs" / f"pons_{args.set}.log"
    check_writable(parser, "--log", log)
    positions = [line.split() for line in source.read_text().splitlines() if line.strip()]
    expected = {m: int(s) for m, s in positions}
    done = read_log(log)
    todo = [m for m, _ in positions if m not in done]
    if not args.report and todo:
        log.parent.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        print(f"{args.set}: {len(done)} already checked, {len(todo)} to solve with {args.workers} worker(s)", flush=True)
        with ProcessPoolExecutor(args.workers) as pool, open(log, "a") as out:
            pending: set[Future] = set()
            queue = iter(todo)
            try:
                while True:
                    while len(pending) < args.workers and not (args.time_limit and time.perf_counter() - start > args.time_limit):
                        moves = next(queue, None)
                        if moves is None:
                            break
                        pending.add(pool.submit(_solve, moves, args.tt_size))
                    if not pending:
                        break
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        moves, got, nodes, seconds = fut.result()
                        out.write(f"{moves} {expected[moves]} {got} {nodes} {seconds:.3f}\n")
                        out.flush()  # a crash loses at most the positions in flight
                        done[moves] = (expected[moves], got, nodes, seconds)
                        if got != expected[moves]:
                            print(f"  WRONG {moves}: expected {expected[moves]}, got {got}", flush=True)
            except KeyboardInterrupt:
                print("interrupted: rerun the same command to resume", file=sys.stderr)
                return 130
    text, wrong = summary(args.set, len(positions), done)
    print(text)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
