"""Monte Carlo tree search on any game of the engine (:mod:`core.game`): UCT or ant colony
selection (:class:`AntColonyAgent`), rollout / heuristic / mixed leaves, score-bounded
MCTS-solver, chance nodes (closed loop) or open-loop search for dice games, a discount against
aimless play when far ahead, tree reuse.

The hot loop is :mod:`agents.engine.mcts_kernels` (tree layout, values and rules documented
there), bound to the game's kernels by :func:`core.game.bind`. This module owns what is not hot:
the tree's arrays, finding the old tree's node for the new state, the clock (batches of
simulations sized from the measured speed), the choice of the move and :meth:`MCTSAgent.info`.
"""
from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agents.engine import mcts_kernels as K
from agents.engine.info import SearchInfo
from agents.engine.params import NAMED, heuristic_array, resolve_heuristic
from base.batches import run_batches
from base.jit import CompileGate, is_hot, numba_available
from base.xorshift import seed_state
from core.game import CHANCE, State, bind, kernel_state, search_constants

if TYPE_CHECKING:
    import numpy as np

LEAVES = {"rollout": K.LEAF_ROLLOUT, "heuristic": K.LEAF_HEURISTIC, "mixed": K.LEAF_MIXED}
EXPAND_MODES = {"prune": K.EXPAND_PRUNE, "prove": K.EXPAND_PROVE, "off": K.EXPAND_OFF}
PATH_CAP = 4096  # deepest path a simulation follows in the tree (deeper: evaluated as a leaf)
FIND_LIMIT = 4096  # tree nodes examined when looking for a state whose history is unknown
_ENTRIES = ("new_tree", "run", "reroot")  # kernels a move calls (warm_up compiles them)


class Tree:
    """The two arrays of one search tree (layout in :mod:`agents.engine.mcts_kernels`):
    numpy when compiled code may use them, Python lists on the plain-only path."""

    def __init__(self, num_actions: int, capacity: int, use_numpy: bool) -> None:
        n_ints, n_floats = K.layout(num_actions, capacity, PATH_CAP)
        self.ints: np.ndarray | list[int]
        self.floats: np.ndarray | list[float]
        if use_numpy:
            import numpy as np

            self.ints = np.zeros(n_ints, dtype=np.int64)
            self.floats = np.zeros(n_floats, dtype=np.float64)
        else:
            self.ints = [0] * n_ints
            self.floats = [0.0] * n_floats
        K.init_header(self.ints, num_actions, capacity, PATH_CAP)
        self.numpy = use_numpy
        self.capacity = capacity

    @property
    def used(self) -> int:
        return int(self.ints[K.I_USED])

    def node(self, n: int) -> dict:
        """One node's fields as Python values (for the driver and for tests)."""
        b = int(self.ints[K.I_NODES]) + n * K.NI
        f = K.FHEADER + n * K.NF
        i, x = self.ints, self.floats
        w = int(i[b + K.N_INFO])
        return {"id": n, "action": K.action_of(w), "player": K.player_of(w),
                "kids": int(i[b + K.N_NKIDS]), "legal": int(i[b + K.N_NLEGAL]), "dist": K.dist_of(w),
                "visits": float(x[f + K.V_VISITS]), "value": float(x[f + K.V_VALUE]),
                "lo": float(x[f + K.V_LO]), "hi": float(x[f + K.V_HI]), "aux": float(x[int(i[K.I_AUX]) + n]),
                "pher": float(x[int(i[K.I_PHER]) + n])}

    def child_ids(self, n: int) -> list[int]:
        """``n``'s children, in the order of its edge block."""
        e = int(self.ints[int(self.ints[K.I_NODES]) + n * K.NI + K.N_EDGE])
        if e < 0:
            return []
        width = int(self.ints[e - 1]) >> 32
        return [int(ch) for ch in self.ints[e:e + width] if ch >= 0]

    def children(self, n: int) -> list[dict]:
        return [self.node(ch) for ch in self.child_ids(n)]

    def child(self, n: int, action: int) -> int:
        for kid in self.children(n):
            if kid["action"] == action:
                return kid["id"]
        return -1


def _most_visited(kids: list[dict]) -> dict:
    """Most visits; ties: the better mean, then the first listed."""
    return max(kids, key=lambda k: (k["visits"], k["value"] / k["visits"] if k["visits"] else -math.inf))


@dataclass
class MCTSAgent:
    """UCT on any game: each step takes the child with the best ``mean + c * sqrt(ln N / n)``.

    ``gamma`` is the answer to the urgency problem (issue 15): with rewards discounted per
    decision ply, a quicker win and a slower loss score better, so an agent far ahead still
    heads for the end (``tests/test_engine_mcts.py``'s race game: the default wins in the
    fewest moves, ``gamma=1`` wanders). 0.99 costs little elsewhere: a win 40 plies away is
    still worth 0.67, far above a draw's 0.
    """

    game: Any = None  # the core.game.Game played (set by the registry)
    c: float = 1.0  # UCT exploration constant; rewards lie in [-1, 1]
    leaf: str = "rollout"  # leaf evaluation: "rollout" (one random playout), "heuristic", or "mixed"
    heuristic: str = ""  # for heuristic/mixed leaves: a name of the game's HEURISTICS ("": its first)
    # the heuristic's parameters as alpha-beta takes them: by name, "/"-separated (a spec may name
    # them directly: heuristic=lines,power=3), or all its numbers in order; "": its defaults (agents.engine.params)
    params: str = field(default="", metadata=NAMED)
    weights: str = ""  # the data file of a heuristic read from one (heuristic=learned: a model's .npz; agents.engine.params.file_heuristics)
    width: float = 0.0  # sigmoid width: heuristic reward = 2 / (1 + exp(-score / width)) - 1; 0: the game's win_value
    mix: float = 0.5  # mixed leaves: reward = (1 - mix) * rollout + mix * heuristic reward
    gamma: float = 0.99  # discount per decision ply (prefer quick wins, slow losses); 1: none
    open_loop: bool = False  # nodes = decision-action sequences, chance re-sampled each simulation (dice games)
    solver: bool = True  # score-bounded MCTS-solver: proven bounds per node (closed loop only)
    # The game's expand hook at each new node (solver on): "prune" (proves decided positions; its
    # actions are the children, e.g. no move under a threat), "prove" (proves only; every legal
    # action is a child), "off".
    expand: str = "prune"
    max_sims: int = 0  # stop after this many simulations per move (0: only the deadline)
    seed: int = 0  # random seed; each new tree restarts from it (reproducible games)
    reuse: bool = True  # keep the subtree of the state reached since the last move
    capacity: int = 200_000  # tree nodes (about 100 bytes each); when full, leaves are not stored
    max_rollout: int = 10_000  # steps of a random playout before it counts as a draw
    margin: float = 0.01  # seconds kept before the deadline
    jit: bool = True  # numba-compiled kernels when numba is importable and the state fits int64
    background_compile: bool = True  # moves with under a minute: compile in a thread, search on the plain path meanwhile
    compile_share: float = 0.7  # while that thread compiles: fraction of a move's time spent waiting for it

    games = None  # every game (chance nodes and non-alternating turns included)

    _tree: Any = field(default=None, init=False, repr=False)
    _root: Any = field(default=None, init=False, repr=False)  # State of node 0
    _info: dict = field(default_factory=dict, init=False, repr=False)
    _gate: CompileGate = field(default_factory=lambda: CompileGate("engine-mcts"), init=False, repr=False)
    _hfn: Any = field(default=None, init=False, repr=False)  # the bound heuristic function (None: rollouts only)
    heuristic_values: list = field(default_factory=list, init=False, repr=False)  # its parameters in the kernel's order (agents.engine.params)

    def __post_init__(self) -> None:
        if self.leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}, got {self.leaf!r}")
        checks = [(self.c >= 0, "c must be >= 0"), (0.0 <= self.mix <= 1.0, "mix must be in [0, 1]"),
                  (self.width >= 0, "width must be >= 0 (0: the game's win_value)"),
                  (0.0 < self.gamma <= 1.0, "gamma must be in (0, 1]"),
                  (self.max_sims >= 0, "max_sims must be 0 (no limit) or positive"),
                  (self.capacity >= 16, "capacity must be at least 16 nodes"),
                  (self.max_rollout >= 1, "max_rollout must be positive"),
                  (0.0 <= self.compile_share < 1.0, "compile_share must be in [0, 1)"),
                  (self.expand in EXPAND_MODES, f"expand must be one of {', '.join(EXPAND_MODES)}")]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        if self.game is not None:
            self._resolve_heuristic()

    # --- agent interface ---------------------------------------------------------------------
    def reset(self) -> None:
        self._root = None
        self._info = {}

    def info(self) -> SearchInfo:
        """The last choice: ``visits`` and ``action_values`` (mean discounted reward in [-1, 1]
        for the side to move) per root action, ``pv`` (most visited line; in closed loop it
        passes chance nodes by their most sampled outcome), ``value`` (the chosen child's mean,
        or with ``exact`` the proven value, outcome / win_value, undiscounted), ``simulations``,
        ``seconds``, ``nodes``, ``reused`` (nodes kept from the last tree), ``compiled``."""
        return SearchInfo.from_dict(self._info)

    def choose(self, state: State, deadline: float) -> int:
        """The action to play at ``state`` (a decision node), before ``deadline``
        (``time.perf_counter()`` seconds)."""
        start = time.perf_counter()
        if self.game is None:
            self.game = state.game
            self._resolve_heuristic()
        if state.is_terminal():
            raise ValueError("the game is over: no legal action")
        if state.current_player() == CHANCE:
            raise ValueError("a chance node: sample its outcome (State.chance_outcomes); agents choose at decision nodes")
        legal = state.legal_actions()
        k, jit = self._kernels(deadline)
        reused = self.prepare(state, k, jit)
        tree = self._tree
        info: dict[str, Any] = {"reused": reused, "compiled": jit}
        if len(legal) == 1:
            info.update(self._describe(state, legal, legal[0]))
            info.update(reason="only move", simulations=0, seconds=time.perf_counter() - start)
            self._info = info
            return legal[0]
        self._settings(tree.floats)
        g = search_constants(self.game, jit)
        hp = heuristic_array(self, jit)
        words = kernel_state(self.game, state.words, jit)
        sims = run_batches(lambda n: int(k.run(g, tree.ints, tree.floats, hp, 0, words, n)),
                           deadline - self.margin, self.max_sims)
        action = self._best(state, legal)
        elapsed = time.perf_counter() - start
        info.update(self._describe(state, legal, action))
        info.update(reason="search", simulations=sims, seconds=elapsed, rate=sims / max(elapsed, 1e-9))
        self._info = info
        return action

    # --- choice and description --------------------------------------------------------------
    def _best(self, state: State, legal: list[int]) -> int:
        """A child proven to reach the root's best achievable value (the quickest such win, the
        slowest such loss); else the most visited child not proven worse than the root's proven
        lower bound, or a child guaranteeing that bound when the former's mean is below it."""
        tree = self._tree
        kids = [k for k in tree.children(0) if k["action"] in legal]
        if not kids:
            return legal[0]
        if not self.solver or self.open_loop:
            return _most_visited(kids)["action"]
        root = tree.node(0)
        lo, hi = _mover_bounds(root, state.current_player())
        for k in kids:
            k["mlo"], k["mhi"] = _mover_bounds(k, state.current_player())
        optimal = [k for k in kids if k["mlo"] >= hi and k["mlo"] == k["mhi"]]
        if optimal:
            v = optimal[0]["mlo"]
            if v > 0:
                return min(optimal, key=lambda k: (k["dist"], -k["visits"]))["action"]
            if v < 0:
                return max(optimal, key=lambda k: (k["dist"], k["visits"]))["action"]
            return _most_visited(optimal)["action"]
        candidates = [k for k in kids if k["mhi"] > lo] or kids
        best = _most_visited(candidates)
        if best["visits"] and best["value"] / best["visits"] < lo:
            safe = [k for k in kids if k["mlo"] >= lo]
            if safe:
                best = _most_visited(safe)
        return best["action"]

    def _describe(self, state: State, legal: list[int], action: int) -> dict:
        tree = self._tree
        kids = [k for k in tree.children(0) if k["action"] in legal]  # open loop: a reused root may hold others
        root = tree.node(0)
        out: dict[str, Any] = {
            "visits": {k["action"]: int(k["visits"]) for k in kids},
            "action_values": {k["action"]: k["value"] / k["visits"] for k in kids if k["visits"] > 0},
            "nodes": tree.used,
        }
        # The line starts with the action chosen (a proven child may be less visited than another),
        # then follows the most visited children.
        pv: list[int] = []
        n = 0
        while len(pv) < 64:
            kids_n = [k for k in tree.children(n) if k["visits"] > 0]
            chosen = [k for k in kids_n if k["action"] == action] if not pv else []
            if not kids_n:
                break
            best = chosen[0] if chosen else _most_visited(kids_n)
            pv.append(best["action"])
            n = best["id"]
        out["pv"] = pv
        lo, hi = _mover_bounds(root, state.current_player())
        out["exact"] = bool(lo == hi and self.solver and not self.open_loop)
        if out["exact"]:
            out["value"] = lo
        elif action in out["action_values"]:
            out["value"] = out["action_values"][action]
        return out

    # --- settings, heuristic, kernels --------------------------------------------------------
    def _settings(self, floats: Any) -> None:
        floats[K.F_C] = self.c
        floats[K.F_LEAF] = float(LEAVES[self.leaf])
        floats[K.F_WIDTH] = self.width or float(self.game.win_value)
        floats[K.F_MIX] = self.mix
        floats[K.F_GAMMA] = self.gamma
        floats[K.F_INVWIN] = 1.0 / float(self.game.win_value)
        floats[K.F_OPEN] = 1.0 if self.open_loop else 0.0
        floats[K.F_SOLVER] = 1.0 if self.solver else 0.0
        floats[K.F_MAXROLL] = float(self.max_rollout)
        own = is_hot(getattr(self.game.kernel_module, "expand", None))
        floats[K.F_EXPAND] = float(EXPAND_MODES[self.expand] if own else K.EXPAND_OFF)
        self._policy(floats)

    def _policy(self, floats: Any) -> None:
        """The selection policy's settings (UCT here; see :class:`AntColonyAgent`)."""
        floats[K.F_POLICY] = float(K.POLICY_UCT)
        floats[K.F_TAU0] = 0.0
        floats[K.F_DEPOSIT] = 0.0

    def _resolve_heuristic(self) -> None:
        """Find the heuristic function and its parameters (ValueError naming the choices)."""
        self._hfn, self.heuristic_values = None, [0.0]
        if self.leaf == "rollout":
            if str(self.weights or "").strip():
                raise ValueError("weights= is for heuristic or mixed leaves (a heuristic read from a file), not leaf=rollout")
            return
        path = getattr(self.game, "heuristics", "")
        if not path:
            raise ValueError(f"game {self.game.name!r} has no heuristics: use leaf=rollout")
        self._hfn, self.heuristic_values = resolve_heuristic(self.game, self.heuristic, self.params, self.weights)

    def bound_kernels(self, jit: bool) -> Any:
        """The kernels (:mod:`agents.engine.mcts_kernels`) bound to the game and leaf heuristic,
        compiled or plain, without the chance or open-loop code this agent never runs
        (:func:`agents.engine.mcts_kernels.code_flags`): what a caller grafting into or reading
        this agent's tree uses, so that it shares the compiled copies."""
        return bind(self.game, K, self._hfn, jit=jit, flags=K.code_flags(self.game.has_chance, self.open_loop))

    def _compiled_possible(self) -> bool:
        return bool(self.jit and numba_available() and self.game.fits_int64())

    def _kernels(self, deadline: float) -> tuple[Any, bool]:
        """(the kernels this move runs, whether compiled). A move with a minute or more
        compiles in place; a shorter one starts a thread that compiles and searches on the plain
        path until it is done (see :class:`base.jit.CompileGate`), in the same arrays."""
        plain = self.bound_kernels(False)
        if not self._compiled_possible():
            return plain, False
        ns = self.bound_kernels(True)
        ready = self._gate.admit(deadline, self.warm_up, lambda: all(len(getattr(ns, f).signatures) > 0 for f in _ENTRIES),
                                 self.background_compile, self.compile_share)
        return (ns, True) if ready else (plain, False)

    def warm_up(self) -> float:
        """Compile every kernel a move calls, on a tiny tree; returns the seconds taken."""
        import numpy as np

        t = time.perf_counter()
        if not self._compiled_possible():
            return 0.0
        ns = self.bound_kernels(True)
        tree = Tree(self.game.num_actions, 64, True)
        self._settings(tree.floats)
        words = kernel_state(self.game, self.game.initial().words, True)
        g = search_constants(self.game, True)
        ns.new_tree(g, tree.ints, tree.floats, words, 1)
        ns.run(g, tree.ints, tree.floats, heuristic_array(self, True), 0, words, 30)
        ns.reroot(tree.ints, tree.floats, 0, np.empty(tree.used, np.int64))
        self._gate.ready = True
        return time.perf_counter() - t

    # --- the tree across moves ---------------------------------------------------------------
    def _prepare(self, state: State, k: Any, jit: bool) -> int:
        """Point node 0 at ``state``: the old tree's node for it when found (returns the nodes
        kept), else a new tree (returns 0)."""
        use_numpy = self._compiled_possible()
        tree = self._tree
        if tree is None or tree.capacity != self.capacity or tree.numpy != use_numpy:
            tree = self._tree = Tree(self.game.num_actions, self.capacity, use_numpy)
            self._root = None
        self._settings(tree.floats)
        words = kernel_state(self.game, state.words, jit)
        old = self._root
        if self.reuse and old is not None and old.game == state.game:
            node = self.find(old, state)
            if node == 0:
                return tree.used
            if node > 0:
                remap = _scratch(tree.used, tree.numpy)
                kept = int(k.reroot(tree.ints, tree.floats, node, remap))
                self._root = state
                return kept
        k.new_tree(search_constants(self.game, jit), tree.ints, tree.floats, words, seed_state(self.seed))
        self._root = state
        return 0

    # --- public: for agents built over this one (agents.connectx.mcts and its opening cache) ---
    @property
    def tree(self) -> Tree | None:
        """The search tree (None before the first move); layout in :mod:`agents.engine.mcts_kernels`."""
        return self._tree

    def compiled_possible(self) -> bool:
        """Whether this agent's moves may run compiled kernels (``jit``, numba, a game within int64)."""
        return self._compiled_possible()

    def write_settings(self, floats: Any) -> None:
        """Write this agent's parameters into a tree's float header (a tree grown by hand)."""
        self._settings(floats)

    def follow(self, state: State, deadline: float) -> int:
        """Point the tree at ``state`` as a move ending at ``deadline`` would (the same kernels, the
        old tree kept when :meth:`find` finds the state), without searching; the nodes kept."""
        k, jit = self._kernels(deadline)
        return self.prepare(state, k, jit)

    def forget_root(self) -> None:
        """The next :meth:`prepare` starts a new tree (the old one is not searched for the state)."""
        self._root = None

    def prepare(self, state: State, k: Any, jit: bool) -> int:
        """Point node 0 at ``state`` with kernels ``k``: the old tree's node for it when found
        (returns the nodes kept), else a new tree (returns 0). A subclass may extend it (ConnectX
        grafts its opening cache below a new tree's root)."""
        return self._prepare(state, k, jit)

    def find(self, old: State, new: State) -> int:
        """Id of ``new``'s node below node 0 (``old``): 0 for the same state, -1 if absent. A
        subclass may replace the rule (ConnectX's positions carry no history)."""
        return self._find(old, new)

    def _find(self, old: State, new: State) -> int:
        """Id of ``new``'s node below node 0 (``old``): 0 for the same state, -1 if absent.
        Follows the actions played since (from the states' histories); in closed loop, when the
        histories do not tell, looks for the state among the tree's top nodes."""
        game = self.game
        km = game.kernel_module
        actions = _actions_between(old, new)
        if actions is not None:
            node, s = 0, old.words
            for a in actions:
                if not (self.open_loop and km.to_move(game.g, s) == CHANCE):
                    node = self._tree.child(node, a)
                    if node < 0:
                        return -1
                s = km.play(game.g, s, a)
            return node
        if self.open_loop:
            return -1
        queue, seen = deque([(0, old.words)]), 0
        while queue and seen < FIND_LIMIT:
            node, s = queue.popleft()
            seen += 1
            if tuple(int(w) for w in s) == tuple(new.words):
                return node
            for kid in self._tree.children(node):
                queue.append((kid["id"], km.play(game.g, s, kid["action"])))
        return -1


@dataclass
class AntParams:
    """The ant colony's parameters and their checks (mixin of this module's and ConnectX's
    :class:`agents.connectx.ant_colony.AntColonyAgent`; list it first among the bases so that ``power``
    is the pheromone's)."""

    power: float = 1.0  # selection weight is pheromone ** power (higher: greedier ants)
    evaporation: float = 0.02  # share of a child's pheromone lost each time its parent is visited
    start: float = 1.0  # pheromone of a new edge (tau0: the weight of an untried idea)
    deposit: float = 1.0  # pheromone laid on each edge of a walk, times the mover's reward in [0, 1]
    floor: float = 0.3  # a child's pheromone counts as at least floor x its best sibling's (MAX-MIN)

    def check_ant(self) -> None:
        """ValueError naming the first parameter out of range."""
        if not 0.0 <= self.evaporation < 1.0:
            raise ValueError(f"evaporation must be in [0, 1), got {self.evaporation}")
        if not (self.start > 0 and self.power > 0 and self.deposit >= 0):
            raise ValueError("start and power must be positive and deposit >= 0")
        if not 0.0 <= self.floor <= 1.0:
            raise ValueError(f"floor must be in [0, 1], got {self.floor}")


@dataclass
class AntColonyAgent(AntParams, MCTSAgent):
    """Ant colony tree search on any game: the same tree, leaves, solver and reuse as
    :class:`MCTSAgent`, with pheromone-weighted random selection instead of UCT (as ConnectX's
    :class:`agents.connectx.ant_colony.AntColonyAgent`, same parameters: :class:`AntParams`). Each
    simulation is an ant: at a node it picks a child with probability proportional to
    ``pheromone ** power``, looking evaporates the children's pheromone by ``evaporation``, and
    every edge of the walk receives ``deposit * (the mover's reward + 1) / 2``; ``floor`` keeps
    every move in play. ``c`` is unused."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.check_ant()

    def _policy(self, floats: Any) -> None:
        floats[K.F_POLICY] = float(K.POLICY_ANT)
        floats[K.F_POWER] = self.power
        floats[K.F_EVAP] = self.evaporation
        floats[K.F_TAU0] = self.start
        floats[K.F_DEPOSIT] = self.deposit
        floats[K.F_FLOOR] = self.floor


def _mover_bounds(node: dict, player: int) -> tuple[float, float]:
    """A node's proven bounds (player 0's view) seen by ``player``."""
    return (node["lo"], node["hi"]) if player == 0 else (-node["hi"], -node["lo"])


def _actions_between(old: State, new: State) -> tuple[int, ...] | None:
    """The actions leading from ``old`` to ``new`` when the histories tell (checked by replay)."""
    h0, h1 = old.history, new.history
    game = old.game
    if len(h1) < len(h0) or tuple(h1[:len(h0)]) != tuple(h0):
        return () if tuple(old.words) == tuple(new.words) else None
    if not h0 and tuple(old.words) != tuple(game.initial_words()):
        return () if tuple(old.words) == tuple(new.words) else None
    extra = tuple(h1[len(h0):])
    s = old.words
    km = game.kernel_module
    for a in extra:
        s = km.play(game.g, s, a)
    return extra if tuple(int(w) for w in s) == tuple(new.words) else None


def _scratch(n: int, use_numpy: bool) -> Any:
    if use_numpy:
        import numpy as np

        return np.empty(max(1, n), dtype=np.int64)
    return [0] * max(1, n)
