"""Games per second of the direct loop (util.arena.game) against kaggle-environments, same agents.

Both loops play our seeded RandomAgent against itself (kaggle-environments through the same
adapter tournaments use), so the ratio measures the loops, not the agents; kaggle's own
``random`` built-in is timed too, as a second reference. Each loop runs for ``--seconds``, in
``--rounds`` alternating rounds, and the median rate is reported. Issue 5 asks for a ratio of
at least 20.

    python -m bench.loop_speed [--seconds 2] [--rounds 3]
"""
from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from agents.connectx.random_agent import RandomAgent
from base.cli import OneLineParser
from core.connectx.shape import STANDARD
from util.arena.game import play_game
from util.arena.players import AgentPlayer


def rate(play_one: Callable[[int], object], seconds: float) -> float:
    """Games per second of ``play_one(i)`` over about ``seconds``."""
    start = time.perf_counter()
    games = 0
    while time.perf_counter() - start < seconds:
        play_one(games)
        games += 1
    return games / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.loop_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per loop and round (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the median is reported (default 3)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        print("error: --seconds must be positive and --rounds at least 1", file=sys.stderr)
        return 2
    from kaggle_environments import make

    env = make("connectx", configuration={"actTimeout": 2}, debug=False)

    def direct(i: int) -> None:
        play_game(RandomAgent(seed=i), RandomAgent(seed=i + 1), STANDARD, 2.0)

    def kaggle_same(i: int) -> None:
        a, b = AgentPlayer(RandomAgent(seed=i), 2.0), AgentPlayer(RandomAgent(seed=i + 1), 2.0)
        env.run([a.kaggle_agent, b.kaggle_agent])

    def kaggle_builtin(i: int) -> None:
        env.run(["random", "random"])

    loops = {"direct loop, RandomAgent": direct, "kaggle-environments, RandomAgent": kaggle_same,
             "kaggle-environments, built-in random": kaggle_builtin}
    rates: dict[str, list[float]] = {name: [] for name in loops}
    for _ in range(args.rounds):
        for name, fn in loops.items():
            rates[name].append(rate(fn, args.seconds))
    medians = {name: statistics.median(r) for name, r in rates.items()}
    for name, value in medians.items():
        print(f"{name:<40} {value:9.1f} games/s")
    base = medians["direct loop, RandomAgent"]
    ratio = base / medians["kaggle-environments, RandomAgent"]
    print(f"ratio direct / kaggle-environments (same agents): {ratio:.1f}x (target >= 20)")
    print(f"ratio direct / kaggle built-in random:            {base / medians['kaggle-environments, built-in random']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
