"""Root parallelism (Cazenave & Jouandeau 2007; Chaslot, Winands & van den Herik 2008): several
independent trees of one tree search, each with its own seed, searched at once in threads, and
their root statistics summed. The compiled kernels release the GIL (:mod:`base.jit` compiles
them ``nogil``), so the trees run on as many cores as there are threads; on the plain path the
threads take turns (correct, not faster).

The choice: a tree that proved the root's value (an MCTS-solver proof) decides, since a proof
holds whichever tree found it; otherwise the action with the most visits over all trees (ties:
the better summed value). With ``max_sims`` set (here or in the search), each tree runs its share
(``ceil(max_sims / threads)``), so a search of fixed size gives the same visits and the same
action on every run (seeds are fixed); a search stopped by the clock is as reproducible as the
clock.
"""
from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.engine.info import SearchInfo, info_of
from agents.engine.registry import make_generic
from agents.engine.spec import GENERIC_AGENT_SPEC
from core.game import State

SEED_STRIDE = 7919  # tree i searches with the search's seed + i * SEED_STRIDE
MAX_THREADS = 64


@dataclass
class RootParallelAgent:
    """``threads`` trees of ``search`` (an engine tree search whose ``info()`` reports root
    ``visits``: ``mcts``, ``ant_colony``) searched at once; ``info()`` sums them (visits, the
    visit-weighted values, simulations) and keeps each tree's visits in ``extra["trees"]``."""

    game: Any = None  # the core.game.Game played (set by the registry)
    # the tree search each thread runs (a generic agent's spec); its max_sims, when set, is shared out
    search: str = field(default="mcts", metadata=GENERIC_AGENT_SPEC)
    threads: int = field(default=2, metadata={"bounds": (1, MAX_THREADS)})  # trees searched at once (one a core is the point)
    max_sims: int = 0  # simulations a move over all trees, shared out (0: the search's own max_sims, shared out)
    seed: int = 0  # added to the search's seed (tree i: the search's seed + seed + i * SEED_STRIDE)
    games: ClassVar[tuple[str, ...] | None] = None  # every game its search plays
    _trees: list = field(default_factory=list, init=False, repr=False, compare=False)
    _pool: Any = field(default=None, init=False, repr=False, compare=False)
    _last: SearchInfo = field(default_factory=SearchInfo, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.threads <= MAX_THREADS:
            raise ValueError(f"threads must be from 1 to {MAX_THREADS}, got {self.threads}")
        if self.search.partition(":")[0] == "root_parallel":
            raise ValueError("search must be a tree search, not root_parallel itself")
        self._trees = [make_generic(self.search, self.game) for _ in range(self.threads)]
        if not all(hasattr(t, "max_sims") and hasattr(t, "seed") for t in self._trees):
            raise ValueError(f"search {self.search!r} is not a tree search with seed and max_sims (mcts, ant_colony)")
        if self.max_sims < 0:
            raise ValueError(f"max_sims must be 0 (the search's own) or positive, got {self.max_sims}")
        total = self.max_sims or self._trees[0].max_sims
        for i, tree in enumerate(self._trees):
            tree.seed += self.seed + i * SEED_STRIDE
            tree.max_sims = math.ceil(total / self.threads) if total else 0

    @property
    def trees(self) -> tuple[Any, ...]:
        """The searches run at once (what a server counts: :func:`agents.engine.spec.table_bytes`)."""
        return tuple(self._trees)

    def reset(self) -> None:
        for tree in self._trees:
            tree.reset()

    def warm_up(self) -> float:
        """Compile the search's kernels once, before any thread needs them; returns seconds taken."""
        t0 = time.perf_counter()
        getattr(self._trees[0], "warm_up", lambda: 0.0)()
        return time.perf_counter() - t0

    def info(self) -> SearchInfo:
        return self._last

    def choose(self, state: State, deadline: float) -> int:
        if self._pool is None and self.threads > 1:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="root-parallel")
        action, self._last = search_at_once(self._trees, state, deadline, self._pool)
        return action


def search_at_once(trees: list[Any], state: State, deadline: float,
                   pool: ThreadPoolExecutor | None = None) -> tuple[int, SearchInfo]:
    """Each of ``trees`` (tree-search agents, e.g. a game's own MCTS built with other seeds)
    chooses at ``state`` before ``deadline`` at once, on ``pool``'s threads (None: one after
    another); the action of the summed roots and their summed info."""
    start = time.perf_counter()
    if pool is None:
        actions = [tree.choose(state, deadline) for tree in trees]
    else:
        jobs = [pool.submit(tree.choose, state, deadline) for tree in trees]
        actions = [job.result() for job in jobs]
    infos = [info_of(tree) for tree in trees]
    action = decide(state, actions, infos)
    return action, merged(infos, action, time.perf_counter() - start)


def decide(state: State, actions: list[int], infos: list[SearchInfo]) -> int:
    """A tree's action whose root value is proven, else the most visited over all trees (ties:
    the better summed value)."""
    for a, info in zip(actions, infos):
        if info.exact:
            return a
    visits, values = summed(infos)
    legal = set(state.legal_actions())
    known = sorted(a for a in visits if a in legal)
    if not known:
        return actions[0]
    return max(known, key=lambda a: (visits[a], values.get(a, 0.0)))


def summed(infos: list[SearchInfo]) -> tuple[dict[int, int], dict[int, float]]:
    """Each action's visits over the trees, and its visit-weighted mean value."""
    visits: dict[int, int] = {}
    weighted: dict[int, float] = {}
    for info in infos:
        own = info.extra.get("visits") or {}
        for a, n in own.items():
            visits[a] = visits.get(a, 0) + int(n)
            weighted[a] = weighted.get(a, 0.0) + int(n) * float((info.action_values or {}).get(a, 0.0))
    return visits, {a: weighted[a] / visits[a] for a in visits if visits[a]}


def merged(infos: list[SearchInfo], action: int, seconds: float) -> SearchInfo:
    visits, values = summed(infos)
    proven = [i for i in infos if i.exact]
    sims = sum(i.simulations or 0 for i in infos)
    value = proven[0].value if proven else values.get(action)
    return SearchInfo(action=action, value=value, exact=bool(proven), simulations=sims, seconds=seconds,
                      action_values=values, nodes=sum(i.nodes or 0 for i in infos) or None,
                      extra={"visits": visits, "trees": [dict(i.extra.get("visits") or {}) for i in infos],
                             "rate": sims / max(seconds, 1e-9)})
