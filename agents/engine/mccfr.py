"""Monte Carlo CFR (Lanctot, Waugh, Zinkevich & Bowling 2009) on
:class:`agents.engine.game_tree.GameTree`, in two samplings:

- external (OpenSpiel's ``ExternalSamplingSolver`` with simple averaging): each iteration walks
  the tree once per player, trying every action of the player being updated and one sampled
  action of the opponent (by its current policy) and of chance; the regrets of the updated
  player's information sets grow by the sampled counterfactual values' differences, and the
  opponent's policy is added to its average where it is sampled;
- outcome (OpenSpiel's ``OutcomeSamplingSolver``): one sampled line a player and iteration,
  the updated player's actions drawn with ``exploration`` mixed in, regrets and average
  (stochastically weighted) corrected by the sampling probability.

Plain Python (a walk per iteration, recursive): thousands of Kuhn iterations a second, hundreds
on Leduc. Generic: it reads only the tree.
"""
from __future__ import annotations

import random

import numpy as np

from agents.engine import cfr_kernels as CK
from agents.engine.game_tree import GameTree


class ExternalSamplingMCCFR:
    """External-sampling MCCFR, seeded: ``run`` iterations, then :meth:`average_policy`."""

    def __init__(self, tree: GameTree, seed: int = 0) -> None:
        self.tree = tree
        self.rng = random.Random(seed)  # the samples of chance and of the opponent
        self.regret = [0.0] * tree.slots  # cumulative sampled regrets
        self.total = [0.0] * tree.slots  # the average policy's sums
        self.iterations = 0
        self._nodes = tree.nodes.tolist()
        self._probs = tree.edges[:, CK.GF_PROB].tolist()
        self._outcomes = tree.edges[:, CK.GF_OUTCOME].tolist()

    def run(self, iterations: int) -> None:
        for _ in range(iterations):
            self.iterations += 1
            for player in (0, 1):
                self._walk(0, player)

    def _policy(self, slot: int, k: int) -> list[float]:
        positive = [max(r, 0.0) for r in self.regret[slot:slot + k]]
        s = sum(positive)
        return [x / s for x in positive] if s > 0 else [1.0 / k] * k

    def _walk(self, n: int, player: int) -> float:
        """``player``'s sampled value of node ``n``."""
        who, slot, kid0, k = self._nodes[n]
        if who == CK.TERMINAL:
            return self._outcomes[n] if player == 0 else -self._outcomes[n]
        if who == CK.CHANCE:
            j = self.rng.choices(range(k), self._probs[kid0:kid0 + k])[0]
            return self._walk(kid0 + j, player)
        policy = self._policy(slot, k)
        if who != player:
            for j in range(k):
                self.total[slot + j] += policy[j]
            return self._walk(kid0 + self.rng.choices(range(k), policy)[0], player)
        values = [self._walk(kid0 + j, player) for j in range(k)]
        v = sum(p * x for p, x in zip(policy, values))
        for j in range(k):
            self.regret[slot + j] += values[j] - v
        return v

    def average_policy(self) -> np.ndarray:
        """The average policy; uniform where it was never sampled."""
        out = self.tree.uniform_policy()
        total = np.asarray(self.total)
        for slot, k in self.tree.infosets[:, :CK.GS_PLAYER]:
            s = total[slot:slot + k].sum()
            if s > 0:
                out[slot:slot + k] = total[slot:slot + k] / s
        return out


class OutcomeSamplingMCCFR(ExternalSamplingMCCFR):
    """Outcome-sampling MCCFR, seeded; ``exploration``: the uniform share in the updated
    player's sampling policy (OpenSpiel's default 0.6)."""

    def __init__(self, tree: GameTree, seed: int = 0, exploration: float = 0.6) -> None:
        super().__init__(tree, seed)
        self.exploration = exploration

    def run(self, iterations: int) -> None:
        for _ in range(iterations):
            self.iterations += 1
            for player in (0, 1):
                self._line(0, player, 1.0, 1.0, 1.0)

    def _line(self, n: int, player: int, mine: float, other: float, sampled: float) -> float:
        """``player``'s sampled value of node ``n`` (divided by the sampling probability below it);
        ``mine``, ``other``, ``sampled``: the reach of the player, of the others and chance, and
        of the sampling to ``n``."""
        who, slot, kid0, k = self._nodes[n]
        if who == CK.TERMINAL:
            return self._outcomes[n] if player == 0 else -self._outcomes[n]
        if who == CK.CHANCE:
            j = self.rng.choices(range(k), self._probs[kid0:kid0 + k])[0]
            p = self._probs[kid0 + j]
            return self._line(kid0 + j, player, mine, other * p, sampled * p)
        policy = self._policy(slot, k)
        mix = self.exploration if who == player else 0.0
        sampling = [mix / k + (1.0 - mix) * q for q in policy]
        j = self.rng.choices(range(k), sampling)[0]
        if who == player:
            child = self._line(kid0 + j, player, mine * policy[j], other, sampled * sampling[j])
        else:
            child = self._line(kid0 + j, player, mine, other * policy[j], sampled * sampling[j])
        values = [0.0] * k
        values[j] = child / sampling[j]
        v = sum(q * x for q, x in zip(policy, values))
        if who == player:
            for a in range(k):
                self.regret[slot + a] += (values[a] - v) * other / sampled
                self.total[slot + a] += mine * policy[a] / sampled
        return v
