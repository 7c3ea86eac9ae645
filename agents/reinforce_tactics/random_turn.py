"""A random Reinforce Tactics turn with a taste for action: the floor the submission builder
falls back on while no stronger Reinforce Tactics agent exists (and a fast agent for tests).

Each decision of the turn: seize when a unit stands on a structure it may seize, else attack
or use an ability when one is legal, else recruit or move at random; the turn ends after
``max_actions`` decisions or when nothing but ``end`` is left. Plain Python on
:class:`core.game.State` (no compile).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from agents.engine.info import EMPTY, SearchInfo
from agents.engine.turn_plan import TurnPlanAgent
from core.game import State
from core.reinforce_tactics.layout import A_END, A_UNIT, SUB_SEIZE, SUB_TARGET, UNIT_STRIDE


def act_kind(a: int) -> int:
    """0 recruit or move, 1 attack or ability, 2 seize, -1 end (the order of preference)."""
    if a == A_END:
        return -1
    if a < A_UNIT:
        return 0
    sub = (a - A_UNIT) % UNIT_STRIDE
    return 2 if sub == SUB_SEIZE else 1 if sub >= SUB_TARGET else 0


@dataclass
class RandomTurnAgent(TurnPlanAgent):
    game: Any = None  # the ReinforceTactics game (set by the registry or the Kaggle adapter)
    seed: int | None = None  # seed of the agent's own generator (None: from the OS)
    max_actions: int = 30  # decisions of a turn before it ends (each unit moves and acts at most once anyway)
    games = ("reinforce_tactics",)
    _rng: random.Random = field(default=None, init=False, repr=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.max_actions < 0:
            raise ValueError("max_actions must be >= 0")
        self._rng = random.Random(self.seed)

    def plan_turn(self, state: State, deadline: float) -> list[int]:
        plan: list[int] = []
        s = state
        while len(plan) < self.max_actions and not s.is_terminal() and not s.is_chance_node():
            acts = [a for a in s.legal_actions() if a != A_END]
            if not acts:
                break
            best = max(act_kind(a) for a in acts)
            a = self._rng.choice([a for a in acts if act_kind(a) == best])
            plan.append(a)
            s = s.apply(a)
        return plan + [A_END]

    def info(self) -> SearchInfo:
        return EMPTY
