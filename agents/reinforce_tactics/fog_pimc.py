"""``pimc`` on Reinforce Tactics: the engine's PIMC (:mod:`agents.engine.pimc`) whose search may
be any agent of the game (the greedy turn planner by default), for the game under fog of war
(``reinforce_tactics:fog=1``, :mod:`core.reinforce_tactics.fog`). ``view=seen`` is the baseline:
the same search on what the player sees, as if it were all."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.pimc import PIMCAgent
from agents.engine.spec import AGENT_SPEC


@dataclass
class FogPIMCAgent(PIMCAgent):
    # the agent of this game searched on each sample (its spec): the turn planner by default
    search: str = field(default="greedy", metadata=AGENT_SPEC)
    samples: int = 8  # determinizations per decision
    games: ClassVar[tuple[str, ...] | None] = ("reinforce_tactics",)

    def make_search(self) -> Any:
        from agents.registry import make

        return make(self.search, self.game, inner=True)  # it sees the samples (or the seen view) only
