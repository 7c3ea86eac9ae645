"""ConnectX's Monte Carlo tree search agents: the game-generic MCTS (:mod:`agents.engine.mcts`)
on the ConnectX game, plus what is ConnectX's own.

The search is :mod:`agents.engine.mcts_kernels` bound to :class:`core.connectx.game.ConnectX`
(UCT or ant colony selection, rollout / heuristic / mixed leaves, score-bounded MCTS-solver,
tree reuse, the compile gate); ConnectX's tricks reach it as the game's hooks: random playouts
on the bitboards (``rollout``, :mod:`core.connectx.mcts_hooks`), decided positions proven at
each new node (``expand``, :mod:`core.connectx.search_hooks`; with ``expand="prune"`` also no
move under a threat and a forced block alone). Settings:
``gamma=1`` (ConnectX's rewards are undiscounted, as they were on its own kernel), solver on,
closed loop. This module owns the agents' parameters (the leaf heuristic's by name,
:class:`agents.connectx.heuristic_params.HeuristicParams`), the interface on
:class:`core.connectx.position.Position`, the win-in-one / forced-block shortcut before any
search, reuse of the tree two plies later, and the opening cache (:mod:`agents.connectx.mcts_cache`)
grafted below each new tree's root. :class:`TreeSearch` is shared with
:class:`agents.connectx.ant_colony.AntColonyAgent`, which only changes the selection policy.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import heuristics.connectx.engine as connectx_heuristics  # named by a string path in ConnectX: a bundle must carry it
from agents.connectx import mcts_cache
from agents.connectx.base import PositionAgent
from agents.connectx.heuristic_params import HeuristicParams
from agents.engine import mcts as engine
from agents.engine.info import SearchInfo
from agents.engine.params import params_text
from core.connectx import bitboard as bb
from core.connectx.game import ConnectX
from core.connectx.position import Position
from core.connectx.shape import Shape
from core.game import State

LEAVES = tuple(engine.LEAVES)
HEURISTICS = tuple(connectx_heuristics.HEURISTICS)
PROOF = {1.0: "win", -1.0: "loss", 0.0: "draw"}
REUSE_PLIES = 2  # the tree is kept when the new position lies this many plies (or fewer) below its root
# Cache nodes grafted on the plain path (0.15 s of pure Python here; 4,000 took 0.44 s, past a
# Kaggle first move's share beside the compile thread).
PLAIN_GRAFT_NODES = 2000
seed_state = engine.seed_state


class _Stored:
    """Mixin over an engine MCTS agent: the opening cache grafted below each new tree's root,
    and ConnectX's rule for finding the new position in the old tree (a Position has no move
    history: the positions up to :data:`REUSE_PLIES` below the root are tried)."""

    stored: dict | None = None  # the validated cache (agents.connectx.mcts_cache), set by the owner
    cache_nodes: int = 0  # nodes grafted under the current tree
    partial: bool = False  # the tree holds only the cache's top (grafted on the plain path)
    plain_graft_nodes: int = PLAIN_GRAFT_NODES  # the owner sets its own (TreeSearch.PLAIN_GRAFT_NODES)

    def prepare(self, state: State, k: Any, jit: bool) -> int:
        # A tree grafted with part of the cache (plain path) gives way to the whole cache once
        # the kernels are compiled, while the cache still holds the position.
        if self.partial and jit and self.stored is not None and mcts_cache.holds(self.stored, state):
            self.forget_root()  # type: ignore[attr-defined]
        kept = super().prepare(state, k, jit)  # type: ignore[misc]
        if kept == 0:  # a new tree
            self.cache_nodes, self.partial = 0, False
            data = self.stored
            if data is not None and mcts_cache.fits(data, self.game):  # type: ignore[attr-defined]
                # compiled only when warm_up compiled the graft: never a compile inside a move
                jit = jit and mcts_cache.graft_compiled(self)
                # pure Python grafts ~25 K nodes a second: the plain path takes the top only
                limit = len(data["keys"]) if jit else self.plain_graft_nodes
                self.cache_nodes = mcts_cache.graft(self, self.tree, state.words, data, limit, jit)  # type: ignore[attr-defined]
                self.partial = self.cache_nodes >= limit and limit < len(data["keys"])
        return kept

    def find(self, old: State, new: State) -> int:
        depth = bb.popcount(new.words[1]) - bb.popcount(old.words[1])
        if not 0 <= depth <= REUSE_PLIES:
            return -1
        km, g = old.game.kernel_module, old.game.g
        frontier = [(0, tuple(old.words))]
        for _ in range(depth):
            frontier = [(kid["id"], tuple(int(w) for w in km.play(g, words, kid["action"])))
                        for node, words in frontier for kid in self.tree.children(node)]  # type: ignore[attr-defined]
        target = tuple(new.words)
        return next((node for node, words in frontier if words == target), -1)

    def warm_up(self) -> float:
        t = time.perf_counter()
        super().warm_up()  # type: ignore[misc]
        if self.compiled_possible():  # type: ignore[attr-defined]
            mcts_cache.warm_up_graft(self)
        return time.perf_counter() - t


class _Search(_Stored, engine.MCTSAgent):
    """The engine's UCT agent with the cache and ConnectX's reuse rule."""


class _AntSearch(_Stored, engine.AntColonyAgent):
    """The engine's ant colony agent with the cache and ConnectX's reuse rule."""


@dataclass
class TreeSearch(PositionAgent, HeuristicParams):
    """What the tree-search agents share. Fields are parameters (see :mod:`agents.connectx.registry`),
    with the leaf heuristic's parameters by the names of :data:`heuristics.connectx.params.PARAMS`
    (None: its default), as on ``alphabeta`` (:class:`agents.connectx.heuristic_params.HeuristicParams`)."""

    leaf: str = "rollout"  # leaf evaluation: "rollout" (one random playout), "heuristic", or "mixed"
    heuristic: str = "oddeven"  # heuristic for heuristic/mixed leaves (heuristics.connectx.engine.HEURISTICS)
    width: float = 6.5  # sigmoid width: heuristic reward = 2 / (1 + exp(-score / width)) - 1
    mix: float = 0.5  # mixed leaves: reward = (1 - mix) * rollout + mix * heuristic reward
    capacity: int = 2_000_000  # tree nodes (the engine's node, edges included: ~140 bytes; pages touched as the tree grows); when full, leaves are not stored
    seed: int = 0  # random seed; each new game restarts the same stream (reproducible games)
    reuse: bool = True  # keep the subtree of the position reached two plies later
    # ConnectX's expand hook at new nodes: "prove" (decided positions proven, every column a child,
    # as on the former kernel), "prune" (also no move under a threat, a forced block alone), "off".
    expand: str = "prove"
    cache: str = "auto"  # opening cache ("auto": the leaf's file in data/, agents.connectx.mcts_cache.default_path, if present; "": none; or a path)
    margin: float = 0.01  # seconds kept before the deadline
    max_sims: int = 0  # stop after this many simulations per move (0: only the deadline)
    background_compile: bool = True  # compile numba's kernels in a thread while the plain path searches (moves with under a minute)
    compile_share: float = 0.7  # while that thread compiles: fraction of a move's time spent waiting for it

    PLAIN_GRAFT_NODES: ClassVar[int] = PLAIN_GRAFT_NODES
    SEARCH: ClassVar[type[_Search] | type[_AntSearch]] = _Search

    _search: Any = field(default=None, init=False, repr=False)  # the engine agent, for one shape
    _cache_data: Any = field(default=None, init=False, repr=False)
    _cache_tried: bool = field(default=False, init=False, repr=False)
    _info: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        checks = [(0.0 <= self.compile_share < 1.0, f"compile_share must be in [0, 1), got {self.compile_share}"),
                  (self.leaf in LEAVES, f"leaf must be one of {', '.join(LEAVES)}, got {self.leaf!r}"),
                  (self.heuristic in HEURISTICS, f"unknown heuristic {self.heuristic!r}; valid: {', '.join(HEURISTICS)}"),
                  (0.0 <= self.mix <= 1.0, f"mix must be in [0, 1], got {self.mix}"),
                  (self.width > 0, f"width must be positive, got {self.width}"),
                  (self.capacity >= 16, f"capacity must be at least 16 nodes, got {self.capacity}"),
                  (self.max_sims >= 0, f"max_sims must be 0 (no limit) or positive, got {self.max_sims}"),
                  (self.expand in engine.EXPAND_MODES, f"expand must be one of {', '.join(engine.EXPAND_MODES)}, got {self.expand!r}")]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        self._hparams = self.heuristic_params()  # the leaves' heuristic parameters by name (reach the engine by search())

    # --- the engine's search -------------------------------------------------------------
    def _policy_fields(self) -> dict:
        raise NotImplementedError

    def search(self, shape: Shape) -> _Search | _AntSearch:
        """The engine agent playing ``shape`` (made once per shape; its tree persists)."""
        s = self._search
        if s is None or s.game.shape != shape:
            s = self.SEARCH(
                game=ConnectX(rows=shape.rows, columns=shape.columns, inarow=shape.inarow),
                leaf=self.leaf, heuristic=self.heuristic,
                params=params_text(self._hparams),  # by name: the engine reads them against the same declaration
                width=self.width, mix=self.mix, gamma=1.0, solver=True, open_loop=False, expand=self.expand,
                max_sims=self.max_sims, seed=self.seed, reuse=self.reuse, capacity=self.capacity,
                margin=self.margin, background_compile=self.background_compile,
                compile_share=self.compile_share, **self._policy_fields())
            s.plain_graft_nodes = self.PLAIN_GRAFT_NODES
            self._search = s
        return s

    # --- agent interface -----------------------------------------------------------------
    def reset(self) -> None:
        if self._search is not None:
            self._search.reset()
        self._info = {}

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._info)

    def choose_position(self, position: Position, deadline: float) -> int:
        legal = position.legal_columns()
        if not legal:
            raise ValueError("the game is over: no legal column")
        search = self.search(position.shape)
        search.stored = self._load_cache()
        state = State(search.game, (position.current, position.mask))
        forced = _forced_move(position, legal)
        if forced is not None:
            # The tree still follows the game (and the compile starts) as on a searched move.
            reused = search.follow(state, deadline)
            assert search.tree is not None  # follow() made it
            self._info = {"reason": forced[1], "simulations": 0, "reused": reused, "cache_nodes": search.cache_nodes,
                          "nodes": search.tree.used, "proven": "win" if forced[1] == "win in 1" else None}
            return forced[0]
        col = int(search.choose(state, deadline))
        got = search.info()
        info: dict[str, Any] = {"seconds": 0.0, "rate": 0.0, "value": None, "cache_nodes": search.cache_nodes}
        info.update(got)
        info.setdefault("simulations", 0)
        info["proven"] = PROOF.get(float(got["value"])) if got.get("exact") else None
        self._info = info
        return col

    def warm_up(self, shape: Shape | None = None) -> float:
        """Compile every kernel ``choose`` uses (numba compiles on first call, seconds); returns
        the seconds taken. Optional: ``choose`` compiles by itself (see ``background_compile``)."""
        t = time.perf_counter()
        self.search(shape or self.board()).warm_up()
        return time.perf_counter() - t

    # --- the opening cache ---------------------------------------------------------------
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

    def load_data(self) -> None:
        """Read the cache now (the arena's check before the first game): CacheError (a
        ValueError) for a missing named file or a damaged one."""
        self._load_cache()

    def bundle_data(self) -> dict | None:
        """The cache's plain arrays, for build_submission.py to embed (None without a cache)."""
        return self._load_cache()

    def use_data(self, data: dict | None) -> None:
        """Take the cache back from a submission's embedded data (checked, then used as is)."""
        self._cache_data = None if data is None else mcts_cache.validate(data)
        self._cache_tried = True
        if self._search is not None:
            self._search.reset()  # the next move starts a tree, grafted from this data


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
