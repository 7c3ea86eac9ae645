"""The course-style Quixo minimax (:class:`agents.quixo.harness.CourseMinimaxPlayer`) as an
engine agent, for tournaments against it.

Their player searches numpy board copies: about 40 s a move at depth 3 on 5×5, too slow for
hundreds of games. With ``fast=true`` (the default) the same minimax runs on the compiled
engine search (:class:`agents.engine.negamax.Search`, no pruning, no table, every root
action's exact value) with the same leaf values (``longest`` in :mod:`heuristics.quixo`: the
mover's longest line minus the opponent's; wins sooner preferred, the both-lines rule), and the
same seeded uniform choice among the best root actions; ``tests/test_quixo_agents.py`` checks
that the best-move sets agree. ``fast=false`` plays their player itself through
:class:`agents.quixo.harness.CoursePlayerAgent`.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.info import SearchInfo
from core.game import State


@dataclass
class CourseMinimaxAgent:
    game: Any = None  # the core.quixo.Quixo played (set by the registry)
    depth: int = 3  # plies searched, as CourseMinimaxPlayer(depth)
    seed: int | None = None  # seeds the choice among equally good moves (None: the tournament's seed, else 0)
    fast: bool = True  # compiled engine search with the same values; false: their numpy player (slow)

    games: ClassVar[tuple[str, ...]] = ("quixo",)
    _rng: random.Random = field(default=None, init=False, repr=False)  # type: ignore[assignment]
    _search: Any = field(default=None, init=False, repr=False)
    _course: Any = field(default=None, init=False, repr=False)
    _info: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ValueError("depth must be >= 1")
        seed = 0 if self.seed is None else self.seed
        self._rng = random.Random(seed)
        if not self.fast:
            from agents.quixo.harness import CourseMinimaxPlayer, CoursePlayerAgent

            self._course = CoursePlayerAgent(player=CourseMinimaxPlayer(self.depth, seed), game=self.game)

    def best_actions(self, state: State) -> tuple[list[int], dict[int, float]]:
        """The actions of best minimax value (generation order) and every action's value."""
        if self._search is None:
            from agents.engine.negamax import Search

            self._search = Search(self.game, "longest", tt_bits=4, prune=False, pvs=False, use_tt=False,
                                  ply_cap=self.depth, root_all=True)
        self._search.run(state, self.depth)
        values = dict(self._search.root_values())
        top = max(values.values())
        return [a for a in state.legal_actions() if values[a] == top], values

    def choose(self, state: State, deadline: float) -> int:
        t0 = time.perf_counter()
        if self._course is not None:
            action = self._course.choose(state, deadline)
            self._info = {"depth": self.depth, "seconds": time.perf_counter() - t0}
            return action
        best, values = self.best_actions(state)
        action = self._rng.choice(best)
        self._info = {"action_values": values, "value": values[action], "depth": self.depth,
                      "seconds": time.perf_counter() - t0}
        return action

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._info)
