"""Exact values of positions of any game without chance, read from stdin.

    printf '\\nb2\\n' | python -m agents.engine.solve --game tictactoe --all-moves
    python -m agents.engine.solve --game connect4_count:rows=4,columns=4 < lines
    echo 4453 | python -m agents.engine.solve --game connectx --all-moves   # Pons' notation: 4453 -5 -5 -2 ...

Each input line is a move list in the game's own notation (:func:`core.game.parse_line`; an
empty line is the initial position). Each output line is ``<moves>\\t<value>`` (``-`` for the
initial position), the value for the side to move in the game's outcome units; with
``--all-moves`` a third field lists ``action=value`` for every legal action (values for the
side to move). ``--tree FILE`` also writes the tree a depth-limited alpha-beta (or minimax)
explores from each position (``.json``, ``.svg`` with Graphviz, else DOT; numbered
``FILE-2.ext``... after the first position). Progress goes to stderr; Ctrl-C stops within a
second (exit 130).

A game with a notation of its own names its front (:attr:`core.game.Game.solve_front`: its
options, how it reads a line and writes the answer): ConnectX's is Pons' (1-based column digits
in, ``<moves> <score>`` out, ``--all-moves`` a score per column, ``--weak``), in
:mod:`agents.connectx.solver`, whose ``python -m agents.connectx.solver`` is this command with
``--game connectx`` by default.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from types import ModuleType
from typing import TextIO

from base.cli import Interrupted, OneLineParser, check_writable, exit_code, stop_on_signals


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.6g}"


def _tree_path(path: str, index: int) -> str:
    if index == 1:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}-{index}{ext}"


def run(lines: TextIO, out: TextIO, err: TextIO, game, all_moves: bool, tt_bits: int, max_plies: int,
        jit: bool | None, tree_file: str | None, tree_depth: int, tree_method: str, tree_cap: int,
        timing: bool, progress: bool, max_nodes: int | None = None, threads: int = 1) -> int:
    """Answer each line of ``lines``; returns the exit code (2 if any line was bad). ``max_nodes``:
    a line not solved within that many nodes (each value searched) is reported and counted bad.
    ``threads``: threads a value's solve runs on (:class:`agents.engine.solver.Solver`)."""
    from agents.engine import tree
    from agents.engine.solver import SolveError, Solver
    from core.game import parse_line

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(desc="solving", unit=" nodes", file=err, leave=False, dynamic_ncols=True)

    def on_slice(nodes: int) -> None:
        if bar is not None:
            bar.n = nodes
            bar.refresh()

    solver = Solver(game, tt_bits=tt_bits, jit=jit, max_plies=max_plies, slice_seconds=0.25, on_slice=on_slice,
                    threads=threads)
    bad = 0
    done = 0
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        try:
            state = parse_line(game, text)
        except ValueError as exc:
            print(f"line {number}: {text!r}: {exc}", file=err)
            bad += 1
            continue
        t0 = time.perf_counter()
        try:
            if all_moves:
                if state.is_terminal():
                    values: dict = {}
                    value = solver.value(state)
                else:
                    found = solver.action_values(state, node_limit=max_nodes)
                    if found is None:
                        raise SolveError(f"not solved within {max_nodes:,} nodes")
                    values = found
                    value = max(values.values())
            else:
                value = solver.value(state, node_limit=max_nodes)
            if value is None:
                raise SolveError(f"not solved within {max_nodes:,} nodes")
        except SolveError as exc:
            print(f"line {number}: {text!r}: {exc}", file=err)
            bad += 1
            continue
        fields = [text or "-", _fmt(value)]
        if all_moves:
            fields.append(" ".join(f"{state.action_to_string(a)}={_fmt(v)}" for a, v in values.items()))
        if timing:
            fields.append(f"{solver.nodes} nodes {time.perf_counter() - t0:.3f} s")
        print("\t".join(fields), file=out, flush=True)
        done += 1
        if tree_file:
            try:
                root = tree.explore(state, tree_depth, tree_method, cap=tree_cap)
                tree.write(root, _tree_path(tree_file, done), title=f"{game.spec()} {text or '(start)'}")
            except (ValueError, RuntimeError, OSError) as exc:
                print(f"line {number}: tree not written: {exc}", file=err)
                bad += 1
    if bar is not None:
        bar.close()
    return 2 if bad else 0


PROG = "python -m agents.engine.solve"
DESCRIPTION = ("Exact values for the side to move of positions read from stdin, one move list a line in the game's "
               "notation (empty line: the initial position). A game with a notation of its own reads and answers in "
               "it (connectx: Pons' digits and scores; python -m agents.engine.solve --game connectx --help).")


def front_of(game) -> ModuleType:
    """The module that reads ``game``'s lines and writes its answers (:attr:`core.game.Game.solve_front`,
    a module with ``solve_arguments`` and ``solve_main``); this module for a game without one."""
    path = getattr(game, "solve_front", "")
    return game.import_module(path) if path else sys.modules[__name__]


def _named_game(argv: list[str], default: str | None):
    """The game ``argv`` names (``--game``, ``--shape``, else ``default``), or None when it names
    none or a bad one (the full parser then says why in one line)."""
    from core.games import add_game_arguments, game_from_text

    first = argparse.ArgumentParser(add_help=False)
    add_game_arguments(first, default=default)
    known, _ = first.parse_known_args(argv)
    game = known.game
    if game is None and known.shape is None:
        if default is None:
            return None
        game = default
    try:
        return game_from_text(game, known.shape)
    except ValueError:
        return None


def main(argv: list[str] | None = None, default_game: str | None = None, prog: str = PROG) -> int:
    """The exact-solver command of every game: the generic options and notation, or the game's own
    front (:func:`front_of`). ``default_game``: the game when ``--game`` is not given (None: it is
    required); ``prog``: the command's name in messages (the aliases: ``python -m agents.connectx.solver``)."""
    from core.games import add_game_arguments, game_from_args

    argv = sys.argv[1:] if argv is None else list(argv)
    named = _named_game(argv, default_game)
    front = sys.modules[__name__] if named is None else front_of(named)
    parser = OneLineParser(prog=prog, description=getattr(front, "SOLVE_DESCRIPTION", DESCRIPTION))
    add_game_arguments(parser, default=default_game)
    front.solve_arguments(parser)
    args = parser.parse_args(argv)
    game = game_from_args(parser, args)
    return int(front.solve_main(parser, args, game))


def solve_arguments(parser: argparse.ArgumentParser) -> None:
    """The generic front's options (any game: its move notation, values in its outcome units)."""
    from agents.engine.spec import AGENT_PARAMS
    from base.cli import int_in

    parser.add_argument("--all-moves", action="store_true", help="also print the value of each legal action")
    parser.add_argument("--tt-bits", type=AGENT_PARAMS["tt_bits"].arg_type(), default=22,
                        help="table of about 2**N entries (default 22; at most 26: 1.5 GiB)")
    parser.add_argument("--max-plies", type=AGENT_PARAMS["max_plies"].arg_type(), default=256, help="longest line followed (default 256)")
    parser.add_argument("--max-nodes", type=int_in(1, 10 ** 15), default=None,
                        help="search each line within N nodes (a line beyond is reported; needed on a game of more "
                        "than 10^11 positions, which is refused without it)")
    parser.add_argument("--no-jit", action="store_true", help="plain Python kernels (no numba compile)")
    add_threads_argument(parser)
    parser.add_argument("--tree", metavar="FILE", help="write the explored tree (.json, .svg with Graphviz, else DOT)")
    parser.add_argument("--tree-depth", type=int_in(0, 12), default=3, help="depth of the tree export (default 3)")
    parser.add_argument("--tree-method", choices=("alphabeta", "minimax"), default="alphabeta", help="tree search")
    parser.add_argument("--tree-cap", type=int_in(1, 1_000_000), default=2000, help="most nodes in the tree (default 2000)")
    parser.add_argument("--timing", action="store_true", help="append nodes and seconds")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def add_threads_argument(parser: argparse.ArgumentParser) -> None:
    """``--threads N`` of the solver commands and book builders (:class:`agents.engine.solver.Solver`)."""
    from agents.engine.parallel import MAX_THREADS
    from base.cli import int_in

    parser.add_argument("--threads", type=int_in(1, MAX_THREADS), default=1,
                        help=f"threads for each solve (default 1, at most {MAX_THREADS}; each keeps a table of its own; "
                        "compiled kernels only; not yet faster: without a shared table two threads searched 1.1-1.9x "
                        "one thread's nodes, docs/speed.md)")


def check_threads(parser: argparse.ArgumentParser, threads: int, game, no_jit: bool = False) -> None:
    """One line and exit 2 for ``--threads`` above 1 where the kernel runs plain."""
    from agents.engine.solver import can_compile

    if threads > 1 and (no_jit or not can_compile(game)):
        parser.error(f"--threads {threads} needs the compiled kernel (numba, a state within 63 bits): "
                     "plain Python runs one thread at a time; give --threads 1")


def solve_main(parser: argparse.ArgumentParser, args: argparse.Namespace, game) -> int:
    """The generic front: :func:`run` on stdin and stdout with the parsed ``args``."""
    from agents.engine.exact import too_big

    check_writable(parser, "--tree", args.tree)
    if args.tree and args.tree.endswith(".svg"):
        from agents.engine.tree import dot_available

        if not dot_available():
            parser.error("--tree FILE.svg needs Graphviz's dot (apt-get install graphviz); use .dot or .json")
    check_threads(parser, args.threads, game, args.no_jit)
    why = None if args.max_nodes else too_big(game)
    if why:
        parser.error(why)
    try:
        with stop_on_signals():
            return run(sys.stdin, sys.stdout, sys.stderr, game, args.all_moves, args.tt_bits, args.max_plies,
                       False if args.no_jit else None, args.tree, args.tree_depth, args.tree_method, args.tree_cap,
                       args.timing, not args.no_progress and sys.stderr.isatty(), args.max_nodes, args.threads)
    except (KeyboardInterrupt, Interrupted) as exc:
        print("interrupted", file=sys.stderr)
        return exit_code(exc)
    except ValueError as exc:  # a game the exact solver cannot hold (its outcomes' range)
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
