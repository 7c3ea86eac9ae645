"""RulesAgent against RandomAgent: seeded games, seats alternating; prints W/D/L and the win rate.

The issue asks for at least 95% wins over 200 games (``--games 200 --seed 0``). Game ``i`` uses
seeds ``seed + i`` (rules) and ``seed + 100000 + i`` (random), and rules moves first in even
games, so every run of the same arguments plays the same games.
"""
from __future__ import annotations

import statistics
import time

from agents.connectx.random_agent import RandomAgent
from agents.connectx.rules import RulesAgent
from base.cli import OneLineParser, positive_int
from core.connectx.cli import shape_type
from core.connectx.position import Position
from core.connectx.shape import Shape
from util.arena.game import play_game

TARGET = 0.95


def run(games: int, seed: int, shape: Shape = Shape(), jit: bool = True, times: list[float] | None = None) -> tuple[int, int, int]:  # noqa: B008 (an immutable value)
    """Play ``games`` games; return (wins, draws, losses) of rules. Move times of the rules
    agent are appended to ``times`` when given. Numba compiles before the first game, so the
    first move is not charged for it."""
    if jit:  # warm up: compile the kernels once, outside any game's clock
        RulesAgent(seed=0).choose_position(Position.empty(shape), 0.0)
    wins = draws = losses = 0
    for i in range(games):
        rules, rand = RulesAgent(seed=seed + i, jit=jit), RandomAgent(seed=seed + 100000 + i)
        rules_first = i % 2 == 0
        result = play_game(rules, rand, shape) if rules_first else play_game(rand, rules, shape)
        mark = 1 if rules_first else 2
        if result.errors:
            raise RuntimeError(f"game {i}: {result.termination}: {result.errors}")
        if times is not None:
            times.extend(result.move_times[mark - 1::2])
        if result.winner == mark:
            wins += 1
        elif result.winner == 0:
            draws += 1
        else:
            losses += 1
    return wins, draws, losses


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.rules_vs_random", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=positive_int, default=200, help="number of games (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--shape", type=shape_type, default=Shape(), help="ROWSxCOLUMNSxINAROW (default 6x7x4)")
    parser.add_argument("--no-jit", action="store_true", help="plain-Python kernels instead of numba")
    args = parser.parse_args(argv)
    times: list[float] = []
    start = time.perf_counter()
    wins, draws, losses = run(args.games, args.seed, args.shape, not args.no_jit, times)
    elapsed = time.perf_counter() - start
    rate = wins / args.games
    print(f"rules vs random on {args.shape}, {args.games} games, seed {args.seed}, seats alternating")
    print(f"wins {wins}  draws {draws}  losses {losses}  win rate {rate:.1%}  (target >= {TARGET:.0%})")
    if times:
        print(f"rules move time: median {statistics.median(times) * 1e3:.3f} ms, max {max(times) * 1e3:.3f} ms;"
              f" total {elapsed:.1f} s")
    return 0 if rate >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
