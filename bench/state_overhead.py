"""What choosing from a State costs a ConnectX agent over choosing from its Position.

Every agent chooses from a :class:`core.game.State`; ConnectX's build their
:class:`core.connectx.position.Position` from it (:class:`agents.connectx.base.PositionAgent`).
This times ``choose(state)`` against ``choose_position(position)`` (the baseline, the Kaggle
adapter's entry) for the cheapest agent (random: the conversion is most of the call), over
positions of a random game, and prints medians of microseconds per call and their ratio.
Run on a tree that still has ``agents/connectx/bridge.py`` it times the bridge's ``choose``
instead (the same measure of the former State path).

    python -m bench.state_overhead [--calls N] [--repeats R]
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any

from base.cli import OneLineParser, positive_int
from core.games import make_game


def _state_chooser(game: Any) -> tuple[Any, Any]:
    """(agent choosing from a State, the Position agent inside)."""
    from agents.connectx.random_agent import RandomAgent

    inner = RandomAgent(seed=1)
    try:
        from agents.connectx.bridge import ConnectXAgent  # type: ignore[import-not-found]  # a tree from before the State protocol
        return ConnectXAgent(game, inner, "random"), inner
    except ImportError:
        inner.game = game
        return inner, inner


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.state_overhead", description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=positive_int, default=20_000, help="calls per timing (default 20000)")
    parser.add_argument("--repeats", type=positive_int, default=7, help="timings per path; medians printed (default 7)")
    args = parser.parse_args(argv)
    game = make_game("connectx")
    by_state, inner = _state_chooser(game)
    position_of = getattr(inner, "choose_position", None) or inner.choose
    rng = random.Random(0)
    states = [game.initial()]
    while len(states) < 30 and not states[-1].is_terminal():
        states.append(states[-1].apply(rng.choice(states[-1].legal_actions())))
    states = [s for s in states if not s.is_terminal()]
    positions = [game.position(s) for s in states]  # type: ignore[attr-defined]
    n = args.calls
    state_us, position_us = [], []
    for _ in range(args.repeats):
        t = time.perf_counter()
        for i in range(n):
            by_state.choose(states[i % len(states)], 0.0)
        state_us.append((time.perf_counter() - t) / n * 1e6)
        t = time.perf_counter()
        for i in range(n):
            position_of(positions[i % len(positions)], 0.0)
        position_us.append((time.perf_counter() - t) / n * 1e6)
    s, p = statistics.median(state_us), statistics.median(position_us)
    path = type(by_state).__module__ + "." + type(by_state).__name__
    print(f"choose(state) via {path}: {s:.2f} us/call; choose on the Position (baseline): {p:.2f} us/call; "
          f"State path costs {s - p:.2f} us/call more ({s / p:.2f}x the baseline); medians of {args.repeats}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
