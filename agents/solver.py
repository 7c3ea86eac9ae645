"""Exact ConnectX solver (strong: the exact score; weak: win/draw/loss) and its CLI.

    echo "4453" | python -m agents.solver            # -> "4453 <score>"
    python -m agents.solver --all-moves < positions  # -> "<moves> s1 s2 ... s7" ("-" = full)

The search is the game-generic exact solver (:mod:`agents.engine.solver`: null windows over the
negamax kernel of :mod:`agents.engine.negamax`) bound to ConnectX scored by Pons' score
(:class:`core.connectx.pons.PonsConnectX`); ConnectX's tricks are the game's hooks: ``expand``
(wins at once, forced blocks, moves under a threat left out, order by threats created:
:mod:`core.connectx.search_hooks`), ``key`` (Pons' one-word key) and ``bounds`` (Pons' score
bounds: :mod:`core.connectx.solver_hooks`). This module is the ConnectX face: positions in,
columns and scores out, weak/strong, node limits, deadlines. A :class:`Solver` owns its
transposition table, so two solvers never share state. Scores follow Pons' convention for the
side to move (:mod:`core.connectx.pons`).
"""
from __future__ import annotations

import sys
import time
from typing import Callable, Optional, TextIO

from agents.engine.negamax import FTT, FULL
from agents.engine.solver import Solver as EngineSolver
from core.connectx.pons import PonsConnectX
from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape
from core.connectx.solver_hooks import win_cells
from core.game import State
from util.jit import numba_enabled
from util.cli import (OneLineParser, exit_code, parse_moves, raise_if_signalled, shape_type, signal_name,
                      stop_on_signals)

DEFAULT_TT_SIZE = 1 << 23
"""Table slots by default (about 8 M slots of 24 bytes: 192 MB)."""


def table_bits(tt_size: int) -> int:
    """The engine's table size exponent for about ``tt_size`` slots (its table holds the largest
    prime below ``2 ** bits``)."""
    return max(4, (max(1, int(tt_size)) - 1).bit_length())


class Solver:
    """Solves positions of one shape; keeps its table between calls (entries are exact bounds,
    valid whatever the path, the window or the mode)."""

    def __init__(self, shape: Shape = STANDARD, tt_size: int = DEFAULT_TT_SIZE, use_numba: Optional[bool] = None,
                 slice_seconds: Optional[float] = None, on_slice: Optional[Callable[[int], None]] = None) -> None:
        """``tt_size``: table slots (rounded to a prime near the power of two above).
        ``use_numba``: None = when the board allows it and numba is installed; False forces the
        plain-Python kernels. ``slice_seconds``: None runs each search in one kernel call (the
        agents' way: fastest); a number makes every search return to Python after that many
        seconds and go on where it was (the table keeps the work), so that Ctrl-C and SIGTERM
        are seen (compiled code runs no signal handler) and ``on_slice(nodes so far)`` can show
        progress: for the CLIs."""
        self.shape = shape
        if use_numba is None:
            use_numba = numba_enabled(shape.bits)
        self.game = PonsConnectX(rows=shape.rows, columns=shape.columns, inarow=shape.inarow)
        self.engine = EngineSolver(self.game, tt_bits=table_bits(tt_size), jit=bool(use_numba) and shape.fits_int64,
                                   max_plies=shape.cells + 2, slice_seconds=slice_seconds, on_slice=on_slice,
                                   probes="pons")
        self.compiled = self.engine.jit
        self.nodes = 0  # nodes of the last call

    @property
    def slice_seconds(self) -> Optional[float]:
        return self.engine.slice_seconds

    @property
    def on_slice(self) -> Optional[Callable[[int], None]]:
        return self.engine.on_slice

    @on_slice.setter
    def on_slice(self, fn: Optional[Callable[[int], None]]) -> None:
        self.engine.on_slice = fn

    @property
    def table_slots(self) -> int:
        return int(self.engine.search.size)

    def reset(self) -> None:
        """Empty the table (only needed to measure a solve from a cold start)."""
        self._touch_table()

    def _touch_table(self) -> None:
        """Write every page of the table's arrays once, now. numpy asks for transparent huge
        pages on large arrays, and this machine's kernel then zeroes (and may compact) 2 MB at
        the first touch of each: inside a search that cost up to 13 ms a solve (measured)."""
        search = self.engine.search
        if search.jit:
            search.clear()
            search.floats[int(search.ints[FTT]):] = 0.0

    def _state(self, position: Position) -> State:
        return State(self.game, (position.current, position.mask))

    def _check(self, position: Position) -> None:
        if position.shape != self.shape:
            raise ValueError(f"position shape {position.shape} differs from the solver's {self.shape}")
        if position.ply and position.last_player_won():
            raise ValueError("the game is over: the last move made a line")

    def _win_score(self, position: Position) -> int:
        """Pons' score of a win by the next stone."""
        return (self.shape.cells + 1 - position.ply) // 2

    def solve(self, position: Position, weak: bool = False, node_limit: Optional[int] = None,
              deadline: Optional[float] = None) -> Optional[int]:
        """Exact score for the side to move (``weak``: -1/0/1), or None if ``node_limit`` ran out
        or the ``deadline`` (a ``time.perf_counter()`` time) passed."""
        self._check(position)
        v = self.engine.value(self._state(position), deadline, node_limit, (-1.0, 1.0) if weak else None)
        self.nodes = self.engine.nodes
        return None if v is None else int(v)

    def _probe(self, position: Position, alpha: int, beta: int, node_limit: Optional[int],
               deadline: Optional[float]) -> Optional[int]:
        """One window search on ``position`` (see :meth:`agents.engine.solver.Solver.probe`)."""
        r = self.engine.probe(self._state(position), alpha, beta, deadline, node_limit)
        return None if r is None else int(r)

    def child_scores(self, position: Position, weak: bool = False, node_limit: Optional[int] = None) -> Optional[list]:
        """Score of each column for the side to move (None for a full column), or None on abort."""
        self._check(position)
        if position.is_full():
            return [None] * self.shape.columns
        out: list = []
        nodes = 0
        for col in range(self.shape.columns):
            if not position.can_play(col):
                out.append(None)
                continue
            if position.is_winning_move(col):
                out.append(1 if weak else self._win_score(position))
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

    def best_move(self, position: Position, node_limit: Optional[int] = None, weak: bool = False,
                  deadline: Optional[float] = None) -> Optional[tuple[int, int]]:
        """``(column, score)``: an optimal move and the root's score, or None on abort.

        Strong: the fastest win, the slowest loss, or a draw-keeping move, with the exact score.
        Weak: a move that keeps the win or the draw, with the score's sign (in a lost position
        every move keeps the value: the first of the move order is returned).
        Solves the root first, then tests each child with one null window around the root's
        score (cheap: the table holds most of the proof), in the search's move order.
        """
        self._check(position)
        if position.is_terminal():
            raise ValueError("the game is over: no move to choose")
        shape = self.shape
        self.nodes = 0
        for col in shape.center_order():
            if position.can_play(col) and position.is_winning_move(col):
                return col, 1 if weak else self._win_score(position)
        budget = None if node_limit is None else int(node_limit)
        score = self.solve(position, weak, budget, deadline)
        total = self.nodes
        if score is None:
            return None
        ordered = self.ordered_columns(position)
        if weak and score < 0:
            return ordered[0], score
        for col in ordered:
            # Optimal iff the child's score <= -score: probe with the window (-score, -score+1).
            r = self._probe(position.play(col), -score, -score + 1, None if budget is None else budget - total, deadline)
            total += self.engine.nodes
            if r is None:
                self.nodes = total
                return None
            if r <= -score:
                self.nodes = total
                return col, score
        raise AssertionError("no child reaches the root's score: solver bug")  # pragma: no cover

    def screen(self, position: Position, node_limit: int, deadline: Optional[float] = None) -> list[tuple[int, int]]:
        """Legal columns with what a small search proves about each: ``(column, value)`` where
        value is 1 (the move wins), -1 (it loses), 0 (a draw, or nothing proven within
        ``node_limit`` nodes per column), in :meth:`ordered_columns` order. Shallow traps (a
        double threat a few plies ahead) are cheap to prove, so this beats a static rule when
        the full solve does not fit in the time."""
        self._check(position)
        out = []
        for col in self.ordered_columns(position):
            if position.is_winning_move(col):
                out.append((col, 1))
                continue
            r = self._probe(position.play(col), -1, 1, node_limit, deadline)
            value = 0 if r is None else (1 if r <= -1 else (-1 if r >= 1 else 0))
            out.append((col, value))
        return out

    def warm_up(self) -> float:
        """Compile every kernel entry (a no-op on the plain path); returns the seconds taken.

        Each entry is called on a position near the end (quick to solve) with the argument
        types of real calls, so no compile is left for later."""
        t0 = time.perf_counter()
        if self.compiled:
            self._touch_table()
            tiny = Solver(self.shape, 1024)
            pos = late_position(self.shape)
            tiny.solve(pos, weak=True)  # the root's expand (it may decide this position alone)
            tiny.solve(pos, node_limit=5)
            tiny.engine.search.run(tiny._state(pos), FULL, -1.0, 0.0, None, 5)  # the search kernel, whatever the root
        return time.perf_counter() - t0

    def ordered_columns(self, position: Position) -> list[int]:
        """Legal columns, non-losing ones first, then by winning cells created, centre first."""
        s = self.shape
        opp_wins = win_cells(position.opponent, position.mask, s.rows, s.columns, s.inarow, s.board_mask)
        possible = (position.mask + s.bottom_mask) & s.board_mask
        forced = possible & opp_wins
        if forced & (forced - 1):
            safe_cells = 0
        else:
            safe_cells = (forced or possible) & ~(opp_wins >> 1)
        keyed = []
        for rank, col in enumerate(s.center_order()):
            if not position.can_play(col):
                continue
            child = position.play(col)
            cells = win_cells(child.opponent, child.mask, s.rows, s.columns, s.inarow, s.board_mask)
            safe = bool(safe_cells >> (col * s.height) & ((1 << s.rows) - 1))
            keyed.append((not safe, -bin(cells).count("1"), rank, col))
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
"""The CLI's solves return to Python this often: Ctrl-C stops within that, progress moves."""


def run(lines: TextIO, out: TextIO, err: TextIO, shape: Shape, weak: bool, all_moves: bool, tt_size: int, timing: bool,
        progress: Optional[bool] = False) -> int:
    """Answer each line of ``lines``; returns the exit code (2 if any line was bad).

    ``progress``: a tqdm line on ``err`` (positions answered, the current one's nodes);
    None = when ``err`` is a terminal. Raises :class:`util.cli.Interrupted` /
    KeyboardInterrupt within a slice of a signal, every answer so far printed and flushed."""
    from tqdm import tqdm

    bar = tqdm(file=err, disable=not progress if progress is not None else None, unit=" positions",
               desc="solved", dynamic_ncols=True)
    solver = Solver(shape, tt_size, slice_seconds=SLICE_SECONDS)
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


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    game = _game_arg(argv)
    if game is not None and game.split(":")[0] != "connectx":
        # Every other game: the game-generic exact solver (same input convention: a move list a
        # line). Imported by name at run time, so that a submission bundling this module (the
        # builder follows import statements) does not carry the game-generic engine too.
        import importlib

        return importlib.import_module("agents.engine.solve").main(argv)  # not in submissions
    if game is not None:
        argv = _without_game(argv)
    parser = OneLineParser(
        prog="python -m agents.solver",
        description="Solve ConnectX positions read from stdin, one a line in Pons' notation "
        "(1-based column digits from the empty board; a trailing score is ignored). Prints "
        "'<moves> <score>' a line, the score for the side to move in Pons' convention. "
        "Ctrl-C or SIGTERM stops within a second (exit 130 or 143), every answer so far printed. "
        "--game NAME (see python -m core --list) solves any other game with the game-generic solver "
        "(python -m agents.engine.solve --help).",
    )
    parser.add_argument("--game", default="connectx", help="connectx (default, this solver) or another game (see python -m core --list)")
    parser.add_argument("--weak", action="store_true", help="print only the sign: 1 win, 0 draw, -1 loss")
    parser.add_argument("--all-moves", action="store_true", help="print the score of each column, 1 to 7 ('-' for a full one)")
    parser.add_argument("--shape", type=shape_type, default=STANDARD, help="ROWSxCOLUMNSxINAROW (default 6x7x4)")
    parser.add_argument("--tt-size", type=int, default=DEFAULT_TT_SIZE, help="transposition table slots (default 2^23)")
    parser.add_argument("--timing", action="store_true", help="append the nodes searched and the seconds taken")
    parser.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                        help="progress line on stderr (default auto: when stderr is a terminal)")
    args = parser.parse_args(argv)
    if args.tt_size < 1:
        parser.exit(2, "error: --tt-size must be at least 1\n")
    progress = {"auto": None, "on": True, "off": False}[args.progress]
    with stop_on_signals():
        try:
            return run(sys.stdin, sys.stdout, sys.stderr, args.shape, args.weak, args.all_moves, args.tt_size,
                       args.timing, progress)
        except KeyboardInterrupt as exc:
            print(f"interrupted ({signal_name(exc)}): every answer so far is printed; the rest of the input is not solved",
                  file=sys.stderr)
            return exit_code(exc)


def _game_arg(argv: list[str]) -> Optional[str]:
    """The value of ``--game`` in ``argv`` (``--game NAME`` or ``--game=NAME``), if any."""
    for i, a in enumerate(argv):
        if a == "--game" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--game="):
            return a.partition("=")[2]
    return None


def _without_game(argv: list[str]) -> list[str]:
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--game":
            skip = True
        elif not a.startswith("--game="):
            out.append(a)
    return out


if __name__ == "__main__":
    sys.exit(main())
