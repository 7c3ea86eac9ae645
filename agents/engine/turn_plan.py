"""Agents that plan a whole turn at once, for games whose turn is several decisions
(:attr:`core.game.Game.end_turn_action`, e.g. Reinforce Tactics: a list of unit actions).

A planner implements ``plan_turn(state, deadline) -> list[int]``: the mover's actions from
``state`` to the end of the turn, as played along one line (the last one the game's
``end_turn_action``, unless the game ends first); chance inside the turn (a Rogue's evasion) is
followed by its most probable outcome (:func:`likeliest_line`). :class:`TurnPlanAgent` serves that plan one
decision at a time through the ordinary ``choose(state, deadline)``: it plans at the first
decision of each turn, together with the states the plan passes through (:meth:`plan_line`).
While the game is in the state the plan expected, the planned action is played as it is (it was
checked legal from that very state, so serving costs no ``legal``: on Reinforce Tactics a plain
``legal`` costs milliseconds, and two of them a decision made turn searches lose on time under
load); once chance has fallen otherwise, the plan is replayed by *labels*
(:meth:`core.game.Game.action_label`), so that chance inside the turn (a Rogue killed by a
counter-attack shifts the unit slots) does not turn the plan into other acts; a planned act
that has become impossible is skipped, as Kaggle skips an illegal entry of a turn's list. A Kaggle agent returns :meth:`plan_labels`
instead, the whole turn at once.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from core.game import State, Words


class TurnPlanAgent:
    """Mixin: ``choose`` from a turn's plan. Subclasses set ``game`` and write ``plan_turn``."""

    game: Any

    def plan_turn(self, state: State, deadline: float) -> list[int]:
        raise NotImplementedError

    def plan_line(self, state: State, plan: Sequence[int]) -> tuple[list[tuple[State, int]], State]:
        """``plan`` played from ``state`` along the likeliest line of the turn's chance
        (:func:`likeliest_line`): its entries legal when their time comes, each with the state it
        is played from, up to the end of the turn, and the state after them (chance resolved).
        Plain Python (a legality check per entry); a planner that has this line from its own
        kernels overrides it."""
        end = self.game.end_turn_action
        me = state.current_player()
        steps: list[tuple[State, int]] = []
        s = state
        for a in plan:
            s = likeliest_line(s)
            if s.is_terminal() or s.current_player() != me:
                break
            try:
                nxt = s.apply(a)
            except ValueError:
                continue  # not legal on this line: Kaggle would skip it too
            steps.append((s, a))
            s = nxt
            if a == end:
                break
        return steps, likeliest_line(s)

    def plan_steps(self, state: State, deadline: float) -> list[tuple[Words, int, Hashable]]:
        """The plan of the turn starting at ``state``, each decision as (the state words it is
        planned from, the action, its label), the end of the turn included."""
        end = self.game.end_turn_action
        steps, last = self.plan_line(state, self.plan_turn(state, deadline))
        out = [(s.words, a, self.game.action_label(s, a)) for s, a in steps]
        if end is not None and (not steps or steps[-1][1] != end) and not last.is_terminal() \
                and last.current_player() == state.current_player():
            out.append((last.words, end, self.game.action_label(last, end)))
        return out

    def plan_labels(self, state: State, deadline: float) -> list[Hashable]:
        """The plan of the turn starting at ``state`` as labels, the end of the turn included."""
        return [label for _w, _a, label in self.plan_steps(state, deadline)]

    def choose(self, state: State, deadline: float) -> int:
        """The plan's next decision: its action when the game is in the state the plan expected
        there (the plan checked it legal from that very state: no ``legal`` to run), else the
        legal action its label names (chance fell otherwise: a Rogue evaded), skipping a planned
        act that has become impossible."""
        turn = (self.game.turn_index(state), state.current_player())
        if getattr(self, "_plan_turn_id", None) != turn:
            self._plan_turn_id: tuple[int, int] | None = turn
            self._plan_left: list[tuple[Words, int, Hashable]] = self.plan_steps(state, deadline)
        while self._plan_left:
            words, a, label = self._plan_left.pop(0)
            if words == state.words:
                return a
            b = self.game.label_action(state, label)
            if b is not None:
                return b
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
