"""Agents that plan a whole turn at once, for games whose turn is several decisions
(:attr:`core.game.Game.end_turn_action`, e.g. Reinforce Tactics: a list of unit actions).

A planner implements ``plan_turn(state, deadline) -> list[int]``: the mover's actions from
``state`` to the end of the turn, as played along one line (the last one the game's
``end_turn_action``, unless the game ends first); chance inside the turn (a Rogue's evasion) is
followed by its most probable outcome (:func:`likeliest_line`). :class:`TurnPlanAgent` serves that plan one
decision at a time through the ordinary ``choose(state, deadline)``: it plans at the first
decision of each turn and replays the plan by *labels* (:meth:`core.game.Game.action_label`),
so that chance inside the turn (a Rogue killed by a counter-attack shifts the unit slots) does
not turn the plan into other acts; a planned act that has become impossible is skipped, as
Kaggle skips an illegal entry of a turn's list. A Kaggle agent returns :meth:`plan_labels`
instead, the whole turn at once.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from core.game import State


class TurnPlanAgent:
    """Mixin: ``choose`` from a turn's plan. Subclasses set ``game`` and write ``plan_turn``."""

    game: Any

    def plan_turn(self, state: State, deadline: float) -> list[int]:
        raise NotImplementedError

    def plan_labels(self, state: State, deadline: float) -> list[Hashable]:
        """The plan of the turn starting at ``state`` as labels, the end of the turn included."""
        end = self.game.end_turn_action
        labels = []
        s = state
        for a in self.plan_turn(state, deadline):
            s = likeliest_line(s)
            if s.is_terminal():
                break
            try:
                nxt = s.apply(a)
            except ValueError:
                continue  # not legal on this line: Kaggle would skip it too
            labels.append(self.game.action_label(s, a))
            s = nxt
            if a == end:
                return labels
        s = likeliest_line(s)
        if end is not None and not s.is_terminal():
            labels.append(self.game.action_label(s, end))
        return labels

    def choose(self, state: State, deadline: float) -> int:
        turn = (self.game.turn_index(state), state.current_player())
        if getattr(self, "_plan_turn_id", None) != turn:
            self._plan_turn_id = turn
            self._plan_left: list[Hashable] = self.plan_labels(state, deadline)
        while self._plan_left:
            a = self.game.label_action(state, self._plan_left.pop(0))
            if a is not None:
                return a
        end = self.game.end_turn_action
        legal = state.legal_actions()
        return end if end in legal else legal[0]

    def reset(self) -> None:
        self._plan_turn_id = None
        self._plan_left = []


ALTERNATIVES = 8  # turns a planner's info() lists under "alternatives" at most (the analysis panel's)


def alternatives(tried: Iterable[Sequence[Any]], by: str = "visits",
                 limit: int = ALTERNATIVES) -> list[dict]:
    """A turn planner's ``info()["alternatives"]``: of the turns it ``tried``, each (actions,
    evaluations, sum of their values, anything more: a search's own ``[turn, n, sum, ...]``
    lists), the best ``limit`` as ``{"actions", "visits", "value"}``
    (``by="visits"``: most visited first, a sampling search's choice) or ``{"actions",
    "evaluations", "fitness"}`` (``by="fitness"``: best mean first, an evolution's). Values are
    means for the mover, in the planner's ``value_unit``; unevaluated turns are left out."""
    rows = [(list(t), int(n), float(s) / n) for t, n, s, *_rest in tried if n > 0]
    if by == "visits":
        rows.sort(key=lambda r: (-r[1], -r[2]))
        return [{"actions": t, "visits": n, "value": v} for t, n, v in rows[:limit]]
    rows.sort(key=lambda r: (-r[2], -r[1]))
    return [{"actions": t, "evaluations": n, "fitness": v} for t, n, v in rows[:limit]]


def likeliest_line(state: State) -> State:
    """``state`` past its chance nodes, each resolved by its most probable outcome (a plan made
    before the dice is labelled along the line it most likely follows; the labels still name
    the same acts if the dice fall otherwise)."""
    while state.is_chance_node():
        state = state.apply(max(state.chance_outcomes(), key=lambda o: o[1])[0])
    return state
