"""Build the opening book by solving positions, resumably and in parallel.

    python -m agents.connectx.book build --side first --max-ply 6 --workers 2     # solve, append to the store
    python -m agents.connectx.book pack                                           # store -> data/book_6x7x4.npz
    python -m agents.connectx.book info                                           # what the store and book hold

Which positions: only those where *we* move (``--side first``: even plies, ``second``: odd),
reached by our book move and every opponent reply, breadth first, ply by ply. A position is
expanded (its replies solved next) only when its own solve was slow (``--slow-nodes``): after
a fast solve the rest of the game is fast too (the proof of the parent holds the proof of the
children), and after an opponent's mistake the win comes quickly. So the book grows along the
opponent's best replies, not 7 ** plies.

The store (``data/book_6x7x4.store``) is a text file, one solved position a line, appended and
flushed as each result arrives: ``<moves> <column> <score> <nodes> <seconds> <mode>`` (Pons
notation, 1-based column of the move for that exact move string). A rerun skips the positions
it holds (by symmetric key), so an interrupted build resumes; a last line cut short (disk
full, power lost) is dropped when the build reopens the store, and every append starts on a
fresh line. ``pack`` writes the agent's compact book (:mod:`agents.connectx.solver_book`): every solved
position by default. ``pack`` and ``info`` of a path that is missing or not a store (its first
line is not a record) say so in one line, exit 2, and write nothing.

Ctrl-C or SIGTERM stops a build within a second (exit 130 or 143): the store keeps every
finished position, and the same command resumes.

Jobs run in this process, a local process pool (``--workers``), or Ray (``--backend ray``,
``--address`` for a cluster); each worker keeps one solver and its table for all its jobs.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agents.connectx.solver import Solver
from agents.connectx.solver_book import Book, default_path
from base.bounds import SECONDS_MAX
from base.cli import OneLineParser, check_writable, exit_code, float_in, int_in, raise_if_signalled, signal_name, stop_on_signals
from base.jit import keep_streams, numba_enabled
from core.connectx.cli import shape_type
from core.connectx.position import Position
from core.connectx.shape import MAX_COLUMNS, MAX_ROWS, STANDARD, Shape

MODES = ("weak", "strong", "given")
SLICE_SECONDS = 0.2  # an in-process solve returns to Python this often, to see Ctrl-C and SIGTERM
# Published first-move result (Pons' blog, data/pons/PROVENANCE.md): the centre wins, score +1.
# Solving the empty board takes hours here; ``build --given-root`` records this instead.
GIVEN_ROOT = ("", 4, 1)


@dataclass(frozen=True)
class Record:
    """One solved position of the store."""

    moves: str  # Pons notation from the empty board
    column: int  # 1-based best move for ``moves`` as written
    score: int  # exact score (strong), its sign (weak), or the published score (given)
    nodes: int  # nodes the solve took (0 for given)
    seconds: float  # wall time of the solve
    mode: str  # weak | strong | given

    def line(self) -> str:
        return f"{self.moves or '-'} {self.column} {self.score} {self.nodes} {self.seconds:.3f} {self.mode}\n"


def parse_line(text: str) -> Record | None:
    """A store line, or None for a malformed one (a line cut short by an interrupt)."""
    parts = text.split()
    if len(parts) != 6 or parts[5] not in MODES:
        return None
    try:
        moves = "" if parts[0] == "-" else parts[0]
        return Record(moves, int(parts[1]), int(parts[2]), int(parts[3]), float(parts[4]), parts[5])
    except ValueError:
        return None


def default_store(shape: Shape) -> Path:
    return default_path(shape).with_suffix(".store")


class StoreError(ValueError):
    """A path that is not a book store (missing, or not one of ours): the message says which."""


class Store:
    """The append-only store, indexed by symmetric key.

    ``must_exist``: a missing file is a :class:`StoreError` (``pack`` and ``info`` read a store;
    ``build`` starts one). A file whose first line is not a record is not a store (an error,
    whatever the command: a typo must never pass for an empty store). A last line without its
    newline (a write cut short: disk full, power lost) is skipped when reading; ``repair``
    drops it from the file (``build``, before it appends), saying so on stderr, and every
    append starts on a fresh line."""

    def __init__(self, path: Path, shape: Shape, must_exist: bool = False, repair: bool = False) -> None:
        self.path, self.shape = path, shape
        self.records: dict[int, Record] = {}
        self.bad_lines = 0
        if path.exists() and not path.is_file():
            raise StoreError(f"{path} is not a file; give --store a book store (one solved position a line)")
        if not path.is_file():
            if must_exist:
                raise StoreError(f"no book store at {path}; give --store the file `python -m agents.connectx.book build` wrote")
            return
        lines, tail = _lines(path)
        for text in lines:
            self._read(text)
        if tail:
            if not repair:
                self.bad_lines += 1
                return
            with open(path, "r+b") as f:
                f.truncate(f.seek(0, 2) - len(tail))
            print(f"book: store {path}: dropped a partial last line ({tail[:40]!r}, a write cut short); "
                  "its position is solved again", file=sys.stderr)

    def _read(self, text: str) -> None:
        rec = parse_line(text)
        if rec is None:
            self.bad_lines += bool(text.strip())
            return
        try:
            self.records[Position.from_moves(rec.moves, self.shape).symmetric_key()] = rec
        except ValueError:
            self.bad_lines += 1

    def get(self, position: Position) -> Record | None:
        return self.records.get(position.symmetric_key())

    def add(self, position: Position, rec: Record) -> None:
        """Append ``rec`` on a fresh line and flush: a crash loses at most the line in flight,
        and a failing write (disk full) is undone, so the store never keeps half a line."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = rec.line().encode()
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            size = os.lseek(fd, 0, os.SEEK_END)
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line
            try:
                written = 0
                while written < len(line):
                    written += os.write(fd, line[written:])
            except OSError:
                try:
                    os.ftruncate(fd, size)
                except OSError:
                    pass  # the next build's open drops the partial line
                raise
        finally:
            os.close(fd)
        self.records[position.symmetric_key()] = rec


NOT_A_STORE = "is not a book store (lines `<moves> <column> <score> <nodes> <seconds> <mode>`)"
_PARTIAL = re.compile(rb"[-0-9]+(?: [-0-9.]*){0,4}(?: [a-z]*)?")  # a record's line cut short


def _lines(path: Path) -> tuple[list[str], bytes]:
    """The store's complete lines, and a partial last line (b"" if none). A whole record that
    lacks only its newline counts as complete (the next append starts a fresh line). Raises
    StoreError if the file does not look like a store: its first line is not a record."""
    data = path.read_bytes()
    cut = data.rfind(b"\n") + 1
    complete, tail = data[:cut], data[cut:]
    try:
        lines = complete.decode("ascii").splitlines()
        last = tail.decode("ascii")
    except UnicodeDecodeError:
        raise StoreError(f"{path} {NOT_A_STORE}") from None
    if tail and parse_line(last) is not None:
        lines.append(last)
        tail = b""
    first = next((t for t in lines if t.strip()), None)
    if (first is not None and parse_line(first) is None) or (first is None and tail and not _PARTIAL.fullmatch(tail)):
        raise StoreError(f"{path} {NOT_A_STORE}")
    return lines, tail


def book_move(position: Position, rec: Record) -> int:
    """The record's move (0-based) for ``position``, which is the record's position or its mirror."""
    col = rec.column - 1
    if Position.from_moves(rec.moves, position.shape) != position:
        col = position.shape.columns - 1 - col
    return col


# --- the worker side --------------------------------------------------------------------------
_WORKER: dict[tuple, Solver] = {}  # this worker process's solver (its table serves every job)


def _warm_up_interruptibly(solver: Solver) -> None:
    """Compile the solver in a thread while this one waits in short joins. The compile's long
    LLVM passes run no Python signal handler for seconds (the one compiled entry point takes
    5-7 s); the waiting thread runs them at once, so Ctrl-C and SIGTERM stop the build within
    their usual fraction of a second (the compile thread is a daemon: it dies with the process).
    Not :class:`base.jit.BackgroundCompile`: that one makes the interpreter's exit wait for the
    compile (agents must not crash at exit), which here would keep a stopped build alive for
    seconds (measured: the message at 0.1 s, the exit at 5.9 s)."""
    keep_streams()  # the compile thread must not touch sys.stdout/sys.stderr (base.jit.keep_streams)
    worker = threading.Thread(target=solver.warm_up, name="solver-compile", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
        raise_if_signalled()


def solve_job(job: tuple) -> tuple[int, int, int, float]:
    """``(moves, shape, weak, tt_size[, threads]) -> (column 0-based, score, nodes, seconds)``."""
    moves, dims, weak, tt_size = job[:4]
    threads = int(job[4]) if len(job) > 4 else 1
    shape = Shape(*dims)
    key = (dims, tt_size, threads)
    if key not in _WORKER:
        _WORKER.clear()
        # Slices: in this process (``--workers 1``) Ctrl-C must be seen within a fraction of a
        # second; a pool worker ignores SIGINT and is killed by the driver.
        _WORKER[key] = Solver(shape, tt_size, slice_seconds=SLICE_SECONDS, on_slice=lambda nodes: raise_if_signalled(),
                              threads=threads)
        _warm_up_interruptibly(_WORKER[key])  # the compile stays out of the first job's time
    solver = _WORKER[key]
    t0 = time.perf_counter()
    col, score = solver.best_move(Position.from_moves(moves, shape), weak=weak)  # type: ignore[misc]
    return col, score, solver.nodes, time.perf_counter() - t0


# --- the driver -------------------------------------------------------------------------------
def roots(side: str, shape: Shape) -> list[tuple[str, Position]]:
    empty = Position.empty(shape)
    if side == "first":
        return [("", empty)]
    seen: dict[int, tuple[str, Position]] = {}
    for col in range(shape.columns):
        child = empty.play(col)
        seen.setdefault(child.symmetric_key(), (str(col + 1), child))
    return sorted(seen.values(), key=lambda mp: mp[0])


def build(args: argparse.Namespace, out=sys.stdout) -> int:
    """Breadth-first over our positions up to ``args.max_ply``; returns positions solved now."""
    from tqdm import tqdm

    from base.backends import Runner

    shape: Shape = args.shape
    store = Store(args.store, shape, repair=True)
    if args.given_root and args.side == "first" and store.get(Position.empty(shape)) is None:
        if shape != STANDARD:
            raise ValueError("--given-root is the published 6x7x4 result; other shapes must solve the root")
        moves, col, score = GIVEN_ROOT
        store.add(Position.empty(shape), Record(moves, col, score, 0, 0.0, "given"))
    frontier = dict(roots(args.side, shape))  # moves -> position
    stop_at = time.monotonic() + args.time_limit if args.time_limit else None
    solved = 0
    progress = getattr(args, "progress", "auto")
    with stop_on_signals(), Runner(args.workers, args.backend, args.address) as runner:
        while frontier:
            ply = next(iter(frontier.values())).ply
            if ply > args.max_ply:
                break
            todo = [m for m, p in frontier.items() if store.get(p) is None]
            print(f"ply {ply}: {len(frontier)} positions, {len(todo)} to solve", file=out, flush=True)
            jobs = _jobs(todo, shape, args, stop_at)
            with tqdm(total=len(todo), desc=f"ply {ply}", unit=" positions", file=sys.stderr, dynamic_ncols=True,
                      disable={"auto": None, "on": False, "off": True}[progress]) as bar:
                for job, result in runner.run(jobs, solve_job):
                    bar.update(1)
                    if isinstance(result, Exception):
                        bar.write(f"book: {job[0]}: {type(result).__name__}: {result}", file=sys.stderr)
                        continue
                    col, score, nodes, seconds = result
                    rec = Record(job[0], col + 1, score, nodes, seconds, "weak" if args.weak else "strong")
                    store.add(frontier[job[0]], rec)
                    solved += 1
                    with bar.external_write_mode(file=out):
                        print(f"  {job[0] or '-'}: column {col + 1} score {score} nodes {nodes:,} {seconds:.1f}s", file=out, flush=True)
            if stop_at is not None and time.monotonic() >= stop_at:
                print("time limit reached: rerun to resume", file=out, flush=True)
                break
            frontier = _next_frontier(store, frontier, args.slow_nodes, args.expand_all_to)
    return solved


def _jobs(todo: list[str], shape: Shape, args: argparse.Namespace, stop_at: float | None) -> Iterator[tuple]:
    """Jobs, lazily: the process backend asks for one more as one finishes, so the time limit
    stops new jobs (Ray submits all at once: use --time-limit with the process backend)."""
    dims = (shape.rows, shape.columns, shape.inarow)
    for moves in todo:
        if stop_at is not None and time.monotonic() >= stop_at:
            return
        yield (moves, dims, args.weak, args.tt_size, getattr(args, "threads", 1))


def _next_frontier(store: Store, frontier: dict[str, Position], slow_nodes: int, expand_all_to: int = 0) -> dict[str, Position]:
    out: dict[int, tuple[str, Position]] = {}
    for moves, pos in frontier.items():
        rec = store.get(pos)
        if rec is None or (rec.mode != "given" and rec.nodes < slow_nodes and pos.ply >= expand_all_to):
            continue
        col = book_move(pos, rec)
        after = pos.play(col)
        if after.is_terminal():
            continue
        for reply in after.legal_columns():
            child = after.play(reply)
            if not child.is_terminal():
                out.setdefault(child.symmetric_key(), (f"{moves}{col + 1}{reply + 1}", child))
    return dict(sorted(out.values(), key=lambda mp: mp[0]))


def pack(store: Store, min_nodes: int = 0) -> Book:
    """The agent's book: every given entry and every position whose solve took at least
    ``min_nodes`` nodes. Default: every solved position (a fast one costs a few bytes, and
    near the root it spares the agent a solve while numba still compiles)."""
    entries: dict[int, tuple[int, int]] = {}
    shape = store.shape
    for sym, rec in store.records.items():
        if rec.mode != "given" and rec.nodes < min_nodes:
            continue
        pos = Position.from_moves(rec.moves, shape)
        col = rec.column - 1
        if pos.key() != sym:  # store the move in the orientation of the symmetric key
            col = shape.columns - 1 - col
        entries[sym] = (col, rec.score)
    return Book.from_entries(shape, entries)


def info(store: Store, book_path: Path, out=sys.stdout) -> None:
    by_ply: dict[int, list[Record]] = {}
    for rec in store.records.values():
        by_ply.setdefault(len(rec.moves), []).append(rec)
    print(f"store {store.path}: {len(store.records)} positions" + (f", {store.bad_lines} bad lines skipped" if store.bad_lines else ""), file=out)
    for ply in sorted(by_ply):
        recs = by_ply[ply]
        secs = [r.seconds for r in recs]
        print(f"  ply {ply:2d}: {len(recs):6d} solved, {sum(secs):9.1f} s in all, max {max(secs):7.1f} s, "
              f"mean nodes {sum(r.nodes for r in recs) / len(recs):,.0f}", file=out)
    if book_path.is_file():
        book = Book.load(book_path)
        print(f"book {book_path}: {len(book)} entries, {book_path.stat().st_size:,} bytes", file=out)
    else:
        print(f"book {book_path}: not built (run pack)", file=out)


# --- CLI --------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:

    parser = OneLineParser(prog="python -m agents.connectx.book", description="Build, pack and inspect the perfect agent's opening book.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    from agents.engine.spec import AGENT_PARAMS

    common = OneLineParser(add_help=False)
    common.add_argument("--shape", type=shape_type, default=STANDARD, help="ROWSxCOLUMNSxINAROW (default 6x7x4)")
    common.add_argument("--store", type=Path, default=None, help="store file (default data/book_<shape>.store)")
    common.add_argument("--book", type=Path, default=None, help="packed book (default data/book_<shape>.npz)")
    common.add_argument("--slow-nodes", type=int, default=3_000_000,
                        help="a solve with at least this many nodes is slow: kept in the book and expanded (default 3M, about 1 s)")
    b = sub.add_parser("build", parents=[common], help="solve positions breadth first and append them to the store")
    b.add_argument("--side", choices=("first", "second"), default="first", help="whose positions (default first)")
    b.add_argument("--max-ply", type=int_in(0, MAX_ROWS * MAX_COLUMNS), required=True, help="solve positions up to this ply")
    b.add_argument("--expand-all-to", type=int, default=0,
                   help="expand every position below this ply, slow or not (the agent stays in the book while numba compiles)")
    b.add_argument("--weak", action="store_true", help="weak solves (win/draw/loss): faster, the move still keeps the value")
    b.add_argument("--given-root", action="store_true", help="6x7x4 first side: record the published root move (centre) instead of solving it")
    b.add_argument("--workers", type=int_in(1, 1024), default=1, help="local processes, or CPUs for a local Ray (default 1: this process)")
    b.add_argument("--backend", choices=("process", "ray"), default="process", help="process pool (default) or Ray")
    b.add_argument("--address", default=None, help="Ray cluster address (with --backend ray)")
    b.add_argument("--time-limit", type=float_in(0.0, SECONDS_MAX * 365), default=0.0, help="start no new job after this many seconds (0: none)")
    b.add_argument("--threads", type=int_in(1, 64), default=1,
                   help="threads for each solve (default 1; each with a table of --tt-size slots; compiled only)")
    b.add_argument("--tt-size", type=AGENT_PARAMS["tt_size"].arg_type(), default=1 << 24, help="solver table slots per worker (default 2^24: 128 MB)")
    b.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="progress bar on stderr (default auto: when stderr is a terminal)")
    p = sub.add_parser("pack", parents=[common], help="write the agent's book from the store")
    p.add_argument("--min-nodes", type=int, default=0, help="keep only positions whose solve took this many nodes (default 0: all)")
    sub.add_parser("info", parents=[common], help="summarize the store and the book")
    args = parser.parse_args(argv)
    args.store = args.store or default_store(args.shape)
    args.book = args.book or default_path(args.shape)
    if args.slow_nodes < 0:
        parser.error("--slow-nodes must be at least 0")
    if args.command == "build" and (args.max_ply < 0 or args.workers < 1 or args.tt_size < 1024 or args.time_limit < 0):
        parser.error("--max-ply and --time-limit must be >= 0, --workers >= 1, --tt-size >= 1024")
    if args.command == "build":
        check_writable(parser, "--store", args.store)
        if args.threads > 1 and not (args.shape.fits_int64 and numba_enabled(args.shape.bits)):
            parser.error(f"--threads {args.threads} needs the compiled kernel (numba, a board within 63 bits); give --threads 1")
    if args.command == "pack":
        check_writable(parser, "--book", args.book)
    if args.command == "build" and args.backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error("--backend ray needs the ray package (pip install ray)")
    try:
        if args.command == "build":
            solved = build(args)
            print(f"solved {solved} positions; store {args.store} holds {len(Store(args.store, args.shape).records)}")
            return 0
        if args.command == "pack" and args.min_nodes < 0:
            parser.error("--min-nodes must be at least 0")
        store = Store(args.store, args.shape, must_exist=True)
        if args.command == "pack":
            if not store.records:
                raise StoreError(f"store {args.store} holds no solved position: nothing to pack (run build first)")
            book = pack(store, args.min_nodes)
            book.save(args.book)
            print(f"book {args.book}: {len(book)} entries of {len(store.records)} solved, {args.book.stat().st_size:,} bytes")
        else:
            info(store, args.book)
    except KeyboardInterrupt as exc:
        print(f"interrupted ({signal_name(exc)}): the store keeps every finished position; rerun the same command to resume",
              file=sys.stderr)
        return exit_code(exc)
    except (OSError, ValueError) as exc:
        print(f"book: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
