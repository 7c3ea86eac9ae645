"""Strength on EinStein würfelt nicht!: agent A against agent B, seats swapped, the same time
per move; prints A's score (wins + half draws) with a 95% Wilson interval.

Agents are engine specs (``expectimax``, ``mcts:open_loop=true``, ``random``, ...) or
``openspiel_mcts[:c=1.4,rollouts=1]``: OpenSpiel's C++ ``MCTSBot`` with a
``RandomRolloutEvaluator`` and the same wall-clock time per move (``max_wall_clock_time``), fed
the same actions (both games share OpenSpiel's action numbers). Games come in pairs that share
a dice seed, one with A as Black and one with A as White. Compiled agents are warmed up first.

    python -m bench.einstein_strength --a expectimax --b random --games 200 --time 0.05
"""
from __future__ import annotations

import random
import sys
import time
from typing import Any

from base.cli import OneLineParser, positive_int
from util.arena.ratings import wilson


class OpenSpielMCTS:
    """OpenSpiel's C++ MCTS on a pyspiel state kept in step with ours."""

    def __init__(self, spec: str, seconds: float, seed: int) -> None:
        import pyspiel

        params = dict(p.split("=", 1) for p in spec.partition(":")[2].split(",") if p)
        unknown = set(params) - {"c", "rollouts", "sims"}
        if unknown:
            raise ValueError(f"openspiel_mcts has no parameter {', '.join(sorted(unknown))}; valid: c, rollouts, sims")
        self.game = pyspiel.load_game("einstein_wurfelt_nicht")
        sims = int(params.get("sims", 10 ** 9))
        self.evaluator = pyspiel.RandomRolloutEvaluator(int(params.get("rollouts", 1)), seed)
        self.bot = pyspiel.MCTSBot(self.game, self.evaluator, float(params.get("c", 2.0)), sims, 1000, True, seed,
                                   False, pyspiel.ChildSelectionPolicy.UCT, seconds if sims >= 10 ** 9 else -1.0)

    def choose(self, state: Any, deadline: float) -> int:
        theirs = self.game.new_initial_state()
        for a in state.history:
            theirs.apply_action(a)
        return int(self.bot.step(theirs))


def make_agent(spec: str, game: Any, seconds: float, seed: int) -> Any:
    if spec.split(":")[0] == "openspiel_mcts":
        return OpenSpielMCTS(spec, seconds, seed)
    from agents.registry import make

    agent = make(spec, game)
    if hasattr(agent, "seed") and "seed=" not in spec:
        agent.seed = seed
    if hasattr(agent, "warm_up"):
        agent.warm_up()
    return agent


def play(game: Any, agents: list, seconds: float, dice_seed: int) -> float:
    """Player 0's return of one game."""
    rng = random.Random(dice_seed)
    state = game.initial()
    for agent in agents:
        if hasattr(agent, "reset"):
            agent.reset()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            a = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            a = agents[state.current_player()].choose(state, time.perf_counter() + seconds)
        state = state.apply(a)
    return state.returns()[0]


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.einstein_strength", description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", default="expectimax", help="agent A (engine spec or openspiel_mcts[:c=..,rollouts=..,sims=..])")
    ap.add_argument("--b", default="random", help="agent B")
    ap.add_argument("--games", type=positive_int, default=200, help="games (even: pairs with seats swapped)")
    ap.add_argument("--time", type=float, default=0.05, help="seconds per move for both agents")
    ap.add_argument("--seed", type=int, default=0, help="first dice seed")
    args = ap.parse_args(argv)
    if not 0 < args.time <= 60:
        ap.error(f"--time {args.time} must be in (0, 60] seconds")
    from tqdm import tqdm

    from core.einstein import Einstein

    game = Einstein()
    try:
        a = make_agent(args.a, game, args.time, args.seed)
        b = make_agent(args.b, game, args.time, args.seed + 1)
    except (ValueError, ImportError) as exc:  # SpecError is a ValueError
        ap.error(f"cannot build the agents: {exc}")
    score, n, t0 = 0.0, 0, time.perf_counter()
    bar = tqdm(total=args.games, file=sys.stderr, desc=f"{args.a} vs {args.b}")
    try:
        for i in range(args.games):
            a_seat = i % 2
            seats = [a, b] if a_seat == 0 else [b, a]
            r = play(game, seats, args.time, args.seed * 100003 + i // 2)
            score += (1 + (r if a_seat == 0 else -r)) / 2
            n += 1
            bar.update(1)
            bar.set_postfix(score=f"{score / n:.3f}")
    except KeyboardInterrupt:
        print("interrupted: results so far", file=sys.stderr)
    bar.close()
    lo, hi = wilson(score, n)
    print(f"{args.a} vs {args.b}: {n} games, {args.time} s/move, A scores {score:g}/{n} = {score / max(n, 1):.3f} "
          f"[95% {lo:.3f}, {hi:.3f}] ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
