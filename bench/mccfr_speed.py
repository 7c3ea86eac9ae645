"""MCCFR speed: iterations a second of external- and outcome-sampling MCCFR
(:mod:`agents.engine.mccfr`) on Kuhn poker and Leduc hold'em, in one run: the compiled kernels,
the same kernels plain (``jit=False``), and the plain-Python solver they replaced (the file
``agents/engine/mccfr.py`` of ``--baseline``, read with ``git show`` and loaded beside this one;
it needs only the game tree, which has not changed).

Each figure: the median over ``--rounds`` rounds of iterations / wall seconds, a round running
solvers of each kind in turn for about ``--seconds`` each (the compile is done before timing),
so that load on the machine hits them alike; ``speed-up`` is compiled over the old solver.

    python -m bench.mccfr_speed [--seconds 1] [--rounds 3] [--baseline b4b651e]
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
import types
from functools import partial
from pathlib import Path
from typing import Any

from base.cli import OneLineParser, positive_int
from base.jit import numba_available
from bench.figures import emit

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "b4b651e"  # main before the kernels: mccfr.py in plain Python (recursive walks, random.Random)
METHODS = ("external", "outcome")


def old_module(rev: str) -> types.ModuleType:
    """``agents/engine/mccfr.py`` as it was at ``rev``, loaded under a name of its own."""
    out = subprocess.run(["git", "show", f"{rev}:agents/engine/mccfr.py"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise ValueError(f"no agents/engine/mccfr.py at revision {rev!r}")
    module = types.ModuleType("mccfr_at_" + rev)
    exec(compile(out.stdout, f"{rev}:agents/engine/mccfr.py", "exec"), module.__dict__)  # noqa: S102
    return module


def rate(make: Any, seconds: float) -> float:
    """Iterations a second of a fresh solver from ``make()``, run in growing chunks for ``seconds``."""
    solver, chunk, spent = make(), 1, 0.0
    while spent < seconds:
        start = time.perf_counter()
        solver.run(chunk)
        spent += time.perf_counter() - start
        chunk *= 2
    return solver.iterations / spent


def main(argv: list[str] | None = None) -> int:
    from agents.engine import mccfr
    from agents.engine.game_tree import GameTree
    from core.games import make_game

    parser = OneLineParser(prog="python -m bench.mccfr_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds a solver runs a round (default 1)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds (default 3)")
    parser.add_argument("--baseline", default=BASELINE, help=f"revision of the old plain solver (default {BASELINE})")
    args = parser.parse_args(argv)
    if not numba_available():
        print("mccfr_speed: numba is not importable (nothing compiled to measure)", file=sys.stderr)
        return 2
    try:
        old = old_module(args.baseline)
    except ValueError as exc:
        print(f"mccfr_speed: {exc}", file=sys.stderr)
        return 2
    classes = {"external": "ExternalSamplingMCCFR", "outcome": "OutcomeSamplingMCCFR"}
    figures: dict[str, float] = {}
    print("game method old_plain_its/s plain_its/s compiled_its/s speed-up")
    for name in ("kuhn_poker", "leduc_poker"):
        tree = GameTree.build(make_game(name))
        for method in METHODS:
            new, before = getattr(mccfr, classes[method]), getattr(old, classes[method])
            new(tree, jit=True).run(1)  # the compile (or the cache's load), not timed
            kinds = {"old": partial(before, tree, 0), "plain": partial(new, tree, 0, jit=False),
                     "compiled": partial(new, tree, 0, jit=True)}
            runs: dict[str, list[float]] = {k: [] for k in kinds}
            for _ in range(args.rounds):
                for kind, make in kinds.items():
                    runs[kind].append(rate(make, args.seconds))
            med = {k: statistics.median(v) for k, v in runs.items()}
            up = med["compiled"] / med["old"]
            print(f"{name} {method} {med['old']:.0f} {med['plain']:.0f} {med['compiled']:.0f} {up:.1f}x", flush=True)
            for kind, v in med.items():
                figures[f"{name} {method} {kind} its/s"] = v
            figures[f"{name} {method} speed-up"] = up
    emit(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
