"""Uniform random play on any game: the floor every agent must beat."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from agents.engine.info import EMPTY, SearchInfo
from core.game import State


@dataclass
class RandomAgent:
    game: Any = None  # the core.game.Game played (set by the registry)
    seed: int | None = None  # seed of the agent's own generator (None: from the OS)
    games = None  # every game
    _rng: random.Random = field(default=None, init=False, repr=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def choose(self, state: State, deadline: float) -> int:
        return self._rng.choice(state.legal_actions())

    def info(self) -> SearchInfo:
        return EMPTY
