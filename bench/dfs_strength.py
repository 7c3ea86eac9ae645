"""Strength of the depth-first agents: against Kaggle's built-ins and between our configurations.

Two parts, both through the direct game loop (:func:`util.arena.game.play_game`, which forfeits an
agent that errs, plays an illegal column or overruns the hard time limit):
- ``--agent`` against each of ``--opponents`` (default ``kaggle:negamax,kaggle:random``):
  ``--games`` games each, seats alternating (even games: our agent moves first), game ``i``
  seeded with ``--seed + i`` (Kaggle's agents draw their random tie-breaks from it);
- ``--versus``: a round robin between our agent specs (e.g. one per heuristic), each pair
  playing every opening of :mod:`util.arena.openings` twice with seats swapped (deterministic agents
  would otherwise replay one game).

The baseline in the same run is Kaggle's ``negamax`` against ``random`` (``--baseline-games``),
which says how strong the reference opponent is on this machine today.

Example: ``python -m bench.dfs_strength --games 200 --time 0.5``
         ``python -m bench.dfs_strength --games 0 --versus "negamax:heuristic=bitsquares,negamax:heuristic=oddeven"``
"""
from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from dataclasses import dataclass, field

from agents.engine.spec import SpecError
from base.cli import OneLineParser
from core.connectx.openings import suite
from core.connectx.shape import STANDARD
from util.arena.game import play_game
from util.arena.players import build, resolve, split_specs


@dataclass
class Tally:
    """Results of one agent in a series, from its own side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: list[str] = field(default_factory=list)  # why our agent forfeited, if ever
    move_times: list[float] = field(default_factory=list)

    def add(self, result, mark: int) -> None:
        if result.winner == mark:
            self.wins += 1
        elif result.winner == 0:
            self.draws += 1
        else:
            self.losses += 1
        if mark in result.errors:
            self.forfeits.append(f"{result.termination}: {result.errors[mark]}")
        first_mover = 1 + (len(result.opening) & 1)  # mark of the first move an agent played
        own = 0 if first_mover == mark else 1
        self.move_times.extend(result.move_times[own::2])

    def line(self) -> str:
        n = self.wins + self.draws + self.losses
        times = self.move_times or [0.0]
        return (f"{self.wins}/{n} won, {self.draws} drawn, {self.losses} lost; forfeits {len(self.forfeits)}; "
                f"move time median {statistics.median(times):.3f} s, max {max(times):.3f} s")


def series(ours: str, theirs: str, games: int, seconds: float, seed: int, openings=None) -> Tally:
    """``games`` games of spec ``ours`` against ``theirs``; seats alternate."""
    spec_a, spec_b = resolve(ours), resolve(theirs)
    tally = Tally()
    for i in range(games):
        a = build(spec_a, STANDARD, seconds, seed + i)
        b = build(spec_b, STANDARD, seconds, seed + i)
        opening = openings[i // 2 % len(openings)] if openings else ()
        first, second, mark = (a, b, 1) if i % 2 == 0 else (b, a, 2)
        result = play_game(first, second, STANDARD, seconds, opening)
        tally.add(result, mark)
        for p in (a, b):
            p.close()
    return tally


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = OneLineParser(prog="python -m bench.dfs_strength", description=__doc__.split("\n")[0])
    ap.add_argument("--agent", default="negamax", help="our agent spec (default: negamax with its defaults)")
    ap.add_argument("--opponents", default="kaggle:negamax,kaggle:random", help="comma-separated specs")
    ap.add_argument("--games", type=int, default=200, help="games against each opponent (default 200)")
    ap.add_argument("--time", type=float, default=0.5, help="seconds per move (default 0.5)")
    ap.add_argument("--seed", type=int, default=1, help="seed of game 0 (default 1)")
    ap.add_argument("--versus", default="", help="comma-separated specs of ours for a round robin on the openings")
    ap.add_argument("--openings", type=int, default=0, help="round robin: use the first N openings only (default all)")
    ap.add_argument("--baseline-games", type=int, default=20, help="kaggle negamax vs random games (default 20)")
    args = ap.parse_args(argv)
    problem = None
    if args.games < 0 or args.baseline_games < 0 or args.openings < 0:
        problem = "--games, --openings and --baseline-games must be >= 0"
    elif not 0.01 <= args.time <= 60:
        problem = f"--time {args.time} must be between 0.01 and 60 seconds"
    else:
        try:
            for spec in [args.agent, *split_specs(args.opponents), *split_specs(args.versus)]:
                resolve(spec)
        except SpecError as exc:
            problem = str(exc)
    if problem:
        print(f"dfs_strength: {problem}", file=sys.stderr)
        sys.exit(2)
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    ours = resolve(args.agent)
    # Compile before any clock runs (numba: seconds on the first move otherwise).
    agent = build(ours, STANDARD, args.time, 0).agent
    if hasattr(agent, "warm_up"):
        print(f"warm-up (compile): {agent.warm_up(STANDARD):.1f} s")
    print(f"{ours.label}: {args.time:g} s per move, seed {args.seed}")
    if args.baseline_games:
        t0 = time.perf_counter()
        base = series("kaggle:negamax", "kaggle:random", args.baseline_games, args.time, args.seed)
        print(f"baseline kaggle:negamax vs kaggle:random: {base.line()} ({time.perf_counter() - t0:.0f} s)")
    for opp in split_specs(args.opponents) if args.games else []:
        t0 = time.perf_counter()
        tally = series(args.agent, opp, args.games, args.time, args.seed)
        print(f"vs {opp}: {tally.line()} ({time.perf_counter() - t0:.0f} s)")
        for why in tally.forfeits[:5]:
            print(f"  forfeit: {why}")
    specs = split_specs(args.versus)
    if specs:
        for spec in specs:
            a = build(resolve(spec), STANDARD, args.time, 0).agent
            if hasattr(a, "warm_up"):
                a.warm_up(STANDARD)
        openings = suite(STANDARD)[: args.openings or None]
        games = 2 * len(openings)
        print(f"round robin: {len(specs)} agents, {games} games a pair ({len(openings)} openings, both seats)")
        score = {s: 0.0 for s in specs}
        for x, y in itertools.combinations(specs, 2):
            tally = series(x, y, games, args.time, args.seed, openings)
            score[x] += tally.wins + tally.draws / 2
            score[y] += tally.losses + tally.draws / 2
            print(f"  {x} vs {y}: {tally.line()}")
        for spec, pts in sorted(score.items(), key=lambda kv: -kv[1]):
            print(f"  {pts:6.1f} points  {spec}")


if __name__ == "__main__":
    main()
