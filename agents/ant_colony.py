"""Ant colony tree search: the MCTS tree and solver, with pheromone-guided selection.

Each simulation is an ant walking down the tree. At a node it picks a child at random with
probability proportional to ``pheromone ** power``; looking at the children evaporates their
pheromone by ``evaporation``, and once the leaf is evaluated every edge of the walk receives
``deposit * (reward of the mover + 1) / 2``. Good moves thus gather pheromone and draw more
ants, while evaporation forgets old trails; a floor relative to the best sibling (as in the
MAX-MIN ant system) keeps every move in play. Everything else (leaves, proven bounds, tree reuse,
the cache, the clock) is :class:`agents.mcts.TreeSearch`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import agents.mcts_tree as mt
from agents.mcts import TreeSearch


@dataclass
class AntColonyAgent(TreeSearch):
    """Pheromone-weighted random selection instead of UCT."""

    power: float = 1.0  # selection weight is pheromone ** power (higher: greedier ants)
    evaporation: float = 0.02  # share of a child's pheromone lost each time its parent is visited
    start: float = 1.0  # pheromone of a new edge (the weight of an untried idea)
    deposit: float = 1.0  # pheromone laid on each edge of a walk, times the mover's reward in [0, 1]
    floor: float = 0.3  # a child's pheromone counts as at least floor x its best sibling's (MAX-MIN)
    cache: str = ""  # opening cache file ("": none; the MCTS caches hold UCT statistics)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= self.evaporation < 1.0:
            raise ValueError(f"evaporation must be in [0, 1), got {self.evaporation}")
        if not self.start > 0 or not self.power > 0 or not self.deposit >= 0:
            raise ValueError("start and power must be positive and deposit >= 0")
        if not 0.0 <= self.floor <= 1.0:
            raise ValueError(f"floor must be in [0, 1], got {self.floor}")

    def _pheromone(self) -> bool:
        return True

    def _policy_params(self, params: np.ndarray) -> None:
        params[mt.P_POLICY] = mt.POLICY_ANT
        params[mt.P_POWER] = self.power
        params[mt.P_EVAP] = self.evaporation
        params[mt.P_TAU0] = self.start
        params[mt.P_DEPOSIT] = self.deposit
        params[mt.P_FLOOR] = self.floor
