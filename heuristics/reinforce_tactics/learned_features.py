"""The learned evaluation's input: a fixed-size feature vector of a Reinforce Tactics state, the
same length on every map (6x6 to 20x20), built by one hot kernel (:func:`features`).

Layout (named, ``F_*``): two per-side blocks of :data:`PF` words, the side to move first
(``F_ME``), the other side second (``F_OPP``), then the global words. A side's block
(offsets ``PF_*`` within it):

- ``PF_COUNT + t - 1``: its units of type ``t`` (1..8, W M C A K R S B);
- ``PF_MATERIAL``: the sum of ``cost * hp / max_hp`` over its units (gold);
- ``PF_HP``: the sum of its units' hit points;
- ``PF_GOLD``: gold in hand; ``PF_INCOME``: the income its structures pay a turn;
- ``PF_BUILDINGS``, ``PF_HQS``, ``PF_TOWERS``: structures it owns, by kind;
- ``PF_HQ_HP``: the hit points of its HQs as a share of their maximum (summed over its HQs);
- ``PF_HQ_DIST``: the smallest Manhattan distance from one of its units to an enemy HQ
  (``MAX_DIST`` without units or enemy HQ);
- ``PF_NEAR_HQ``: its units within ``NEAR`` cells of an enemy HQ (a threat on it);
- ``PF_SEIZING``: its units standing on a structure not its side's; ``PF_SEIZE_TAKEN``: the
  share of hit points those structures have lost (summed);
- ``PF_PARALYSED``: its paralysed units; ``PF_READY``: its units that may still move or act;
- ``PF_ADVANCE``: the sum over its units of ``MAX_DIST - distance to the nearest enemy HQ``.

Global words: ``F_STEP`` (single turns played), ``F_STRUCTS`` (structures on the map),
``F_NEUTRAL`` (neutral ones), ``F_HAND`` (the hand heuristic's value for the side to move with
its default weights, in ``(-top, top)``: the model starts from what the hand-written evaluation
knows). Words are in natural units; the model standardises them (mean and scale in its file).
"""
from __future__ import annotations

from base.jit import hot
from core.reinforce_tactics.kernels import dist
from core.reinforce_tactics.layout import (
    COST,
    G_NS,
    G_STRUCT_CELL,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_PLAYER,
    H_STEP,
    INCOME,
    MAX_HP,
    S_BASE,
    S_HP,
    S_OWNER,
    SF,
    STRUCT_MAX_HP_BY_CODE,
    TR_BUILDING,
    TR_HQ,
    TR_TOWER,
    U_BASE,
    U_CAN_ACT,
    U_CAN_MOVE,
    U_CELL,
    U_HP,
    U_PARALYZED,
    U_TYPE,
    UF,
    UMAX,
    H,
    W,
)
from heuristics.reinforce_tactics import evaluate as hand_evaluate
from heuristics.reinforce_tactics.params import Weights

MAX_DIST = W + H - 2
NEAR = 3  # cells from an enemy HQ that count as near it (PF_NEAR_HQ)
HAND = tuple(Weights().vector())  # the hand heuristic's default weights (F_HAND)

PF_COUNT = 0  # 8 words, by unit type
PF_MATERIAL = 8
PF_HP = 9
PF_GOLD = 10
PF_INCOME = 11
PF_BUILDINGS = 12
PF_HQS = 13
PF_TOWERS = 14
PF_HQ_HP = 15
PF_HQ_DIST = 16
PF_NEAR_HQ = 17
PF_SEIZING = 18
PF_SEIZE_TAKEN = 19
PF_PARALYSED = 20
PF_READY = 21
PF_ADVANCE = 22
PF = 23

F_ME = 0
F_OPP = PF
F_STEP = 2 * PF
F_STRUCTS = F_STEP + 1
F_NEUTRAL = F_STEP + 2
F_HAND = F_STEP + 3
NF = F_STEP + 4

NAMES = tuple([f"{side}_{n}" for side in ("me", "opp") for n in
               [f"count_{c}" for c in "WMCAKRSB"] + ["material", "hp", "gold", "income", "buildings", "hqs", "towers",
                                                     "hq_hp", "hq_dist", "near_hq", "seizing", "seize_taken",
                                                     "paralysed", "ready", "advance"]]
              + ["step", "structs", "neutral", "hand"])
assert len(NAMES) == NF


@hot
def structures_block(g, s, me: int, out) -> None:
    """The structure words of both sides' blocks, and ``F_STRUCTS``, ``F_NEUTRAL``."""
    ns = g[G_NS]
    out[F_STRUCTS] = ns
    for si in range(ns):
        owner = s[S_BASE + si * SF + S_OWNER]
        if owner < 0:
            out[F_NEUTRAL] += 1
            continue
        b = F_ME if owner == me else F_OPP
        tr = g[G_TERRAIN + g[G_STRUCT_CELL + si]]
        out[b + PF_INCOME] += INCOME[tr]
        if tr == TR_BUILDING:
            out[b + PF_BUILDINGS] += 1
        elif tr == TR_TOWER:
            out[b + PF_TOWERS] += 1
        elif tr == TR_HQ:
            out[b + PF_HQS] += 1
            out[b + PF_HQ_HP] += s[S_BASE + si * SF + S_HP] / STRUCT_MAX_HP_BY_CODE[TR_HQ]


@hot
def unit_words(g, s, p: int, c: int, b: int, out) -> None:
    """The position words of player ``p``'s unit on cell ``c`` into the block at ``b``."""
    near_hq = MAX_DIST
    for si in range(g[G_NS]):
        sbase = S_BASE + si * SF
        o = s[sbase + S_OWNER]
        sc = g[G_STRUCT_CELL + si]
        tr = g[G_TERRAIN + sc]
        if sc == c and o != p:
            out[b + PF_SEIZING] += 1
            out[b + PF_SEIZE_TAKEN] += 1.0 - s[sbase + S_HP] / STRUCT_MAX_HP_BY_CODE[tr]
        if o >= 0 and o != p and tr == TR_HQ:
            d = dist(c, sc)
            if d < near_hq:
                near_hq = d
    if near_hq < out[b + PF_HQ_DIST]:
        out[b + PF_HQ_DIST] = near_hq
    if near_hq <= NEAR:
        out[b + PF_NEAR_HQ] += 1
    out[b + PF_ADVANCE] += MAX_DIST - near_hq


@hot
def units_block(g, s, me: int, out) -> None:
    """The unit words of both sides' blocks."""
    for p in range(2):
        b = F_ME if p == me else F_OPP
        out[b + PF_HQ_DIST] = MAX_DIST
        for k in range(s[H_COUNT + p]):
            u = U_BASE + (p * UMAX + k) * UF
            t = s[u + U_TYPE]
            out[b + PF_COUNT + t - 1] += 1
            out[b + PF_MATERIAL] += COST[t] * s[u + U_HP] / MAX_HP[t]
            out[b + PF_HP] += s[u + U_HP]
            if s[u + U_PARALYZED] > 0:
                out[b + PF_PARALYSED] += 1
            if s[u + U_CAN_MOVE] != 0 or s[u + U_CAN_ACT] != 0:
                out[b + PF_READY] += 1
            unit_words(g, s, p, s[u + U_CELL], b, out)


@hot
def features(g, s, out) -> None:
    """The feature vector of state ``s`` (module docstring) into ``out`` (:data:`NF` floats),
    for the side to move (``H_PLAYER``)."""
    for i in range(NF):
        out[i] = 0.0
    me = s[H_PLAYER]
    structures_block(g, s, me, out)
    units_block(g, s, me, out)
    out[F_ME + PF_GOLD] = s[H_GOLD + me]
    out[F_OPP + PF_GOLD] = s[H_GOLD + 1 - me]
    out[F_STEP] = s[H_STEP]
    out[F_HAND] = hand_evaluate(g, s, HAND)
