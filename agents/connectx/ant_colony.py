"""Ant colony tree search: the MCTS tree and solver, with pheromone-guided selection.

Each simulation is an ant walking down the tree. At a node it picks a child at random with
probability proportional to ``pheromone ** power``; looking at the children evaporates their
pheromone by ``evaporation``, and once the leaf is evaluated every edge of the walk receives
``deposit * (reward of the mover + 1) / 2``. Good moves thus gather pheromone and draw more
ants, while evaporation forgets old trails; a floor relative to the best sibling (as in the
MAX-MIN ant system) keeps every move in play. The search is the engine's ant colony
(:class:`agents.engine.mcts.AntColonyAgent`) on the ConnectX game, composed exactly as
``mcts`` composes the engine's UCT agent: everything else (leaves, proven bounds, tree reuse,
the forced-move shortcut, the clock) is :class:`agents.connectx.mcts.TreeSearch`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

from agents.connectx.mcts import TreeSearch, _AntSearch
from agents.engine.mcts import AntParams


@dataclass
class AntColonyAgent(AntParams, TreeSearch):
    """Pheromone-weighted random selection instead of UCT. The ant parameters (``power``,
    ``evaporation``, ``start``, ``deposit``, ``floor``) are :class:`agents.engine.mcts.AntParams`,
    shared with the game-generic ant colony; ``power`` being the pheromone's, the leaf
    heuristic's ``power`` is ``leaf_power`` here."""

    cache: str = ""  # opening cache file ("": none; the MCTS caches hold UCT statistics)
    leaf_power: float | None = None  # the leaf heuristic's power (bitsquares, oddeven); None: its default

    HEURISTIC_RENAMED: ClassVar[Mapping[str, str]] = MappingProxyType({"power": "leaf_power"})
    SEARCH: ClassVar[type] = _AntSearch

    def __post_init__(self) -> None:
        super().__post_init__()
        self.check_ant()

    def _policy_fields(self) -> dict:
        return {"power": self.power, "evaporation": self.evaporation, "start": self.start,
                "deposit": self.deposit, "floor": self.floor}
