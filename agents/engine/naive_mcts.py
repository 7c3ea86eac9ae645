"""Naive-sampling MCTS (Ontañón, AIIDE 2013, JAIR 2017; microRTS's NaiveMCTS) at the turn's root:
a turn is a combination of one first decision per unit, its value assumed to be roughly the sum
of per-unit values. Each iteration either explores (probability ``eps_0``): every unit picks its
decision from its *local* bandit (a random one with probability ``eps_l``, else its best mean,
an untried decision counting as the mean of every evaluation so far), and the combination joins
the *global* bandit; or exploits: the global bandit's best mean combination (a random known one
with probability ``eps_g``). Defaults are microRTS's: ε_l 0.3, ε_g 0.0, ε_0 0.4.

A combination is played as a turn by :meth:`agents.engine.macro_turns.Turns.combo`: units in
order of fewest options, each first decision (when still legal) followed by that unit's best
next ones (a Reinforce Tactics unit's attack after its move), then the units it left out
greedily (randomness ``eps_l`` when exploring). A unit blocked at the turn's start has no
decision there: the first decision it makes in a played turn joins its local bandit (so do new
decisions of other units), and later combinations may choose it. The first combination is the
greedy turn's. Open loop across chance and the heuristic horizon as in
:mod:`agents.engine.macro_mcts`; combinations reaching the same state are one global arm. The
plan is the most visited arm (microRTS's final choice).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from agents.engine.macro_turns import Turns, TurnSearch
from agents.engine.turn_plan import alternatives

IDLE = -1  # a unit's choice of no decision


@dataclass
class NaiveMCTSAgent(TurnSearch):
    """Naive sampling over units' decisions (module docstring); shared parameters: :class:`TurnSearch`'s."""

    eps_l: float = 0.3  # local (per-unit) exploration: chance of a unit's random decision in a new combination
    eps_g: float = 0.0  # global exploration: chance of a random known combination when exploiting
    eps_0: float = 0.4  # chance of exploring (a new combination from the local bandits) each iteration

    def checks(self) -> list[tuple[bool, str]]:
        ok = all(0.0 <= e <= 1.0 for e in (self.eps_l, self.eps_g, self.eps_0))
        return [(ok, "eps_l, eps_g and eps_0 must be in [0, 1]")]

    def search(self, turns: Turns, deadline: float) -> tuple[tuple[int, ...], dict]:
        options = turns.root_options()
        units = sorted(options, key=lambda u: (len(options[u]), u))  # most constrained first
        # per unit: decision -> [visits, value sum] (its local bandit; IDLE included)
        local: dict[int, dict[int, list]] = {u: {a: [0, 0.0] for a in options[u] + [IDLE]} for u in units}
        arms: dict[int, list] = {}  # state key -> [turn, visits, value sum, {unit: decision}]
        total, count = 0.0, 0

        def arm_of(turn: tuple[int, ...]) -> list:
            first: dict[int, int] = {}
            for a, u in zip(turn, turns.actors(turn)):
                if u >= 0:
                    first.setdefault(u, a)
            for u, a in first.items():  # decisions found in play join the local bandits
                if u not in local:
                    units.append(u)
                    local[u] = {IDLE: [0, 0.0]}
                local[u].setdefault(a, [0, 0.0])
            k = turns.key(turn)
            if k not in arms:
                arms[k] = [turn, 0, 0.0, {u: first.get(u, IDLE) for u in units}]
            return arms[k]

        arm = arm_of(turns.greedy())
        while True:
            v = turns.value(arm[0])
            arm[1] += 1
            arm[2] += v
            total, count = total + v, count + 1
            for u, a in arm[3].items():
                local[u][a][0] += 1
                local[u][a][1] += v
            if not self.more(turns, deadline):
                break
            rnd = turns.random
            if rnd.random() < self.eps_0:
                prior = total / count
                combo = [rnd.choice(list(local[u])) if rnd.random() < self.eps_l else _best(local[u], prior)
                         for u in units]
                arm = arm_of(turns.combo(combo, self.eps_l))
            elif rnd.random() < self.eps_g:
                arm = rnd.choice(list(arms.values()))
            else:
                arm = max(arms.values(), key=lambda a: a[2] / a[1] if a[1] else -math.inf)
        best = max(arms.values(), key=lambda a: (a[1], a[2] / a[1] if a[1] else -math.inf))
        return best[0], {"value": best[2] / best[1], "candidates": len(arms), "units": len(units),
                         "alternatives": alternatives(arms.values())}


def _best(bandit: dict[int, list], prior: float) -> int:
    """The decision of best mean (untried: ``prior``; ties: the first listed)."""
    return max(bandit, key=lambda a: bandit[a][1] / bandit[a][0] if bandit[a][0] else prior)
