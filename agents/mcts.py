"""ConnectX's Monte Carlo tree search agents: the game-generic MCTS (:mod:`agents.engine.mcts`)
bound to the ConnectX game, ConnectX's tricks being the game's hooks, plus its opening cache.

The search is :mod:`agents.engine.mcts_kernels` on :class:`core.connectx.game.ConnectX`: random
playouts on the bitboards (the ``rollout`` hook, :mod:`core.connectx.mcts_hooks`), decided
positions proven at each new node and forced blocks (the ``expand`` hook,
:mod:`core.connectx.search_hooks`), score-bounded MCTS-solver, tree reuse, the compile gate.
This module owns what is ConnectX's own: the agents' parameters (with the leaf heuristic's by
name, :class:`agents.heuristic_params.HeuristicParams`), the agent interface on
:class:`core.connectx.position.Position`, the win-in-one and forced-block shortcut before any
search, and the opening cache (:mod:`agents.mcts_cache`) grafted under a new tree's root.
:class:`TreeSearch` is shared with :class:`agents.ant_colony.AntColonyAgent`, which changes
only the selection rule.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents import mcts_cache
from agents.engine import mcts as engine
from agents.engine import mcts_kernels as K
from agents.heuristic_params import HeuristicParams
from core.connectx import bitboard as bb
import core.connectx.kernels  # noqa: F401  (named by a string in ConnectX.kernels: a bundle must carry it)
from core.connectx.game import ConnectX
from core.connectx.position import Position
from core.connectx.shape import Shape
from core.game import State
import heuristics.connectx.engine  # noqa: F401  (the game's heuristics, named by a string path: a bundle must carry them)
from heuristics.connectx import params as heuristic_params

LEAVES = tuple(engine.LEAVES)
seed_state = engine.seed_state
PROOF = {1.0: "win", -1.0: "loss", 0.0: "draw"}


class _Search(engine.MCTSAgent):
    """The generic UCT agent with the opening cache grafted under each new tree's root."""

    owner = None  # the TreeSearch whose cache is grafted (set once made)

    def _prepare(self, state: State, k: Any, jit: bool) -> int:
        o = self.owner
        # A tree grafted with part of the cache (plain path) gives way to the whole cache once
        # the kernels are compiled, while the cache still holds the position.
        if o is not None and o._graft_partial and jit and o._cache_holds(state):
            self._root = None
        kept = super()._prepare(state, k, jit)
        if kept == 0 and o is not None:
            o._graft(state, jit)
        return kept

    def warm_up(self) -> float:
        t = time.perf_counter()
        super().warm_up()
        if self._compiled_possible():
            mcts_cache.warm_up_graft()
        return time.perf_counter() - t


@dataclass
class _AntSearch(engine.AntParams, _Search):
    """The generic ant colony agent with the cache graft (:class:`engine.AntColonyAgent`'s
    policy on :class:`_Search`)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.check_ant()

    _policy = engine.AntColonyAgent._policy


@dataclass
class TreeSearch(HeuristicParams):
    """What the tree-search agents share. Fields are parameters (see :mod:`agents.registry`),
    with the leaf heuristic's parameters by the names of :data:`heuristics.connectx.params.PARAM_NAMES`
    (None: its default), as on ``alphabeta`` (:class:`agents.heuristic_params.HeuristicParams`)."""

    leaf: str = "rollout"  # leaf evaluation: "rollout" (one random playout), "heuristic", or "mixed"
    heuristic: str = "oddeven"  # heuristic for heuristic/mixed leaves (heuristics.connectx.engine.HEURISTICS)
    width: float = 6.5  # sigmoid width: heuristic reward = 2 / (1 + exp(-score / width)) - 1
    mix: float = 0.5  # mixed leaves: reward = (1 - mix) * rollout + mix * heuristic reward
    capacity: int = 2_000_000  # tree nodes (120 bytes each, pages touched as the tree grows); when full, leaves are not stored
    seed: int = 0  # random seed; each new game restarts the same stream (reproducible games)
    reuse: bool = True  # keep the subtree of the position reached two plies later
    cache: str = "auto"  # opening cache ("auto": the leaf's file in data/, agents.mcts_cache.default_path, if present; "": none; or a path)
    margin: float = 0.01  # seconds kept before the deadline
    max_sims: int = 0  # stop after this many simulations per move (0: only the deadline)
    background_compile: bool = True  # compile numba's kernels in a thread while the plain path searches (moves with under a minute)
    compile_share: float = 0.7  # while that thread compiles: fraction of a move's time spent waiting for it

    PLAIN_GRAFT_NODES: ClassVar[int] = 4000  # cache nodes grafted on the plain path (pure Python grafts ~30 K a second)
    SEARCH: ClassVar[type] = _Search

    _search: Any = field(default=None, init=False, repr=False)  # the generic agent, for one shape
    _cache_data: Any = field(default=None, init=False, repr=False)
    _cache_tried: bool = field(default=False, init=False, repr=False)
    _info_cache: int = field(default=0, init=False, repr=False)  # nodes grafted from the cache this game
    _graft_partial: bool = field(default=False, init=False, repr=False)  # the tree holds only the cache's top (plain path)
    _info: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.compile_share < 1.0:
            raise ValueError(f"compile_share must be in [0, 1), got {self.compile_share}")
        if self.leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}, got {self.leaf!r}")
        if self.heuristic not in heuristic_params.HEURISTIC_IDS or self.heuristic == "none":
            valid = [h for h in heuristic_params.HEURISTIC_IDS if h != "none"]
            raise ValueError(f"unknown heuristic {self.heuristic!r}; valid: {', '.join(valid)}")
        if not 0.0 <= self.mix <= 1.0:
            raise ValueError(f"mix must be in [0, 1], got {self.mix}")
        if not self.width > 0:
            raise ValueError(f"width must be positive, got {self.width}")
        if self.capacity < 16:
            raise ValueError(f"capacity must be at least 16 nodes, got {self.capacity}")
        if self.max_sims < 0:
            raise ValueError(f"max_sims must be 0 (no limit) or positive, got {self.max_sims}")
        self._hparams = self.heuristic_array()  # the leaves' heuristic parameters, as the kernels read them

    # --- the generic search ----------------------------------------------------------------
    def _policy_fields(self) -> dict:
        raise NotImplementedError

    def search(self, shape: Shape) -> engine.MCTSAgent:
        """The generic agent playing ``shape`` (made once per shape; its tree persists)."""
        s = self._search
        if s is None or s.game.shape != shape:
            game = ConnectX(rows=shape.rows, columns=shape.columns, inarow=shape.inarow)
            s = self.SEARCH(
                game=game, leaf=self.leaf, heuristic=self.heuristic,
                # the parameters as one exact string: repr round-trips every float
                hparams=";".join(repr(float(x)) for x in self._hparams) if len(self._hparams) else "",
                width=self.width, mix=self.mix, gamma=1.0, solver=True, max_sims=self.max_sims,
                seed=self.seed, reuse=self.reuse, capacity=self.capacity, margin=self.margin,
                background_compile=self.background_compile, compile_share=self.compile_share,
                **self._policy_fields())
            s.owner = self
            self._search = s
        return s

    # --- agent interface -----------------------------------------------------------------
    def reset(self) -> None:
        if self._search is not None:
            self._search.reset()
        self._info = {}

    def info(self) -> dict:
        return dict(self._info)

    def choose(self, position: Position, deadline: float) -> int:
        legal = position.legal_columns()
        if not legal:
            raise ValueError("the game is over: no legal column")
        search = self.search(position.shape)
        forced = _forced_move(position, legal)
        if forced is not None:
            tree = search._tree
            self._info = {"reason": forced[1], "sims": 0, "reused": 0, "cache_nodes": self._info_cache,
                          "nodes": tree.used if tree is not None else 0,
                          "proven": "win" if forced[1] == "win in 1" else None}
            return forced[0]
        state = State(search.game, (position.current, position.mask))
        col = int(search.choose(state, deadline))
        got = search.info()
        info: dict[str, Any] = {"reused": got.get("reused", 0), "cache_nodes": self._info_cache}
        info.update(got)
        info["sims"] = got.get("simulations", 0)
        info["proven"] = PROOF.get(float(got["value"])) if got.get("exact") else None
        self._info = info
        return col

    def warm_up(self, shape: Shape | None = None) -> float:
        """Compile every kernel ``choose`` uses (numba compiles on first call, seconds); returns
        the seconds taken. Optional: ``choose`` compiles by itself (see ``background_compile``)."""
        t = time.perf_counter()
        self.search(shape or Shape()).warm_up()
        return time.perf_counter() - t

    def compiled_ready(self, shape: Shape | None = None) -> bool:
        """Whether moves on ``shape`` run compiled kernels now."""
        return bool(self.search(shape or Shape())._gate.ready)

    # --- the opening cache ---------------------------------------------------------------
    def _graft(self, state: State, jit: bool) -> None:
        """Graft the cache below the new tree's root (the plain path takes its top only: the
        whole cache in pure Python would take a move's time and more)."""
        self._info_cache = 0
        self._graft_partial = False
        data = self._load_cache()
        search = self._search
        shape = search.game.shape
        if data is None or tuple(data["shape"]) != (shape.rows, shape.columns, shape.inarow) or not shape.fits_int64:
            return
        # compiled only when warm_up compiled the graft too: never a compile inside a move
        jit = jit and mcts_cache.graft_compiled()
        limit = len(data["keys"]) if jit else self.PLAIN_GRAFT_NODES
        added = mcts_cache.graft(search._tree, state.words, shape, data, limit, jit, float(search._tree.floats[K.F_TAU0]))
        self._info_cache = added
        self._graft_partial = added >= limit and limit < len(data["keys"])

    def _cache_holds(self, state: State) -> bool:
        data = self._load_cache()
        return data is not None and mcts_cache.holds(data, state.words, self._search.game.shape)

    def cache_path(self) -> str:
        """The cache file this agent reads ("" when it uses none)."""
        if self.cache == "auto":
            return str(mcts_cache.default_path(self.leaf, self.heuristic))
        return self.cache

    def _load_cache(self) -> dict | None:
        if self._cache_data is None and not self._cache_tried:
            self._cache_tried = True
            path = self.cache_path()
            if path:
                self._cache_data = mcts_cache.load(path, missing_ok=self.cache == "auto")
        return self._cache_data

    def bundle_data(self) -> dict | None:
        """The cache's plain arrays, for build_submission.py to embed (None without a cache)."""
        return self._load_cache()

    def use_data(self, data: dict | None) -> None:
        """Take the cache back from a submission's embedded data (checked, then used as is)."""
        self._cache_data = None if data is None else mcts_cache.validate(data)
        self._cache_tried = True
        if self._search is not None:
            self._search.reset()


@dataclass
class MCTSAgent(TreeSearch):
    """UCT: each step takes the child with the best ``mean + c * sqrt(ln N / n)``.

    Leaf defaults from tuning (``python -m util.arena.tune``, 2026-11-22, README): mixed leaves
    (mix 0.43, width 7.75) scored 0.620 over 280 games against rollout leaves at 5,000
    simulations a move, and 0.536 over 70 games at 0.25 s a move (mixed simulations cost more).
    Tuning ``width`` or ``c`` alone found nothing better than their defaults."""

    leaf: str = "mixed"  # leaf evaluation: "rollout", "heuristic", or "mixed" (see TreeSearch)
    mix: float = 0.43  # mixed leaves: reward = (1 - mix) * rollout + mix * heuristic reward
    width: float = 7.75  # sigmoid width of the heuristic reward
    c: float = 1.0  # exploration constant; rewards lie in [-1, 1]

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.c >= 0:
            raise ValueError(f"c must be >= 0, got {self.c}")

    def _policy_fields(self) -> dict:
        return {"c": self.c}


def _forced_move(position: Position, legal: list[int]) -> tuple[int, str] | None:
    """A win in one, else a block of the opponent's immediate win (with two or more threats
    the game is lost against best play, but blocking one still beats a weak opponent's slip)."""
    for col in legal:
        if position.is_winning_move(col):
            return col, "win in 1"
    s = position.shape
    threats = [c for c in legal if bb.has_won(position.opponent | bb.move_bit(position.mask, s.rows, c), s.rows, s.inarow)]
    if len(threats) == 1:
        return threats[0], "forced block"
    if threats:
        return threats[0], "lost: one of several threats blocked"
    return None


def sigmoid_reward(score: float, width: float) -> float:
    """The heuristic leaf's reward (the same formula as the hot kernel)."""
    return 2.0 / (1.0 + math.exp(-score / width)) - 1.0
