"""ConnectX's depth-first agents ``alphabeta`` and ``negamax``: the game-generic iterative
deepening of :class:`agents.engine.agents.AlphaBetaAgent` over :mod:`agents.engine.negamax`,
bound to the ConnectX game, with ConnectX's tricks as its hooks (threat pruning, forced blocks,
threat ordering, one-word keys: :mod:`core.connectx.search_hooks`) and any heuristic of
:mod:`heuristics.connectx` (through :mod:`heuristics.connectx.engine`) chosen by parameter.

``AlphaBetaAgent`` is plain fail-soft alpha-beta; ``NegamaxAgent`` searches every move after
the first with a null window (principal-variation search). Both return the same value at a
fixed depth; they differ in how many nodes they need.

Values (``info().value``, for the side to move): a heuristic value, or, when the game's end
is in sight, ``WIN_SCALE`` less the plies to the winning stone (minus that for a loss):
:mod:`agents.engine.negamax`'s model. ``info()["pons_score"]`` (in ``extra``) turns a proven one into Pons'
score.

Time and compile policy: as :mod:`agents.engine.agents` (the kernel reads the clock every 1024
nodes; each iteration also gets a node limit from the measured speed; an iteration stopped early
is thrown away). Compiling the kernel takes seconds; :meth:`DepthFirstAgent.warm_up` does it
beforehand; otherwise, with ``background_compile`` (the default), a move with less than a minute
to go never waits for it beyond ``compile_share`` of its time: a thread compiles while the plain
path plays.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import ClassVar

import heuristics.connectx.engine  # noqa: F401  (the game's heuristics, named by a string path: a bundle must carry them)
from agents.connectx.base import PositionAgent
from agents.connectx.heuristic_params import HeuristicParams
from agents.engine.agents import AlphaBetaAgent as EngineAlphaBeta
from agents.engine.agents import Deepening, DepthFirstSearch
from agents.engine.info import SearchInfo
from agents.engine.negamax import DECISIVE, WIN_SCALE, is_compiled
from agents.engine.params import params_text
from base.jit import CompileGate, numba_enabled
from core.connectx.game import ConnectX
from core.connectx.position import Position
from core.connectx.shape import Shape
from heuristics.connectx.params import HEURISTIC_IDS


@dataclass
class DepthFirstAgent(PositionAgent, HeuristicParams):
    """Iterative-deepening depth-first search on ConnectX; the subclasses choose alpha-beta or PVS.

    Defaults from ``bench/dfs_strength.py`` and ``bench/dfs_speed.py`` (2026-11-22, loaded
    machine): liberties scored 72 / 140 and 71.5 / 140 (negamax / alpha-beta) against
    bitsquares' 66.5 in a round robin on the 35 openings at 0.1 s a move, and first in a
    4-heuristic round robin; table and ordering depths by time to a fixed depth.
    """

    heuristic: str = "liberties"  # leaf evaluation: one of heuristics.connectx.params.HEURISTIC_IDS ("none": 0 at the horizon)
    max_depth: int = 0  # fixed search depth in plies; 0 deepens until the deadline or the exact value
    tt_bits: int = 20  # transposition table of about 2**tt_bits entries (at most 18 on the plain path)
    order_depth: int = 2  # sort moves by threats created at nodes with at least this depth left
    tt_depth: int = 3  # use the transposition table at nodes with at least this depth left
    background_compile: bool = True  # compile numba's kernel in a thread while the plain path plays (unless the move has a minute)
    # While that thread compiles: fraction of a move's time spent waiting for it (the compile
    # holds the GIL, so a plain search beside it would halve both).
    compile_share: float = 0.7
    time_safety: float = 0.85  # without a clock in compiled code: fraction of the time left an iteration may plan to use

    PVS: ClassVar[bool] = False

    _engines: dict = field(default_factory=dict, init=False, repr=False)  # shape -> engine agent (its tables)
    _info: dict = field(default_factory=dict, init=False, repr=False)
    _gate: CompileGate = field(default_factory=lambda: CompileGate("dfs"), init=False, repr=False)  # may moves run the compiled kernel?

    def __post_init__(self) -> None:
        if self.heuristic not in HEURISTIC_IDS:
            raise ValueError(f"unknown heuristic {self.heuristic!r}; valid: {', '.join(HEURISTIC_IDS)}")
        if self.max_depth < 0 or self.order_depth < 0 or self.tt_depth < 1 or not 4 <= self.tt_bits <= 30:
            raise ValueError("max_depth and order_depth must be >= 0, tt_depth >= 1, tt_bits within 4..30")
        if not 0.0 < self.time_safety <= 1.0:
            raise ValueError("time_safety must be in (0, 1]")
        if not 0.0 <= self.compile_share < 1.0:
            raise ValueError("compile_share must be in [0, 1)")
        self.heuristic_params()  # the heuristic's parameters, by name (HeuristicParams): checked here, at construction

    # --- agent interface ------------------------------------------------------------------
    def reset(self) -> None:
        """Forget the tables (entries stay valid across games, so this only frees memory)."""
        self._engines.clear()

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._info)

    def warm_up(self, shape: Shape | None = None) -> float:
        """Compile the kernel for ``shape`` (default: :meth:`board`) now (no-op on the plain path); returns seconds taken.
        Thread-safe; afterwards this agent's moves use the compiled kernel at once."""
        t0 = time.perf_counter()
        shape = shape or self.board()
        if numba_enabled(shape.bits):
            self._engine(shape).warm_up()
        self._gate.ready = True
        return time.perf_counter() - t0

    def choose_position(self, position: Position, deadline: float) -> int:
        shape = position.shape
        engine = self._engine(shape)
        jit = numba_enabled(shape.bits) and self._gate.admit(
            deadline, lambda: self.warm_up(shape), lambda: is_compiled(engine.game, engine.heuristic),
            self.background_compile, self.compile_share)
        col = engine.search_move(engine.game.state_of(position), deadline, jit)
        info = engine.info()
        value = float(info.get("value", 0.0))
        exact = bool(info.get("exact", False))
        self._info = dict(info)
        if exact:
            self._info["pons_score"] = pons_score(value, shape, position.ply)
        if not position.can_play(col):  # never: the engine plays a legal action
            col = next(c for c in shape.center_order() if position.can_play(c))
        return col

    def kernel_search(self, shape: Shape, jit: bool) -> DepthFirstSearch:
        """The search of the compiled (``jit``) or plain kernel on ``shape``, its tables allocated
        (benchmarks: before their clock starts; the arrays its kernel reads)."""
        return self._engine(shape).kernel_search(jit)

    # --- internals ------------------------------------------------------------------------

    def _engine(self, shape: Shape) -> EngineAlphaBeta:
        """The generic agent on ConnectX of ``shape`` with this agent's settings (one per shape:
        its tables stay valid across moves and games)."""
        engine = self._engines.get(shape)
        if engine is None:
            game = ConnectX(rows=shape.rows, columns=shape.columns, inarow=shape.inarow)
            # To the end of the board; win/draw/loss: a win or loss in sight is proven.
            deepening = Deepening(ply_cap=shape.cells, order_depth=self.order_depth, tt_depth=self.tt_depth,
                                  decisive_is_exact=True, time_safety=self.time_safety)
            engine = EngineAlphaBeta(game=game, heuristic=self.heuristic, params=params_text(self.heuristic_params()),
                                     max_depth=self.max_depth, tt_bits=self.tt_bits, background_compile=False,
                                     pvs=self.PVS, deepening=deepening)
            self._engines[shape] = engine
        return engine


def pons_score(value: float, shape: Shape = Shape(), ply: int = 0) -> int:  # noqa: B008 (an immutable value)
    """Pons' score of a proven search value at a position of ``ply`` stones (0 for a draw or a
    heuristic value): a win ``WIN_SCALE - p`` is won by stone ``ply + p``."""
    if abs(value) < DECISIVE:
        return 0
    plies = int(round(WIN_SCALE - abs(value)))
    score = (shape.cells + 2 - (ply + plies)) // 2
    return score if value > 0 else -score


@dataclass
class AlphaBetaAgent(DepthFirstAgent):
    """Plain fail-soft alpha-beta with iterative deepening and a transposition table."""

    PVS: ClassVar[bool] = False


@dataclass
class NegamaxAgent(DepthFirstAgent):
    """Negamax with null windows (principal-variation search) after the first move."""

    PVS: ClassVar[bool] = True


__all__ = ["AlphaBetaAgent", "NegamaxAgent", "DepthFirstAgent", "pons_score"]
