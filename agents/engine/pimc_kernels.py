"""Hot loops of PIMC (:mod:`agents.engine.pimc`, ``tree_states=N``) over the flat game tree of
:mod:`agents.engine.cfr_kernels` (``G_`` / ``GF_`` layouts), in numba's subset.

A determinization is a member node of the root's information set, drawn by the chance
probabilities that reach it (``members`` and their cumulative ``weights``, as IS-MCTS's flat
search draws them). Each sample is searched as if everything were seen, exactly: :func:`solve`
gives, once a tree, every node's expectiminimax value for player 0 (chance averaged, each
player maximizing its own return with the hidden cards known) and at each decision node the child
its mover picks (the first of equal values). :func:`vote` adds each sample's pick to the votes.
Random numbers: one xorshift32 stream threaded through and returned.
"""
from __future__ import annotations

from agents.engine.cfr_kernels import CHANCE, G_KID0, G_KIDS, G_PLAYER, GF_OUTCOME, GF_PROB, TERMINAL
from agents.engine.ismcts_kernels import determinization
from base.jit import hot

TIE = 1e-12  # values closer than this are equal (chance's averages round differently by path)


@hot
def solve(nodes, edges, value, pick):
    """Each node's perfect-information value for player 0 in ``value``; at a decision node the
    index of the child its mover picks in ``pick`` (-1 at chance and terminal nodes)."""
    for n in range(nodes.shape[0] - 1, -1, -1):
        who = nodes[n, G_PLAYER]
        pick[n] = -1
        if who == TERMINAL:
            value[n] = edges[n, GF_OUTCOME]
            continue
        kid0 = nodes[n, G_KID0]
        if who == CHANCE:
            v = 0.0
            for j in range(nodes[n, G_KIDS]):
                v += edges[kid0 + j, GF_PROB] * value[kid0 + j]
            value[n] = v
            continue
        sign = 1.0 if who == 0 else -1.0
        best = 0
        for j in range(1, nodes[n, G_KIDS]):
            if sign * value[kid0 + j] > sign * value[kid0 + best] + TIE:
                best = j
        value[n] = value[kid0 + best]
        pick[n] = best


@hot
def vote(members, weights, pick, samples, votes, rng):
    """``samples`` determinizations of the root's set, each adding 1 to ``votes`` at the index
    of the action its exact search picks. Returns rng."""
    for _ in range(samples):
        n, rng = determinization(members, weights, rng)
        votes[pick[n]] += 1.0
    return rng
