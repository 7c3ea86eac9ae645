"""An equilibrium player for games of hidden information small enough to enumerate: CFR+ on the
whole tree (:mod:`agents.engine.cfr`) within its moves' time (from the first, going on at each
move until ``iterations``), each move drawn from the average policy at the mover's information
state. Its exploitability is what
``python -m agents.engine.cfr`` prints for the same iterations (Kuhn poker: 0.000295 after 200).
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.cfr import CFR, GameTree
from agents.engine.info import SearchInfo
from core.game import State

BATCH = 10  # CFR+ iterations between looks at the clock


@dataclass
class CFRAgent:
    """Plays CFR+'s average policy; ``info()``'s action values are that policy's probabilities."""

    game: Any = None  # the core.game.Game played (set by the registry)
    iterations: int = 1000  # CFR+ iterations in all (done within the moves' time: the first moves may play a policy of fewer)
    max_states: int = 1_000_000  # refuse (ValueError) a game with more states
    seed: int = 0  # random seed of the draws from the policy
    margin: float = 0.05  # seconds kept before the deadline
    games: ClassVar[tuple[str, ...] | None] = None  # every game of hidden information (hidden_information_only)
    observation_only: ClassVar[bool] = True  # decides from the mover's observation: fair on games of hidden information
    hidden_information_only: ClassVar[bool] = True  # the registry offers it only where Game.perfect_information is False
    _solver: CFR | None = field(default=None, init=False, repr=False, compare=False)
    _policy: dict | None = field(default=None, init=False, repr=False, compare=False)  # info key -> {action: probability}, once solved
    _rng: random.Random = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]
    _last: SearchInfo = field(default_factory=SearchInfo, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {self.iterations}")
        self.reset()

    def reset(self) -> None:
        self._rng = random.Random(self.seed)

    def solve(self, deadline: float = math.inf) -> int:
        """CFR+ until ``iterations`` or ``deadline`` (batches of ``BATCH``; at least one after the
        tree is built): a later call goes on where this one stopped. Returns the iterations done."""
        if self._solver is None:
            self._solver = CFR(GameTree.build(self.game, self.max_states))
        solver = self._solver
        before = solver.iterations
        while solver.iterations < self.iterations and (solver.iterations == 0 or time.perf_counter() < deadline - self.margin):
            solver.run(min(BATCH, self.iterations - solver.iterations))
        if solver.iterations != before or self._policy is None:
            self._policy = solver.tree.as_dict(solver.average_policy())
        return solver.iterations

    def action_probabilities(self, state: State, deadline: float = math.inf) -> dict[int, float]:
        self.solve(deadline)
        assert self._policy is not None  # solve() set it
        p = state.current_player()
        return self._policy[(p,) + tuple(self.game.information_state(state, p))]

    def choose(self, state: State, deadline: float) -> int:
        start = time.perf_counter()
        probs = self.action_probabilities(state, deadline)
        actions = list(probs)
        action = self._rng.choices(actions, [probs[a] for a in actions])[0]
        done = self._solver.iterations if self._solver is not None else 0
        self._last = SearchInfo(action=action, action_values=dict(probs), seconds=time.perf_counter() - start,
                                extra={"iterations": done})
        return action

    def info(self) -> SearchInfo:
        return self._last
