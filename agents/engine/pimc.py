"""Perfect Information Monte Carlo (Long, Sturtevant, Buro & Furtak 2010; OpenSpiel's
``pimc_bot``): determinize the state for the player choosing (:meth:`core.game.Game.determinize`),
run any perfect-information search of the engine on each sample as if everything were seen, and
play the action chosen most often. On a perfect-information game every sample is the state.
Votes go by :meth:`core.game.Game.action_label` (Reinforce Tactics names its units by slot, a
sample's slots may differ) and count only for an action legal at the true state (a sample may
offer moves the true state does not: a path blocked in the fog). ``view="seen"`` is the
baseline of a game with a view (:meth:`core.game.Game.seen_state`): one search on what the
player sees, as if it were all.
It suffers strategy fusion and non-locality (the search on a sample knows the hidden cards),
which the exploitability of its policy measures (:meth:`PIMCAgent.action_probabilities`).

``tree_states=N`` runs PIMC as hot kernels (:mod:`agents.engine.pimc_kernels`, compiled when
numba is importable and ``jit``) over the game's flat tree (built once, at most N states; the
one IS-MCTS's ``tree_states`` uses): a determinization is a member state of the root's
information set drawn by the chance probabilities reaching it, searched exactly (every node's
expectiminimax value is solved once a tree: what ``search`` finds when it reaches the ends);
``search`` and ``seconds`` are then unused, its own random stream (xorshift32).
"""
from __future__ import annotations

import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.info import SearchInfo, info_of
from agents.engine.registry import make_generic
from agents.engine.spec import GENERIC_AGENT_SPEC
from core.game import State

SEED_RANGE = 2 ** 31  # determinization seeds are drawn below it


@dataclass
class PIMCAgent:
    """Votes of a perfect-information search over determinizations; ``info()``'s action values
    are each action's share of the votes, its ``extra["proven"]`` the samples whose search
    proved its value."""

    game: Any = None  # the core.game.Game played (set by the registry)
    # the engine's perfect-information search run on each sample (a generic agent's spec); it
    # compiles before the first sample (warm_up), so every sample gets the same search
    search: str = field(default="expectimax:background_compile=false", metadata=GENERIC_AGENT_SPEC)
    samples: int = 20  # determinizations per move
    seconds: float = 0.05  # the search's time on one sample, at most (the move's deadline shares out what is left)
    seed: int = 0  # random seed of the determinizations
    view: str = "sample"  # "sample": determinizations; "seen": one search on what the player sees as if it were all (Game.seen_state)
    tree_states: int = 0  # > 0: the compiled kernels over the game's flat tree of at most this many states (else ValueError)
    jit: bool = True  # with tree_states: numba-compiled kernels when numba is importable (False: the same source plain)
    games: ClassVar[tuple[str, ...] | None] = None  # every game
    observation_only: ClassVar[bool] = True  # decides from the mover's observation: fair on games of hidden information
    _rng: random.Random = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]
    _inner: Any = field(default=None, init=False, repr=False, compare=False)
    _warm: bool = field(default=False, init=False, repr=False, compare=False)  # the search's warm_up ran
    _last: SearchInfo = field(default_factory=SearchInfo, init=False, repr=False, compare=False)
    _flat: Any = field(default=None, init=False, repr=False, compare=False)  # FlatPIMC, once tree_states > 0

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, got {self.samples}")
        if self.search.partition(":")[0] == "pimc":
            raise ValueError("search must be a perfect-information search, not pimc itself")
        if self.view not in ("sample", "seen"):
            raise ValueError(f"view must be 'sample' or 'seen', got {self.view!r}")
        if self.tree_states < 0:
            raise ValueError(f"tree_states must be 0 (off) or a number of states, got {self.tree_states}")
        if self.tree_states and self.view == "seen":
            raise ValueError("tree_states samples the flat tree's states: view='seen' has none there")
        self._inner = self.make_search()
        self.reset()

    def make_search(self) -> Any:
        """The search run on each sample (a game's own PIMC may build its game agents)."""
        return make_generic(self.search, self.game)

    def reset(self) -> None:
        self._rng = random.Random(self.seed)
        getattr(self._inner, "reset", lambda: None)()

    def warm_up(self) -> float:
        """Compile the search's kernels now (the arena's warm-up calls it: no move then compiles);
        returns seconds taken. A move before it does it first, outside its samples' shares."""
        t0 = time.perf_counter()
        if not self._warm and self.tree_states:
            self._flat_search().votes(self._flat.tree.keys[0], 1, 1)  # the tree built, solved and its kernels compiled
        elif not self._warm:
            getattr(self._inner, "warm_up", lambda: 0.0)()
        self._warm = True
        return time.perf_counter() - t0

    def votes(self, state: State, deadline: float = math.inf) -> Counter:
        """Each action's votes over this move's samples (only actions legal at ``state``)."""
        self.warm_up()
        if self.tree_states:
            return self._flat_votes(state)
        me, start = state.current_player(), time.perf_counter()
        votes: Counter = Counter()
        proven = 0  # samples whose search proved its value (a search stopped by the clock may vote otherwise next time)
        n = 1 if self.view == "seen" else self.samples
        reset = getattr(self._inner, "reset", lambda: None)
        for i in range(n):
            now = time.perf_counter()
            if votes and now >= deadline:  # out of time: the votes so far (a turn's later decisions share its clock)
                break
            share = min(self.seconds, (deadline - now) / (n - i)) if deadline < math.inf else self.seconds
            if self.view == "seen":
                sample = self.game.seen_state(state, me)
            else:
                sample = self.game.determinize(state, me, self._rng.randrange(SEED_RANGE))
            reset()  # each sample searched afresh (a turn planner keeps its plan otherwise)
            a = self._inner.choose(sample, now + max(share, 0.0))
            b = a if sample.words == state.words else self.game.label_action(state, self.game.action_label(sample, a))
            if b is not None and b in state.legal_actions():
                votes[b] += 1
            proven += bool(info_of(self._inner).exact)
        if not votes:  # no sample's choice is legal here: end the turn, else the first legal action
            legal = state.legal_actions()
            end = self.game.end_turn_action
            votes[end if end in legal else legal[0]] += 0
        best = max(sorted(votes), key=votes.__getitem__)
        self._last = SearchInfo(action=best, seconds=time.perf_counter() - start,
                                action_values={a: v / n for a, v in votes.items()},
                                extra={"samples": n, "search": self.search, "proven": proven, "view": self.view})
        return votes

    def _flat_search(self) -> FlatPIMC:
        from agents.engine.ismcts import flat_tree

        if self._flat is None:
            self._flat = FlatPIMC(flat_tree(self.game, self.tree_states), self.jit)
        return self._flat

    def _flat_votes(self, state: State) -> Counter:
        start = time.perf_counter()
        me = state.current_player()
        votes = self._flat_search().votes((me,) + tuple(self.game.information_state(state, me)), self.samples,
                                 self._rng.randrange(2 ** 32))
        best = max(sorted(votes), key=votes.__getitem__)
        self._last = SearchInfo(action=best, seconds=time.perf_counter() - start,
                                action_values={a: v / self.samples for a, v in votes.items()},
                                extra={"samples": self.samples, "search": "flat", "proven": self.samples, "view": self.view})
        return votes

    def action_probabilities(self, state: State, deadline: float = math.inf) -> dict[int, float]:
        """The policy it plays: all on the most voted action (the lowest among ties)."""
        self.votes(state, deadline)
        return {self._last.action: 1.0}  # type: ignore[dict-item]  # votes() set it

    def choose(self, state: State, deadline: float) -> int:
        self.votes(state, deadline)
        return self._last.action  # type: ignore[return-value]  # votes() set it

    def info(self) -> SearchInfo:
        return self._last


class FlatPIMC:
    """PIMC's arrays over one game's flat tree: every node's exact value and pick, solved once."""

    def __init__(self, tree: Any, jit: bool) -> None:
        import numpy as np

        from agents.engine import pimc_kernels as PK
        from base import jit as J

        use = jit and J.numba_available()
        self.np, self.tree = np, tree
        self.k = J.compiled(PK) if use else PK
        self.index = {key: i for i, key in enumerate(tree.keys)}
        self.chance = tree.chance_reach(use)  # the determinizations' weights
        self.value = np.zeros(len(tree.nodes))  # player 0's perfect-information value of each node
        self.pick = np.zeros(len(tree.nodes), dtype=np.int64)  # each decision node's chosen child
        self.k.solve(tree.nodes, tree.edges, self.value, self.pick)

    def votes(self, key: Any, samples: int, seed: int) -> Counter:
        """Each action's votes over ``samples`` determinizations of the information set ``key``."""
        from base.xorshift import seed_state

        np, t = self.np, self.tree
        i = self.index.get(key)
        if i is None:
            raise ValueError(f"information state {key} is not in the game's tree")
        members = np.asarray(t.members[i], dtype=np.int64)
        counts = np.zeros(len(t.actions[i]))
        self.k.vote(members, np.cumsum(self.chance[members]), self.pick, samples, counts, seed_state(seed))
        return Counter({a: int(c) for a, c in zip(t.actions[i], counts) if c})
