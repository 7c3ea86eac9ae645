"""Macro-move sampling MCTS, the seed's design (Commands & Colors MCTS talk; ``docs/macro-search.md``):
a whole turn is one action of a depth-1 tree whose children are *sampled* turns.

The first sample is built greedily unit by unit (the most constrained unit first, each unit's
decisions while the heuristic says they beat stopping); each further sample perturbs one unit's
order of the best known turn (:meth:`agents.engine.macro_turns.Turns.perturb`). A rule chooses,
each iteration, between trying a new sample and exploiting the known ones: ε-greedy
(``rule=epsilon``: a new sample with probability ``eps_new``) or progressive widening
(``rule=widening``: a new sample while the children number fewer than ``pw_k * N ** pw_alpha``);
known ones are chosen by UCB1. Open loop across chance: a child is a list of decisions, its
dice drawn afresh at each evaluation (the turn is committed before its chance is known, as a
Kaggle Reinforce Tactics agent commits its action list). Urgency: a heuristic horizon (the
heuristic right after the turn, or after ``lookahead`` greedy turns discounted by ``gamma``).
Duplicates merged: two samples reaching the same state (under a fixed chance stream) are one
child. The plan is the most visited child (ties: the better mean).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from agents.engine.macro_turns import Turns, TurnSearch
from agents.engine.turn_plan import alternatives

RULES = ("epsilon", "widening")


@dataclass
class MacroMCTSAgent(TurnSearch):
    """Macro-move sampling MCTS (module docstring); the shared parameters are :class:`TurnSearch`'s."""

    rule: str = "widening"  # new sample or exploit: "epsilon" (ε-greedy) or "widening" (progressive widening)
    eps_new: float = 0.3  # rule=epsilon: probability of trying a new sample each iteration
    pw_k: float = 1.0  # rule=widening: a new sample while children < pw_k * iterations ** pw_alpha
    pw_alpha: float = 0.5  # rule=widening: the widening's exponent
    c: float = 0.1  # UCB1 exploration constant among known turns (rewards in [-1, 1]; a heuristic's differences between turns are small)
    max_children: int = 2048  # known turns at most (then only exploitation)

    def checks(self) -> list[tuple[bool, str]]:
        return [(self.rule in RULES, f"rule must be one of {', '.join(RULES)}, got {self.rule!r}"),
                (0.0 <= self.eps_new <= 1.0, "eps_new must be in [0, 1]"),
                (self.pw_k > 0 and 0.0 <= self.pw_alpha <= 1.0, "pw_k must be > 0 and pw_alpha in [0, 1]"),
                (self.c >= 0, "c must be >= 0"), (self.max_children >= 1, "max_children must be positive")]

    def search(self, turns: Turns, deadline: float) -> tuple[tuple[int, ...], dict]:
        kids: list[list] = []  # [turn, visits, value sum]
        index: dict[int, int] = {}
        duplicates = 0

        def add(turn: tuple[int, ...]) -> int:
            nonlocal duplicates
            k = turns.key(turn)
            if k in index:
                duplicates += 1
                return index[k]
            index[k] = len(kids)
            kids.append([turn, 0, 0.0])
            return len(kids) - 1

        i = add(turns.greedy())
        iters = 0
        while True:
            kid = kids[i]
            kid[1] += 1
            kid[2] += turns.value(kid[0])
            iters += 1
            if not self.more(turns, deadline):
                break
            i = self._next(turns, kids, iters, add)
        best = max(kids, key=lambda k: (k[1], k[2] / k[1] if k[1] else -math.inf))
        return best[0], {"value": best[2] / best[1], "candidates": len(kids), "duplicates": duplicates,
                         "iterations": iters,
                         "alternatives": alternatives(kids)}

    def _next(self, turns: Turns, kids: list[list], iters: int, add) -> int:
        """The child to evaluate next: a new sample (perturbing the best known turn) or UCB1's."""
        if len(kids) < self.max_children:
            if self.rule == "epsilon":
                new = turns.random.random() < self.eps_new
            else:
                new = len(kids) < self.pw_k * iters ** self.pw_alpha
            if new:
                base = max(kids, key=lambda k: k[2] / k[1] if k[1] else -math.inf)[0]
                decisions = len(base) - (1 if base and base[-1] == turns.end else 0)
                return add(turns.perturb(base, turns.random.randint(0, decisions)))
        log_n = math.log(iters)
        return max(range(len(kids)), key=lambda j: math.inf if kids[j][1] == 0 else
                   kids[j][2] / kids[j][1] + self.c * math.sqrt(log_n / kids[j][1]))
