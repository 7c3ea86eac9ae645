"""Fingerprint of the engine searches' results on fixed positions and budgets (plain path):
moves, values, visit and node counts. ``tests/data/kernel_fingerprint.json`` holds the figures
of commit 4495222 (before the kernels were split into helpers and given named layouts);
``tests/test_kernel_regression.py`` checks that this tree still gives them.

    python -m tests.kernel_fingerprint > tests/data/kernel_fingerprint.json
"""
from __future__ import annotations

import json
import os
import sys
import time

from agents.registry import make
from core.games import make_game

# (game, spec, actions played from the initial state before choosing, choices in a row)
CASES = [
    ("tictactoe", "mcts:max_sims=400,seed=3", (4,), 2),
    ("tictactoe", "mcts:max_sims=300,seed=5,open_loop=true", (0,), 2),
    ("tictactoe", "ant_colony:max_sims=300,seed=2", (), 2),
    ("connect4_count", "mcts:max_sims=300,seed=1", (3, 3), 2),
    ("connect4_count", "mcts:max_sims=200,seed=1,leaf=heuristic", (3,), 2),
    ("einstein", "mcts:max_sims=200,seed=4", (), 2),
    ("einstein", "mcts:max_sims=200,seed=4,open_loop=true", (), 2),
    ("tictactoe", "alphabeta:max_depth=9", (0,), 1),
    ("connect4_count", "alphabeta:max_depth=5", (3, 2), 1),
    ("connect4_count", "minimax:max_depth=3", (3,), 1),
    ("quixo", "alphabeta:max_depth=2", (), 1),
    ("einstein", "expectimax:max_depth=2", (), 1),
    ("tictactoe", "solver", (4, 0), 1),
]

KEYS = ("value", "nodes", "visits", "simulations", "depth", "exact", "pv")


def chance_step(state, seed: int):
    """Resolve chance nodes by their first outcome (deterministic)."""
    while state.is_chance_node() and not state.is_terminal():
        state = state.apply(state.chance_outcomes()[0][0])
    return state


def run_case(game_name: str, spec: str, prefix: tuple, moves: int) -> list:
    game = make_game(game_name)
    agent = make(spec, game)
    state = chance_step(game.initial(), 0)
    for a in prefix:
        state = chance_step(state.apply(state.legal_actions()[a % len(state.legal_actions())]), 0)
    out = []
    for _ in range(moves):
        if state.is_terminal():
            break
        action = agent.choose(state, time.perf_counter() + 1.0e6)
        info = agent.info() if hasattr(agent, "info") else {}
        rec = {"action": int(action)}
        for k in KEYS:
            if k in info:
                v = info[k]
                if isinstance(v, dict):
                    v = {str(a): (round(float(x), 9) if isinstance(x, float) else x) for a, x in sorted(v.items())}
                elif isinstance(v, float):
                    v = round(v, 9)
                elif isinstance(v, (list, tuple)):
                    v = [int(x) for x in v]
                rec[k] = v
        out.append(rec)
        state = chance_step(state.apply(action), 0)
    return out


def fingerprint() -> dict:
    return {f"{g} {spec} {list(prefix)}": run_case(g, spec, prefix, n) for g, spec, prefix, n in CASES}


if __name__ == "__main__":
    os.environ["CONNECTX_NUMBA"] = "0"  # the plain path (read at each search's start)
    json.dump(fingerprint(), sys.stdout, indent=1, sort_keys=True)
    print()
