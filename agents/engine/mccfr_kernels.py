"""Hot loops of Monte Carlo CFR (:mod:`agents.engine.mccfr`) on the flat game tree of
:mod:`agents.engine.cfr_kernels` (its ``G_`` / ``GF_`` / ``GS_`` layouts), in numba's subset:
external sampling (:func:`external`) and outcome sampling (:func:`outcome`).

No recursion: the tree is breadth first (a node's children come after it), so external
sampling lists the nodes of its sampled walk in a queue (``walk``, ``MW_``: each node and, where one
was sampled, its child; children after their parent) and
takes their values in the queue's reverse order; outcome sampling keeps its one sampled line in
``walk`` too (``MW_``: the node and the action drawn) and ``reach`` (``OR_``: the updated player's,
the others' and the sampling's reach to that node), then walks it back.

The current policy is regret matching on ``regret`` (uniform where no regret is positive),
read where it is needed. Random numbers: one xorshift32 stream (:func:`base.xorshift.rng_next`)
threaded through the calls and returned, so the compiled and plain paths draw the same numbers.
"""
from __future__ import annotations

from agents.engine.cfr_kernels import CHANCE, G_KID0, G_KIDS, G_PLAYER, G_SLOT, GF_OUTCOME, GF_PROB, TERMINAL
from base.jit import hot
from base.layout import Layout
from base.xorshift import rng_next

WALK = Layout("MW_", "NODE PICK")
MW_NODE, MW_PICK = WALK.slots
REACH = Layout("OR_", "MINE OTHER SAMPLED")
OR_MINE, OR_OTHER, OR_SAMPLED = REACH.slots


@hot
def positive(regret, slot, k):
    """The sum of the positive regrets of the ``k`` actions from ``slot`` (0: play uniformly)."""
    s = 0.0
    for j in range(k):
        s += max(regret[slot + j], 0.0)
    return s


@hot
def share(regret, slot, k, j, pos):
    """Action ``j``'s probability under regret matching (``pos``: :func:`positive`)."""
    return max(regret[slot + j], 0.0) / pos if pos > 0.0 else 1.0 / k


@hot
def uniform(rng):
    """(a float in [0, 1), the next rng state)."""
    rng = rng_next(rng)
    return (rng - 1) / 4294967295.0, rng


@hot
def prob(edges, regret, kid0, slot, k, j, mix, pos):
    """Child ``j``'s probability: chance's into ``kid0 + j`` where ``slot`` < 0, else regret
    matching's at ``slot`` (``pos``: :func:`positive`) mixed with ``mix`` of the uniform policy."""
    if slot < 0:
        return edges[kid0 + j, GF_PROB]
    return mix / k + (1.0 - mix) * share(regret, slot, k, j, pos)


@hot
def draw(edges, regret, kid0, slot, k, mix, rng):
    """(a child index drawn by :func:`prob`, rng); never one of probability 0."""
    pos = positive(regret, slot, k) if slot >= 0 else 0.0
    u, rng = uniform(rng)
    target = u
    last = 0
    for j in range(k):
        p = prob(edges, regret, kid0, slot, k, j, mix, pos)
        if p > 0.0:
            last = j
            if target < p:
                return j, rng
            target -= p
    return last, rng


@hot
def draw_chance(edges, kid0, k, rng):
    """(a child index drawn by the chance probabilities into ``kid0 .. kid0 + k - 1``, rng)."""
    return draw(edges, edges[:, GF_PROB], kid0, -1, k, 0.0, rng)


@hot
def external_walk(nodes, edges, regret, total, walk, value, player, rng):
    """One external-sampling walk for ``player``: every action of its own, one sampled of the
    opponent (whose policy goes into ``total``) and of chance, the nodes queued in ``walk``
    (``MW_``); then their values and ``player``'s regrets (:func:`external_values`). Returns rng."""
    walk[0, MW_NODE] = 0
    size = 1
    i = 0
    while i < size:
        n = walk[i, MW_NODE]
        walk[i, MW_PICK] = -1
        i += 1
        who = nodes[n, G_PLAYER]
        if who == TERMINAL:
            continue
        kid0 = nodes[n, G_KID0]
        k = nodes[n, G_KIDS]
        if who == player:
            for j in range(k):
                walk[size + j, MW_NODE] = kid0 + j
            size += k
            continue
        if who == CHANCE:
            j, rng = draw(edges, regret, kid0, -1, k, 0.0, rng)
        else:
            slot = nodes[n, G_SLOT]
            pos = positive(regret, slot, k)
            for a in range(k):
                total[slot + a] += share(regret, slot, k, a, pos)
            j, rng = draw(edges, regret, kid0, slot, k, 0.0, rng)
        walk[i - 1, MW_PICK] = kid0 + j
        walk[size, MW_NODE] = kid0 + j
        size += 1
    external_values(nodes, edges, regret, walk, value, size, player)
    return rng


@hot
def external_values(nodes, edges, regret, walk, value, size, player):
    """The sampled values (``player``'s) of the walk's ``size`` nodes, children first (the queue
    backwards), and the regrets of ``player``'s information sets on it."""
    sign = 1.0 if player == 0 else -1.0
    for i in range(size - 1, -1, -1):
        n = walk[i, MW_NODE]
        who = nodes[n, G_PLAYER]
        if who == TERMINAL:
            value[n] = sign * edges[n, GF_OUTCOME]
        elif who != player:
            value[n] = value[walk[i, MW_PICK]]
        else:
            slot = nodes[n, G_SLOT]
            kid0 = nodes[n, G_KID0]
            k = nodes[n, G_KIDS]
            pos = positive(regret, slot, k)
            v = 0.0
            for j in range(k):
                v += share(regret, slot, k, j, pos) * value[kid0 + j]
            for j in range(k):
                regret[slot + j] += value[kid0 + j] - v
            value[n] = v


@hot
def external(nodes, edges, regret, total, walk, value, iterations, rng):
    """``iterations`` of external sampling (a walk for player 0, then for player 1). Returns rng."""
    for _ in range(iterations):
        for player in range(2):
            rng = external_walk(nodes, edges, regret, total, walk, value, player, rng)
    return rng


@hot
def outcome_line(nodes, edges, regret, walk, reach, player, mix, rng):
    """Draw one line from the root for ``player``: chance by its probabilities, the opponent by
    its policy, ``player`` by its policy mixed with ``mix`` of the uniform one; each node, its
    draw and the reaches to it into ``walk`` and ``reach``. Returns (the terminal's depth, rng)."""
    n = 0
    mine = 1.0
    other = 1.0
    sampled = 1.0
    d = 0
    while True:
        walk[d, MW_NODE] = n
        reach[d, OR_MINE] = mine
        reach[d, OR_OTHER] = other
        reach[d, OR_SAMPLED] = sampled
        who = nodes[n, G_PLAYER]
        if who == TERMINAL:
            return d, rng
        kid0 = nodes[n, G_KID0]
        k = nodes[n, G_KIDS]
        if who == CHANCE:
            j, rng = draw(edges, regret, kid0, -1, k, 0.0, rng)
            other *= edges[kid0 + j, GF_PROB]
            sampled *= edges[kid0 + j, GF_PROB]
        else:
            slot = nodes[n, G_SLOT]
            m = mix if who == player else 0.0
            j, rng = draw(edges, regret, kid0, slot, k, m, rng)
            pi = share(regret, slot, k, j, positive(regret, slot, k))
            if who == player:
                mine *= pi
            else:
                other *= pi
            sampled *= m / k + (1.0 - m) * pi
        walk[d, MW_PICK] = j
        n = kid0 + j
        d += 1


@hot
def outcome_update(nodes, edges, regret, total, walk, reach, last, player, mix):
    """Back up the line :func:`outcome_line` drew (``last``: its terminal's depth): the sampled
    value, corrected by the sampling probability at each of the line's decisions, and at
    ``player``'s its regrets and (weighted by its reach over the sampling's) its average's sums."""
    sign = 1.0 if player == 0 else -1.0
    child = sign * edges[walk[last, MW_NODE], GF_OUTCOME]
    for d in range(last - 1, -1, -1):
        n = walk[d, MW_NODE]
        who = nodes[n, G_PLAYER]
        if who == CHANCE:
            continue
        slot = nodes[n, G_SLOT]
        k = nodes[n, G_KIDS]
        j = walk[d, MW_PICK]
        m = mix if who == player else 0.0
        pos = positive(regret, slot, k)
        pi = share(regret, slot, k, j, pos)
        x = child / (m / k + (1.0 - m) * pi)  # the drawn action's value; the others' are 0
        v = pi * x
        if who == player:
            weight = reach[d, OR_OTHER] / reach[d, OR_SAMPLED]
            for a in range(k):
                q = share(regret, slot, k, a, pos)
                regret[slot + a] += ((x if a == j else 0.0) - v) * weight
                total[slot + a] += reach[d, OR_MINE] * q / reach[d, OR_SAMPLED]
        child = v


@hot
def outcome(nodes, edges, regret, total, walk, reach, iterations, mix, rng):
    """``iterations`` of outcome sampling (a line for player 0, then for player 1; ``mix``: the
    exploration). Returns rng."""
    for _ in range(iterations):
        for player in range(2):
            last, rng = outcome_line(nodes, edges, regret, walk, reach, player, mix, rng)
            outcome_update(nodes, edges, regret, total, walk, reach, last, player, mix)
    return rng
