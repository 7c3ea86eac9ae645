"""Online evolutionary planning of one turn (Justesen, Mahlmann, Togelius 2016; Hero Academy): a
population of whole turns evolves during the turn's time. Fitness is the heuristic after the
turn (or after ``lookahead`` greedy turns, :class:`agents.engine.macro_turns.TurnSearch`), the
mean of its evaluations: open loop across chance, a survivor is evaluated again each generation
(``resample``), so luck averages out. Each generation keeps the best ``elite`` share and refills
the population with children of two random survivors: **uniform crossover per unit** (each
unit's order taken whole from one parent, the turn keeping the first parent's order of units),
then with probability ``mutation`` a **mutation** (one unit's order redone: a random first
decision, then its best ones; :meth:`agents.engine.macro_turns.Turns.perturb`). A child reaching
the state of a turn already in the population is mutated again (``retries`` times at most; a generation tries twice as many children as it has room for), so the
population stays diverse. The first population: the greedy turn, its perturbations and random
turns. The plan is the fittest turn.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from agents.engine.macro_turns import Turns, TurnSearch
from agents.engine.turn_plan import alternatives


@dataclass
class EvolutionAgent(TurnSearch):
    """Online evolutionary planning (module docstring); shared parameters: :class:`TurnSearch`'s."""

    population: int = 16  # turns in the population
    elite: float = 0.5  # share of the population kept each generation (the fittest)
    mutation: float = 0.7  # chance that a child of crossover is also mutated
    random_share: float = 0.25  # share of the first population built at random (the rest: perturbed greedy turns)
    resample: bool = True  # evaluate survivors again each generation (chance averages out)
    retries: int = 1  # mutations tried on a child that duplicates a member

    def checks(self) -> list[tuple[bool, str]]:
        return [(self.population >= 2, "population must be at least 2"),
                (0.0 < self.elite < 1.0, "elite must be in (0, 1)"),
                (0.0 <= self.mutation <= 1.0 and 0.0 <= self.random_share <= 1.0,
                 "mutation and random_share must be in [0, 1]"),
                (self.retries >= 0, "retries must be >= 0")]

    def search(self, turns: Turns, deadline: float) -> tuple[tuple[int, ...], dict]:
        rnd = turns.random
        members: dict[int, list] = {}  # state key -> [turn, evaluations, value sum]
        greedy = turns.greedy()
        members[turns.key(greedy)] = [greedy, 0, 0.0]
        tries = 0
        while len(members) < self.population and tries < 2 * self.population and self.more(turns, deadline):
            tries += 1
            t = turns.greedy(1.0) if rnd.random() < self.random_share else self._mutate(turns, greedy)
            members.setdefault(turns.key(t), [t, 0, 0.0])
        generations = 0
        while True:
            for m in list(members.values()):
                if m[1] == 0 or self.resample:
                    m[2] += turns.value(m[0])
                    m[1] += 1
                    if not self.more(turns, deadline):
                        return self._result(members, generations)
            generations += 1
            ranked = sorted(members.items(), key=lambda kv: -kv[1][2] / kv[1][1] if kv[1][1] else math.inf)
            keep = max(1, int(round(self.elite * len(ranked))))
            members = dict(ranked[:keep])
            parents = [m[0] for m in members.values()]
            attempts, room = 0, self.population - len(members)
            while len(members) < self.population and attempts < 2 * room and self.more(turns, deadline):
                attempts += 1
                child = self._child(turns, rnd.choice(parents), rnd.choice(parents))
                key = turns.key(child)
                for _ in range(self.retries):
                    if key not in members:
                        break
                    child = self._mutate(turns, child)
                    key = turns.key(child)
                members.setdefault(key, [child, 0, 0.0])

    def _result(self, members: dict[int, list], generations: int) -> tuple[tuple[int, ...], dict]:
        best = max((m for m in members.values() if m[1]), key=lambda m: (m[2] / m[1], m[1]))
        return best[0], {"value": best[2] / best[1], "candidates": len(members), "generations": generations,
                         "alternatives": alternatives(members.values(), by="fitness")}

    def _mutate(self, turns: Turns, turn: tuple[int, ...]) -> tuple[int, ...]:
        decisions = len(turn) - (1 if turn and turn[-1] == turns.end else 0)
        return turns.perturb(turn, turns.random.randint(0, decisions))

    def _child(self, turns: Turns, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        """Uniform crossover per unit, then maybe a mutation."""
        rnd = turns.random
        ua, ub = turns.actors(a), turns.actors(b)
        units = {u for u in ua + ub if u >= 0}
        from_a = {u: rnd.random() < 0.5 for u in sorted(units)}
        body = [x for x, u in zip(a, ua) if u >= 0 and from_a[u]] + [x for x, u in zip(b, ub) if u >= 0 and not from_a[u]]
        child = tuple(body[:turns.cap - 1]) + ((turns.end,) if turns.end >= 0 else ())
        if rnd.random() < self.mutation:
            child = self._mutate(turns, child)
        return child
