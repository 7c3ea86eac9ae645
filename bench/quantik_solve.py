"""Quantik solved by the engine's exact solver: the empty board (a loss for the side to move:
Quantik is a second-player win) and random positions by number of pieces on the board.

The table is emptied before each solve, outside the timing. The baseline, measured in the same
run, is the same solver with exact keys (``canonical=0``: no symmetry reduction); the ratio
printed is its time over the canonical keys' time on the same positions. Compile time (numba)
is reported apart. Goals (issue 13): empty board under 10 s, any position under 1 s.

    python -m bench.quantik_solve
    python -m bench.quantik_solve --pieces 1,2,3,4 --per-count 20 --no-baseline --classes 0

``--classes N`` solves one position of every class of positions with up to N pieces (the
hardest range: from 4 pieces on, solves take milliseconds).
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tqdm import tqdm  # noqa: E402

from agents.engine.solver import Solver  # noqa: E402
from base.cli import OneLineParser, positive_int  # noqa: E402
from core.game import State, play_line  # noqa: E402
from core.games import make_game  # noqa: E402


def random_positions(game, pieces: int, count: int, rng: random.Random) -> list[State]:
    """``count`` non-terminal positions with ``pieces`` pieces, from uniformly random play."""
    out: list[State] = []
    tries = 0
    while len(out) < count and tries < 1000 * count:
        tries += 1
        s = game.initial()
        for _ in range(pieces):
            acts = s.legal_actions()
            if not acts:
                break
            s = s.apply(rng.choice(acts))
        if s.is_terminal() or len(s.history) != pieces:
            continue
        out.append(s)
    return out


def classes_upto(game, pieces: int) -> dict[int, list[State]]:
    """One position of every class (canonical key) of non-terminal positions with 1..pieces pieces."""
    out: dict[int, list[State]] = {}
    level = [game.initial()]
    for n in range(1, pieces + 1):
        seen: dict[tuple, State] = {}
        for s in level:
            for a in s.legal_actions():
                t = s.apply(a)
                if not t.is_terminal():
                    seen.setdefault(t.key(), t)
        level = list(seen.values())
        out[n] = level
    return out


CPU: list[float] = []  # CPU seconds of every timed solve (a shared machine disturbs wall time less)


def timed_value(solver: Solver, state: State, limit: float) -> tuple[float | None, float, int]:
    solver.search.clear()
    c0, t0 = time.process_time(), time.perf_counter()
    v = solver.value(state, deadline=t0 + limit)
    CPU.append(time.process_time() - c0)
    return v, time.perf_counter() - t0, solver.nodes


def parse_counts(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--pieces {text!r}: write piece counts 0-15 separated by commas, e.g. 1,2,4,8") from None
    if not out or any(not 0 <= n <= 15 for n in out):
        raise ValueError(f"--pieces {text!r}: write piece counts 0-15 separated by commas, e.g. 1,2,4,8")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.quantik_solve", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pieces", default="1,2,3,4,5,6,8,10,12", help="piece counts of the random positions")
    ap.add_argument("--per-count", type=positive_int, default=10, help="random positions per piece count")
    ap.add_argument("--repeat", type=positive_int, default=3, help="empty-board solves (median reported)")
    ap.add_argument("--tt-bits", type=positive_int, default=22, help="about 2**N table slots")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds allowed per solve before giving up")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random positions")
    ap.add_argument("--no-baseline", action="store_true", help="skip the exact-key baseline")
    ap.add_argument("--classes", type=int, default=3, help="also solve every class of positions with up to N pieces (0: none)")
    args = ap.parse_args(argv)
    try:
        counts = parse_counts(args.pieces)
    except ValueError as exc:
        ap.error(str(exc))
    if args.tt_bits > 28:
        ap.error(f"--tt-bits {args.tt_bits} is too large (the table would not fit in memory); use 28 or less")

    variants = [("canonical", make_game("quantik"))]
    if not args.no_baseline:
        variants.append(("exact keys", make_game("quantik", canonical=0)))
    solvers = {}
    for name, game in variants:
        t0 = time.perf_counter()
        solvers[name] = Solver(game, tt_bits=args.tt_bits, jit=True)
        solvers[name].value(play_line(game, [0, 31, 1, 30, 34, 61]))  # compiles the kernel
        print(f"{name}: compile {time.perf_counter() - t0:.1f} s (compiled={solvers[name].jit})", flush=True)

    results: dict[str, dict] = {}
    try:
        for name, game in variants:
            times, value, nodes = [], None, 0
            for _ in tqdm(range(args.repeat), desc=f"empty board ({name})", file=sys.stderr, leave=False):
                value, dt, nodes = timed_value(solvers[name], game.initial(), args.limit)
                times.append(dt)
            verdict = {None: "not solved in time", -1.0: "loss for the side to move", 1.0: "win for the side to move"}[value]
            results[name] = {"empty": statistics.median(times)}
            print(f"empty board ({name}): {verdict}; median {statistics.median(times):.2f} s over {args.repeat}, "
                  f"{nodes:,} nodes", flush=True)
        if "exact keys" in results:
            print(f"  ratio exact keys / canonical: {results['exact keys']['empty'] / results['canonical']['empty']:.1f}x")

        rng = random.Random(args.seed)
        print(f"\n{'pieces':>6} {'n':>4} " + " ".join(f"{'median ' + n:>18} {'max ' + n:>16}" for n, _ in variants)
              + ("   ratio" if len(variants) > 1 else ""))
        worst = 0.0
        for pieces in counts:
            game = variants[0][1]
            positions = random_positions(game, pieces, args.per_count, rng)
            row = {}
            for name, g in variants:
                ts = []
                for s in tqdm(positions, desc=f"{pieces} pieces ({name})", file=sys.stderr, leave=False):
                    v, dt, _n = timed_value(solvers[name], g.new_state(s.words), args.limit)
                    ts.append(dt if v is not None else float("inf"))
                row[name] = ts
            worst = max(worst, max(row["canonical"], default=0.0))
            cells = " ".join(f"{statistics.median(ts) * 1e3:>15.1f} ms {max(ts) * 1e3:>13.1f} ms" for ts in row.values())
            ratio = ""
            if len(row) > 1:
                ratio = f"   {sum(row['exact keys']) / max(1e-9, sum(row['canonical'])):.1f}x"
            print(f"{pieces:>6} {len(positions):>4} {cells}{ratio}", flush=True)
        if args.classes > 0:
            print(f"\nevery class (canonical key) of positions with 1-{args.classes} pieces, canonical keys:")
            for pieces, states in classes_upto(variants[0][1], args.classes).items():
                ts, hardest = [], ""
                CPU.clear()
                for s in tqdm(states, desc=f"classes, {pieces} pieces", file=sys.stderr, leave=False):
                    v, dt, _n = timed_value(solvers["canonical"], s, args.limit)
                    ts.append(dt if v is not None else float("inf"))
                    if ts[-1] >= max(ts):
                        hardest = " ".join(s.action_to_string(a) for a in s.history)
                worst = max(worst, max(ts))
                print(f"{pieces:>6} {len(ts):>4} classes: median {statistics.median(ts) * 1e3:.1f} ms, "
                      f"max {max(ts) * 1e3:.1f} ms ({hardest}); max CPU {max(CPU) * 1e3:.1f} ms", flush=True)
        print(f"\nslowest position (canonical keys): {worst:.3f} s; goal under 1 s: {'met' if worst < 1 else 'NOT met'}")
        print(f"empty board (canonical keys): {results['canonical']['empty']:.2f} s; goal under 10 s: "
              f"{'met' if results['canonical']['empty'] < 10 else 'NOT met'}")
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
