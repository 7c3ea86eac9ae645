"""Perfect Information Monte Carlo (Long, Sturtevant, Buro & Furtak 2010; OpenSpiel's
``pimc_bot``): determinize the state for the player choosing (:meth:`core.game.Game.determinize`),
run any perfect-information search of the engine on each sample as if everything were seen, and
play the action chosen most often. On a perfect-information game every sample is the state.
It suffers strategy fusion and non-locality (the search on a sample knows the hidden cards),
which the exploitability of its policy measures (:meth:`PIMCAgent.action_probabilities`).
"""
from __future__ import annotations

import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.info import SearchInfo, info_of
from agents.engine.registry import make_generic
from agents.engine.spec import GENERIC_AGENT_SPEC
from core.game import State

SEED_RANGE = 2 ** 31  # determinization seeds are drawn below it


@dataclass
class PIMCAgent:
    """Votes of a perfect-information search over determinizations; ``info()``'s action values
    are each action's share of the votes, its ``extra["proven"]`` the samples whose search
    proved its value."""

    game: Any = None  # the core.game.Game played (set by the registry)
    # the engine's perfect-information search run on each sample (a generic agent's spec); it
    # compiles before the first sample (warm_up), so every sample gets the same search
    search: str = field(default="expectimax:background_compile=false", metadata=GENERIC_AGENT_SPEC)
    samples: int = 20  # determinizations per move
    seconds: float = 0.05  # the search's time on one sample, at most (the move's deadline shares out what is left)
    seed: int = 0  # random seed of the determinizations
    games: ClassVar[tuple[str, ...] | None] = None  # every game
    _rng: random.Random = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]
    _inner: Any = field(default=None, init=False, repr=False, compare=False)
    _warm: bool = field(default=False, init=False, repr=False, compare=False)  # the search's warm_up ran
    _last: SearchInfo = field(default_factory=SearchInfo, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, got {self.samples}")
        if self.search.partition(":")[0] == "pimc":
            raise ValueError("search must be a perfect-information search, not pimc itself")
        self._inner = make_generic(self.search, self.game)
        self.reset()

    def reset(self) -> None:
        self._rng = random.Random(self.seed)
        getattr(self._inner, "reset", lambda: None)()

    def warm_up(self) -> float:
        """Compile the search's kernels now (the arena's warm-up calls it: no move then compiles);
        returns seconds taken. A move before it does it first, outside its samples' shares."""
        t0 = time.perf_counter()
        if not self._warm:
            getattr(self._inner, "warm_up", lambda: 0.0)()
            self._warm = True
        return time.perf_counter() - t0

    def votes(self, state: State, deadline: float = math.inf) -> Counter:
        """Each action's votes over this move's samples."""
        self.warm_up()
        me, start = state.current_player(), time.perf_counter()
        votes: Counter = Counter()
        proven = 0  # samples whose search proved its value (a search stopped by the clock may vote otherwise next time)
        for i in range(self.samples):
            now = time.perf_counter()
            share = min(self.seconds, (deadline - now) / (self.samples - i)) if deadline < math.inf else self.seconds
            sample = self.game.determinize(state, me, self._rng.randrange(SEED_RANGE))
            votes[self._inner.choose(sample, now + max(share, 0.0))] += 1
            proven += bool(info_of(self._inner).exact)
        best = max(sorted(votes), key=votes.__getitem__)
        self._last = SearchInfo(action=best, seconds=time.perf_counter() - start,
                                action_values={a: v / self.samples for a, v in votes.items()},
                                extra={"samples": self.samples, "search": self.search, "proven": proven})
        return votes

    def action_probabilities(self, state: State, deadline: float = math.inf) -> dict[int, float]:
        """The policy it plays: all on the most voted action (the lowest among ties)."""
        self.votes(state, deadline)
        return {self._last.action: 1.0}  # type: ignore[dict-item]  # votes() set it

    def choose(self, state: State, deadline: float) -> int:
        self.votes(state, deadline)
        return self._last.action  # type: ignore[return-value]  # votes() set it

    def info(self) -> SearchInfo:
        return self._last
