"""The perfect agent: the book's move, else the exact solver within the deadline, else the best
move of a depth-first search.

Order of play for a move:
1. the opening book (:mod:`agents.connectx.solver_book`) holds the position: its move, at once;
2. the solver (:mod:`agents.connectx.solver`) proves a value-keeping move (weak: win/draw/loss) within
   ``solver_share`` of the time left, then, with what remains of that share, the strong solver
   picks the fastest win, the slowest loss or a draw-keeping move;
3. the solver ran out of nodes (or proved a loss but not its length): the fallback depth-first search (``agents.connectx.alphabeta``) plays
   with the time left, or, while that search is not compiled yet, the solver's move order
   screened by small searches that prove shallow wins and losses (:meth:`Solver.screen`).

Numba's compile (several seconds for the solver, more for the fallback search) must not cost a
game. On the first move the agent starts a thread that compiles the solver, then the fallback
search; meanwhile book moves are served, each after waiting for the compile during
``book_wait_share`` of its time (about 1.4 s a move at Kaggle's 2 s: the compile then runs
without a Python thread beside it, and is done within the book's first moves). If a
position is not in the book before the solver is ready (it left the book, or there is no book:
none shipped, or the embedded one was damaged, when it is the first move), the agent waits for
it, past the deadline if need be, up to ``compile_wait`` seconds in total: that time comes from
Kaggle's 60 s bank, so the wait also stops at the hard deadline the Kaggle adapter gives
(``set_hard_deadline``: what the bank holds, less a margin,
:meth:`base.clock.ClockPolicy.latest`). After such a wait the move has at least ``wait_floor``
(1 s) again, from the bank (:func:`fresh_deadline`): at 0.5 s a move its own 0.25 s let the
fresh solver prove nothing, and the bare move order lost in 3 where a draw existed.

Out of the book, where the Kaggle adapter tells the bank, a move may add ``bank_think`` (2 s) of
it for the solver and the search while ``bank_reserve`` (20 s) stays untouched
(:func:`thinking_deadline`): the arena's openings leave the book at once, and the early middle
game (plies 4-9) is beyond the solver in one move's time. Without a book the first positions are beyond the
solver, but not beyond its screen: compiled, it proves the traps a depth-4 search can set,
while the plain-Python stand-in, beside a compile that holds the GIL, proved almost nothing
and played the bare move order (see :meth:`PerfectAgent._wait_for_solver`). Once
``compile_wait`` is spent, a move still waits half its time and the plain screen plays in time.
Without numba (or on boards over 63 bits) the plain-Python solver runs at once: slower, but every
move is still legal and in time.

The time per move is set from the solver's measured speed (nodes per second of its last solves)
as a node limit, and the solver also reads the clock every 1024 nodes (:mod:`base.hotclock`), so
a slowdown of the machine after the limit was planned does not make a move overrun.
"""
from __future__ import annotations

import atexit
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from agents.connectx.base import PositionAgent
from agents.connectx.solver import Solver
from agents.connectx.solver_book import Book, default_path
from agents.engine.info import SearchInfo
from base.budget import Speed
from base.jit import keep_streams, log_from_thread
from core.connectx.position import Position
from core.connectx.shape import Shape
from core.game import State

try:  # the fallback search; optional so that the solver agent works without it
    from agents.connectx.alphabeta import NegamaxAgent
except ImportError:  # pragma: no cover - the module is part of the repo
    NegamaxAgent = None  # type: ignore[assignment,misc]

# Guessed solver speeds (nodes/s) before the first measurement: below this machine's figures,
# so that the first move does not overrun.
_FIRST_RATE = {True: 2.0e6, False: 4.0e4}
_EXIT_WAIT = 120.0  # seconds the interpreter's exit waits for a compile in progress
_PLAIN_SLACK = 0.2  # seconds before the deadline the plain-Python screen stops while the compile runs
_AFTER_WAIT = 0.1  # seconds before the hard deadline a wait stops: time to still play a move
_PLAIN_WAIT_SHARE = 0.5  # with no wait past the deadline left: share of a move still given to the compile
_RATE_SAFETY = 0.75  # node limits assume this fraction of the measured speed (a busy machine slows down)
_RATE_MIN_SECONDS = 0.02  # shorter solves do not measure the speed (mostly call overhead)
_RATE_SMOOTHING = 0.5  # weight of a solve's speed in the moving average (solves' speeds vary by position)


def fresh_deadline(now: float, budget: float, floor: float, hard: float | None) -> float:
    """The deadline of a move that waited past its own for the compile: ``budget`` (the move's
    time) again from ``now``, at least ``floor`` seconds (a short move's budget, 0.25 s at
    ``actTimeout`` 0.5 s, or the 0.05 s left to a move whose file loaded in its time, let the
    freshly compiled solver prove nothing, and the bare move order played: a move that lost in
    3 where a draw existed), never past ``hard`` less :data:`_AFTER_WAIT` (what the bank
    holds) and never before ``now``."""
    deadline = now + max(floor, budget)
    if hard is not None:
        deadline = max(now, min(deadline, hard - _AFTER_WAIT))
    return deadline


def thinking_deadline(deadline: float, hard: float | None, extra: float, reserve: float) -> float:
    """The deadline of a move the book does not give: ``extra`` seconds of Kaggle's bank past
    ``deadline``, as long as ``reserve`` seconds of what the bank holds (``hard``, the latest the
    move may end) stay untouched; ``deadline`` itself without a hard deadline (no bank known).
    Out of the book the solver cannot prove the early middle game within a move (plies 4-9 of
    the arena's openings at 2 s a move), and the search's moves there lost value; the bank
    (60 s a game) was left unused. A move the solver proves early ends early."""
    if hard is None:
        return deadline
    return deadline + max(0.0, min(extra, hard - deadline - reserve))


@dataclass
class PerfectAgent(PositionAgent):
    """Book, then exact solver, then depth-first search (see the module docstring)."""

    book: str = "auto"  # "auto": data/book_<shape>.npz if it exists; "none"; or a path that must exist
    tt_size: int = 1 << 23  # solver transposition table slots (8 bytes each)
    solver_share: float = 0.75  # fraction of the time left the solver may plan to use; the fallback gets the rest
    weak_first: bool = True  # prove a value-keeping move with the weak solver before the strong one refines it
    compile_wait: float = 20.0  # seconds past deadlines the agent may wait, in total, for the solver's compile
    wait_floor: float = 1.0  # seconds a move still gets after waiting past its deadline for the compile (from the bank)
    bank_think: float = 2.0  # seconds of the bank a move out of the book may add for the solver and search ...
    bank_reserve: float = 20.0  # ... while this much of the bank stays untouched (thinking_deadline)
    fallback: str = "negamax"  # search when the solver runs out of time: "negamax" or "rule" (screened move order)
    background_compile: bool = True  # compile in a thread while book moves are served (False: compile in the first move)
    book_wait_share: float = 0.8  # while compiling: fraction of a book move's time spent waiting for the compile
    # After a move chosen on a State: the solver's exact value of every column (info().action_values,
    # Pons' scores), on a node budget of the move's time again: for the web app's analysis panel,
    # which sets it; a move then takes up to twice its time. The Kaggle adapter never asks.
    exact_values: bool = False

    EXACT_NODES_PER_SECOND: ClassVar[int] = 3_000_000  # node budget of the exact move values, per second of the move

    _book: Book | None = field(default=None, init=False, repr=False)
    _book_ready: bool = field(default=False, init=False, repr=False)
    _book_note: str = field(default="", init=False, repr=False)
    _shape: Shape | None = field(default=None, init=False, repr=False)
    _solver: Solver | None = field(default=None, init=False, repr=False)
    _solver_ready: Any = field(default=None, init=False, repr=False)  # threading.Event
    _search: Any = field(default=None, init=False, repr=False)
    _search_ready: Any = field(default=None, init=False, repr=False)  # threading.Event
    _speed: Speed | None = field(default=None, init=False, repr=False)  # the solver's nodes per second
    _waited: float = field(default=0.0, init=False, repr=False)
    _compile_seconds: float | None = field(default=None, init=False, repr=False)
    _info: dict = field(default_factory=dict, init=False, repr=False)
    _hard: float | None = field(default=None, init=False, repr=False)  # this move's hard deadline (set_hard_deadline)
    _plain: Solver | None = field(default=None, init=False, repr=False)  # screens moves until the solver is compiled
    _exact_solver: Solver | None = field(default=None, init=False, repr=False)  # exact_values' own solver (own table)

    def __post_init__(self) -> None:
        if not 0.0 < self.solver_share <= 1.0:
            raise ValueError("solver_share must be in (0, 1]")
        if not 0.0 <= self.book_wait_share < 1.0:
            raise ValueError("book_wait_share must be in [0, 1)")
        if self.tt_size < 1024 or min(self.compile_wait, self.wait_floor, self.bank_think, self.bank_reserve) < 0:
            raise ValueError("tt_size must be at least 1024, compile_wait, wait_floor, bank_think and bank_reserve at least 0")
        if self.fallback not in ("negamax", "rule"):
            raise ValueError(f"fallback must be 'negamax' or 'rule', got {self.fallback!r}")
        if self.book not in ("auto", "none") and not Path(self.book).is_file():
            raise ValueError(f"book file {self.book!r} not found; pass book=auto, book=none or an existing .npz")

    # --- the agent interface ------------------------------------------------------------------
    def reset(self) -> None:
        """A new game: the table's entries stay valid (exact bounds), so only the report is reset."""
        self._info = {}

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._info)

    def set_hard_deadline(self, latest: float) -> None:
        """The next move must end by ``latest`` (``perf_counter()``), even when it waits past its
        deadline for the compile: set by the Kaggle adapter before each move from the bank."""
        self._hard = latest

    def data_source(self) -> str | None:
        """The file :meth:`bundle_data` reads (None with ``book="none"``), for the builder's messages."""
        if self.book == "none":
            return None
        return str(default_path(Shape()) if self.book == "auto" else Path(self.book))

    def bundle_data(self) -> dict | None:
        """The book's packed arrays of the standard shape, for the submission (None without a book)."""
        book = self._load_book(Shape())
        return None if book is None else book.to_data()

    def use_data(self, data: dict | None) -> None:
        self._book = None if data is None else Book.from_data(data)
        self._book_ready = True
        self._book_note = "embedded" if data is not None else "none (no data embedded)"

    def choose(self, state: State, deadline: float) -> int:
        """:meth:`choose_position`, then with ``exact_values`` every column's exact value."""
        position = state.game.position(state)  # type: ignore[attr-defined]
        start = time.perf_counter()
        column = self.choose_position(position, deadline)
        if self.exact_values:
            self._add_exact_values(position, max(0.05, deadline - start))
        return column

    def _add_exact_values(self, position: Position, seconds: float) -> None:
        if self._exact_solver is None or self._exact_solver.shape != position.shape:
            self._exact_solver = Solver(position.shape)
        rate = self.EXACT_NODES_PER_SECOND if self._exact_solver.jit else _FIRST_RATE[False]  # plain Python: ~40 K nodes/s
        scores = self._exact_solver.child_scores(position, node_limit=int(seconds * rate))
        if scores is None:
            return
        values = {c: float(v) for c, v in enumerate(scores) if v is not None}
        self._info.update(action_values=values, exact=True, value=max(values.values()) if values else self._info.get("value"))

    def choose_position(self, position: Position, deadline: float) -> int:
        t0 = time.perf_counter()
        hard, self._hard = self._hard, None  # one move's
        self._prepare(position.shape)
        book = self._load_book(position.shape)
        hit = book.lookup(position) if book is not None else None
        # A lost position's book move (weak: the first move of the order) may lose fast; the
        # solver or the search picks a stubborn one instead, for an imperfect opponent.
        if hit is not None and hit[1] >= 0:
            if not self._search_ready.is_set():
                # The move is known: give the compile most of this move's time (it holds the
                # GIL in stretches, so waiting here lets it run at full speed).
                self._search_ready.wait(max(0.0, (deadline - time.perf_counter()) * self.book_wait_share))
            self._report("book", t0, value=hit[1])
            return hit[0]
        if hit is not None and not self._solver_ready.is_set():
            # A lost book position (every move loses against perfect play): the stubborn move
            # needs the compiled solver or search; until then the book's move, in time.
            self._search_ready.wait(max(0.0, (deadline - time.perf_counter()) * self.book_wait_share))
            if not self._solver_ready.is_set():
                self._report("book-lost", t0, value=hit[1])
                return hit[0]
        if not self._solver_ready.is_set():
            deadline = self._wait_for_solver(deadline, hard, t0)
        if self._solver_ready.is_set():
            deadline = thinking_deadline(deadline, hard, self.bank_think, self.bank_reserve)
            found = self._solve(position, deadline)
            if found is not None:
                col, score, how, nodes = found
                if not (how == "solver-weak" and score < 0):
                    self._report(how, t0, value=score, nodes=nodes)
                    return col
                # Proven lost, but not how fast: every move keeps the value, so let the
                # search pick a stubborn one (it sees quick losses) for an imperfect opponent.
        return self._fall_back(position, deadline, t0)

    def warm_up(self, shape: Shape | None = None) -> float:
        """Compile the solver's kernels and the fallback search's for ``shape`` (default:
        :meth:`board`) now, in this
        thread (or wait for a compile a move started); returns the seconds taken. The arena
        calls it before a game: without it the throwaway moves of its warm-up only started the
        compile in a thread, which the game's own agent then raced with its own (20 s moves at
        ply 2 and 7 in a fresh process, and a half-built kernel namespace that cost it its
        fallback search)."""
        t0 = time.perf_counter()
        self._prepare(shape or self.board(), background=False)
        self._solver_ready.wait()
        self._search_ready.wait()
        return time.perf_counter() - t0

    # --- internals ----------------------------------------------------------------------------
    def _prepare(self, shape: Shape, background: bool | None = None) -> None:
        """Create the solver for ``shape`` and start compiling (once per shape): in a thread
        when ``background`` (default: the ``background_compile`` setting)."""
        if self._shape == shape:
            return
        self._shape = shape
        self._solver = Solver(shape, self.tt_size)
        self._speed = Speed(_FIRST_RATE[self._solver.jit], _RATE_MIN_SECONDS, _RATE_SMOOTHING)
        self._solver_ready, self._search_ready = threading.Event(), threading.Event()
        self._search = NegamaxAgent() if (self.fallback == "negamax" and NegamaxAgent is not None) else None
        if self.background_compile if background is None else background:
            keep_streams()  # numba's compile in a thread must not reassign sys.stdout/stderr (Kaggle's captures)
            thread = threading.Thread(target=self._warm_up, args=(shape,), name="perfect-compile", daemon=True)
            thread.start()
            # A compile cut off by the interpreter's exit crashed LLVM (segfault at exit, seen
            # with kaggle-environments): let it finish first, within a bound.
            atexit.register(thread.join, _EXIT_WAIT)
        else:
            self._warm_up(shape)

    def _warm_up(self, shape: Shape) -> None:
        """Compile the solver's kernels (every path ``_solve`` uses), then the fallback search."""
        t0 = time.perf_counter()
        try:
            if self._solver is not None:
                # Every kernel entry now: a compile left for later would happen in a move,
                # behind numba's compiler lock while the fallback search compiles.
                self._solver.warm_up()
        except Exception as exc:  # never leave the agent waiting: the plain path still works
            log_from_thread(f"[connectx] ERROR perfect: solver warm-up failed ({exc}); plain-Python solver")
            self._solver = Solver(shape, min(self.tt_size, 1 << 20), use_numba=False)
            self._speed = Speed(_FIRST_RATE[False], _RATE_MIN_SECONDS, _RATE_SMOOTHING)
        finally:
            self._compile_seconds = time.perf_counter() - t0
            self._solver_ready.set()
        try:
            if self._search is not None:
                self._search.warm_up(shape)
        except Exception as exc:
            log_from_thread(f"[connectx] ERROR perfect: fallback search warm-up failed ({exc}); safe-move rule")
            self._search = None
        finally:
            self._search_ready.set()

    def _wait_for_solver(self, deadline: float, hard: float | None, t0: float) -> float:
        """Wait for the solver's compile before a move the book does not give; returns the
        move's deadline (a fresh budget when the wait ran past the old one).

        Past the deadline only within what is left of ``compile_wait`` (every second waited
        past a deadline counts, with the fresh budget that follows) and never past the hard
        deadline (what the bank holds). In a fresh process without a book, that is the first
        move: one long wait, in which nothing else of the process runs (the opponent waits for
        the move), so the compile has the GIL to itself. Before, each book-less move gave the
        compile 80% of its time and the plain-Python stand-in screen the rest (about 0.15 s):
        beside the compile thread, which holds the GIL in long stretches, it got at most 3 K
        nodes/s, proved almost nothing and played the bare move order (which lost 10 of 90
        games to kaggle's negamax offline), and at load 4-6 the compile, sharing the process
        with both agents' moves, took 29 s: whole games went by that way. Once no wait past
        the deadline is left, a move waits :data:`_PLAIN_WAIT_SHARE` of its time and the plain
        screen plays with the rest."""
        now = time.perf_counter()
        soft = deadline - 0.05
        budget = max(0.05, deadline - t0)
        until = soft + max(0.0, self.compile_wait - self._waited)
        if hard is not None:
            until = min(until, hard - _AFTER_WAIT)
        if until - soft < budget:  # less than a move's time left to wait past the deadline: not worth it
            self._solver_ready.wait(max(0.0, deadline - now) * _PLAIN_WAIT_SHARE)
            return deadline
        self._solver_ready.wait(max(0.0, until - now))
        over = time.perf_counter() - soft
        if over <= 0:
            return deadline
        # Past the deadline, compiled or not (then the plain screen plays): a fresh budget of
        # at least wait_floor, also paid from the bank and counted in compile_wait.
        now = time.perf_counter()
        deadline = fresh_deadline(now, budget, self.wait_floor, hard)
        self._waited += over + (deadline - now)
        return deadline

    def load_data(self) -> None:
        """Read the book of this agent's board now (the arena's check before the first game):
        ValueError for a damaged file."""
        shape = getattr(self.game, "shape", None)
        self._load_book(shape if isinstance(shape, Shape) else Shape())

    def _load_book(self, shape: Shape) -> Book | None:
        if not self._book_ready:
            self._book_ready = True
            if self.book == "none":
                self._book_note = "none"
            else:
                path = default_path(shape) if self.book == "auto" else Path(self.book)
                if path.is_file():
                    self._book = Book.load(path)
                    self._book_note = str(path)
                else:
                    self._book_note = f"none ({path} missing)"
        return self._book

    def _solve(self, position: Position, deadline: float) -> tuple[int, int, str, int] | None:
        """``(column, score, how, nodes)`` from the solver, or None when it ran out of nodes."""
        solver, speed = self._solver, self._speed
        assert solver is not None and speed is not None
        share = self.solver_share
        end = time.perf_counter() + max(0.0, deadline - time.perf_counter()) * share
        best, how, nodes = None, "", 0
        for weak in ((True, False) if self.weak_first else (False,)):
            t = time.perf_counter()
            limit = speed.units(end - t, _RATE_SAFETY, floor=0)
            if limit < 1000:
                break
            found = solver.best_move(position, limit, weak=weak, deadline=end)
            elapsed = time.perf_counter() - t
            nodes += solver.nodes
            speed.measure(solver.nodes, elapsed)
            if found is None:
                break
            best, how = found, "solver-weak" if weak else "solver"
        if best is None:
            return None
        return best[0], best[1], how, nodes

    def _fall_back(self, position: Position, deadline: float, t0: float) -> int:
        search = self._search
        if search is not None and self._search_ready.is_set() and time.perf_counter() < deadline - 0.01:
            col = search.choose_position(position, deadline)
            self._report("fallback-search", t0, depth=search.info().get("depth"))
            return col
        col, stand_in = self._screened_move(position, deadline)
        self._report("fallback-screen", t0, screened_by="plain stand-in" if stand_in else "solver")
        return col

    def _screened_move(self, position: Position, deadline: float) -> tuple[int, bool]:
        """While the fallback search is not compiled: the solver's move order, skipping moves a
        small search proves lost, taking one it proves won (see :meth:`Solver.screen`). Before
        the solver itself is compiled, a small plain-Python solver screens (shallow traps only,
        at ~40 K nodes/s): without a book, the first moves of a fresh process are played here,
        and the unscreened move order lost games to kaggle's depth-4 negamax. Returns the
        column and whether the plain stand-in screened it."""
        stand_in = not self._solver_ready.is_set()
        if not stand_in:
            solver, speed, end = self._solver, self._speed, deadline - 0.01
        else:
            if self._plain is None or self._plain.shape != position.shape:
                self._plain = Solver(position.shape, 1 << 16, use_numba=False)
            # Beside the compile thread, which holds the GIL in long stretches, pure Python runs
            # at a fraction of its speed and gets the GIL back late: plan on less, stop earlier.
            solver, speed, end = self._plain, Speed(_FIRST_RATE[False] / 4), deadline - _PLAIN_SLACK
        assert solver is not None and speed is not None
        columns = len(position.legal_columns())
        per_move = speed.until(end, _RATE_SAFETY, floor=0) // max(1, columns)
        if per_move < 100:
            return solver.ordered_columns(position)[0], stand_in
        screened = solver.screen(position, per_move, deadline=end)
        return max(screened, key=lambda cv: cv[1])[0], stand_in  # max keeps the first of equal values

    def _report(self, how: str, t0: float, **extra: Any) -> None:
        self._info = {"source": how, "seconds": time.perf_counter() - t0, "book": self._book_note,
                      "compile_seconds": self._compile_seconds, "waited": self._waited,
                      "rate": self._speed.rate if self._speed is not None else 0.0, **extra}
