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

Both run as hot kernels (:mod:`agents.engine.mccfr_kernels`): compiled when numba is importable
(``jit`` None or True), the same source plain otherwise, with one seeded xorshift32 stream, so
the two paths give the same regrets and average policy for a seed. Generic: they read only the
tree.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from agents.engine import cfr_kernels as CK
from agents.engine import mccfr_kernels as MK
from agents.engine.game_tree import GameTree
from base.xorshift import seed_state


def kernels(jit: bool | None) -> Any:
    """The MCCFR kernels compiled (numba present and ``jit`` not False) or plain."""
    from base import jit as J

    use = J.numba_available() if jit is None else jit
    return J.compiled(MK) if use else MK


class ExternalSamplingMCCFR:
    """External-sampling MCCFR, seeded: ``run`` iterations, then :meth:`average_policy`."""

    def __init__(self, tree: GameTree, seed: int = 0, jit: bool | None = None) -> None:
        self.tree = tree
        self.k = kernels(jit)
        self.rng = seed_state(seed)  # the xorshift32 state of the samples (chance, the opponent)
        self.regret = np.zeros(tree.slots)  # cumulative sampled regrets
        self.total = np.zeros(tree.slots)  # the average policy's sums
        self.iterations = 0
        self.walk = np.zeros((len(tree.nodes), MK.WALK.size), dtype=np.int64)
        self.value = np.zeros(len(tree.nodes))

    def run(self, iterations: int) -> None:
        t = self.tree
        self.rng = self.k.external(t.nodes, t.edges, self.regret, self.total, self.walk, self.value, iterations,
                                   self.rng)
        self.iterations += iterations

    def average_policy(self) -> np.ndarray:
        """The average policy; uniform where it was never sampled."""
        out = self.tree.uniform_policy()
        for slot, k in self.tree.infosets[:, :CK.GS_PLAYER]:
            s = self.total[slot:slot + k].sum()
            if s > 0:
                out[slot:slot + k] = self.total[slot:slot + k] / s
        return out


class OutcomeSamplingMCCFR(ExternalSamplingMCCFR):
    """Outcome-sampling MCCFR, seeded; ``exploration``: the uniform share in the updated
    player's sampling policy (OpenSpiel's default 0.6)."""

    def __init__(self, tree: GameTree, seed: int = 0, exploration: float = 0.6, jit: bool | None = None) -> None:
        super().__init__(tree, seed, jit)
        self.exploration = exploration
        self.reach = np.zeros((len(tree.nodes), MK.REACH.size))

    def run(self, iterations: int) -> None:
        t = self.tree
        self.rng = self.k.outcome(t.nodes, t.edges, self.regret, self.total, self.walk, self.reach, iterations,
                                  self.exploration, self.rng)
        self.iterations += iterations
