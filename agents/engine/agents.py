"""Depth-first engine agents for any game: alpha-beta (iterative deepening to the deadline),
minimax (no pruning, depth-limited) and the exact solver with an alpha-beta fallback.

Values in ``info()`` are for the side to move in search units: an outcome of 1 is
:data:`agents.engine.negamax.WIN_SCALE` less the plies to it; heuristic values below
:data:`agents.engine.negamax.DECISIVE` (the solver agent reports the game's own outcome units
when it proves the position).

Compiling the kernel for a game takes seconds. As in :mod:`agents.connectx.alphabeta`, a move with
less than :data:`base.jit.COMPILE_IN_MOVE` seconds never waits for it beyond
``compile_share`` of its time: a thread compiles while the plain path plays.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from agents.engine.exact import refuse_exact
from agents.engine.info import SearchInfo
from agents.engine.negamax import DECISIVE, FULL, INF, Result, Search, heuristic_names, is_compiled, speed_guess
from agents.engine.params import INTERNAL, NAMED, heuristic_values, parse_params
from base.budget import Speed, clock_share, deadline_ns
from base.jit import CompileGate, numba_available
from core.game import State, first_decision


def _resolve_heuristic(game: Any, name: str) -> str:
    """``auto``: the game's first heuristic, or none when it has none."""
    names = heuristic_names(game)
    if name == "auto":
        return names[1] if len(names) > 1 else "none"
    if name not in names:
        raise ValueError(f"unknown heuristic {name!r} for {game.name}; valid: auto, {', '.join(names)}")
    return name



class DepthFirstSearch(Protocol):
    """What a depth-first agent asks of its kernel's search (:class:`agents.engine.negamax.Search`,
    :class:`agents.engine.expectimax.Search`)."""

    ply_cap: int

    def run(self, state: Any, depth: int, alpha: float = -INF, beta: float = INF,
            deadline_ns: int | None = None, node_limit: int | None = None) -> Result: ...

    def root_values(self) -> list[tuple[int, float]]: ...

    def principal_variation(self, state: Any, first: int, value: float, limit: int = 64) -> list[int]: ...

    def set(self, **flags: int) -> None: ...

    def clear(self) -> None: ...

@dataclass(frozen=True)
class Deepening:
    """How a depth-first agent's iterations run, beyond its spec's parameters: set by the code
    that builds the agent (a game's own agent that wraps this one, e.g. ConnectX's alpha-beta:
    to the end of the board, a win or loss in sight proven, its table and ordering depths), never
    by a spec."""

    ply_cap: int = 64  # deepest iteration when max_depth is 0
    order_depth: int = 0  # the game orders actions at nodes with at least this depth left (Search's order_depth)
    tt_depth: int = 1  # the table is used at nodes with at least this depth left (Search's tt_min_depth)
    decisive_is_exact: bool = False  # win/draw/loss games: a decisive value is proven (stop deepening)
    time_safety: float = 0.85  # without a clock in compiled code: share of the time left an iteration may plan on


@dataclass
class DepthFirstAgent:
    """Iterative deepening over :class:`agents.engine.negamax.Search`; subclasses set pruning."""

    game: Any = None  # the core.game.Game played (set by the registry)
    heuristic: str = "auto"  # leaf evaluation: a name of the game's HEURISTICS, "none" (0), or "auto" (the first)
    # the heuristic's parameters by name, "/"-separated (a spec may name them directly:
    # heuristic=lines,w3=5), or all its numbers in order (1.5/2); empty: its defaults (agents.engine.params)
    params: str = field(default="", metadata=NAMED)
    max_depth: int = 0  # deepest iteration in plies; 0: until the deadline, the proof or the ply cap
    tt_bits: int = 18  # transposition table of about 2**tt_bits entries (at most 18 on the plain path)
    all_values: bool = False  # search every root action with a full window: exact action_values (slower)
    background_compile: bool = True  # compile numba's kernel in a thread while the plain path plays
    compile_share: float = 0.7  # while that thread compiles: share of a move's time spent waiting for it
    deepening: Deepening = field(default_factory=Deepening, repr=False, metadata=INTERNAL)  # not a spec parameter

    games: ClassVar[tuple[str, ...] | None] = None  # every game
    KERNEL_MODULE: ClassVar[str] = "agents.engine.negamax"  # the search module this agent's moves compile
    PRUNE: ClassVar[bool] = True
    PVS: ClassVar[bool] = True
    STOP_EARLY: ClassVar[float] = 0.005  # seconds before the deadline at which the kernel stops

    _searches: dict[bool, DepthFirstSearch] = field(default_factory=dict, init=False, repr=False)
    _speed: Speed | None = field(default=None, init=False, repr=False)
    _info: dict = field(default_factory=dict, init=False, repr=False)
    _gate: CompileGate = field(default_factory=lambda: CompileGate("engine-dfs"), init=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_depth < 0 or not 4 <= self.tt_bits <= 30:
            raise ValueError("max_depth must be >= 0 and tt_bits within 4..30")
        if not 0.0 <= self.compile_share < 1.0:
            raise ValueError("compile_share must be in [0, 1)")
        given = parse_params(self.params)  # the form, before a game is known
        self._params: list[float] | None = given if isinstance(given, list) else None
        if self.game is not None:
            self.heuristic = _resolve_heuristic(self.game, self.heuristic)
            if self.heuristic != "none":
                self._params = heuristic_values(self.game, self.heuristic, self.params)
            elif given is not None:
                raise ValueError("heuristic none takes no parameters")

    # --- agent interface --------------------------------------------------------------------
    def reset(self) -> None:
        """Forget the tables (entries stay valid across games: this only frees memory)."""
        self._searches.clear()

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._info)

    def kernel_search(self, jit: bool) -> DepthFirstSearch:
        """The search of the compiled (``jit``) or plain kernel, with its tables: made on first
        use and kept (entries stay valid across moves and games)."""
        if jit not in self._searches:
            d = self.deepening
            cap = self.max_depth if self.max_depth else d.ply_cap
            self._searches[jit] = Search(self.game, self.heuristic, self._params, tt_bits=self.tt_bits, jit=jit,
                                         prune=self.PRUNE, pvs=self.PVS, use_tt=self.PRUNE, tt_deeper=True,
                                         ply_cap=cap, root_all=self.all_values, order_depth=d.order_depth,
                                         tt_min_depth=d.tt_depth)
        return self._searches[jit]

    def warm_up(self) -> float:
        """Compile every kernel this agent's moves call, for this game, now (no-op without
        numba); returns seconds taken. Compiled moves are allowed once it has returned."""
        t0 = time.perf_counter()
        if numba_available() and self.game.fits_int64():
            self._compile()
        self._gate.ready = True
        return time.perf_counter() - t0

    def _compile(self) -> None:
        state = first_decision(self.game)  # EinStein opens with chance nodes: its set-up
        if state is not None:
            Search(self.game, self.heuristic, self._params, tt_bits=4, jit=True, ply_cap=2).run(state, 1)

    def _compiled(self) -> bool:
        """Whether every kernel this agent's moves call is compiled in this process."""
        return is_compiled(self.game, self.heuristic, sys.modules[self.KERNEL_MODULE])

    def _use_jit(self, deadline: float) -> bool:
        """Whether this move may run the compiled kernel (see the module docstring)."""
        if not (numba_available() and self.game.fits_int64()):
            return False
        return self._gate.admit(deadline, self.warm_up, self._compiled, self.background_compile, self.compile_share)

    def choose(self, state: State, deadline: float) -> int:
        if state.is_chance_node():
            raise ValueError("a chance node: the depth-first agents play games without chance")
        legal = state.legal_actions()
        if len(legal) == 1:
            self._info = {"action_values": {}, "pv": legal, "depth": 0, "nodes": 0, "seconds": 0.0}
            return legal[0]
        return self.search_move(state, deadline, self._use_jit(deadline), legal)

    def search_move(self, state: State, deadline: float, jit: bool, legal: list[int] | None = None) -> int:
        """Iterative deepening from ``state`` (a decision node) on the compiled kernel or not
        (``jit``: the caller's compile decision); ``legal``: its legal actions when known."""
        t0 = time.perf_counter()
        legal = state.legal_actions() if legal is None else legal
        search = self.kernel_search(jit)
        if self._speed is None:
            self._speed = Speed(speed_guess(jit))
        limit = self.max_depth if self.max_depth else search.ply_cap
        done: tuple[Any, int, list] | None = None  # (result, depth, root values) of the deepest finished iteration
        total, done_nodes, done_time = 0, 0, 0.0
        for depth in range(1, limit + 1):
            now = time.perf_counter()
            if depth > 1 and now >= deadline:
                break
            self._speed.measure(done_nodes, done_time)
            budget = None if depth == 1 else self._speed.until(deadline, clock_share(jit, self.deepening.time_safety)) + 1024
            stop = None if depth == 1 else deadline_ns(deadline, self.STOP_EARLY)
            r = search.run(state, depth, deadline_ns=stop, node_limit=budget)
            total += r.nodes
            if r.aborted:
                break
            done_nodes += r.nodes
            done_time += time.perf_counter() - now
            done = (r, depth, search.root_values())
            if not r.cut or (self.deepening.decisive_is_exact and abs(r.value) >= DECISIVE):
                break  # no heuristic leaf below the root (or a win or loss in sight): the value is proven
        assert done is not None, "depth 1 always finishes"
        r, depth, roots = done
        action = r.best if r.best in legal else legal[0]
        values = {a: v for a, v in roots}
        self._info = {"action_values": values, "pv": search.principal_variation(state, action, r.value, depth) if self.PRUNE else [action],
                      "value": r.value, "exact": not r.cut or (self.deepening.decisive_is_exact and abs(r.value) >= DECISIVE), "depth": depth, "nodes": total,
                      "seconds": time.perf_counter() - t0, "compiled": jit, "speed": self._speed.rate}
        return action


@dataclass
class AlphaBetaAgent(DepthFirstAgent):
    """Alpha-beta (negamax form, fail-soft) with a transposition table, iterative deepening to
    the deadline, principal-variation search when ``pvs``."""

    pvs: bool = True  # null-window scouts after the first action (same values, usually fewer nodes)

    def kernel_search(self, jit: bool) -> DepthFirstSearch:
        s = super().kernel_search(jit)
        s.set(pvs=int(self.pvs))
        return s


@dataclass
class MinimaxAgent(DepthFirstAgent):
    """Plain minimax without pruning or table, deepening up to ``max_depth`` within the deadline:
    the baseline that alpha-beta's node counts are compared with."""

    max_depth: int = 4  # deepest iteration in plies (minimax grows as branching ** depth)
    PRUNE: ClassVar[bool] = False
    PVS: ClassVar[bool] = False


@dataclass
class SolverAgent(DepthFirstAgent):
    """Plays perfectly when the exact solver proves the position within ``solve_share`` of the
    move's time (the best value, a game-ending win first); otherwise alpha-beta's best move in
    the time left. ``info()["exact"]`` says which."""

    needs_exact_solver = True  # offered only on games the exact solver takes (agents.engine.registry.supports)

    solve_share: float = 0.6  # share of the move's time the solver may take before alpha-beta plays
    solver_tt_bits: int = 20  # the solver's table: about 2**solver_tt_bits entries
    max_plies: int = 256  # deepest line the solver follows (a game longer than this is not solved)

    _solver: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        refuse_exact(self.game)
        if not 0.0 < self.solve_share <= 1.0:
            raise ValueError("solve_share must be in (0, 1]")

    def _compile(self) -> None:
        """Alpha-beta's kernel and the exact solver's: compiled in a move, the solver's would
        take seconds of it (Quantik's ``perfect`` lost won games on time at its first move out
        of its book)."""
        from agents.engine import solver

        super()._compile()
        solver.warm_up(self.game)

    def _compiled(self) -> bool:
        from agents.engine import solver

        return super()._compiled() and solver.is_compiled(self.game)

    def choose(self, state: State, deadline: float) -> int:
        from agents.engine.solver import SolveError, Solver

        t0 = time.perf_counter()
        legal = state.legal_actions()
        jit = self._use_jit(deadline)
        if self._solver is None or self._solver.jit != jit:
            self._solver = Solver(self.game, tt_bits=self.solver_tt_bits if jit else min(self.solver_tt_bits, 18),
                                  jit=jit, max_plies=self.max_plies)
        solve_by = t0 + (deadline - t0) * self.solve_share
        try:
            # Every action's value (what the analysis shows) in half the share; else one optimal
            # action, found from the position's value (far cheaper: usually one child solve).
            found = self._solver.best(state, t0 + (solve_by - t0) / 2)
            if found is None:
                cheap = self._solver.optimal(state, solve_by)
                found = None if cheap is None else (cheap[0], cheap[1], {cheap[0]: cheap[1]})
        except SolveError:
            found = None
        if found is not None and found[0] in legal:
            action, value, values = found
            self._info = {"action_values": values, "pv": [action], "value": value, "exact": True, "depth": FULL,
                          "nodes": self._solver.nodes, "seconds": time.perf_counter() - t0, "compiled": jit}
            return action
        action = super().choose(state, deadline)
        self._info["seconds"] = time.perf_counter() - t0
        return action


__all__ = ["AlphaBetaAgent", "MinimaxAgent", "SolverAgent", "DepthFirstAgent", "Deepening"]
