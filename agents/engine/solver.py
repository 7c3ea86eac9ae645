"""Exact solver for any game that ends, with integer outcomes: the kernel of
:mod:`agents.engine.exact` (negamax with alpha-beta on the outcome, the game's ``expand``,
``bounds`` and ``key`` hooks, a table of bounds; canonical keys when the game gives them), and
null windows of width 1 that narrow ``[lo, hi]`` on the value (Pons' solver and MTD(f), written
anew), watched from Python when asked so that Ctrl-C is seen and progress shown.

Values are for the side to move, in the game's own units: ``outcome`` seen from the mover,
e.g. tic-tac-toe's 1 / 0 / -1, count-the-fours' score difference, or Pons' score for
:class:`core.connectx.pons.PonsConnectX` (a game that prefers quicker wins says so in its
outcome, as that one does).

A window ``(m, m + 1)`` answers "is the value above m?": a result ``<= m`` is an upper bound,
``>= m + 1`` a lower bound; so the narrowing is exact and quick for small integers (2 searches
for a win/draw/loss game).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agents.engine.exact import E_CHANCE_SEEN, E_CUT, E_LIMIT, ExactSearch, narrow, share_table
from base.budget import NO_LIMIT, deadline_ns
from base.hotclock import COMPILED_CLOCK
from base.watch import INLINE_SECONDS, call_watched

INLINE_NODES = 1_000_000
"""With ``slice_seconds``, where compiled code cannot read the clock: the nodes a call runs in
the caller's thread before it starts again watched (about :data:`base.watch.INLINE_SECONDS` of
a compiled solve here)."""


class SolveError(ValueError):
    """The position cannot be solved by this solver (chance nodes, or longer than ``max_plies``)."""


class Solver:
    """Solves positions of one game; keeps its table between calls (entries are exact bounds,
    valid whatever the path, the window or the mode). The one solver front: a game with a
    notation of its own (ConnectX's Pons scores and columns, :class:`agents.connectx.solver.Solver`)
    subclasses it and adds its notation on top of :meth:`_run`.

    ``tt_bits``: about 2**tt_bits table entries (``tt_size``, when given, is the entries
    themselves). ``max_plies``: deepest line searched (the move buffer); a line reaching it is an
    error, never a guess. ``slice_seconds``: None runs each search in one kernel call in this
    thread (the agents' way); a number runs a long one in a thread watched that often from this
    one, so that Ctrl-C and SIGTERM are seen (compiled code runs no signal handler) and
    ``on_slice(nodes so far)`` can show progress: for the commands (see :meth:`_run`).

    ``threads``: 1 to :data:`agents.engine.parallel.MAX_THREADS` threads for each solve of a
    value (:mod:`agents.engine.parallel`: parallel null windows, the value the same, the
    threads sharing one table of ``tt_size`` entries where the key is one word
    (:func:`agents.engine.exact.share_table`; :attr:`shared`), else each with one of its own);
    window searches (:meth:`probe`) run in one. More than 1 needs the compiled kernel
    (ValueError on the plain path)."""

    def __init__(self, game: Any, tt_bits: int = 20, jit: bool | None = None, max_plies: int = 256,
                 slice_seconds: float | None = None, on_slice: Callable[[int], None] | None = None,
                 tt_size: int | None = None, threads: int = 1) -> None:
        from agents.engine.parallel import MAX_THREADS

        self.game = game
        self.max_plies = int(max_plies)
        size = 1 << int(tt_bits) if tt_size is None else int(tt_size)
        self.search = ExactSearch(game, tt_size=size, jit=jit, max_plies=self.max_plies)
        if not 1 <= int(threads) <= MAX_THREADS:
            raise ValueError(f"threads={threads}: give 1 to {MAX_THREADS}")
        if threads > 1 and not self.search.jit:
            raise ValueError(f"threads={threads} needs the compiled kernel (numba, a state within 63 bits): "
                             "plain Python runs one thread at a time; give threads=1")
        self.threads = int(threads)
        self.shared = self.threads > 1 and self.search.words == 1
        if self.shared:  # one table for every thread (see agents.engine.exact.share_table)
            self.helpers = share_table(self.search, self.threads - 1)
        else:  # multi-word keys: a table per thread (a racing write could mix an entry's words)
            self.helpers = [ExactSearch(game, tt_size=size, jit=jit, max_plies=self.max_plies) for _ in range(self.threads - 1)]
        self.thread_nodes = [0] * self.threads  # each thread's nodes in the last parallel solve
        self.windows = self.threads  # the most distinct windows in flight (agents.engine.parallel)
        self.slice_seconds = slice_seconds
        self.on_slice = on_slice
        self.nodes = 0  # nodes of the last call
        self.restart_nodes = 0  # nodes of first tries run again watched (slice_seconds), over this solver's life
        self.probes = 0  # null-window searches of the last call

    @property
    def jit(self) -> bool:
        """Whether the kernel runs compiled."""
        return self.search.jit

    def reset(self) -> None:
        """Empty the tables (only needed to measure a solve from a cold start)."""
        for s in [self.search, *self.helpers]:
            s.clear()

    def _run(self, kernel: Callable[[tuple, int, int], int], words: tuple, a: int, b: int,
             node_limit: int | None, deadline: float | None) -> int | None:
        """``kernel(words, a, b)`` (:meth:`ExactSearch.solve` or :meth:`ExactSearch.probe`) within
        ``node_limit`` nodes (this call's) and ``deadline`` (``time.perf_counter()`` seconds);
        its result, or None when either came first. Its nodes are added to :attr:`nodes`.

        With ``slice_seconds``, a call that outlasts :data:`base.watch.INLINE_SECONDS` (or,
        compiled where compiled code cannot read the clock, :data:`INLINE_NODES`) runs again, to
        its end, in a thread (:func:`base.watch.call_watched`) while this one wakes every
        ``slice_seconds`` to run the signal handlers and ``on_slice``; an exception there stops
        the kernel at its next node (its node limit set to 0) and is re-raised. The search is the
        one ``slice_seconds=None`` does, bar that restart, whose first try's proofs are still in
        the table (bench: ``python -m bench.solver_command``). Returning every slice and starting
        again from the table lost the kernel's stack: in a long proof the table had overwritten
        the early subtrees, which were searched again and again (167257: minutes instead of
        27 s). Quick calls never pay for the thread."""
        search = self.search
        if self.helpers and kernel == search.solve:
            return self._run_parallel(words, a, b, node_limit, deadline)
        if self.slice_seconds is None:
            search.start(node_limit, deadline_ns(deadline))
            r = kernel(words, a, b)
            self.nodes += search.nodes
            if not search.aborted:  # a chance node or the ply cap abort the search too
                return r
            self._raise_if_unsolvable()
            return None
        limit = NO_LIMIT if node_limit is None else max(1, int(node_limit))
        inline_end = time.perf_counter() + INLINE_SECONDS
        inline_nodes = INLINE_NODES if search.jit and not COMPILED_CLOCK else NO_LIMIT
        search.start(min(limit, inline_nodes), deadline_ns(inline_end if deadline is None else min(inline_end, deadline)))
        r = kernel(words, a, b)
        done = search.nodes
        self.nodes += done
        self._raise_if_unsolvable()
        if not search.aborted:
            return r
        if done >= limit or (deadline is not None and time.perf_counter() >= deadline):
            return None
        self.restart_nodes += done  # the watched run starts again: these are searched twice, in part
        search.start(limit - done, deadline_ns(deadline))
        before = self.nodes

        def progress() -> None:
            if self.on_slice is not None:
                self.on_slice(before + search.nodes)

        def stop() -> None:
            search.mem[E_LIMIT] = 0  # the kernel reads it at every node

        r = call_watched(lambda: kernel(words, a, b), stop, self.slice_seconds, progress)
        self.nodes += search.nodes
        self._raise_if_unsolvable()
        return None if search.aborted else r

    def _run_parallel(self, words: tuple, lo: int, hi: int, node_limit: int | None, deadline: float | None) -> int | None:
        """:meth:`_run` of a solve on :attr:`threads` threads (:class:`agents.engine.parallel.ParallelSolve`),
        watched every ``slice_seconds`` (0.05 s without) from this thread."""
        from agents.engine.parallel import ParallelSolve

        job = ParallelSolve([self.search, *self.helpers], words, lo, hi, node_limit, deadline_ns(deadline), self.windows)
        before = self.nodes

        def tick(nodes: int) -> None:
            if self.on_slice is not None:
                self.on_slice(before + nodes)

        try:
            r = job.run(self.slice_seconds or 0.05, tick, deadline)
        finally:
            self.nodes += job.done_nodes
            self.thread_nodes = job.thread_nodes
        for s in [self.search, *self.helpers]:
            if s.chance or s.cut:
                self.search.mem[E_CHANCE_SEEN] = int(s.chance)
                self.search.mem[E_CUT] = int(s.cut)
        self._raise_if_unsolvable()
        return r

    def _probe(self, state: Any, alpha: int, beta: int, deadline: float | None, limit: int | None) -> int | None:
        """One window search of ``state`` to the end; None when out of time or nodes (``limit``:
        over the whole public call, :attr:`nodes` counting what it spent so far)."""
        left = None if limit is None else limit - self.nodes
        if left is not None and left <= 0:
            return None
        return self._run(self.search.probe, tuple(int(w) for w in state.words), alpha, beta, left, deadline)

    def _raise_if_unsolvable(self) -> None:
        if self.search.chance:
            raise SolveError(f"{self.game.name} has chance nodes below this position: the exact solver "
                             "handles games without chance (use expectimax)")
        if self.search.cut:
            raise SolveError(f"a line longer than max_plies={self.max_plies} was reached: the game may "
                             "not end within it; raise max_plies (--max-plies)")

    @staticmethod
    def _return_for(state: Any, player: int) -> float:
        """A finished game's outcome for ``player`` (returns are player 0's and minus that)."""
        r0 = state.returns()[0]
        return (r0 if player == 0 else -r0) + 0.0

    def decided(self, state: Any) -> float | None:
        """The value of a position the game's ``expand`` decides without search (a win at once,
        a loss to every move, a terminal state), else None."""
        if state.is_terminal():
            return self._return_for(state, state.current_player())
        v = self.search.decided(tuple(int(w) for w in state.words))
        return None if v is None else float(v)

    def _range(self, state: Any) -> tuple[int, int]:
        """Proven bounds on the value of ``state``, which ``expand`` left undecided: the game's
        outcomes, narrowed by its ``bounds`` hook when it has one."""
        wv = int(round(float(getattr(self.game, "win_value", 1.0))))
        lo, hi = -wv, wv
        k = self.game.kernel_module
        if hasattr(k, "bounds"):
            blo, bhi = k.bounds(self.game.g, state.words)
            lo, hi = max(lo, int(blo)), min(hi, int(bhi))
        return lo, hi

    def _check(self, state: Any) -> None:
        # Games without chance skip the test: a quick solve is mostly such Python work.
        if getattr(self.game, "has_chance", True) and state.is_chance_node():
            raise SolveError("the position is a chance node: the exact solver handles games without chance")

    def value(self, state: Any, deadline: float | None = None, node_limit: int | None = None,
              within: tuple[float, float] | None = None) -> float | None:
        """Exact value of ``state`` for its side to move, or None when ``deadline`` (a
        ``time.perf_counter()`` time) or ``node_limit`` came first. ``within=(lo, hi)``: only
        narrow inside that range: a value below ``lo`` is reported as ``lo``, above ``hi`` as
        ``hi`` (e.g. ``(-1, 1)``: the sign of the value, a weak solve, at a fraction of the cost)."""
        self.nodes, self.probes = 0, 0
        return self._value(state, deadline, node_limit, within)

    def probe(self, state: Any, alpha: float, beta: float, deadline: float | None = None,
              node_limit: int | None = None) -> float | None:
        """One window search: a result ``<= alpha`` is an upper bound on the value, ``>= beta`` a
        lower bound, in between exact; None on time or nodes. A position the game decides
        without search costs no node (e.g. "is this move optimal?" on a child, cheap when the
        table holds the parent's proof)."""
        self._check(state)
        self.nodes, self.probes = 0, 0
        v = self.decided(state)
        if v is not None:
            return v
        self.probes = 1
        r = self._probe(state, int(alpha), int(beta), deadline, node_limit)
        return None if r is None else float(r)

    def _value(self, state: Any, deadline: float | None, node_limit: int | None,
               within: tuple[float, float] | None = None) -> float | None:
        self._check(state)
        v = self.decided(state)
        if v is not None:
            if within is not None:
                v = min(max(v, within[0]), within[1]) + 0.0
            return v
        lo, hi = self._range(state)
        if within is not None:
            lo, hi = max(lo, int(within[0])), min(hi, int(within[1]))

        if self.helpers:  # the windows on threads (agents.engine.parallel)
            r = self._run(self.search.solve, tuple(int(w) for w in state.words), lo, hi, node_limit, deadline)
            return None if r is None else float(r)

        def window(m: int) -> int | None:
            self.probes += 1
            return self._probe(state, m, m + 1, deadline, node_limit)

        v = narrow(lo, hi, window)
        return None if v is None else float(v)

    def action_values(self, state: Any, deadline: float | None = None, node_limit: int | None = None) -> dict[int, float] | None:
        """Exact value of each legal action for the side to move at ``state``, or None on time."""
        self._check(state)
        self.nodes, self.probes = 0, 0
        out: dict[int, float] = {}
        for a in state.legal_actions():
            v = self._child_value(state, state.apply(a), deadline, node_limit)
            if v is None:
                return None
            out[a] = v
        return out

    def _child_value(self, state: Any, child: Any, deadline: float | None, node_limit: int | None) -> float | None:
        """The value of ``child`` for the player to move at ``state`` (None on time)."""
        me = state.current_player()
        if child.is_terminal():
            return self._return_for(child, me)
        v = self._value(child, deadline, node_limit)
        if v is None:
            return None
        return (v if child.current_player() == me else -v) + 0.0

    def optimal(self, state: Any, deadline: float | None = None) -> tuple[int, float] | None:
        """``(action, value)``: an optimal action found cheaply, or None on time. The position's
        value first, then its actions in the game's order (a game-ending one first) until one
        reaches it: usually the first; in a lost position no action needs solving."""
        self._check(state)
        v = self.value(state, deadline)
        if v is None:
            return None
        actions = state.legal_actions()
        buf = list(actions) + [0] * max(0, len(actions))
        order_fn = getattr(self.game.kernel_module, "order", None)
        if callable(order_fn):
            try:
                order_fn(self.game.g, state.words, buf, 0, len(actions), [0.0] * 8)
                actions = [int(a) for a in buf[:len(actions)]]
            except Exception:  # an order hook that needs its heuristic's parameters: keep the game's order
                actions = state.legal_actions()
        actions.sort(key=lambda a: not state.apply(a).is_terminal())
        if v <= -self.game.win_value:
            return actions[0], v  # the worst outcome whatever is played
        for a in actions:
            cv = self._child_value(state, state.apply(a), deadline, None)
            if cv is None:
                return None
            if cv >= v:
                return a, v
        return None

    def best(self, state: Any, deadline: float | None = None, node_limit: int | None = None) -> tuple[int, float, dict[int, float]] | None:
        """``(action, value, action values)``: an optimal action (the first in the game's action
        order among the best, a game-ending one first), or None on time."""
        values = self.action_values(state, deadline, node_limit)
        if values is None:
            return None
        top = max(values.values())
        best = [a for a, v in values.items() if v == top]
        quick = [a for a in best if state.apply(a).is_terminal()]
        action = (quick or best)[0]
        return action, top, values


def can_compile(game: Any) -> bool:
    """Whether the solver's kernel runs compiled for ``game`` here (numba, a state within int64)."""
    from base.jit import numba_available

    return numba_available() and game.fits_int64()


def is_compiled(game: Any) -> bool:
    """Whether the solver's kernel for ``game`` is compiled in this process (its one entry point:
    every call of a solver takes the same argument types)."""
    from agents.engine.exact import bind_exact

    return can_compile(game) and len(bind_exact(game, True).run.signatures) > 0


def warm_up(game: Any) -> float:
    """Compile the solver's kernel for ``game`` now (nothing to do where it runs plain, or once
    done); returns the seconds taken. For agents whose moves may solve: else their first solve
    compiles (seconds) inside a move's time."""
    t0 = time.perf_counter()
    if can_compile(game) and not is_compiled(game):
        state = game.initial()
        Solver(game, tt_bits=4, jit=True).search.decided(tuple(int(w) for w in state.words))
    return time.perf_counter() - t0


__all__ = ["Solver", "SolveError", "can_compile", "is_compiled", "warm_up"]
