"""The greedy planner against uniform random play on Reinforce Tactics maps: wins, draws and
losses per map with a 95% interval on greedy's win share (Wilson), and the median seconds of a
greedy decision against a random one measured in the same games (the baseline).

    python -m bench.rt_greedy --maps beginner,crossroads --games 10 --steps 200

Games alternate seats (even ``--games`` balances them) and draw chance with the game's index
as seed; the random side is ``agents.engine.random_agent`` seeded the same way. In-process and
single-threaded; the tournament (``python -m util.arena.tournament --game
reinforce_tactics:map=NAME --agents greedy,random``) measures the same with workers and a store.
"""
from __future__ import annotations

import statistics
import sys
import time

from agents.engine.random_agent import RandomAgent
from agents.reinforce_tactics.greedy import GreedyAgent
from base.cli import OneLineParser, positive_int
from core.reinforce_tactics import ReinforceTactics, maps
from util.arena.match import play
from util.arena.ratings import wilson


def run_map(name: str, games: int, steps: int, time_per_turn: float) -> dict:
    g = ReinforceTactics(map=name, episode_steps=steps)
    greedy = GreedyAgent(game=g)
    greedy.warm_up()
    w = d = lo = 0
    greedy_times: list[float] = []
    random_times: list[float] = []
    for i in range(games):
        seat = i % 2
        rnd = RandomAgent(game=g, seed=i)
        first, second = (greedy, rnd) if seat == 0 else (rnd, greedy)
        r = play(first, second, g, time_per_move=time_per_turn, chance_seed=i)
        if r["termination"] not in ("win", "draw"):
            raise SystemExit(f"{name} game {i}: {r['termination']} {r['errors']}")
        won = r["winner"] == seat + 1
        w += won
        d += r["winner"] == 0
        lo += not won and r["winner"] != 0
        for t, mark in zip(r["move_times"], r["movers"]):
            (greedy_times if mark == seat + 1 else random_times).append(t)
    return {"map": name, "wins": w, "draws": d, "losses": lo, "interval": wilson(w, games),
            "greedy_s": statistics.median(greedy_times), "random_s": statistics.median(random_times)}


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.rt_greedy", description=__doc__.split("\n\n")[0])
    ap.add_argument("--maps", default="all", help="comma-separated map names, or all (default)")
    ap.add_argument("--games", type=positive_int, default=10, help="games per map (default 10)")
    ap.add_argument("--steps", type=positive_int, default=200, help="Kaggle's episodeSteps (default 200)")
    ap.add_argument("--time", type=float, default=5.0, help="seconds a turn (default 5, Kaggle's)")
    args = ap.parse_args(argv)
    names = maps.map_names() if args.maps == "all" else [m.strip() for m in args.maps.split(",") if m.strip()]
    unknown = [m for m in names if m not in maps.map_names()]
    if unknown or args.steps < 2 or not args.time > 0:
        what = f"unknown map {unknown[0]!r}; valid: {', '.join(maps.map_names())}" if unknown else "--steps must be >= 2 and --time > 0"
        ap.error(what)
    print(f"greedy vs random, {args.games} games a map, episodeSteps {args.steps}, {args.time:g} s a turn")
    print(f"{'map':20} {'W/D/L':>9} {'win share [95%]':>22} {'greedy s':>9} {'random s':>9} {'ratio':>6}")
    t0 = time.perf_counter()
    for name in names:
        r = run_map(name, args.games, args.steps, args.time)
        lo, hi = r["interval"]
        share = r["wins"] / args.games
        ratio = r["greedy_s"] / r["random_s"] if r["random_s"] > 0 else float("inf")
        print(f"{name:20} {r['wins']:>3}/{r['draws']}/{r['losses']:<3} {share:8.2f} [{lo:.2f}, {hi:.2f}] "
              f"{r['greedy_s']:9.4f} {r['random_s']:9.4f} {ratio:6.1f}", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s; seconds: median of a decision)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
