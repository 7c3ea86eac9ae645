"""What a turn planner spends beside its search on Reinforce Tactics: one arena game (per-turn
clock) of ``--agent`` against ``--opponent``, the agent's ``plan_turn`` and ``choose`` timed on
the instance; serving = choose's time minus plan_turn's (labelling the plan, replaying it).

    python -m bench.rt_plan_serving --map crossroads --agent macro_mcts --opponent greedy

Prints the turns, seconds planning, seconds serving (total and per turn), the longest turn, and a
``FIGURES`` line (:mod:`bench.figures`). The agent's kernels are compiled before the game.
"""
from __future__ import annotations

import sys
import time
from typing import Any

from base.cli import OneLineParser, positive_int
from bench import figures
from core.reinforce_tactics import maps
from util.arena import match, players


def timed(obj: Any, name: str, totals: dict[str, float]) -> None:
    """Wrap ``obj.name`` so that its calls add their seconds to ``totals[name]``."""
    fn = getattr(obj, name)

    def wrapper(*args: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args)
        finally:
            totals[name] = totals.get(name, 0.0) + time.perf_counter() - t
            totals[name + "_calls"] = totals.get(name + "_calls", 0) + 1

    setattr(obj, name, wrapper)


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.rt_plan_serving", description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="macro_mcts", help="a turn planner's arena spec (default macro_mcts)")
    ap.add_argument("--opponent", default="greedy", help="its opponent's spec (default greedy)")
    ap.add_argument("--map", default="crossroads", help="a built-in map (default crossroads)")
    ap.add_argument("--time", type=float, default=0.5, help="seconds a turn (default 0.5)")
    ap.add_argument("--steps", type=positive_int, default=40, help="Kaggle's episodeSteps (default 40)")
    args = ap.parse_args(argv)
    if args.map not in maps.map_names():
        ap.error(f"unknown map {args.map!r}; valid: {', '.join(maps.map_names())}")
    if args.steps < 2 or not 0 < args.time <= 60:
        ap.error("--steps must be >= 2 and --time in (0, 60] seconds")
    game = match.game_of(f"reinforce_tactics:map={args.map},episode_steps={args.steps}")
    try:
        a = players.state_player(players.resolve(args.agent, game), game, args.time, 1)
        b = players.state_player(players.resolve(args.opponent, game), game, args.time, 2)
    except ValueError as exc:
        ap.error(f"{exc}")
    agent = getattr(a, "agent", a)
    if not hasattr(agent, "plan_turn"):
        ap.error(f"{args.agent} does not plan whole turns (no plan_turn); give a turn planner")
    match.compile_now(a, game)
    match.compile_now(b, game)
    totals: dict[str, float] = {}
    timed(agent, "plan_turn", totals)
    timed(agent, "choose", totals)
    r = match.play(agent, b, game, args.time)
    turns = [t for t, m in zip(r["move_times"], r["movers"]) if m == 1]
    longest = max((sum(x) for x in _runs(r["move_times"], r["movers"])), default=0.0)
    n = int(totals.get("plan_turn_calls", 0))
    plan_s, choose_s = totals.get("plan_turn", 0.0), totals.get("choose", 0.0)
    serve = choose_s - plan_s
    print(f"{args.agent} vs {args.opponent} on {args.map}, {args.time:g} s a turn: {r['termination']} "
          f"{r['errors'] or ''}; {n} turns, {len(turns)} decisions; planning {plan_s:.2f} s, serving {serve:.3f} s "
          f"({1000 * serve / max(n, 1):.1f} ms a turn); longest turn {longest:.2f} s")
    figures.emit({"turns": n, "plan_s": plan_s, "serve_s": serve, "serve_ms_per_turn": 1000 * serve / max(n, 1),
                  "longest_turn_s": longest})
    return 0


def _runs(times: list[float], movers: list[int]) -> list[list[float]]:
    """Player 1's turns as runs of its consecutive decisions' seconds."""
    out: list[list[float]] = []
    prev = 0
    for t, m in zip(times, movers):
        if m == 1:
            if prev == 1:
                out[-1].append(t)
            else:
                out.append([t])
        prev = m
    return out


if __name__ == "__main__":
    sys.exit(main())
