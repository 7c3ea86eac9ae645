"""Speed of the turn searches' hot kernels (:mod:`agents.engine.macro_kernels`): turn evaluations
per second of macro-move MCTS, naive sampling and evolution on Reinforce Tactics, compiled, at a
fixed number of evaluations a turn; and the kernels' compile time in a fresh process with no
kernel cache (the warm-up a Kaggle game's first turn pays).

    python -m bench.macro_speed --map beginner --iters 300 --turns 6

Each search plays ``--turns`` turns from the map's first decision (both sides its own plans, the
same seeded line in every run); evaluations per second are its evaluations over the seconds its
searches took (``info()``), the first turn (compiled kernels already loaded) included. Ends
with a ``FIGURES`` line (:mod:`bench.figures`) for :mod:`bench.ab`.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

from base.cli import OneLineParser, positive_int
from bench import figures

SEARCHES = {"macro_mcts": "agents.engine.macro_mcts:MacroMCTSAgent", "naive_mcts": "agents.engine.naive_mcts:NaiveMCTSAgent",
            "evolution": "agents.engine.evolution:EvolutionAgent"}
COMPILE = """
import sys, time
from agents.engine.macro_mcts import MacroMCTSAgent
from core.games import parse_game
agent = MacroMCTSAgent(game=parse_game(sys.argv[1]), background_compile=False)
t = time.perf_counter()
agent.warm_up()
print(time.perf_counter() - t)
"""


def compile_seconds(game_spec: str) -> float:
    """Seconds of the turn kernels' compile in a fresh process, with no kernel cache."""
    env = dict(os.environ, CONNECTX_JIT_CACHE="0")
    out = subprocess.run([sys.executable, "-c", COMPILE, game_spec], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def evaluations_per_second(name: str, game_spec: str, iters: int, turns: int) -> float:
    """Evaluations per second of search ``name`` over ``turns`` turns of ``iters`` evaluations."""
    import importlib

    from core.games import parse_game

    module, cls = SEARCHES[name].split(":")
    game = parse_game(game_spec)
    agent = getattr(importlib.import_module(module), cls)(game=game, max_iters=iters, seed=1, background_compile=False)
    agent.warm_up()
    state, played, evaluations, seconds = game.initial(), 0, 0, 0.0
    while played < turns and not state.is_terminal():
        if state.is_chance_node():
            state = state.apply(state.chance_outcomes()[0][0])
            continue
        mover = state.current_player()
        first = True
        while not state.is_terminal() and not state.is_chance_node() and state.current_player() == mover:
            state = state.apply(agent.choose(state, time.perf_counter() + 1e6))
            if first:
                info = agent.info()
                evaluations += int(info["evaluations"])
                seconds += float(info["seconds"])
                first = False
        played += 1
    return evaluations / seconds if seconds else 0.0


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m bench.macro_speed", description=__doc__.splitlines()[0])
    p.add_argument("--map", default="beginner", help="Reinforce Tactics map (default beginner)")
    p.add_argument("--iters", type=positive_int, default=300, help="evaluations a turn (default 300)")
    p.add_argument("--turns", type=positive_int, default=6, help="turns each search plays (default 6)")
    p.add_argument("--no-compile", action="store_true", help="skip the compile-time measure")
    args = p.parse_args(argv)
    spec = f"reinforce_tactics:map={args.map}"
    found: dict[str, float] = {}
    for name in SEARCHES:
        found[f"{name}_evals_per_s"] = rate = evaluations_per_second(name, spec, args.iters, args.turns)
        print(f"{name}: {rate:,.0f} evaluations/s", flush=True)
    if not args.no_compile:
        found["compile_s"] = compile_seconds(spec)
        print(f"compile (no cache): {found['compile_s']:.1f} s", flush=True)
    figures.emit(found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
