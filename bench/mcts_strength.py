"""Strength of an MCTS-family agent against OpenSpiel's C++ MCTS (same time per move), kaggle's
negamax, and our depth-first agents, in the direct game loop (util.arena.game).

Games come in pairs from one random opening (2 plies by default, seeded), the agent playing
each colour once, so an opening that favours one side favours both players equally; seeded
agents get a new seed per pair. The agent keeps its tree
between moves and its opening cache, as in a submission. Kaggle's negamax is slow Python (a
full depth-4 search): its moves are not timed out, ours are.

    python -m bench.mcts_strength [--agent mcts] [--games 20] [--time 0.5]
                                  [--opponents openspiel,negamax,alphabeta] [--opening-plies 2]
"""
from __future__ import annotations

import random
import sys
import time
from typing import Any

from agents.connectx.registry import SpecError, make_from_spec, names
from base.cli import OneLineParser
from core.connectx.position import Position
from core.connectx.shape import Shape
from util.arena import players
from util.arena.game import play_game

# Short names of the independent opponents, as tournament specs (util.arena.players).
OPPONENT_SPECS = {"openspiel": "openspiel_mcts:timed=1", "negamax": "kaggle:negamax"}


def opponent(name: str, seed: int, time_per_move: float) -> Any:
    """OpenSpiel's MCTS at equal time, kaggle's negamax, or one of our agents by spec."""
    if name in OPPONENT_SPECS:
        return players.build(players.resolve(OPPONENT_SPECS[name]), Shape(), time_per_move, seed)
    return make_from_spec(name)


def match(agent: Any, other: Any, games: int, time_per_move: float, seed: int, slow_other: bool,
          opening_plies: int = 2) -> dict:
    """Games in colour pairs from a random opening of ``opening_plies`` plies; agents with a
    ``seed`` field get a new seed per pair (so games from the empty board differ too)."""
    rng = random.Random(seed)
    tally: dict[str, Any] = {"win": 0, "draw": 0, "loss": 0, "forfeits": [], "max_move": 0.0}
    seeds = {id(a): getattr(a, "seed", None) for a in (agent, other)}
    for g in range(games):
        if g % 2 == 0:
            opening = [rng.randrange(7) for _ in range(opening_plies)]
            for a in (agent, other):
                base_seed = seeds[id(a)]
                if isinstance(base_seed, int):
                    a.seed = base_seed + 1000 * (g // 2) + (0 if a is agent else 500)
        first, second = (agent, other) if g % 2 == 0 else (other, agent)
        mark = 1 if g % 2 == 0 else 2
        limit = 60.0 if slow_other else None
        r = play_game(first, second, time_per_move=time_per_move, opening=opening, hard_limit=limit)
        ours = r.move_times[0::2] if (mark == 1) == (opening_plies % 2 == 0) else r.move_times[1::2]
        tally["max_move"] = max([tally["max_move"], *ours])
        if r.winner == mark:
            tally["win"] += 1
        elif r.winner == 0:
            tally["draw"] += 1
        else:
            tally["loss"] += 1
        if r.errors:
            tally["forfeits"].append((g, r.termination, r.errors))
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.mcts_strength", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="mcts", help="agent spec under test, e.g. mcts:leaf=rollout")
    parser.add_argument("--opponents", default="openspiel,negamax,alphabeta",
                        help="comma-separated: openspiel, negamax (kaggle's) or any agent spec of ours")
    parser.add_argument("--games", type=int, default=20, help="games per opponent (even: colour pairs)")
    parser.add_argument("--time", type=float, default=0.5, help="seconds per move for both sides")
    parser.add_argument("--seed", type=int, default=1, help="seed of the openings")
    parser.add_argument("--opening-plies", type=int, default=2, help="random plies before the agents play (0-4)")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2 or args.time <= 0 or not 0 <= args.opening_plies <= 4:
        print("error: --games must be an even number >= 2, --time positive, --opening-plies 0-4", file=sys.stderr)
        return 2
    try:
        agent = make_from_spec(args.agent)
        opponents = []
        for spec in filter(None, (s.strip() for s in args.opponents.split(","))):
            if spec not in ("openspiel", "negamax") and spec.split(":")[0] not in names():
                print(f"skipping {spec}: not available here")
                continue
            try:
                opponents.append((spec, opponent(spec, args.seed, args.time)))
            except (ImportError, SpecError) as exc:
                print(f"skipping {spec}: {exc}")
    except (SpecError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    warm = getattr(agent, "warm_up", None)
    if callable(warm):
        print(f"compiled {args.agent} in {warm():.1f} s")
    for spec, other in opponents:
        if callable(getattr(other, "warm_up", None)):
            other.warm_up()
        elif spec not in ("openspiel", "negamax"):  # compile its kernels outside the timed games
            other.choose_position(Position.from_moves("44"), time.perf_counter() + 0.5)
        t = time.perf_counter()
        tally = match(agent, other, args.games, args.time, args.seed, spec == "negamax", args.opening_plies)
        score = (tally["win"] + 0.5 * tally["draw"]) / args.games
        print(f"{args.agent} vs {spec}: {tally['win']} wins, {tally['draw']} draws, {tally['loss']} losses of "
              f"{args.games} ({100 * score:.1f}%), forfeits {tally['forfeits'] or 'none'}, "
              f"slowest move of ours {tally['max_move']:.3f} s, {time.perf_counter() - t:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
