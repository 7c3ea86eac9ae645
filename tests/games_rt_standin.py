"""A stand-in Reinforce Tactics evaluation for the turn searches' tests (the project's own
heuristic lives in heuristics/reinforce_tactics/): material (unit costs scaled by hit points),
gold and structures owned, for the side to move. Deliberately plain; a test game subclass
(:class:`StandInRT`) names it as its heuristics module."""
from __future__ import annotations

from core.reinforce_tactics import ReinforceTactics
from core.reinforce_tactics.layout import (
    COST,
    G_NS,
    H_COUNT,
    H_GOLD,
    H_PLAYER,
    MAX_HP,
    S_BASE,
    S_OWNER,
    SF,
    U_BASE,
    U_HP,
    U_TYPE,
    UF,
    UMAX,
)
from util.jit import hot

STRUCTURE_WORTH = 150.0  # gold a structure owned is worth
UNIT_WORTH = 1.5  # a unit at full health is worth this times its cost (recruiting pays)


@hot
def side_worth(g, s, p: int) -> float:
    v = float(s[H_GOLD + p])
    for k in range(s[H_COUNT + p]):
        b = U_BASE + (p * UMAX + k) * UF
        t = s[b + U_TYPE]
        if t > 0:
            v += UNIT_WORTH * COST[t] * (0.5 + 0.5 * s[b + U_HP] / MAX_HP[t])
    for si in range(g[G_NS]):
        if s[S_BASE + si * SF + S_OWNER] == p:
            v += STRUCTURE_WORTH
    return v


@hot
def evaluate_material(g, s, params) -> float:
    p = s[H_PLAYER]
    return (side_worth(g, s, p) - side_worth(g, s, 1 - p)) / 1000.0


HEURISTICS = {"material": evaluate_material}


class StandInRT(ReinforceTactics):
    """Reinforce Tactics with the stand-in evaluation as its heuristics."""

    heuristics = "tests.games_rt_standin"
