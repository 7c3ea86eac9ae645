"""EinStein würfelt nicht! heuristics on the engine's ``evaluate(g, s, params)`` signature (side
to move's view), in outcome units: an estimate of the expected return in ``(-top, top)``, so
that expectimax can average it with terminal returns (±1) at chance nodes.

``race``: the game is a race decided by dice. A cube ``d`` cells (king moves) from the goal
corner, chosen by ``f`` of the six die faces (its own number, plus the faces of missing
cubes it is the next lower or higher of), needs about ``6 * d / f`` turns; a player's race
time ``T`` is that of their best cube. The mover already holds a die: the cubes it names may
advance a step this turn, and the mover races first (``tempo``). Score
``z = race * (T_opponent - T_mover + tempo) + material * (cubes_mover - cubes_opponent)``,
returned as ``top * tanh(z)``.
"""
from __future__ import annotations

import math

from core.einstein.kernels import GONE, cube_cell, movable
from util.jit import hot


@hot
def faces(b: int, p: int, k: int) -> int:
    """How many die faces let player ``p`` move cube ``k``."""
    n = 0
    for d in range(1, 7):
        k1, k2 = movable(b, p, d)
        if k1 == k or k2 == k:
            n += 1
    return n


@hot
def distance(p: int, cell: int) -> int:
    r = cell // 5
    c = cell % 5
    if p == 0:
        return max(4 - r, 4 - c)
    return max(r, c)


@hot
def race_time(b: int, p: int, die: int) -> float:
    """Expected turns for player ``p``'s fastest cube; ``die`` > 0: ``p`` moves now with it."""
    best = 1.0e9
    k1 = 0
    k2 = 0
    if die > 0:
        k1, k2 = movable(b, p, die)
    for k in range(1, 7):
        cell = cube_cell(b, p, k)
        if cell == GONE:
            continue
        d = distance(p, cell)
        t = 6.0 * d / faces(b, p, k)
        if die > 0:
            if k == k1 or k == k2:
                t = 1.0 + 6.0 * (d - 1) / faces(b, p, k)
            else:
                t += 1.0
        best = min(best, t)
    return best


@hot
def evaluate_race(g, s, params) -> float:
    b = s[0]
    me = (s[1] >> 2) & 1
    die = (s[1] >> 3) & 7 if (s[1] & 3) == 3 else 0
    t_me = race_time(b, me, die)
    t_opp = race_time(b, 1 - me, 0)
    n_me = 0
    n_opp = 0
    for k in range(1, 7):
        if cube_cell(b, me, k) != GONE:
            n_me += 1
        if cube_cell(b, 1 - me, k) != GONE:
            n_opp += 1
    if n_me == 0 or n_opp == 0:  # set-up not finished (or a finished game): no estimate
        return 0.0
    z = params[0] * (t_opp - t_me + params[2]) + params[1] * (n_me - n_opp)
    return params[3] * math.tanh(z)


HEURISTICS = {"race": evaluate_race}

# race: weight of a turn of race time, weight of a cube of material, the mover's tempo in
# turns, and top, the largest |estimate| (below the win value 1).
DEFAULT_PARAMS = {"race": [0.4, 0.15, 0.5, 0.9]}
