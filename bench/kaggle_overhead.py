"""How much time Kaggle's clock sees that the agent's search does not: the basis of
``base.clock.ClockPolicy.margin``.

Three layers, measured in one run with the same games:
- kaggle wrapper: kaggle-environments' logged ``duration`` of a move minus the time spent
  inside our ``agent(observation, configuration)`` function (argument handling, stdout/stderr
  capture);
- adapter: time inside our function minus the time inside the agent's ``choose`` (reading the
  observation, building the Position, checks);
- ``make("connectx")``: what Kaggle's agent server (``kaggle_environments.main.action_act``)
  does for every move before its timer starts, an upper bound for work outside our control.

Prints medians, 99th percentiles and maxima in milliseconds, and the margin's ratio to the
worst total. Usage: ``python -m bench.kaggle_overhead [--games 10]``.
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.connectx.kaggle import KaggleAdapter, fallback_column  # noqa: E402
from base.cli import OneLineParser
from base.clock import ClockPolicy  # noqa: E402


class _Timed:
    """A quick agent (the fast rule) that records how long each choose took."""

    def __init__(self, sink: list[float]) -> None:
        self.sink = sink

    def choose(self, position, deadline):
        t = time.perf_counter()
        col = fallback_column(position)
        self.sink.append(time.perf_counter() - t)
        return col


def _stats(xs: list[float]) -> str:
    xs = sorted(xs)
    p99 = xs[min(len(xs) - 1, int(0.99 * len(xs)))]
    return f"median {statistics.median(xs) * 1000:7.3f}  p99 {p99 * 1000:7.3f}  max {xs[-1] * 1000:7.3f} ms  (n={len(xs)})"


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.kaggle_overhead", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--games", type=int, default=10, help="games against kaggle's random agent (default 10)")
    args = parser.parse_args(argv)
    if args.games < 1:
        print("kaggle_overhead: error: --games must be at least 1", file=sys.stderr)
        return 2
    from kaggle_environments import make

    random.seed(1)
    inside_fn: list[float] = []
    inside_choose: list[float] = []
    kaggle_durations: list[float] = []
    for g in range(args.games):
        adapter = KaggleAdapter(lambda: _Timed(inside_choose), freeze_gc=False)

        def agent(observation, configuration):
            t = time.perf_counter()
            try:
                return adapter(observation, configuration)  # noqa: B023 (called within the iteration)
            finally:
                inside_fn.append(time.perf_counter() - t)

        env = make("connectx", debug=False)
        seat = g % 2
        env.run([agent, "random"] if seat == 0 else ["random", agent])
        kaggle_durations += [logs[seat]["duration"] for logs in env.logs if len(logs) > seat and "duration" in logs[seat]]
    n = min(len(kaggle_durations), len(inside_fn))
    wrapper = [max(0.0, kaggle_durations[i] - inside_fn[i]) for i in range(n)]
    adapter_cost = [inside_fn[i] - inside_choose[i] for i in range(n)]
    makes = []
    for _ in range(20):
        t = time.perf_counter()
        make("connectx", debug=False)
        makes.append(time.perf_counter() - t)
    margin = ClockPolicy().margin
    worst = max(wrapper) + max(adapter_cost)
    print(f"kaggle wrapper     {_stats(wrapper)}")
    print(f"adapter            {_stats(adapter_cost)}")
    print(f"agent (fast rule)  {_stats(inside_choose)}")
    print(f"make('connectx')   {_stats(makes)}  (agent server, outside the timer)")
    print(f"margin {margin * 1000:.0f} ms = {margin / worst:.0f} x the worst wrapper + adapter total ({worst * 1000:.2f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
