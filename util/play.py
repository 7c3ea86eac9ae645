"""Play against any agent in the terminal: ``python -m util.play --agent rules``.

The board is drawn after each move, with the agent's evaluation (its ``info()``) when it has
one. Type a column number (1-based, as printed under the board), ``u`` to undo your last move
and the agent's reply, ``q`` to quit. A finished game is saved in the tournament store (player
``human``), so it shows up in ratings and can be replayed with ``util.tournament --replay``.
"""
from __future__ import annotations

import argparse
import sys
import time
import uuid
from typing import Any, TextIO

from agents.registry import SpecError
from core.position import Position
from core.shape import Shape
from util import players
from util.store import Store, StoreError
from util.tournament import DEFAULT_DB, UsageError, parse_shape

HUMAN = "human"


def describe(info: dict[str, Any]) -> str:
    """The agent's info as ``key=value`` pairs (floats shortened)."""
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in info.items())


def ask(position: Position, inp: TextIO, out: TextIO) -> str | int:
    """The human's next command: a legal 0-based column, ``"undo"`` or ``"quit"`` (also at EOF).
    Bad input is explained and asked again."""
    cols = position.shape.columns
    while True:
        out.write(f"your move (1-{cols}, u = undo, q = quit): ")
        out.flush()
        line = inp.readline()
        if not line:
            return "quit"
        text = line.strip().lower()
        if text in ("u", "undo"):
            return "undo"
        if text in ("q", "quit", "exit"):
            return "quit"
        if not text.isdigit() or not 1 <= int(text) <= cols:
            out.write(f"'{line.strip()}' is not a column: type a number from 1 to {cols}\n")
            continue
        if not position.can_play(int(text) - 1):
            out.write(f"column {text} is full: choose another\n")
            continue
        return int(text) - 1


def play(agent: Any, shape: Shape, human_mark: int, time_per_move: float, inp: TextIO, out: TextIO) -> tuple[list[int], int, str, dict[int, str], list[float]] | None:
    """One game; returns (moves, winner, termination, errors, agent move times), or None if
    the human quit."""
    moves: list[int] = []
    times: list[float] = []
    pos = Position.empty(shape)
    out.write(f"{pos}\n")
    while not pos.is_terminal():
        if pos.side_to_move == human_mark:
            cmd = ask(pos, inp, out)
            if cmd == "quit":
                return None
            if cmd == "undo":
                if not any(1 + (i % 2) == human_mark for i in range(len(moves))):
                    out.write("nothing to undo\n")
                    continue
                while True:  # back to before my last move (the agent's reply goes too)
                    moves.pop()
                    if 1 + (len(moves) % 2) == human_mark:
                        break
                times = times[: sum(1 for i in range(len(moves)) if 1 + (i % 2) != human_mark)]
                pos = Position.from_moves(moves, shape)
                getattr(agent, "reset", lambda: None)()
                out.write(f"undone\n{pos}\n")
                continue
            col = cmd
        else:
            start = time.perf_counter()
            try:
                col = agent.choose(pos, start + time_per_move)
            except Exception as exc:  # the agent forfeits, as in a tournament
                out.write(f"the agent failed ({type(exc).__name__}: {exc}): you win\n")
                return moves, human_mark, "error", {3 - human_mark: f"{type(exc).__name__}: {exc}"}, times
            times.append(time.perf_counter() - start)
            if isinstance(col, bool) or not isinstance(col, int) or not pos.can_play(col):
                out.write(f"the agent played an illegal column ({col!r}): you win\n")
                return moves, human_mark, "illegal", {3 - human_mark: f"column {col!r} is illegal"}, times
            info = agent.info()
            out.write(f"agent plays {col + 1}" + (f"   [{describe(info)}]" if info else "") + "\n")
        pos = pos.play(col)
        moves.append(col)
        out.write(f"{pos}\n")
    winner = pos.winner
    out.write("draw\n" if winner == 0 else "you win\n" if winner == human_mark else "the agent wins\n")
    return moves, winner, "win" if winner else "draw", {}, times


def main(argv: list[str] | None = None, inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m util.play", description=__doc__.split("\n\n")[0],
                                     epilog="Commands at the prompt: a column number, u (undo), q (quit).")
    parser.add_argument("--agent", required=True, help="agent spec, as in util.tournament (e.g. alphabeta:max_depth=6, kaggle:negamax, file.py)")
    parser.add_argument("--first", choices=("human", "agent"), default="human", help="who moves first (default: human)")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per agent move (default 1.0)")
    parser.add_argument("--shape", default="6x7x4", help="board as ROWSxCOLUMNSxINAROW (default 6x7x4)")
    parser.add_argument("--db", default=str(DEFAULT_DB), help=f"store for the finished game (default {DEFAULT_DB})")
    parser.add_argument("--seed", type=int, default=0, help="seed for the agent's randomness (default 0)")
    args = parser.parse_args(argv)
    try:
        if args.time <= 0:
            raise UsageError("--time must be positive (seconds per move)")
        shape = parse_shape(args.shape)
        spec = players.resolve(args.agent)
        agent = players.build(spec, shape, args.time, args.seed)
        with Store(args.db) as store:
            human_mark = 1 if args.first == "human" else 2
            try:
                game = play(agent, shape, human_mark, args.time, inp, out)
            finally:
                agent.close()
            if game is None:
                out.write("quit: the unfinished game is not saved\n")
                return 0
            moves, winner, termination, errors, times = game
            ids = [store.player_id(HUMAN, HUMAN, {}), store.player_id(spec.text, spec.version, dict(spec.params))]
            first, second = ids if human_mark == 1 else ids[::-1]
            result = {"moves": moves, "winner": winner, "termination": termination, "errors": errors,
                      "move_times": times, "opening": []}
            gid = store.add_game(f"play-{uuid.uuid4().hex}", first, second, str(shape), result,
                                 time_per_move=args.time, engine="human", seed=args.seed, source="play")
            out.write(f"saved as game {gid} in {store.path}\n")
            return 0
    except (UsageError, SpecError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
