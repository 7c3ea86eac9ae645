"""Monte Carlo tree search: UCT with rollout or heuristic leaves, MCTS-solver proofs, a tree
kept from one move to the next, and an optional opening cache.

The search itself is :func:`agents.mcts_tree.run` (compiled by numba for boards within 63 bits,
plain Python otherwise). This module owns what is not hot: the tree's arrays, finding the
previous tree's node for the new position, the clock (batches of simulations sized from the
measured speed, the clock read between batches), and the cache. :class:`TreeSearch` is shared
with :class:`agents.ant_colony.AntColonyAgent`, which changes only the selection rule.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

import agents.mcts_tree as mt
from agents.mcts_tree import Tree, seed_state  # noqa: F401  (the tree's Python side; mcts_cache uses it too)
from heuristics.connectx import params as heuristic_params
from agents.heuristic_params import HeuristicParams
from core.connectx import bitboard as bb
from core.connectx.position import Position
from core.connectx.shape import Shape
from util.batches import run_batches
from util.jit import CompileGate, compiled, numba_enabled

LEAVES = ("rollout", "heuristic", "mixed")
_ENTRIES = ("new_tree", "run", "best_column", "compact")  # kernels a move calls (warm_up compiles them)
_LEAF_IDS = {"rollout": mt.LEAF_ROLLOUT, "heuristic": mt.LEAF_HEURISTIC, "mixed": mt.LEAF_MIXED}


def is_compiled(k: Any) -> bool:
    """Whether the compiled kernels ``k`` have been compiled in this process (all a move calls)."""
    return all(len(getattr(k, f).signatures) > 0 for f in _ENTRIES)


@dataclass
class TreeSearch(HeuristicParams):
    """What the tree-search agents share. Fields are parameters (see :mod:`agents.registry`),
    with the leaf heuristic's parameters by the names of :data:`heuristics.connectx.params.PARAM_NAMES` (None:
    its default), as on ``alphabeta`` (:class:`agents.heuristic_params.HeuristicParams`)."""

    leaf: str = "rollout"  # leaf evaluation: "rollout" (one random playout), "heuristic", or "mixed"
    heuristic: str = "oddeven"  # heuristic for heuristic/mixed leaves (heuristic_params.HEURISTIC_IDS)
    width: float = 6.5  # sigmoid width: heuristic reward = 2 / (1 + exp(-score / width)) - 1
    mix: float = 0.5  # mixed leaves: reward = (1 - mix) * rollout + mix * heuristic reward
    capacity: int = 2_000_000  # tree nodes (about 45 bytes each); when full, leaves are not stored
    seed: int = 0  # random seed; each new game restarts the same stream (reproducible games)
    reuse: bool = True  # keep the subtree of the position reached two plies later
    cache: str = "auto"  # opening cache ("auto": the leaf's file in data/, agents.mcts_cache.default_path, if present; "": none; or a path)
    margin: float = 0.01  # seconds kept before the deadline
    max_sims: int = 0  # stop after this many simulations per move (0: only the deadline)
    background_compile: bool = True  # compile numba's kernels in a thread while the plain path searches (moves with under a minute)
    compile_share: float = 0.7  # while that thread compiles: fraction of a move's time spent waiting for it

    PLAIN_GRAFT_NODES: ClassVar[int] = 4000  # cache nodes grafted on the plain path (about 0.15 s of pure Python)

    _tree: Any = field(default=None, init=False, repr=False)
    _root: Any = field(default=None, init=False, repr=False)  # Position of node 0
    _cache_data: Any = field(default=None, init=False, repr=False)
    _cache_tried: bool = field(default=False, init=False, repr=False)
    _info_cache: int = field(default=0, init=False, repr=False)  # nodes grafted from the cache this game
    _graft_partial: bool = field(default=False, init=False, repr=False)  # the tree holds only the cache's top (plain path)
    _info: dict = field(default_factory=dict, init=False, repr=False)
    _gate: CompileGate = field(default_factory=lambda: CompileGate("mcts"), init=False, repr=False)  # may moves run the compiled kernels?

    def __post_init__(self) -> None:
        if not 0.0 <= self.compile_share < 1.0:
            raise ValueError(f"compile_share must be in [0, 1), got {self.compile_share}")
        if self.leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}, got {self.leaf!r}")
        if self.heuristic not in heuristic_params.HEURISTIC_IDS:
            raise ValueError(f"unknown heuristic {self.heuristic!r}; valid: {', '.join(heuristic_params.HEURISTIC_IDS)}")
        if not 0.0 <= self.mix <= 1.0:
            raise ValueError(f"mix must be in [0, 1], got {self.mix}")
        if not self.width > 0:
            raise ValueError(f"width must be positive, got {self.width}")
        if self.capacity < 16:
            raise ValueError(f"capacity must be at least 16 nodes, got {self.capacity}")
        if self.max_sims < 0:
            raise ValueError(f"max_sims must be 0 (no limit) or positive, got {self.max_sims}")
        self._hparams = self.heuristic_array()  # the leaves' heuristic parameters, as mt.run reads them

    def kernels(self, bits: int) -> Any:
        """The tree kernels for a ``bits``-bit board: compiled against this agent's one leaf
        heuristic (none for rollouts), which compiles in a fraction of the time of the full
        heuristic dispatcher; the plain module on big boards or without numba."""
        if not numba_enabled(bits):
            return mt
        import heuristics.connectx.evaluate as ev

        stand_in = getattr(compiled(ev), "evaluate_" + ("none" if self.leaf == "rollout" else self.heuristic))
        return compiled(mt, {"evaluate": stand_in})

    # --- what subclasses change ----------------------------------------------------------
    def _policy_params(self, params: np.ndarray) -> None:
        raise NotImplementedError

    def _pheromone(self) -> bool:
        return False

    # --- agent interface -----------------------------------------------------------------
    def reset(self) -> None:
        self._root = None
        self._info = {}

    def info(self) -> dict:
        return dict(self._info)

    def params_array(self) -> np.ndarray:
        p = np.zeros(mt.N_PARAMS, dtype=np.float64)
        p[mt.P_LEAF] = _LEAF_IDS[self.leaf]
        p[mt.P_MIX] = self.mix
        p[mt.P_KIND] = heuristic_params.HEURISTIC_IDS[self.heuristic]
        p[mt.P_WIDTH] = self.width
        self._policy_params(p)
        return p

    def choose(self, position: Position, deadline: float) -> int:
        start = time.perf_counter()
        shape = position.shape
        legal = position.legal_columns()
        if not legal:
            raise ValueError("the game is over: no legal column")
        k = self._move_kernels(shape, deadline)
        reused = self._prepare(position, k)
        tree = self._tree
        info: dict[str, Any] = {"reused": reused, "cache_nodes": self._info_cache, "sims": 0}
        forced = _forced_move(position, legal)
        if forced is not None:
            info.update(reason=forced[1], nodes=tree.used, proven="win" if forced[1] == "win in 1" else None)
            self._info = info
            return forced[0]
        params = self.params_array()
        path = np.zeros(shape.cells + 2, dtype=np.int64)
        end = deadline - self.margin
        # Batches of simulations sized from the measured rate (short: the rate drifts); a short
        # batch means the root is proven.
        sims = run_batches(lambda n: int(k.run(*tree.arrays(), path, 0, position.current, position.mask, position.ply,
                                              shape.rows, shape.columns, shape.inarow, params, self._hparams, n)),
                           end, limit=self.max_sims or 0, first=32, floor=16)
        col = int(k.best_column(tree.children, tree.visits, tree.values, tree.lo, tree.hi, 0, shape.columns))
        if col < 0 or not position.can_play(col):
            col = next(c for c in shape.center_order() if c in legal)
        ch = int(tree.children[0, col])
        elapsed = time.perf_counter() - start
        info.update(
            reason="search", sims=sims, nodes=tree.used, seconds=elapsed, rate=sims / max(elapsed, 1e-9),
            proven=tree.proof(0),
            value=float(tree.values[ch] / tree.visits[ch]) if ch >= 0 and tree.visits[ch] > 0 else None,
        )
        # Each root move's visits and mean value for the side to move (the analysis a person reads).
        kids = {c: int(tree.children[0, c]) for c in legal if tree.children[0, c] >= 0}
        info["visits"] = {c: int(tree.visits[n]) for c, n in kids.items()}
        info["action_values"] = {c: float(tree.values[n] / tree.visits[n]) for c, n in kids.items() if tree.visits[n] > 0}
        self._info = info
        return col

    def _move_kernels(self, shape: Shape, deadline: float) -> Any:
        """The kernels this move runs. Compiling takes seconds (6-15 s here by leaf and load):
        a move with a minute or more compiles in place; a shorter one (Kaggle's) starts a thread
        that compiles, waits for it during ``compile_share`` of its time (numba's compiler holds
        the GIL: a plain search beside it would slow both) and searches the rest on the plain
        path, in the same tree arrays."""
        k = self.kernels(shape.bits)
        if k is mt:
            return k
        ready = self._gate.admit(deadline, lambda: self.warm_up(shape), lambda: is_compiled(k),
                                 self.background_compile, self.compile_share)
        return k if ready else mt

    def warm_up(self, shape: Shape | None = None) -> float:
        """Compile every kernel ``choose`` uses on a tiny tree (numba compiles on first call,
        6-15 s here by leaf and load); returns the seconds taken. Optional: ``choose`` compiles
        by itself (see ``background_compile``)."""
        t = time.perf_counter()
        shape = shape or Shape()
        k = self.kernels(shape.bits)
        tree = Tree(64, shape.columns, self._pheromone())
        pos = Position.empty(shape)
        args = (pos.current, pos.mask, 0, shape.rows, shape.columns, shape.inarow)
        k.new_tree(*tree.arrays(), *args, 1.0, 1)
        k.run(*tree.arrays(), np.zeros(shape.cells + 2, np.int64), 0, *args, self.params_array(), self._hparams, 40)
        k.best_column(tree.children, tree.visits, tree.values, tree.lo, tree.hi, 0, shape.columns)
        k.compact(*tree.arrays(), int(tree.children[0, 0]) if tree.children[0, 0] > 0 else 0, 0.0,
                  np.empty(tree.used, np.int64), np.empty(tree.used, np.int64))
        if shape.fits_int64:
            one = np.zeros(1, np.int64)
            k.load_subtree(*tree.arrays(), 0, *args[:2], shape.rows, shape.columns, 1.0, one, np.zeros(1),
                           np.zeros(1), np.zeros(1, np.int8), np.zeros(1, np.int8), one, one.copy(), one.copy(), 1)
        self._gate.ready = self._gate.ready or k is not mt
        return time.perf_counter() - t

    # --- the tree across moves -----------------------------------------------------------
    def _prepare(self, position: Position, k: Any) -> int:
        """Point node 0 at ``position``: the old tree's node for it when found (returns the
        nodes kept), else a new tree grafted from the cache (returns 0)."""
        shape = position.shape
        tree = self._tree
        if tree is None or tree.children.shape != (self.capacity, shape.columns):
            tree = self._tree = Tree(self.capacity, shape.columns, self._pheromone())
            self._root = None
        old = self._root
        # A tree grafted with part of the cache (plain path) gives way to the whole cache once
        # the kernels are compiled, while the cache still holds the position.
        regraft = self._graft_partial and k is not mt and self._cache_holds(position)
        if self.reuse and not regraft and old is not None and old.shape == shape and 0 <= position.ply - old.ply <= 2:
            node = _find_node(tree, old, position)
            if node == 0:
                return tree.used
            if node > 0:
                used = tree.used
                kept = k.compact(*tree.arrays(), node, 0.0, np.empty(used, np.int64), np.empty(used, np.int64))
                self._root = position
                return int(kept)
        k.new_tree(*tree.arrays(), position.current, position.mask, position.ply, shape.rows, shape.columns,
                   shape.inarow, self.params_array()[mt.P_TAU0], seed_state(self.seed))
        self._root = position
        self._info_cache = self._graft_cache(position, k)
        return 0

    def _graft_cache(self, position: Position, k: Any) -> int:
        data = self._load_cache()
        shape = position.shape
        if data is None or tuple(data["shape"]) != (shape.rows, shape.columns, shape.inarow) or not shape.fits_int64:
            return 0
        tree = self._tree
        n = min(len(data["keys"]), self.capacity)
        # Pure Python grafts ~30 K nodes a second: the whole cache (160 K nodes) would take the
        # move's time and more, so the plain path takes its top (breadth first) only.
        limit = self.PLAIN_GRAFT_NODES if k is mt else n
        added = int(k.load_subtree(*tree.arrays(), 0, position.current, position.mask, shape.rows, shape.columns,
                                   self.params_array()[mt.P_TAU0], data["keys"], data["visits"], data["values"],
                                   data["lo"], data["hi"], np.empty(n, np.int64), np.empty(n, np.int64),
                                   np.empty(n, np.int64), limit))
        self._graft_partial = added >= limit and limit < n
        return added

    def _cache_holds(self, position: Position) -> bool:
        data = self._load_cache()
        if data is None or not position.shape.fits_int64:
            return False
        s = position.shape
        return mt.find_key(data["keys"], mt.position_key(position.current, position.mask, s.rows, s.columns)) >= 0

    # --- the opening cache ---------------------------------------------------------------
    def cache_path(self) -> str:
        """The cache file this agent reads ("" when it uses none)."""
        from agents import mcts_cache

        if self.cache == "auto":
            return str(mcts_cache.default_path(self.leaf, self.heuristic))
        return self.cache

    def _load_cache(self) -> dict | None:
        if self._cache_data is None and not self._cache_tried:
            self._cache_tried = True
            from agents import mcts_cache

            path = self.cache_path()
            if path:
                self._cache_data = mcts_cache.load(path, missing_ok=self.cache == "auto")
        return self._cache_data

    def bundle_data(self) -> dict | None:
        """The cache's plain arrays, for build_submission.py to embed (None without a cache)."""
        return self._load_cache()

    def use_data(self, data: dict | None) -> None:
        """Take the cache back from a submission's embedded data (checked, then used as is)."""
        from agents import mcts_cache

        self._cache_data = None if data is None else mcts_cache.validate(data)
        self._cache_tried = True
        self._root = None


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

    def _policy_params(self, params: np.ndarray) -> None:
        params[mt.P_POLICY] = mt.POLICY_UCT
        params[mt.P_C] = self.c


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


def _find_node(tree: Tree, old: Position, new: Position) -> int:
    """Id of ``new``'s node below node 0 (``old``): 0 for the same position, -1 if absent."""
    depth = new.ply - old.ply
    if depth == 0:
        return 0 if old == new else -1
    s = old.shape
    for seq in itertools.product(range(s.columns), repeat=depth):
        pos, node = old, 0
        for col in seq:
            if not pos.can_play(col) or pos.is_terminal():
                node = -1
                break
            pos = pos.play(col)
            node = int(tree.children[node, col]) if node >= 0 else -1
        if pos.ply == new.ply and pos == new:
            return node if node > 0 else -1
    return -1


def sigmoid_reward(score: float, width: float) -> float:
    """The heuristic leaf's reward (the same formula as the hot kernel)."""
    return 2.0 / (1.0 + math.exp(-score / width)) - 1.0
