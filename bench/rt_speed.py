"""Speed of the Reinforce Tactics kernels: random playouts per second on a small, a medium and
a 20 x 20 map, compiled and plain, against kaggle-environments' own engine in the same run, and
the memory of one stored state.

    python -m bench.rt_speed --steps 40 --playouts 200 --engine-playouts 3

A playout starts from the map's first state (Kaggle's set-up for ``--seed``) and plays to the
end of the game (won, or drawn at ``--steps - 1`` single turns): at each decision the player
ends its turn with probability ``--end`` and otherwise takes a uniformly random sub-action of
the legal set (the engine's ``get_legal_actions`` on its side, executed through the Kaggle
interpreter's own action handler); Rogue evasions are drawn with their probabilities. The
engine's playouts are the same policy over the same legal sets, so actions per second compare
like with like; playouts per second differ a little as random games differ in length. Compile
time is excluded (one warm-up playout first).
"""
from __future__ import annotations

import random
import sys
import time

import numpy as np

from base.cli import OneLineParser, positive_int
from base.jit import hot
from core.reinforce_tactics.kernels import CHANCE, chance_prob, legal, outcome, play, terminal, to_move
from core.reinforce_tactics.layout import A_END, NUM_ACTIONS, OUT_COUNTER, OUT_EVADE

MAPS = (("small", "beginner"), ("medium", "crossroads"), ("20x20", "last_stand"))


@hot
def playout(g, s, end_prob: float, seed: int) -> tuple:
    """One random playout from ``s``: (player 0's return, actions played)."""
    np.random.seed(seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    t = s
    n = 0
    while not terminal(g, t):
        if to_move(g, t) == CHANCE:
            a = OUT_EVADE if np.random.random() < chance_prob(g, t, OUT_EVADE) else OUT_COUNTER
        else:
            m = legal(g, t, out, 0)
            a = A_END if m == 1 or np.random.random() < end_prob else out[np.random.randint(0, m - 1)]
        t = play(g, t, a)
        n += 1
    return outcome(g, t), n


def our_rate(g, s, jit: bool, end_prob: float, playouts: int) -> tuple[float, float]:
    """(playouts/s, actions/s)."""
    if jit:
        from base.jit import compiled

        fn = compiled(sys.modules[__name__]).playout
        g = np.asarray(g, np.int64)
        fn(g, s, end_prob, 0)  # compile outside the clock
    else:
        fn = playout
    actions = 0
    t0 = time.perf_counter()
    for i in range(playouts):
        actions += fn(g, s, end_prob, i + 1)[1]
    dt = time.perf_counter() - t0
    return playouts / dt, actions / dt


def engine_rate(name: str, seed: int, steps: int, end_prob: float, playouts: int) -> tuple[float, float]:
    """The same playouts on kaggle-environments' engine, through its interpreter's handler."""
    import types

    from kaggle_environments.envs.reinforce_tactics import reinforce_tactics as RT

    cfg = types.SimpleNamespace(mapName=name, enabledUnits="W,M,C,A,K,R,S,B", episodeSteps=steps, startingGold=250)
    rng = random.Random(seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(playouts):
        game = RT._init_game(cfg, seed)
        step = 0
        while not game.game_over and step < steps - 1:
            options = engine_options(game)
            if not options or rng.random() < end_prob:
                game.end_turn()
                step += 1
            else:
                assert RT._execute_action(game, rng.choice(options), game.current_player)
            actions += 1
    dt = time.perf_counter() - t0
    return playouts / dt, actions / dt


SOURCE_KEYS = {"attack": "attacker", "paralyze": "paralyzer", "heal": "healer", "cure": "curer",
               "haste": "sorcerer", "defence_buff": "sorcerer", "attack_buff": "sorcerer"}


def engine_options(game) -> list[dict]:
    """The engine's legal sub-actions (end of turn apart) as the interpreter's action dicts."""
    out = []
    for kind, entries in game.get_legal_actions(game.current_player).items():
        if kind == "end_turn":
            continue
        for e in entries:
            if kind == "create_unit":
                out.append({"type": kind, **e})
            elif kind == "move":
                out.append({"type": kind, **{k: e[k] for k in ("from_x", "from_y", "to_x", "to_y")}})
            elif kind == "seize":
                out.append({"type": kind, "x": e["unit"].x, "y": e["unit"].y})
            else:
                src, dst = e[SOURCE_KEYS[kind]], e["target"]
                out.append({"type": kind, "from_x": src.x, "from_y": src.y, "to_x": dst.x, "to_y": dst.y})
    return out


def main(argv: list[str] | None = None) -> int:
    from base.jit import numba_available
    from core.reinforce_tactics import ReinforceTactics

    parser = OneLineParser(prog="python -m bench.rt_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=positive_int, default=40, help="Kaggle episodeSteps of every playout (default 40)")
    parser.add_argument("--playouts", type=positive_int, default=200, help="compiled playouts per map (default 200)")
    parser.add_argument("--plain-playouts", type=positive_int, default=10, help="plain playouts per map (default 10)")
    parser.add_argument("--engine-playouts", type=positive_int, default=3, help="engine playouts per map (default 3)")
    parser.add_argument("--end", type=float, default=0.1, help="probability of ending the turn at a decision (default 0.1)")
    parser.add_argument("--seed", type=int, default=1, help="Kaggle seed: terrain flips (default 1)")
    args = parser.parse_args(argv)
    if not 0.0 < args.end <= 1.0:
        parser.error(f"--end {args.end} must be in (0, 1]")
    if args.steps < 2:
        parser.error("--steps must be at least 2")
    state_bytes = np.zeros(ReinforceTactics.words, np.int64)
    print(f"reinforce_tactics: {args.steps} episode steps, end-of-turn probability {args.end}; one state "
          f"{state_bytes.nbytes:,d} bytes of words ({sys.getsizeof(state_bytes):,d} as a numpy array)")
    jit = numba_available()
    for label, name in MAPS:
        game = ReinforceTactics(map=name, seed=args.seed, episode_steps=args.steps)
        s = np.asarray(game.initial().words, np.int64)
        e_p, e_a = engine_rate(name, args.seed, args.steps, args.end, args.engine_playouts)
        p_p, p_a = our_rate(game.g, s, False, args.end, args.plain_playouts)
        line = (f"{label:6s} {name:12s} engine {e_p:8.2f} playouts/s {e_a:9,.0f} actions/s | plain {p_p:8.2f} "
                f"playouts/s {p_a:9,.0f} actions/s ({p_a / e_a:.1f}x)")
        if jit:
            c_p, c_a = our_rate(game.g, s, True, args.end, args.playouts)
            line += f" | compiled {c_p:9.1f} playouts/s {c_a:11,.0f} actions/s ({c_a / e_a:.0f}x)"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
