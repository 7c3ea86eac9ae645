"""The weakest baseline on ConnectX: the engine's uniform random agent
(:class:`agents.engine.random_agent.RandomAgent`), which also plays through the Kaggle adapter
(``choose_position`` on the board it reads). Reproducible per seed."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from agents.connectx.base import PositionAgent
from agents.engine.random_agent import RandomAgent as EngineRandom
from core.connectx.position import Position


@dataclass
class RandomAgent(PositionAgent, EngineRandom):
    """Plays a column drawn uniformly among the legal ones (the engine's random agent)."""

    games: ClassVar[tuple[str, ...]] = ("connectx",)  # PositionAgent's, over the engine agent's every game

    def choose_position(self, position: Position, deadline: float) -> int:
        return self.pick(position.legal_columns())
