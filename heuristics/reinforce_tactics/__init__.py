"""Reinforce Tactics heuristic on the engine's ``evaluate(g, s, params)`` signature: an estimate
of the game for the player whose turn it is (``H_PLAYER``; at a Rogue's chance node, the
attacker's side), in outcome units inside ``(-top, top)``. Weights: :mod:`.params`.

``standard`` sums, in gold, the mover's side minus the other side's:

- **units**: ``w_material * cost * (hp_floor + (1 - hp_floor) * hp / max_hp)``, times
  ``1 - w_paralysed`` while paralysed;
- **gold** in hand: ``w_gold`` a coin;
- **structures**: an owned one is worth ``V = w_income * income (+ w_hq for an HQ)``; while an
  enemy (of its owner) unit stands on it, the share of hit points it has taken (``1 - hp /
  max``) moves ``w_seize`` times that share of ``V`` from the owner to the seizer (neutral
  structures: to the seizer only), and a unit standing on a structure not its side's earns
  ``w_occupy * V`` (a seizure next);
- **position**: per unit, ``w_advance`` per cell nearer the nearest enemy HQ (tower_rush has
  two a side) and ``w_capture`` per
  cell nearer the nearest structure not its side's (Manhattan, from ``MAX_DIST``);

and returns ``top * z / (scale + |z|)``: bounded, and strictly monotone in ``z`` at every size
(a ``tanh`` rounds to ``top`` in floats past ``z = 19 scale``: the planner, comparing equal
scores, stopped acting in won positions worth 60,000 gold and lost two games on tower_rush). Finished games score ``±top`` (0 for a draw): a search
scores terminal states by their outcome. The two sides are treated alike, so a position and its
image with the sides swapped score opposite values (``tests/test_rt_agents.py``).
"""
from __future__ import annotations

from base.jit import hot
from core.reinforce_tactics.kernels import dist, unit_at
from core.reinforce_tactics.layout import (
    COST,
    G_NS,
    G_STRUCT_CELL,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_OVER,
    H_PLAYER,
    H_WINNER,
    INCOME,
    MAX_HP,
    NSMAX,
    S_BASE,
    S_HP,
    S_OWNER,
    SF,
    STRUCT_MAX_HP_BY_CODE,
    TR_HQ,
    U_BASE,
    U_CELL,
    U_HP,
    U_PARALYZED,
    U_TYPE,
    UF,
    UMAX,
    H,
    W,
)
from heuristics.reinforce_tactics.params import (
    P_ADVANCE,
    P_CAPTURE,
    P_GOLD,
    P_HP_FLOOR,
    P_HQ,
    P_INCOME,
    P_MATERIAL,
    P_OCCUPY,
    P_PARALYSED,
    P_SCALE,
    P_SEIZE,
    P_TOP,
    Weights,
    declared,
)

MAX_DIST = W + H - 2  # the largest Manhattan distance on the board: position terms count from it


@hot
def structure_value(g, s, si: int, params) -> float:
    """``V`` of structure ``si``: income and, for an HQ, ``w_hq``."""
    tr = g[G_TERRAIN + g[G_STRUCT_CELL + si]]
    v = params[P_INCOME] * INCOME[tr]
    if tr == TR_HQ:
        v += params[P_HQ]
    return v


@hot
def structures_score(g, s, me: int, params) -> float:
    """The structures' terms (module docstring), ``me``'s side minus the other's."""
    z = 0.0
    for si in range(g[G_NS]):
        b = S_BASE + si * SF
        c = g[G_STRUCT_CELL + si]
        owner = s[b + S_OWNER]
        v = structure_value(g, s, si, params)
        taken = 1.0 - s[b + S_HP] / STRUCT_MAX_HP_BY_CODE[g[G_TERRAIN + c]]
        if owner >= 0:
            z += v if owner == me else -v
        gu = unit_at(s, c)
        if gu < 0:
            continue
        side = gu // UMAX
        if side == owner:
            continue
        gain = v * (params[P_OCCUPY] + params[P_SEIZE] * taken)
        if owner >= 0:
            gain += v * params[P_SEIZE] * taken  # what the owner loses, as the seizer gains it
        z += gain if side == me else -gain
    return z


@hot
def position_value(g, s, p: int, c: int, params) -> float:
    """Player ``p``'s unit on cell ``c``: ``w_advance`` per cell nearer the nearest enemy HQ,
    ``w_capture`` per cell nearer the nearest structure not ``p``'s (from ``MAX_DIST``)."""
    near_hq = MAX_DIST
    near_target = MAX_DIST
    for si in range(g[G_NS]):
        o = s[S_BASE + si * SF + S_OWNER]
        if o != p:
            sc = g[G_STRUCT_CELL + si]
            d = dist(c, sc)
            if d < near_target:
                near_target = d
            if o >= 0 and d < near_hq and g[G_TERRAIN + sc] == TR_HQ:
                near_hq = d
    return params[P_ADVANCE] * (MAX_DIST - near_hq) + params[P_CAPTURE] * (MAX_DIST - near_target)


@hot
def units_score(g, s, me: int, params) -> float:
    """The units' material and position terms, ``me``'s side minus the other's."""
    z = 0.0
    for p in range(2):
        side = 0.0
        for k in range(s[H_COUNT + p]):
            u = U_BASE + (p * UMAX + k) * UF
            t = s[u + U_TYPE]
            health = params[P_HP_FLOOR] + (1.0 - params[P_HP_FLOOR]) * s[u + U_HP] / MAX_HP[t]
            value = params[P_MATERIAL] * COST[t] * health
            if s[u + U_PARALYZED] > 0:
                value *= 1.0 - params[P_PARALYSED]
            side += value + position_value(g, s, p, s[u + U_CELL], params)
        z += side if p == me else -side
    return z


@hot
def advantage(g, s, params) -> float:
    """``z``: the side to move's advantage in gold before the squash (module docstring)."""
    me = s[H_PLAYER]
    z = units_score(g, s, me, params)
    z += structures_score(g, s, me, params)
    z += params[P_GOLD] * (s[H_GOLD + me] - s[H_GOLD + 1 - me])
    return z


@hot
def evaluate(g, s, params) -> float:
    top = params[P_TOP]
    if s[H_OVER] != 0:
        w = s[H_WINNER]
        return 0.0 if w < 0 else (top if w == s[H_PLAYER] else -top)
    z = advantage(g, s, params)
    return top * z / (params[P_SCALE] + abs(z))


HEURISTICS = {"standard": evaluate}
FILE_HEURISTICS = {"learned": "heuristics.reinforce_tactics.learned"}  # weights= a trained model (.npz): learned.py
PARAMS = {"standard": declared()}  # the Weights fields, by name (heuristics.reinforce_tactics.params)
DEFAULT_PARAMS = {"standard": Weights().vector()}
assert NSMAX * SF + S_BASE <= U_BASE
