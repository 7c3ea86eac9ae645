"""The weakest baseline: a uniformly random legal column. Reproducible per seed."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from agents.connectx.base import PositionAgent
from core.connectx.position import Position


@dataclass
class RandomAgent(PositionAgent):
    """Plays a column drawn uniformly among the legal ones."""

    seed: int | None = None  # None: fresh randomness from the OS; an int: the same moves every run
    _rng: random.Random = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Restart the random stream, so a seeded agent plays the same game again."""
        self._rng = random.Random(self.seed)

    def choose_position(self, position: Position, deadline: float) -> int:
        legal = position.legal_columns()
        if not legal:
            raise ValueError("no legal column: the game is over")
        return legal[self._rng.randrange(len(legal))]
