"""One agent's moves in a fresh process, after the arena's warm-up: which numba compiles each
move ran and how long it took. Run by :mod:`tests.test_first_move` in a subprocess (a fresh
process is the point: nothing compiled yet, as in a tournament worker or a Kaggle game)::

    python -m tests.first_move_probe GAME AGENT [--time SECONDS] [--positions N] [--seed S]

Prints one JSON line: ``{"warm_up_s": ..., "limit_s": ..., "moves": [{"ply", "seconds",
"compiles"}, ...]}``, ``compiles`` naming each function numba compiled during that move.

The warm-up is the arena's own (:func:`util.arena.match.warm_up`: the agent's ``warm_up`` and
two throwaway moves). The moves are a fresh player's, as a game's are: from the initial state,
then from states spread over a seeded random game (a book, a solver or an endgame routine may
only be reached some plies in: Quantik's ``perfect`` plays its first 4 plies from its book).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time

from numba.core import event

from core.games import game_from_text
from util.arena import match, openings, players


def playout_states(game, seed: int) -> list:
    """The decision states of one seeded random game, in order (the terminal one left out)."""
    rng = random.Random(seed)
    state, out = game.initial(), []
    while not state.is_terminal() and len(out) < 400:
        if state.is_chance_node():
            state = state.apply(openings.sample_chance(state, rng))
            continue
        out.append(state)
        state = state.apply(rng.choice(state.legal_actions()))
    return out


def spread(states: list, n: int) -> list:
    """The first two states, then ``n - 2`` more spread evenly over the rest."""
    if len(states) <= n:
        return states
    rest = states[2:]
    picks = [rest[round(i * (len(rest) - 1) / max(1, n - 3))] for i in range(n - 2)]
    return states[:2] + picks


def compiled_names(recorder) -> list[str]:
    out = []
    for _, ev in recorder.buffer:
        if ev.is_start:
            d = ev.data.get("dispatcher")
            out.append(getattr(getattr(d, "py_func", None), "__qualname__", str(d)))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.first_move_probe")
    p.add_argument("game")
    p.add_argument("agent")
    p.add_argument("--time", type=float, default=0.25)
    p.add_argument("--positions", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    game = game_from_text(args.game)
    spec = players.resolve(args.agent, game)
    t0 = time.perf_counter()
    match.warm_up(spec, game, args.time)
    warm = time.perf_counter() - t0
    player = players.state_player(spec, game, args.time, args.seed)
    reset = getattr(player, "reset", None)
    if callable(reset):
        reset()
    moves = []
    try:
        for state in spread(playout_states(game, args.seed), args.positions):
            with event.install_recorder("numba:compile") as rec:
                start = time.perf_counter()
                player.choose(state, start + args.time)
                elapsed = time.perf_counter() - start
            moves.append({"ply": len(state.history), "seconds": round(elapsed, 4), "compiles": compiled_names(rec)})
    finally:
        getattr(player, "close", lambda: None)()
    print(json.dumps({"warm_up_s": round(warm, 2), "limit_s": match.default_hard_limit(args.time), "moves": moves}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
