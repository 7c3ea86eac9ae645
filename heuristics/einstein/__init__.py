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

``odds``: the chance that the side to move wins the race, each side racing alone (captures
ignored). A side's race is a Markov chain over its cubes' distances (:data:`RACE_TABLE`,
computed once at import): each turn a die names the cubes that may move and one of them steps
toward the goal; ``F[state, t]``, the chance of arriving within ``t`` turns with the best
choices for that horizon, is exact for this model. The mover (holding its die, or about to
roll) races first: ``P = sum_t (F_mover[t] - F_mover[t - 1]) * (1 - F_opponent[t - 1])``,
returned as ``top * tanh(sharp * (2 P - 1))``. It knows what ``race`` only guesses: several
cubes share the dice (two cubes near the goal beat one), fewer cubes move more often, and the
whole distribution of arrival times, not only its mean. ``odds`` comes first, so it is the
engine agents' ``auto`` heuristic: expectimax with it scored 360/600 = 0.600 [95% 0.560, 0.638]
against OpenSpiel's C++ MCTS at 0.05 s a move (dice seeds 0, 1, 2: 0.610, 0.560, 0.630), where
``race`` scored 0.575 over 200 games (``bench.einstein_strength``, 2026-11-23).
"""
from __future__ import annotations

import math

import numpy as np

from base.jit import hot
from base.params import Param, default_lists
from core.einstein.kernels import GONE, cube_cell, movable

HORIZON = 20  # turns in the race table; 19 moves always bring some cube home (6 cubes x 3 steps + 1)
_STRIDE = HORIZON + 1
_STATES = 5 ** 6  # a digit per cube k at 5 ** (k - 1): distance - 1 (0..3), or 4 for a captured cube


def race_table() -> np.ndarray:
    """``F[code * (HORIZON + 1) + t]``: the chance that a side whose cubes are described by
    ``code`` brings one home within ``t`` turns when racing alone, choosing at each roll the
    cube that maximises that chance (for that horizon). Vectorised over all codes per turn."""
    idx = np.arange(_STATES)
    digits = (idx[:, None] // 5 ** np.arange(6)[None, :]) % 5
    alive = digits < 4
    mov = np.full((_STATES, 6, 2), -1, dtype=np.int64)  # cubes (0-based) each die lets move
    for s in range(_STATES):
        al = alive[s]
        for d in range(6):
            if al[d]:
                mov[s, d, 0] = d
                continue
            mov[s, d, 0] = next((k for k in range(d - 1, -1, -1) if al[k]), -1)
            mov[s, d, 1] = next((k for k in range(d + 1, 6) if al[k]), -1)
    f = np.zeros((_STATES, _STRIDE))
    step = 5 ** np.arange(6)
    for t in range(1, _STRIDE):
        prev = f[:, t - 1]
        total = np.zeros(_STATES)
        for d in range(6):
            best = np.zeros(_STATES)
            for j in range(2):
                k = mov[:, d, j]
                ok = k >= 0
                kk = np.where(ok, k, 0)
                home = digits[idx, kk] == 0  # one step from the goal: this move wins
                after = np.clip(idx - step[kk], 0, _STATES - 1)
                best = np.maximum(best, np.where(ok, np.where(home, 1.0, prev[after]), 0.0))
            total += best
        f[:, t] = total / 6.0
    return f.reshape(-1)


RACE_TABLE = race_table()  # read-only; numba compiles it in as a constant


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


@hot
def race_code(b: int, p: int) -> int:
    """Player ``p``'s row of :data:`RACE_TABLE`; -1 when a cube stands on its goal."""
    code = 0
    w = 1
    for k in range(1, 7):
        cell = cube_cell(b, p, k)
        digit = 4
        if cell != GONE:
            digit = distance(p, cell) - 1
            if digit < 0:
                return -1
        code += digit * w
        w *= 5
    return code


@hot
def race_odds(b: int, me: int, die: int) -> float:
    """The chance that ``me`` (to move; holding ``die`` when > 0, else about to roll) wins the
    race against the other side, both racing alone."""
    cm = race_code(b, me)
    co = race_code(b, 1 - me)
    if cm < 0:
        return 1.0
    if co < 0:
        return 0.0
    k1 = 0
    k2 = 0
    if die > 0:
        k1, k2 = movable(b, me, die)
    total = 0.0
    prev_me = 0.0
    w = 1
    for t in range(1, _STRIDE):
        if die > 0:  # the first turn's cube is known: the best of the (one or two) choices
            f = 0.0
            w = 1
            for k in range(1, 7):
                if k == k1 or k == k2:
                    cell = cube_cell(b, me, k)
                    d = distance(me, cell)
                    v = 1.0 if d == 1 else RACE_TABLE[(cm - w) * _STRIDE + t - 1]
                    f = max(f, v)
                w *= 5
        else:
            f = RACE_TABLE[cm * _STRIDE + t]
        total += (f - prev_me) * (1.0 - RACE_TABLE[co * _STRIDE + t - 1])
        prev_me = f
    return total


@hot
def evaluate_odds(g, s, params) -> float:
    b = s[0]
    me = (s[1] >> 2) & 1
    die = (s[1] >> 3) & 7 if (s[1] & 3) == 3 else 0
    if (s[1] & 3) < 2:  # set-up not finished: no estimate
        return 0.0
    p = race_odds(b, me, die)
    return params[1] * math.tanh(params[0] * (2.0 * p - 1.0))


HEURISTICS = {"odds": evaluate_odds, "race": evaluate_race}

# Each heuristic's parameters, in the order ``params`` holds them (base.params.Param).
_TOP = Param("top", 0.9, 0.0, 1.0, "the largest |estimate| (below the win value 1)")
PARAMS = {
    "odds": (Param("sharpness", 1.5, 0.0, 100.0, "slope of the estimate at even odds"), _TOP),
    "race": (
        Param("race", 0.4, -100.0, 100.0, "weight of a turn of race time"),
        Param("material", 0.15, -100.0, 100.0, "weight of a cube of material"),
        Param("tempo", 0.5, -100.0, 100.0, "the mover's head start, in turns"),
        _TOP,
    ),
}
DEFAULT_PARAMS = default_lists(PARAMS)
