"""Hot loops of counterfactual regret minimization on a game tree laid out flat
(:mod:`agents.engine.cfr`): the forward pass of reach probabilities, the backward pass of values
and regrets, regret matching (plus: regrets floored at zero, CFR+), in numba's subset.

The tree: nodes numbered breadth first, so a node's children are contiguous and after it
(``G_KID0`` the first, ``G_KIDS`` how many). A node's ``G_PLAYER`` is 0, 1, ``CHANCE`` or
``TERMINAL``; a decision node's ``G_SLOT`` is its information set's first action slot (the
policy, regret and average arrays hold one float a slot; the set's actions, in the order of
``legal``, take the slots that follow). ``GF_PROB`` is the chance probability of the edge into a
node (1 below a decision), ``GF_OUTCOME`` player 0's return at a terminal node. Information
sets: ``GS_SLOT``, ``GS_COUNT`` (its actions) and ``GS_PLAYER``. The work array holds, per node,
the reach of player 0, player 1 and chance, and player 0's value (``GW_``).
"""
from __future__ import annotations

from base.jit import hot
from base.layout import Layout

CHANCE = -1  # core.game.CHANCE (a literal: numba reads module globals as constants)
TERMINAL = -2
NOBODY = -3  # ``values``' player when no regrets are updated
NODE = Layout("G_", "PLAYER SLOT KID0 KIDS")
G_PLAYER, G_SLOT, G_KID0, G_KIDS = NODE.slots
EDGE = Layout("GF_", "PROB OUTCOME")
GF_PROB, GF_OUTCOME = EDGE.slots
INFOSET = Layout("GS_", "SLOT COUNT PLAYER")
GS_SLOT, GS_COUNT, GS_PLAYER = INFOSET.slots
WORK = Layout("GW_", "R0 R1 RC VALUE")
GW_R0, GW_R1, GW_RC, GW_VALUE = WORK.slots


@hot
def reach(nodes, edges, policy, work):
    """Each node's reach probability by player 0's, player 1's and chance's actions under ``policy``."""
    work[0, GW_R0] = 1.0
    work[0, GW_R1] = 1.0
    work[0, GW_RC] = 1.0
    for n in range(nodes.shape[0]):
        who = nodes[n, G_PLAYER]
        slot = nodes[n, G_SLOT]
        for j in range(nodes[n, G_KIDS]):
            c = nodes[n, G_KID0] + j
            work[c, GW_R0] = work[n, GW_R0]
            work[c, GW_R1] = work[n, GW_R1]
            work[c, GW_RC] = work[n, GW_RC]
            if who == CHANCE:
                work[c, GW_RC] *= edges[c, GF_PROB]
            elif who == 0:
                work[c, GW_R0] *= policy[slot + j]
            else:
                work[c, GW_R1] *= policy[slot + j]


@hot
def values(nodes, edges, policy, work, regret, total, player, weight):
    """Player 0's value of each node under ``policy`` (after :func:`reach`); at ``player``'s
    decisions (0 or 1; ``NOBODY``: none) add the counterfactual regrets to ``regret`` and
    ``weight`` times the player's reach-weighted policy to ``total`` (the average's sums)."""
    for n in range(nodes.shape[0] - 1, -1, -1):
        who = nodes[n, G_PLAYER]
        if who == TERMINAL:
            work[n, GW_VALUE] = edges[n, GF_OUTCOME]
            continue
        slot = nodes[n, G_SLOT]
        kid0 = nodes[n, G_KID0]
        v = 0.0
        for j in range(nodes[n, G_KIDS]):
            p = edges[kid0 + j, GF_PROB] if who == CHANCE else policy[slot + j]
            v += p * work[kid0 + j, GW_VALUE]
        work[n, GW_VALUE] = v
        if who != player:
            continue
        sign = 1.0 if player == 0 else -1.0
        other = work[n, GW_R1] if player == 0 else work[n, GW_R0]
        own = work[n, GW_R0] if player == 0 else work[n, GW_R1]
        for j in range(nodes[n, G_KIDS]):
            regret[slot + j] += sign * other * work[n, GW_RC] * (work[kid0 + j, GW_VALUE] - v)
            total[slot + j] += weight * own * policy[slot + j]


@hot
def regret_matching(infosets, regret, policy, player, plus):
    """``player``'s policy proportional to its positive regrets (uniform where none is); with
    ``plus`` its negative regrets are set to zero first (CFR+)."""
    for i in range(infosets.shape[0]):
        if infosets[i, GS_PLAYER] != player:
            continue
        slot = infosets[i, GS_SLOT]
        k = infosets[i, GS_COUNT]
        positive = 0.0
        for j in range(k):
            if plus and regret[slot + j] < 0.0:
                regret[slot + j] = 0.0
            positive += max(regret[slot + j], 0.0)
        for j in range(k):
            policy[slot + j] = max(regret[slot + j], 0.0) / positive if positive > 0.0 else 1.0 / k


@hot
def iterate(nodes, edges, infosets, policy, work, regret, total, t, plus):
    """One iteration ``t`` (from 1) with alternating updates: for each player, the passes under
    the current policy, its regrets and average sums updated (weight ``t`` with ``plus``, CFR+'s
    linear averaging; else 1), then its policy by regret matching."""
    for player in range(2):
        reach(nodes, edges, policy, work)
        values(nodes, edges, policy, work, regret, total, player, float(t) if plus else 1.0)
        regret_matching(infosets, regret, policy, player, plus)
