"""Depth-first search speed: nodes per second (numba and pure Python) and the depth reached in
a fixed time, on the empty board and on midgame positions from Pons' sets.

Figures measured in this one run:
- ``numba nodes/s``: median over the midgame positions of nodes / seconds of a search of
  ``--time`` seconds each (compiled kernel, warmed up first);
- ``python nodes/s``: the same source as plain Python, on the first few positions with a
  shorter time (it is ~50x slower), median; the ratio numba / python is the figure that holds
  on a loaded machine;
- ``depth``: the deepest finished iteration in ``--time`` seconds on the empty board and on the
  midgame positions (median and minimum).

Midgame positions: every 20th line of ``Test_L2_R2`` (15-27 stones, "middle, medium"), from the
first. Example: ``python -m bench.dfs_speed --time 1 --positions 50``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from base.cli import OneLineParser
from base.jit import numba_enabled
from bench.figures import emit
from core.connectx.pons_data import PONS  # noqa: E402
from core.connectx.position import Position
from core.connectx.shape import STANDARD
from heuristics.connectx.params import HEURISTIC_IDS


def midgame_positions(count: int, pons_dir: Path = PONS) -> list[Position]:
    """``count`` positions: every 20th line of Pons' Test_L2_R2 (at most 50)."""
    lines = [ln.split()[0] for ln in (pons_dir / "Test_L2_R2").read_text().split("\n") if ln.strip()]
    return [Position.from_moves(m) for m in lines[::20][:count]]


def run(agent_cls, params: dict, positions: list[Position], seconds: float) -> list[tuple[float, int, bool, float]]:
    """(nodes per second, depth, proven, nodes per CPU second) of one search of ``seconds`` per
    position, one agent (its table allocated before the clock starts; entries of other
    positions stay valid). ``proven``: the search ended early with the exact value (its speed
    is then mostly Python overhead, so speed medians leave those out). Nodes per CPU second
    (``time.process_time``) hold better than wall time when other processes share the cores."""
    out = []
    agent = agent_cls(**params)
    for pos in positions:
        agent.kernel_search(pos.shape, numba_enabled(pos.shape.bits))
        c0, t0 = time.process_time(), time.perf_counter()
        agent.choose_position(pos, t0 + seconds)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        info = agent.info()
        out.append((info["nodes"] / elapsed, info["depth"], bool(info["exact"]), info["nodes"] / max(cpu, 1e-6)))
    return out


def speed(results: list[tuple[float, int, bool, float]], column: int = 0) -> float:
    """Median nodes/s (``column`` 0: wall clock, 3: CPU time) over the searches that ran to the
    deadline (all of them if none did)."""
    full = [r[column] for r in results if not r[2]] or [r[column] for r in results]
    return statistics.median(full)


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = OneLineParser(prog="python -m bench.dfs_speed", description=__doc__.split("\n")[0])
    ap.add_argument("--agent", default="negamax", choices=("negamax", "alphabeta"), help="search (default negamax)")
    ap.add_argument("--heuristic", default="liberties", help=f"one of {', '.join(HEURISTIC_IDS)} (default liberties)")
    ap.add_argument("--time", type=float, default=1.0, help="seconds per search (default 1)")
    ap.add_argument("--positions", type=int, default=50, help="midgame positions, 1-50 (default 50)")
    ap.add_argument("--python-positions", type=int, default=5, help="positions for the pure-Python figure (default 5)")
    ap.add_argument("--pons-dir", type=Path, default=PONS, help="folder with Pons' Test_L2_R2")
    args = ap.parse_args(argv)
    problems = []
    if args.heuristic not in HEURISTIC_IDS:
        problems.append(f"--heuristic {args.heuristic!r} is unknown; use one of {', '.join(HEURISTIC_IDS)}")
    if not 0.01 <= args.time <= 60:
        problems.append(f"--time {args.time} must be between 0.01 and 60 seconds")
    if not 1 <= args.positions <= 50:
        problems.append(f"--positions {args.positions} must be between 1 and 50")
    if not 0 <= args.python_positions <= args.positions:
        problems.append("--python-positions must be between 0 and --positions")
    if not (args.pons_dir / "Test_L2_R2").is_file():
        problems.append(f"{args.pons_dir / 'Test_L2_R2'} not found; pass --pons-dir")
    if problems:
        print(f"dfs_speed: {problems[0]}", file=sys.stderr)
        sys.exit(2)
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    from agents.connectx.alphabeta import AlphaBetaAgent, NegamaxAgent

    cls = NegamaxAgent if args.agent == "negamax" else AlphaBetaAgent
    params = {"heuristic": args.heuristic}
    positions = midgame_positions(args.positions, args.pons_dir)
    print(f"{args.agent} heuristic={args.heuristic}, {args.time:g} s per search, {len(positions)} midgame positions")
    results = {}
    if numba_enabled(STANDARD.bits):
        t0 = time.perf_counter()
        cls(heuristic=args.heuristic).warm_up(STANDARD)
        print(f"compile (warm-up): {time.perf_counter() - t0:.1f} s")
        empty = run(cls, params, [Position.empty()], args.time)[0]
        mid = run(cls, params, positions, args.time)
        results["numba"] = speed(mid)
        depths = sorted(r[1] for r in mid)
        proven = sum(r[2] for r in mid)
        print(f"numba  nodes/s: median {results['numba']:,.0f} (midgame), {empty[0]:,.0f} (empty board); "
              f"per CPU second {speed(mid, 3):,.0f} (midgame), {empty[3]:,.0f} (empty board)")
        print(f"depth in {args.time:g} s: empty board {empty[1]}; midgame median {statistics.median(depths):g}, "
              f"min {depths[0]}, max {depths[-1]}; {proven} of {len(mid)} midgame values proven exact")
    else:
        print("numba unavailable: compiled figures skipped")
    if args.python_positions:
        old = os.environ.get("CONNECTX_NUMBA")
        os.environ["CONNECTX_NUMBA"] = "0"
        try:
            slow_time = max(0.2, args.time / 2)
            py = run(cls, params, positions[: args.python_positions], slow_time)
        finally:
            if old is None:
                del os.environ["CONNECTX_NUMBA"]
            else:
                os.environ["CONNECTX_NUMBA"] = old
        results["python"] = speed(py)
        print(f"python nodes/s: median {results['python']:,.0f} ({len(py)} positions, {slow_time:g} s each), "
              f"per CPU second {speed(py, 3):,.0f}; depth median {statistics.median(r[1] for r in py):g}")
    if "numba" in results and "python" in results:
        print(f"ratio numba / python: {results['numba'] / results['python']:.1f}x")
    figures = {"python_nodes_per_s": results.get("python", float("nan"))}
    if "numba" in results:
        figures.update(numba_nodes_per_s=results["numba"], numba_nodes_per_cpu_s=speed(mid, 3),
                       empty_nodes_per_s=empty[0], depth_midgame_median=statistics.median(depths),
                       depth_empty=empty[1])
    emit(figures)


if __name__ == "__main__":
    main()
