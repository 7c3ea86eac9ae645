"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012; OpenSpiel's
``ISMCTSBot``): one tree whose nodes are the information states of the player to move; each
simulation starts from a new determinization of the root (:meth:`core.game.Game.determinize`
for the player choosing), selects by UCT among the actions legal in that determinization,
samples chance outcomes by their probabilities, adds the first information state not in the
tree and scores it by a random playout from there (OpenSpiel's expansion rule). On a perfect-information game it is plain UCT over states.

Plain Python on :class:`core.game.State` by default: about a few thousand simulations a second
on Kuhn poker. ``tree_states=N`` runs the same search as hot kernels
(:mod:`agents.engine.ismcts_kernels`, compiled when numba is importable and ``jit``) over the
game's flat tree (:class:`agents.engine.game_tree.GameTree`, built once, at most N states): the
information sets are the tree's, a determinization a member state of the root's set drawn by the
chance probabilities reaching it; its own random stream (xorshift32). Its policy (:meth:`ISMCTSAgent.action_probabilities`,
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
    tree_states: int = 0  # > 0: the compiled kernels over the game's flat tree of at most this many states (else ValueError)
    jit: bool = True  # with tree_states: numba-compiled kernels when numba is importable (False: the same source plain)
    games: ClassVar[tuple[str, ...] | None] = None  # every game
    observation_only: ClassVar[bool] = True  # decides from the mover's observation: fair on games of hidden information
    _rng: random.Random = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]
    _last: SearchInfo = field(default_factory=SearchInfo, init=False, repr=False, compare=False)
    _flat: Any = field(default=None, init=False, repr=False, compare=False)  # FlatSearch, once tree_states > 0

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
        if self.tree_states > 0:
            return self._flat_search(state, deadline)
        me = state.current_player()
        tree: dict[Any, Node] = {}
        start, sims = time.perf_counter(), 0
        while (not self.max_sims or sims < self.max_sims) and (sims % 16 or time.perf_counter() < deadline - self.margin):
            self.simulate(self.game.determinize(state, me, self._rng.randrange(SEED_RANGE)), tree)
            sims += 1
        self._finish(tree.get(self._key(state), Node()), sims, start)
        return tree

    def _finish(self, root: Node, sims: int, start: float) -> None:
        values = {a: root.total[a] / n for a, n in root.visits.items()}
        best = max(root.visits, key=root.visits.__getitem__) if root.visits else None
        self._last = SearchInfo(value=values.get(best) if best is not None else None, action=best, simulations=sims,
                                seconds=time.perf_counter() - start, action_values=values)

    def _flat_search(self, state: State, deadline: float) -> dict[Any, Node]:
        if self._flat is None:
            self._flat = FlatSearch(flat_tree(self.game, self.tree_states), self.jit)
        start, key = time.perf_counter(), self._key(state)
        tree, sims = self._flat.run(key, self.max_sims, deadline - self.margin, self.c,
                                    1.0 / self.game.win_value, self._rng.randrange(2 ** 32))
        self._finish(tree.get(key, Node()), sims, start)
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


_TREES: dict[tuple[str, int], Any] = {}  # the flat trees built, by game spec and tree_states


def flat_tree(game: Any, max_states: int) -> Any:
    """The game's flat tree (:class:`agents.engine.game_tree.GameTree`), built once a process."""
    from agents.engine.game_tree import GameTree

    key = (game.spec(), max_states)
    if key not in _TREES:
        _TREES[key] = GameTree.build(game, max_states)
    return _TREES[key]


class FlatSearch:
    """The arrays of IS-MCTS's kernels over one game's flat tree, reused from move to move."""

    CHUNK = 64  # simulations a kernel call, between looks at the clock

    def __init__(self, tree: Any, jit: bool) -> None:
        import numpy as np

        from agents.engine import ismcts_kernels as IK
        from agents.engine import mccfr_kernels as MK
        from base import jit as J

        use = jit and J.numba_available()
        self.np, self.tree = np, tree
        self.k = J.compiled(IK) if use else IK
        self.index = {key: i for i, key in enumerate(tree.keys)}
        self.chance = tree.chance_reach(use)  # each node's chance reach: the determinizations' weights
        self.stats = np.zeros((tree.slots, IK.STATS.size))  # visits, summed rewards, in the tree (IS_)
        self.IK = IK
        self.path = np.zeros((len(tree.nodes), MK.WALK.size), dtype=np.int64)

    def run(self, key: Any, sims: int, stop: float, c: float, scale: float, seed: int) -> tuple[dict[Any, Node], int]:
        """The tree (by information-state key) after ``sims`` simulations from the set ``key``
        (0: until the clock reaches ``stop``), and how many ran."""
        from base.xorshift import seed_state

        np, t = self.np, self.tree
        i = self.index.get(key)
        if i is None:
            raise ValueError(f"information state {key} is not in the game's tree")
        members = np.asarray(t.members[i], dtype=np.int64)
        weights = np.cumsum(self.chance[members])
        self.stats[:] = 0.0
        rng, done = seed_state(seed), 0
        while (not sims or done < sims) and (done == 0 or time.perf_counter() < stop):
            n = min(self.CHUNK, sims - done) if sims else self.CHUNK
            rng = self.k.search(t.nodes, t.edges, members, weights, self.stats, self.path, n, c, scale, rng)
            done += n
        return self._nodes(), done

    def _nodes(self) -> dict[Any, Node]:
        out: dict[Any, Node] = {}
        sets, IK = self.tree.infosets, self.IK  # GS_SLOT, GS_COUNT first
        visits, total = self.stats[:, IK.IS_VISITS], self.stats[:, IK.IS_TOTAL]
        for i in self.np.flatnonzero(self.stats[sets[:, 0], IK.IS_SEEN]):
            slot, k = sets[i, :2]
            acts = self.tree.actions[i]
            node = out[self.tree.keys[i]] = Node()
            for j in range(int(k)):
                if visits[slot + j]:
                    node.visits[acts[j]] = int(visits[slot + j])
                    node.total[acts[j]] = float(total[slot + j])
        return out
