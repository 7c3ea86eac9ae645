"""Exact ConnectX solver (strong: the exact score; weak: win/draw/loss) and its CLI.

    echo "4453" | python -m agents.connectx.solver            # -> "4453 <score>"
    python -m agents.connectx.solver --all-moves < positions  # -> "<moves> s1 s2 ... s7" ("-" = full)
    echo "4453" | python -m agents.engine.solve --game connectx   # the same command: this is its front

The search is the game-generic exact solver :mod:`agents.engine.exact` (hot code, compiled by
numba when the board fits 63 bits) on :class:`core.connectx.pons.PonsConnectX`, ConnectX scored
by Pons' score: ConnectX's tricks (non-losing moves, threat-cell order, score bounds) are that
game's hooks. A :class:`Solver` owns its transposition table, so two solvers never share
state. Scores are Pons' for the side to move: a win by the stone played after ``q`` plies
scores ``(cells + 1 - q) // 2`` (``22 - stones the winner played`` on 6x7), a loss minus that.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from agents.engine import exact as ek
from agents.engine import solver as engine_solver
from base.bounds import TT_SLOTS
from base.cli import exit_code, int_in, raise_if_signalled, signal_name, stop_on_signals
from base.jit import numba_enabled
from core.connectx.cli import parse_moves
from core.connectx.pons import PonsConnectX
from core.connectx.position import Position
from core.connectx.search_hooks import expand as connectx_expand
from core.connectx.shape import STANDARD, Shape
from core.connectx.threats import win_cells

DEFAULT_TT_SIZE = 1 << 23
"""Table slots by default (about 8 M slots of 8 bytes: 64 MB)."""


class Solver(engine_solver.Solver):
    """The game-generic exact solver (:class:`agents.engine.solver.Solver`) on
    :class:`core.connectx.pons.PonsConnectX` of one shape, with ConnectX's notation: a
    :class:`core.connectx.position.Position` in, Pons' scores and columns out. Keeps its table
    between calls (entries are exact bounds, valid whatever the path, the window or the mode);
    the generic methods (``value``, ``best``, ...) work too, on PonsConnectX's states."""

    def __init__(self, shape: Shape = STANDARD, tt_size: int = DEFAULT_TT_SIZE, use_numba: bool | None = None,
                 slice_seconds: float | None = None, on_slice: Callable[[int], None] | None = None,
                 threads: int = 1) -> None:
        """``tt_size``: table slots (rounded up to a prime). ``use_numba``: None = when the board
        allows it and numba is installed; False forces the plain-Python kernels.
        ``slice_seconds``, ``on_slice``: as the generic solver's (None: each search in one kernel
        call in this thread, the agents' way; a number: watched, for the CLIs). ``threads``: as
        the generic solver's (1 to 64, more than 1 compiled only)."""
        if use_numba is None:
            use_numba = numba_enabled(shape.bits)
        game = PonsConnectX(rows=shape.rows, columns=shape.columns, inarow=shape.inarow)
        super().__init__(game, jit=bool(use_numba) and shape.fits_int64, max_plies=shape.cells + 2,
                         slice_seconds=slice_seconds, on_slice=on_slice, tt_size=max(1024, int(tt_size)), threads=threads)
        self.shape = shape

    def _score_range(self, position: Position, weak: bool) -> tuple[int, int]:
        """The range a solve narrows: the sign (weak), or every score a position that is not
        won at once can have. Wider than the kernel's own bounds on purpose: Pons' windows over
        this range take fewer nodes (the kernel's ``solve`` docstring)."""
        if weak:
            return -1, 1
        left = self.shape.cells - position.ply
        return -(left // 2), (left + 1) // 2

    def _check_position(self, position: Position) -> None:
        if position.shape != self.shape:
            raise ValueError(f"position shape {position.shape} differs from the solver's {self.shape}")
        if position.ply and position.last_player_won():
            raise ValueError("the game is over: the last move made a line")

    def solve(self, position: Position, weak: bool = False, node_limit: int | None = None,
              deadline: float | None = None) -> int | None:
        """Exact score for the side to move (``weak``: -1/0/1), or None if ``node_limit`` ran out
        or the ``deadline`` (a ``time.perf_counter()`` time) passed."""
        self._check_position(position)
        self.nodes = 0
        lo, hi = self._score_range(position, weak)
        s = self._run(self.search.solve, (position.current, position.mask), lo, hi, node_limit, deadline)
        return None if s is None else int(s)

    def child_scores(self, position: Position, weak: bool = False, node_limit: int | None = None) -> list | None:
        """Score of each column for the side to move (None for a full column), or None on abort."""
        self._check_position(position)
        if position.is_full():
            return [None] * self.shape.columns
        out: list = []
        nodes = 0
        for col in range(self.shape.columns):
            if not position.can_play(col):
                out.append(None)
                continue
            if position.is_winning_move(col):
                win = (self.shape.cells + 1 - position.ply) // 2
                out.append(1 if weak else win)
                continue
            child = position.play(col)
            limit = None if node_limit is None else node_limit - nodes
            s = self.solve(child, weak, limit)
            nodes += self.nodes
            if s is None:
                self.nodes = nodes
                return None
            out.append(-s)
        self.nodes = nodes
        return out

    def best_move(self, position: Position, node_limit: int | None = None, weak: bool = False,
                  deadline: float | None = None) -> tuple[int, int] | None:
        """``(column, score)``: an optimal move and the root's score, or None on abort.

        Strong: the fastest win, the slowest loss, or a draw-keeping move, with the exact score.
        Weak: a move that keeps the win or the draw, with the score's sign (in a lost position
        every move keeps the value: the first of the move order is returned).
        Solves the root first, then tests each child with one null window around the root's
        score (cheap: the table holds most of the proof), in the search's move order.
        """
        self._check_position(position)
        if position.is_terminal():
            raise ValueError("the game is over: no move to choose")
        shape = self.shape
        self.nodes = 0
        for col in shape.center_order():
            if position.can_play(col) and position.is_winning_move(col):
                return col, 1 if weak else (shape.cells + 1 - position.ply) // 2
        score = self.solve(position, weak, node_limit, deadline)
        if score is None:
            return None
        ordered = self.ordered_columns(position)
        if weak and score < 0:
            return ordered[0], score
        for col in ordered:
            child = position.play(col)
            # Optimal iff the child's score <= -score: probe with the window (-score, -score+1).
            left = None if node_limit is None else node_limit - self.nodes
            r = self._run(self.search.probe, (child.current, child.mask), -score, -score + 1, left, deadline)
            if r is None:
                return None
            if r <= -score:
                return col, score
        raise AssertionError("no child reaches the root's score: solver bug")  # pragma: no cover

    def screen(self, position: Position, node_limit: int, deadline: float | None = None) -> list[tuple[int, int]]:
        """Legal columns with what a small search proves about each: ``(column, value)`` where
        value is 1 (the move wins), -1 (it loses), 0 (a draw, or nothing proven within
        ``node_limit`` nodes per column), in :meth:`ordered_columns` order. Shallow traps (a
        double threat a few plies ahead) are cheap to prove, so this beats a static rule when
        the full solve does not fit in the time."""
        self._check_position(position)
        self.nodes = 0
        out = []
        for col in self.ordered_columns(position):
            if position.is_winning_move(col):
                out.append((col, 1))
                continue
            child = position.play(col)
            r = self._run(self.search.probe, (child.current, child.mask), -1, 1, node_limit, deadline)
            value = 0 if r is None else (1 if r <= -1 else (-1 if r >= 1 else 0))
            out.append((col, value))
        return out

    def warm_up(self) -> float:
        """Compile every kernel entry (a no-op on the plain path); returns the seconds taken.

        Each entry is called directly on a position near the end (quick to solve) with the
        argument types of real calls, so no compile is left for later."""
        t0 = time.perf_counter()
        if self.jit:
            tiny = Solver(self.shape, 1024)
            pos = late_position(self.shape)
            tiny.solve(pos, weak=True)
            tiny.solve(pos, node_limit=5)
            words = (pos.current, pos.mask)
            tiny.search.start(None)
            tiny.search.probe(words, -1, 0)
            tiny.search.decided(words)
            if self.shared:  # the helpers' kernel (agents.engine.exact.SHARED)
                helper = Solver(self.shape, 1024, threads=2).helpers[0]
                helper.start(None)
                helper.probe(words, -1, 0)
        return time.perf_counter() - t0

    def ordered_columns(self, position: Position) -> list[int]:
        """Legal columns, non-losing ones first, then by winning cells created, centre first."""
        s = self.shape
        # The moves after which the opponent cannot win at once: those ConnectX's expand hook
        # keeps (plain Python; ply 1: no "win at once" test, the callers handled those).
        out = [0] * (s.columns + 1)
        n, _ = connectx_expand(self.search.game.g, (position.current, position.mask), ek.FULL, 1, 0, out, 0, ())
        safe_columns = set(out[:n]) if n > 0 else set()
        keyed = []
        for rank, col in enumerate(s.center_order()):
            if not position.can_play(col):
                continue
            child = position.play(col)
            mover = child.opponent
            cells = win_cells(mover, child.mask, s.rows, s.columns, s.inarow, s.board_mask)
            keyed.append((col not in safe_columns, -bin(cells).count("1"), rank, col))
        return [c for *_, c in sorted(keyed)]


def late_position(shape: Shape) -> Position:
    """A position ten plies before the board is full (quick to solve), for warm-ups."""
    pos, col = Position.empty(shape), 0
    while pos.ply < shape.cells - 10:
        legal = [c for c in pos.legal_columns() if not pos.is_winning_move(c)]
        if not legal:
            break
        col = legal[(col + 3) % len(legal)]
        pos = pos.play(col)
    return pos


# --- CLI ------------------------------------------------------------------------------------
SLICE_SECONDS = 0.2
"""The CLI's solves wake Python this often: Ctrl-C stops within that, progress moves."""


def run(lines: TextIO, out: TextIO, err: TextIO, shape: Shape, weak: bool, all_moves: bool, tt_size: int, timing: bool,
        progress: bool | None = False, threads: int = 1) -> int:
    """Answer each line of ``lines``; returns the exit code (2 if any line was bad).

    ``progress``: a tqdm line on ``err`` (positions answered, the current one's nodes);
    None = when ``err`` is a terminal. Raises :class:`base.cli.Interrupted` /
    KeyboardInterrupt within a slice of a signal, every answer so far printed and flushed."""
    from tqdm import tqdm

    bar = tqdm(file=err, disable=not progress if progress is not None else None, unit=" positions",
               desc="solved", dynamic_ncols=True)
    solver = Solver(shape, tt_size, slice_seconds=SLICE_SECONDS, threads=threads)
    bad = 0
    try:
        for number, raw in enumerate(lines, 1):
            text = raw.strip()
            if not text:
                continue
            fields = text.split()
            moves = fields[0]
            problem = None
            if len(fields) > 2:
                problem = "expected '<moves>' or '<moves> <score>'"
            else:
                try:
                    position = parse_moves(moves, shape)
                    if position.ply and position.last_player_won():
                        problem = "the game is already over (the last move made a line)"
                except ValueError as exc:
                    problem = str(exc)
            if problem is not None:
                bar.write(f"line {number}: {text!r}: {problem}; write 1-based column digits, e.g. 4453", file=err)
                bad += 1
                continue
            t0 = time.perf_counter()
            def on_slice(nodes: int, moves: str = moves, t0: float = t0) -> None:
                raise_if_signalled()
                bar.set_postfix_str(f"{moves}: {nodes:,} nodes, {time.perf_counter() - t0:.0f} s")

            solver.on_slice = on_slice
            if all_moves:
                scores = solver.child_scores(position, weak)
                assert scores is not None  # None only past a node limit, and there is none here
                answer = " ".join("-" if s is None else str(s) for s in scores)
            else:
                answer = str(solver.solve(position, weak))
            extra = f" {solver.nodes} {time.perf_counter() - t0:.6f}" if timing else ""
            with bar.external_write_mode(file=out):
                print(f"{moves} {answer}{extra}", file=out, flush=True)
            bar.update(1)
    finally:
        bar.close()
    return 2 if bad else 0


SOLVE_DESCRIPTION = (
    "Solve ConnectX positions read from stdin, one a line in Pons' notation "
    "(1-based column digits from the empty board; a trailing score is ignored). Prints "
    "'<moves> <score>' a line, the score for the side to move in Pons' convention. "
    "Ctrl-C or SIGTERM stops within a second (exit 130 or 143), every answer so far printed. "
    "--game NAME (see python -m core --list) solves any other game in its own notation "
    "(python -m agents.engine.solve --game NAME --help).")
"""The ConnectX front's help: the exact-solver command ``python -m agents.engine.solve --game
connectx`` (:attr:`core.game.Game.solve_front`), also run as ``python -m agents.connectx.solver``."""


def solve_arguments(parser: argparse.ArgumentParser) -> None:
    """ConnectX's options of the exact-solver command (the board comes from ``--game``/``--shape``)."""
    parser.add_argument("--weak", action="store_true", help="print only the sign: 1 win, 0 draw, -1 loss")
    parser.add_argument("--all-moves", action="store_true", help="print the score of each column, 1 to 7 ('-' for a full one)")
    parser.add_argument("--tt-size", type=int_in(1, TT_SLOTS[1]), default=DEFAULT_TT_SIZE,
                        help=f"transposition table slots (default 2^23, at most {TT_SLOTS[1]:,}: 2 GiB)")
    parser.add_argument("--timing", action="store_true", help="append the nodes searched and the seconds taken")
    importlib.import_module("agents.engine.solve").add_threads_argument(parser)
    parser.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                        help="progress line on stderr (default auto: when stderr is a terminal)")


def solve_main(parser: argparse.ArgumentParser, args: argparse.Namespace, game: Any) -> int:
    """ConnectX's front: :func:`run` on stdin and stdout, on ``game``'s board."""
    progress = {"auto": None, "on": True, "off": False}[args.progress]
    importlib.import_module("agents.engine.solve").check_threads(parser, args.threads, game)
    with stop_on_signals():
        try:
            return run(sys.stdin, sys.stdout, sys.stderr, game.shape, args.weak, args.all_moves, args.tt_size,
                       args.timing, progress, args.threads)
        except KeyboardInterrupt as exc:
            print(f"interrupted ({signal_name(exc)}): every answer so far is printed; the rest of the input is not solved",
                  file=sys.stderr)
            return exit_code(exc)


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.connectx.solver``: the exact-solver command (:mod:`agents.engine.solve`)
    with ``--game connectx`` by default. Imported by name at run time, so that a submission
    bundling this module (the builder follows import statements) carries neither it nor the registry."""
    solve = importlib.import_module("agents.engine.solve")  # not in submissions
    try:
        return int(solve.main(argv, default_game="connectx", prog="python -m agents.connectx.solver"))
    except SystemExit as exc:  # bad arguments (one line printed) or --help: the code returned (as its --game errors were)
        return int(exc.code or 0)


if __name__ == "__main__":
    sys.exit(main())
