"""Uniform random play on any game: the floor every agent must beat. Reproducible per seed."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.info import EMPTY, SearchInfo
from core.game import State


@dataclass
class RandomAgent:
    """Plays an action drawn uniformly among the legal ones."""

    game: Any = None  # the core.game.Game played (set by the registry)
    seed: int | None = None  # None: fresh randomness from the OS; an int: the same moves every run
    games: ClassVar[tuple[str, ...] | None] = None  # every game
    observation_only: ClassVar[bool] = True  # decides from the mover's observation: fair on games of hidden information
    _rng: random.Random = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Restart the random stream, so a seeded agent plays the same game again."""
        self._rng = random.Random(self.seed)

    def pick(self, legal: list[int]) -> int:
        """One of ``legal``, uniformly; ValueError when there is none (the game is over)."""
        if not legal:
            raise ValueError("no legal action: the game is over")
        return legal[self._rng.randrange(len(legal))]

    def choose(self, state: State, deadline: float) -> int:
        return self.pick(state.legal_actions())

    def info(self) -> SearchInfo:
        return EMPTY
