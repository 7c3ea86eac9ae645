"""Simulations per second of the game-generic MCTS (agents.engine.mcts), compiled and plain, on
any registered game, with the compiled / plain ratio measured in the same run.

Each figure is the median of ``--repeats`` searches of a fresh tree from the game's initial
state (its first decision after seeded chance samples, for dice games) (the compiled and plain runs interleaved, so load changes hit both alike). The plain path
runs ``--sims / --plain-divisor`` simulations (it is far slower; the rate is per simulation).
The solver is off by default so that a proof (tic-tac-toe is a draw) does not end a search early.

    python -m bench.engine_mcts_speed [--game tictactoe] [--game connectx:rows=6,columns=7] [--sims 20000]
"""
from __future__ import annotations

import random
import statistics
import sys
import time

from agents.engine.mcts import LEAVES, MCTSAgent
from base.cli import OneLineParser, positive_int
from base.jit import numba_available
from bench.figures import emit
from core.games import names, parse_game


def start_state(game):
    """The initial state, or for a game starting with chance (dice, a random set-up) the first
    decision with a choice, reached by seeded samples (the same state for every run)."""
    rng = random.Random(0)
    state = game.initial()
    while not state.is_terminal() and (state.is_chance_node() or len(state.legal_actions()) == 1):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state = state.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            state = state.apply(state.legal_actions()[0])
    return state


def rate(game, jit: bool, sims: int, args) -> float:
    """Simulations per second of one search of ``sims`` simulations from a fresh tree."""
    agent = MCTSAgent(game=game, jit=jit, max_sims=sims, capacity=sims + 64, solver=args.solver, leaf=args.leaf,
                      open_loop=args.open_loop, reuse=False, seed=len(str(sims)), background_compile=False)
    state = start_state(game)
    agent.choose(state, time.perf_counter() + 1e9)
    info = agent.info()
    return info["simulations"] / max(info["seconds"], 1e-9)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.engine_mcts_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help=f"game spec, repeatable (default tictactoe; games: {', '.join(names())})")
    parser.add_argument("--sims", type=positive_int, default=20_000, help="simulations per compiled search")
    parser.add_argument("--plain-divisor", type=positive_int, default=20, help="the plain path runs sims / this")
    parser.add_argument("--repeats", type=positive_int, default=3, help="runs per figure (median)")
    parser.add_argument("--leaf", choices=list(LEAVES), default="rollout", help="leaf evaluation")
    parser.add_argument("--solver", action="store_true", help="keep the MCTS-solver on (a proof may end a search early)")
    parser.add_argument("--open-loop", action="store_true", help="open-loop search (dice games)")
    args = parser.parse_args(argv)
    games = []
    for spec in args.game or ["tictactoe"]:
        try:
            games.append(parse_game(spec))
        except ValueError as exc:
            parser.error(f"--game {spec}: {exc}")
    if not numba_available():
        print("numba not installed: plain path only")
    print(f"{'game':42} {'compiled sims/s':>16} {'plain sims/s':>13} {'ratio':>7}  compile s")
    figures = {}
    for game in games:
        try:
            probe = MCTSAgent(game=game, leaf=args.leaf)
        except ValueError as exc:
            parser.error(f"{game.spec()}: {exc}")
        compiled_ok = numba_available() and game.fits_int64()
        t = time.perf_counter()
        if compiled_ok:
            probe.warm_up()
        compile_s = time.perf_counter() - t
        fast, slow = [], []
        for _ in range(args.repeats):
            if compiled_ok:
                fast.append(rate(game, True, args.sims, args))
            slow.append(rate(game, False, max(1, args.sims // args.plain_divisor), args))
        p = statistics.median(slow)
        label = game.spec().replace(":", "_").replace(",", "_").replace("=", "")
        figures[f"{label}_plain_sims_per_s"] = p
        if fast:
            f = statistics.median(fast)
            figures[f"{label}_compiled_sims_per_s"] = f
            print(f"{game.spec():42} {f:16,.0f} {p:13,.0f} {f / p:7.1f}  {compile_s:9.1f}")
        else:
            print(f"{game.spec():42} {'-':>16} {p:13,.0f} {'-':>7}  {'-':>9}")
    emit(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
