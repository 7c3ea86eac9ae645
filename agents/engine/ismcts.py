"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012; OpenSpiel's
``ISMCTSBot``): one tree whose nodes are the information states of the player to move; each
simulation starts from a new determinization of the root (:meth:`core.game.Game.determinize`
for the player choosing), selects by UCT among the actions legal in that determinization,
samples chance outcomes by their probabilities, adds the first information state not in the
tree and scores it by a random playout from there (OpenSpiel's expansion rule). On a perfect-information game it is plain UCT over states.

Plain Python on :class:`core.game.State` (the compiled kernel is still to come): about a few
thousand simulations a second on Kuhn poker. Its policy (:meth:`ISMCTSAgent.action_probabilities`,
the root's visit shares) is what :meth:`agents.engine.cfr.GameTree.tabulate` measures.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.info import SearchInfo
from core.game import State

SEED_RANGE = 2 ** 31  # determinization seeds are drawn below it


@dataclass
class Node:
    """An information state's statistics: per action, the visits and the summed rewards of its mover."""

    visits: dict[int, int] = field(default_factory=dict)
    total: dict[int, float] = field(default_factory=dict)

    def select(self, legal: list[int], c: float, rng: random.Random) -> int:
        """An untried legal action (at random), else the UCT choice among the legal ones."""
        untried = [a for a in legal if a not in self.visits]
        if untried:
            return rng.choice(untried)
        n = sum(self.visits[a] for a in legal)
        log_n = math.log(n)
        return max(legal, key=lambda a: self.total[a] / self.visits[a] + c * math.sqrt(log_n / self.visits[a]))


@dataclass
class ISMCTSAgent:
    """Single-observer IS-MCTS with UCT selection and random playouts; values in ``info()`` are the
    mover's mean returns scaled into [-1, 1] by the game's ``win_value``."""

    game: Any = None  # the core.game.Game played (set by the registry)
    c: float = 2.0  # UCT exploration constant (rewards in [-1, 1]); OpenSpiel's ISMCTSBot examples use 2
    max_sims: int = 1000  # simulations per move (0: only the deadline)
    final: str = "visits"  # the move played: "visits" (drawn with the root's visit shares) or "max" (the most visited)
    seed: int = 0  # random seed: determinizations, untried actions, playouts and the final draw
    max_rollout: int = 10_000  # steps of a random playout before it counts as a draw
    margin: float = 0.01  # seconds kept before the deadline
    games: ClassVar[tuple[str, ...] | None] = None  # every game
    observation_only: ClassVar[bool] = True  # decides from the mover's observation: fair on games of hidden information
    _rng: random.Random = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]
    _last: SearchInfo = field(default_factory=SearchInfo, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.final not in ("visits", "max"):
            raise ValueError(f"final must be 'visits' or 'max', got {self.final!r}")
        self.reset()

    def reset(self) -> None:
        self._rng = random.Random(self.seed)

    def search(self, state: State, deadline: float = math.inf) -> dict[int, Node]:
        """The tree after this move's simulations, by information-state key; its root first."""
        if not self.max_sims and deadline == math.inf:
            raise ValueError("max_sims=0 searches until the deadline: give one, or a number of simulations")
        me = state.current_player()
        tree: dict[Any, Node] = {}
        start, sims = time.perf_counter(), 0
        while (not self.max_sims or sims < self.max_sims) and (sims % 16 or time.perf_counter() < deadline - self.margin):
            self.simulate(self.game.determinize(state, me, self._rng.randrange(SEED_RANGE)), tree)
            sims += 1
        root = tree.get(self._key(state), Node())
        values = {a: root.total[a] / n for a, n in root.visits.items()}
        best = max(root.visits, key=root.visits.__getitem__) if root.visits else None
        self._last = SearchInfo(value=values.get(best) if best is not None else None, action=best, simulations=sims,
                                seconds=time.perf_counter() - start, action_values=values)
        return tree

    def _key(self, s: State) -> Any:
        p = s.current_player()
        return (p,) + tuple(self.game.information_state(s, p))

    def simulate(self, s: State, tree: dict[Any, Node]) -> None:
        """One simulation from the determinization ``s``: select, expand one node, play out, back up."""
        rng, path = self._rng, []
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s = s.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            node = tree.get(key := self._key(s))
            if node is None:  # the new leaf: its value is the playout's, from here (as OpenSpiel's ISMCTSBot)
                tree[key] = Node()
                break
            a = node.select(s.legal_actions(), self.c, rng)
            path.append((node, a, s.current_player()))
            s = s.apply(a)
        for _ in range(self.max_rollout):
            if s.is_terminal():
                break
            outcomes = s.chance_outcomes()
            s = s.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0] if outcomes
                        else rng.choice(s.legal_actions()))
        r0 = s.returns()[0] / self.game.win_value if s.is_terminal() else 0.0
        for node, a, player in path:
            node.visits[a] = node.visits.get(a, 0) + 1
            node.total[a] = node.total.get(a, 0.0) + (r0 if player == 0 else -r0)

    def action_probabilities(self, state: State, deadline: float = math.inf) -> dict[int, float]:
        """The policy this agent plays at ``state``: the root's visit shares (``final="visits"``)
        or all on the most visited action (``"max"``)."""
        root = self.search(state, deadline).get(self._key(state))
        legal = state.legal_actions()
        if root is None or not root.visits:
            return {a: 1.0 / len(legal) for a in legal}
        if self.final == "max":
            return {self._last.action: 1.0}  # type: ignore[dict-item]  # set by search: the root was visited
        n = sum(root.visits.values())
        return {a: root.visits.get(a, 0) / n for a in legal}

    def choose(self, state: State, deadline: float) -> int:
        probs = self.action_probabilities(state, deadline)
        actions = list(probs)
        return self._rng.choices(actions, [probs[a] for a in actions])[0]

    def info(self) -> SearchInfo:
        return self._last
