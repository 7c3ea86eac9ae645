"""Turn any agent into Kaggle's ``agent(observation, configuration) -> int``, which never raises.

:class:`KaggleAdapter` reads the board and shape, builds a :class:`core.Position`, creates the
agent once (lazily, on the first call, so that its cost falls in the first move's budget along
with loading the file), notices a new game (calls the agent's ``reset()``), computes the
deadline (:mod:`base.clock`), and asks the agent for a column with the garbage collector
disabled (restored in ``finally``; after the agent and its data are loaded, ``gc.freeze()``
moves them out of the collector's sight for good).

Whatever goes wrong, it returns a plain ``int``, and a legal column whenever one exists. The
fallback, in order:

1. The position is valid but the agent is missing (its creation failed), there
   is no time left, the agent raised, or it returned something that is not a legal column
   (an exception from numba also switches the process to pure Python and rebuilds the agent
   for the next move):
   :func:`fallback_column`, a fast rule: win now, else block the opponent's immediate win,
   else the most central column that does not play directly under an opponent's winning cell,
   else the most central legal column.
2. The observation or configuration does not describe a valid position (wrong types, missing
   keys, wrong length, impossible stone counts, a finished game): the most central column
   whose top cell is empty, which is exactly Kaggle's own legality test
   (``board[column] == 0``).
3. Even the board is unreadable: the centre column of the configuration's ``columns`` (7 when
   that is missing), or 0.

Embedded data that is damaged (or that the agent's ``use_data()`` refuses) costs only what
depends on it: the error is logged once and the agent is created again and told
``use_data(None)``, so ``perfect`` plays its solver and search without its book and ``mcts``
searches without its opening cache. Only an agent that cannot run without its data (its
``use_data(None)`` raises) leaves the game to the fast rule.

The move that creates the agent (the first; a rebuild after a numba failure) pays for the
creation, and on Kaggle for loading the file (its first call's timer covers both): the agent
gets at least 0.1 s from the moment it exists (a book move; ``perfect`` then waits for its
compile from the bank), the overrun paid from the bank, never past
:meth:`base.clock.ClockPolicy.latest` (:meth:`base.clock.ClockPolicy.resumed`). Before,
at ``actTimeout`` 0.5 s, loading took the whole first budget and the fast rule played it.

An agent may also overrun its deadline on purpose (``perfect`` waits for numba's compile when a
position leaves its book): if it has ``set_hard_deadline(t)``, the adapter calls it before every
move with :meth:`base.clock.ClockPolicy.latest`, the moment by which the move must end whatever
happens, so that no wait spends more of the bank than the bank holds.

Errors and late moves are written to ``sys.stderr`` as one line starting with
``[connectx] ERROR`` or ``[connectx] LATE`` (Kaggle keeps an agent's stderr in the episode
logs; ``build_submission.py`` fails validation on any ERROR line) and counted in ``stats``.
"""
from __future__ import annotations

import gc
import operator
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from base.clock import ClockPolicy, kaggle_times, read_field
from core.connectx.bitboard import move_bit, winning_cells
from core.connectx.position import Position
from core.connectx.shape import Shape


def fallback_column(position: Position) -> int:
    """The fast rule (a few microseconds on 6x7): win now, block, avoid, centre.

    ``position`` must have a legal column.
    """
    s = position.shape
    order = [c for c in s.center_order() if position.can_play(c)]
    for c in order:
        if position.is_winning_move(c):
            return c
    threats = winning_cells(position.opponent, position.mask, s.rows, s.columns, s.inarow)
    for c in order:
        if move_bit(position.mask, s.rows, c) & threats:
            return c
    for c in order:
        if not (move_bit(position.mask, s.rows, c) << 1) & threats:
            return c
    return order[0]


def _as_int(value: Any) -> int | None:
    """An int (or an integral float or numpy integer) as a plain int; anything else None."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        pass
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _from_numba(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is one of numba's."""
    seen = 0
    while exc is not None and seen < 10:
        if type(exc).__module__.split(".")[0] == "numba":
            return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return False


def _is_empty(cell: Any) -> bool:
    """Kaggle's test for a playable column: its top cell equals 0."""
    try:
        return bool(cell == 0)
    except Exception:
        return False


def _centre_first(columns: int, limit: int) -> list[int]:
    mid = (columns - 1) / 2
    return sorted(range(min(columns, limit)), key=lambda c: (abs(c - mid), c))


class _Game:
    """What one call's observation and configuration say, read without raising."""

    def __init__(self, observation: Any, configuration: Any) -> None:
        rows = _as_int(read_field(configuration, "rows"))
        columns = _as_int(read_field(configuration, "columns"))
        inarow = _as_int(read_field(configuration, "inarow"))
        self.rows = rows if rows is not None and rows >= 1 else None
        self.inarow = inarow if inarow is not None and inarow >= 1 else None
        mark = _as_int(read_field(observation, "mark"))
        self.mark = mark if mark in (1, 2) else None
        board = read_field(observation, "board")
        self.cells: list | None = None
        if not isinstance(board, (str, bytes, dict)) and board is not None:
            try:
                self.cells = list(board)
            except Exception:
                self.cells = None
        if columns is None or columns < 1:  # infer it, else Kaggle's default
            n = len(self.cells) if self.cells is not None else 0
            columns = n // self.rows if self.rows and n and n % self.rows == 0 else 7
        self.columns: int = columns

    def raw_column(self) -> int:
        """Fallback 2 and 3 of the module docstring."""
        cells = self.cells or []
        for c in _centre_first(self.columns, len(cells)):
            if _is_empty(cells[c]):
                return c
        return (self.columns - 1) // 2

    def position(self) -> tuple[Position | None, str]:
        """The position, or None and the reason it cannot be built."""
        if self.rows is None or self.inarow is None or self.cells is None:
            return None, "configuration needs positive int rows, columns, inarow and the observation a board list"
        try:
            shape = Shape(self.rows, self.columns, self.inarow)
            try:
                pos = Position.from_board(self.cells, shape, self.mark)
            except ValueError:
                if self.mark is None:
                    raise
                pos = Position.from_board(self.cells, shape, None)  # trust the stones over the mark
        except Exception as exc:  # ValueError from the checks; anything from exotic cell objects
            return None, f"{type(exc).__name__}: {exc}"
        if pos.is_terminal():
            return None, "the game on this board is already over"
        return pos, ""


class KaggleAdapter:
    """A callable ``(observation, configuration) -> int`` around one agent. See the module docstring.

    Not thread-safe; one adapter per game seat (a submission file makes one when it loads).
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        *,
        policy: ClockPolicy | None = None,
        packed_data: str | None = None,
        started_at: float | None = None,
        freeze_gc: bool = True,
        verbose: bool = True,
        numba_retry: bool = True,
    ) -> None:
        """
        factory: builds the agent (called once, on the first move).
        policy: the move budget; ClockPolicy() by default.
        packed_data: base.codec text handed to the agent's ``use_data()`` once it exists.
        started_at: perf_counter() when the submission file started loading: Kaggle's timer for
            the first move covers loading, so the first deadline counts from here.
        freeze_gc: ``gc.freeze()`` once the agent and its data are loaded (a submission: yes;
            a long-lived local process that builds many adapters may prefer not to).
        verbose: write ERROR/LATE lines to stderr.
        numba_retry: when the agent raises an exception from numba (a compile error, e.g. a
            numba version on Kaggle that rejects a kernel), set ``CONNECTX_NUMBA=0`` for this
            process and rebuild the agent once, so the rest of the game runs in pure Python
            instead of on the fast rule. Meant for a submission's own process.
        """
        self._factory = factory
        self.policy = policy if policy is not None else ClockPolicy()
        self._packed_data = packed_data
        self._started_at = started_at
        self._freeze_gc = freeze_gc
        self._verbose = verbose
        self._numba_retry = numba_retry
        self._agent: Any = None
        self._agent_failed = False
        self._calls = 0
        self._last: tuple[Shape, int, int] | None = None  # (shape, side to move, ply) of the last position
        self.stats = {"moves": 0, "games": 0, "fallbacks": 0, "errors": 0, "late": 0}
        self.last_error = ""

    @property
    def agent(self) -> Any:
        """The agent, once the first call created it (None before, or if creation failed)."""
        return self._agent

    def __call__(self, observation: Any, configuration: Any = None) -> int:
        now = time.perf_counter()
        started = now
        if self._calls == 0 and self._started_at is not None:
            # Kaggle's timer covers loading the file: kaggle-environments 1.33.2 executes an
            # agent file inside its first timed call (build_agent's callable_agent, also behind
            # its HTTP agent server). A host that loads files when the episode starts times
            # only the call, so a second player's first call may come a whole opponent move
            # after loading. Count from loading only while a move's budget has not gone by
            # since: a gap longer than that was not timed (or, if it was, counting from now
            # costs at most one budget of the bank).
            act, bank = kaggle_times(observation, configuration)
            if 0 <= now - self._started_at < self.policy.budget(act, bank):
                started = self._started_at
        self._calls += 1
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._move(observation, configuration, started)
        except Exception as exc:  # a bug in this adapter: still answer
            self._error(f"adapter failed ({type(exc).__name__}: {exc})", trace=True)
            try:
                return _Game(observation, configuration).raw_column()
            except Exception:
                return 0
        finally:
            if gc_was_enabled:
                gc.enable()

    # --- one move -------------------------------------------------------------------------
    def _move(self, observation: Any, configuration: Any, started: float) -> int:
        self.stats["moves"] += 1
        act, bank = kaggle_times(observation, configuration)
        deadline = self.policy.deadline(started, act, bank)
        game = _Game(observation, configuration)
        pos, reason = game.position()
        if pos is None:
            self.stats["fallbacks"] += 1
            self._error(f"bad observation or configuration ({reason}); playing the first empty column from the centre")
            return game.raw_column()
        created = self._agent is None
        agent = self._get_agent()
        if agent is None:
            self.stats["fallbacks"] += 1
            return fallback_column(pos)
        if created:  # loading and creating it ran on this move's timer: time again, from the bank
            deadline = self.policy.resumed(started, time.perf_counter(), act, bank)
        self._notice_game(agent, pos)
        hard = getattr(agent, "set_hard_deadline", None)
        if callable(hard):
            hard(self.policy.latest(started, act, bank))
        if time.perf_counter() >= deadline:
            self.stats["fallbacks"] += 1
            self._log("LATE", f"no time left before the agent could move (move {self.stats['moves']}); fast rule used")
            self.stats["late"] += 1
            return fallback_column(pos)
        try:
            answer = agent.choose_position(pos, deadline)
        except Exception as exc:
            self.stats["fallbacks"] += 1
            self._error(f"agent raised {type(exc).__name__}: {exc}; fast rule used", trace=True)
            if self._numba_retry and _from_numba(exc) and os.environ.get("CONNECTX_NUMBA") != "0":
                self._numba_retry = False
                os.environ["CONNECTX_NUMBA"] = "0"  # base.jit.kernels now gives the plain-Python modules
                self._agent, self._last = None, None  # the next move builds the agent again
                self._error("numba failed inside the agent: CONNECTX_NUMBA=0 set, the agent is rebuilt in pure Python")
            return fallback_column(pos)
        col = _as_int(answer) if not isinstance(answer, float) else None
        if col is None or not pos.can_play(col):
            self.stats["fallbacks"] += 1
            self._error(f"agent returned {answer!r}, not a legal column of {pos.legal_columns()}; fast rule used")
            return fallback_column(pos)
        late = time.perf_counter() - deadline
        if late > 0:
            self.stats["late"] += 1
            self._log("LATE", f"agent returned {late * 1000:.1f} ms after its deadline (move {self.stats['moves']})")
        return int(col)

    def _get_agent(self) -> Any:
        if self._agent is None and not self._agent_failed:
            try:
                agent = self._factory()
                if self._packed_data is not None:
                    agent = self._give_data(agent, self._packed_data)
                self._agent = agent
            except Exception as exc:
                self._agent_failed = True
                self._error(f"could not create the agent ({type(exc).__name__}: {exc}); fast rule for the whole game", trace=True)
                return None
            if self._freeze_gc:
                gc.collect()
                gc.freeze()
        return self._agent

    def _give_data(self, agent: Any, packed: str) -> Any:
        """``agent`` with its embedded data ``packed``; when the data is damaged or refused, a new agent
        told ``use_data(None)`` (a fresh one: the refusal may have left the first half-set)."""
        use = getattr(agent, "use_data", None)
        if not callable(use):
            raise TypeError(f"{type(agent).__name__} has embedded data but no use_data() method")
        try:
            from base.codec import unpack

            use(unpack(packed))
            return agent
        except Exception as exc:
            self._error(f"embedded data unusable ({type(exc).__name__}: {exc}); the agent plays without it")
        agent = self._factory()
        agent.use_data(None)
        return agent

    def _notice_game(self, agent: Any, pos: Position) -> None:
        """A new game starts when the shape or our side changes, or the ply does not grow."""
        key = (pos.shape, pos.side_to_move, pos.ply)
        last = self._last
        self._last = key
        if last is not None and last[:2] == key[:2] and pos.ply > last[2]:
            return
        self.stats["games"] += 1
        if last is not None:
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset()

    # --- logging --------------------------------------------------------------------------
    def _error(self, message: str, trace: bool = False) -> None:
        self.stats["errors"] += 1
        self.last_error = message
        if trace and self._verbose:
            message += "\n" + traceback.format_exc(limit=-8).rstrip()
        self._log("ERROR", message)

    def _log(self, level: str, message: str) -> None:
        if self._verbose:
            try:
                print(f"[connectx] {level} {message}", file=sys.stderr, flush=True)
            except Exception:
                pass


def kaggle_agent(factory: Callable[[], Any], **options: Any) -> Callable[[Any, Any], int]:
    """A Kaggle agent function around ``factory`` (e.g. ``lambda: registry.make_from_spec(spec)``)
    for kaggle-environments or local tournaments. ``options`` go to :class:`KaggleAdapter`
    (``freeze_gc`` defaults to False here: a long-lived process should not freeze its heap once
    per game); the adapter is reachable as ``fn.adapter``."""
    options.setdefault("freeze_gc", False)
    adapter = KaggleAdapter(factory, **options)

    def kaggle_fn(observation: Any, configuration: Any) -> int:
        return adapter(observation, configuration)

    kaggle_fn.adapter = adapter  # type: ignore[attr-defined]
    return kaggle_fn
