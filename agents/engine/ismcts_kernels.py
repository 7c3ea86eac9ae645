"""Hot loops of single-observer IS-MCTS (:mod:`agents.engine.ismcts`, ``tree_states=N``) over the
flat game tree of :mod:`agents.engine.cfr_kernels` (``G_`` / ``GF_`` layouts), in numba's subset.

The search tree's nodes are the flat tree's information sets: ``stats`` (``IS_``) holds per
action slot its visits and the summed rewards of its mover, and at a set's first slot 1 in
``IS_SEEN`` once the set is in the tree. A simulation starts at a determinization (a member node of the root's
information set, drawn by the chance probabilities that reach it: ``members`` and their
cumulative ``weights``), selects by UCT (an untried action first, at random), samples chance,
adds the first information set not in the tree and scores it by a uniformly random playout, as
the plain agent does. ``path`` keeps each simulation's nodes and actions (MCCFR's walk layout,
``MW_``). Random
numbers: one xorshift32 stream threaded through and returned.
"""
from __future__ import annotations

import math

from agents.engine.cfr_kernels import CHANCE, G_KID0, G_KIDS, G_PLAYER, G_SLOT, GF_OUTCOME, TERMINAL
from agents.engine.mccfr_kernels import MW_NODE, MW_PICK, draw_chance, uniform
from base.jit import hot
from base.layout import Layout
from base.xorshift import rng_next

STATS = Layout("IS_", "VISITS TOTAL SEEN")
IS_VISITS, IS_TOTAL, IS_SEEN = STATS.slots


@hot
def determinization(members, weights, rng):
    """(a member node drawn by the cumulative ``weights``, rng)."""
    u, rng = uniform(rng)
    target = u * weights[weights.shape[0] - 1]
    for i in range(members.shape[0]):
        if target < weights[i]:
            return members[i], rng
    return members[members.shape[0] - 1], rng


@hot
def select(stats, slot, k, c, rng):
    """(the action to try at the set of ``slot``: an untried one at random, else UCT's, rng)."""
    untried = 0
    n = 0
    for j in range(k):
        if stats[slot + j, IS_VISITS] == 0:
            untried += 1
        n += stats[slot + j, IS_VISITS]
    if untried > 0:
        rng = rng_next(rng)
        pick = rng % untried
        for j in range(k):
            if stats[slot + j, IS_VISITS] == 0:
                if pick == 0:
                    return j, rng
                pick -= 1
    log_n = math.log(n)
    best = 0
    best_score = -1.0e300
    for j in range(k):
        v = stats[slot + j, IS_VISITS]
        score = stats[slot + j, IS_TOTAL] / v + c * math.sqrt(log_n / v)
        if score > best_score:
            best_score = score
            best = j
    return best, rng


@hot
def playout(nodes, edges, n, rng):
    """(player 0's return at the end of a uniformly random playout from node ``n``, rng)."""
    while nodes[n, G_PLAYER] != TERMINAL:
        kid0 = nodes[n, G_KID0]
        if nodes[n, G_PLAYER] == CHANCE:
            j, rng = draw_chance(edges, kid0, nodes[n, G_KIDS], rng)
        else:
            rng = rng_next(rng)
            j = rng % nodes[n, G_KIDS]
        n = kid0 + j
    return edges[n, GF_OUTCOME], rng


@hot
def simulate(nodes, edges, n, stats, path, c, scale, rng):
    """One simulation from node ``n``: select, add one information set, play out, back up."""
    depth = 0
    while nodes[n, G_PLAYER] != TERMINAL:
        who = nodes[n, G_PLAYER]
        kid0 = nodes[n, G_KID0]
        k = nodes[n, G_KIDS]
        if who == CHANCE:
            j, rng = draw_chance(edges, kid0, k, rng)
            n = kid0 + j
            continue
        slot = nodes[n, G_SLOT]
        if stats[slot, IS_SEEN] == 0:  # the new leaf: scored by the playout from here
            stats[slot, IS_SEEN] = 1.0
            break
        j, rng = select(stats, slot, k, c, rng)
        path[depth, MW_NODE] = n
        path[depth, MW_PICK] = j
        depth += 1
        n = kid0 + j
    r0, rng = playout(nodes, edges, n, rng)
    r0 *= scale
    for d in range(depth):
        m = path[d, MW_NODE]
        a = nodes[m, G_SLOT] + path[d, MW_PICK]
        stats[a, IS_VISITS] += 1.0
        stats[a, IS_TOTAL] += r0 if nodes[m, G_PLAYER] == 0 else -r0
    return rng


@hot
def search(nodes, edges, members, weights, stats, path, sims, c, scale, rng):
    """``sims`` simulations, each from a new determinization. Returns rng."""
    for _ in range(sims):
        n, rng = determinization(members, weights, rng)
        rng = simulate(nodes, edges, n, stats, path, c, scale, rng)
    return rng
