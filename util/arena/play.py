"""Play against any agent in the terminal: ``python -m util.arena.play --agent rules``.

Any game of :mod:`core.games` (``--game NAME[:key=value,...]``, default connectx;
``python -m core --list`` shows them): the state is drawn after each move with the legal actions
(ConnectX: the column numbers under the board), and the agent's evaluation (its ``info()``) when
it has one. Type an action in the game's notation (ConnectX: a 1-based column), ``u`` to undo
your last move and the agent's reply, ``q`` to quit. Chance outcomes (dice) are rolled by the
tool and shown. A finished game is saved in the tournament store (player ``human``) with its
game's spec, so it shows up in ratings and can be replayed with ``util.arena.tournament --replay``.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
import uuid
from collections.abc import Mapping
from typing import Any, TextIO

from agents.engine.info import SearchInfo, info_of
from agents.engine.spec import SpecError
from base.cli import SEED, OneLineParser, exit_code, int_in, seconds_in, signal_name, stop_on_signals, unwritable
from core.game import Game, State, play_line
from core.games import DEFAULT_GAME, add_game_arguments
from util.arena import openings, players
from util.arena.match import TurnClock
from util.arena.store import Store, StoreError
from util.arena.tournament import DEFAULT_DB, UsageError, parse_game_args, shape_text

HUMAN = "human"
MAX_TREE_DEPTH = 12  # --tree-depth (the tree is capped in nodes too)


def describe(info: Mapping[str, Any], state: State | None = None) -> str:
    """The agent's info as ``key=value`` pairs (floats shortened); with the ``state`` it chose
    in, actions (move values, visits, the expected line) are written in the game's notation."""
    def text(a: Any) -> str:
        try:
            return state.action_to_string(int(a)) if state is not None else str(a)
        except (TypeError, ValueError, IndexError):
            return str(a)

    def fmt(v: Any) -> str:
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    parts = []
    for k, v in (info.as_dict() if isinstance(info, SearchInfo) else info).items():
        if isinstance(v, dict):
            v = "{" + ", ".join(f"{text(a)}: {fmt(x)}" for a, x in v.items()) + "}"
        elif k == "pv" and isinstance(v, (list, tuple)):
            line, s = [], state
            for a in v:  # the line in notation, as far as it stays legal from here
                if s is None or s.is_terminal() or int(a) not in s.legal_actions():
                    break
                line.append(s.action_to_string(int(a)))
                s = s.apply(int(a))
            v = " ".join(line) if state is not None else v
        parts.append(f"{k}={fmt(v)}")
    return ", ".join(parts)


def ask(state: State, inp: TextIO, out: TextIO) -> str | int:
    """The human's next command: a legal action, ``"undo"`` or ``"quit"`` (also at EOF). Bad
    input is explained and asked again."""
    legal = state.legal_actions()
    hint = state.game.input_hint(state)
    if hint:
        prompt = f"your move ({hint}, u = undo, q = quit): "
    else:
        out.write("legal: " + " ".join(state.action_to_string(a) for a in legal) + "\n")
        prompt = "your move (one of the legal actions, u = undo, q = quit): "
    while True:
        out.write(prompt)
        out.flush()
        line = inp.readline()
        if not line:
            return "quit"
        text = line.strip()
        if text.lower() in ("u", "undo"):
            return "undo"
        if text.lower() in ("q", "quit", "exit"):
            return "quit"
        try:
            action = state.string_to_action(text)
        except ValueError as exc:
            out.write(f"{exc}\n")
            continue
        if action not in legal:
            out.write(state.game.refused_input_text(state, text) + "\n")
            continue
        return action


def write_tree(state: State, path: str, depth: int, out: TextIO) -> None:
    """The tree a depth-limited alpha-beta explores from ``state`` (the game's first heuristic at
    the leaves), written to ``path`` (.json, .svg with Graphviz, else DOT): the seed's "export
    tree" for the position the agent is about to answer."""
    import importlib

    from agents.engine import tree

    module = state.game.heuristics
    heuristic = next(iter(getattr(importlib.import_module(module), "HEURISTICS", {})), None) if module else None
    try:
        root = tree.explore(state, depth, method="alphabeta", heuristic=heuristic)
    except (tree.TreeTooLarge, ValueError) as exc:
        out.write(f"tree not written: {exc}\n")
        return
    kind = tree.write(root, path, title=f"{state.game.spec()} alpha-beta depth {depth}")
    out.write(f"tree of this position ({root.count()} nodes, {kind}) written to {path}\n")


def tree_path(path: str, index: int) -> str:
    """``path`` for the first tree, ``name-2.ext``, ``name-3.ext``... after it."""
    if index == 1:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}-{index}{ext}"


def play(agent: Any, game: Game, human_mark: int, time_per_move: float, inp: TextIO, out: TextIO,
         seed: int = 0, tree_file: str | None = None, tree_depth: int = 2) -> dict[str, Any] | None:
    """One game of a person (``human_mark`` 1: moves first) against ``agent`` (``choose(state,
    deadline)``); returns the stored fields (see :func:`util.arena.match.play`), or None if the person
    quit. ``seed`` seeds the chance outcomes the tool rolls. ``tree_file``: before each agent
    move, the search tree of that position is written there (numbered from the second on)."""
    rng = random.Random(seed)
    clock = TurnClock(game, time_per_move)  # per move, or per turn in a game of several decisions a turn
    trees = 0
    history: list[tuple[int, str, float]] = []  # (action, "human" | "agent" | "chance", seconds the agent took)
    state = game.initial()

    def result(winner: int, how: str, errors: dict[int, str], returns: Any = None, failed: float | None = None) -> dict[str, Any]:
        times = [t for _, who, t in history if who == "agent"] + ([failed] if failed is not None else [])
        return {"moves": [a for a, _, _ in history], "chance": [i for i, (_, who, _) in enumerate(history) if who == "chance"],
                "winner": winner, "termination": how, "errors": errors, "move_times": times,
                "movers": [3 - human_mark] * len(times), "opening": [], "returns": returns}

    out.write(f"{state}\n")
    while not state.is_terminal():
        if state.is_chance_node():
            action = openings.sample_chance(state, rng)
            out.write(f"chance: {state.action_to_string(action)}\n")
            history.append((action, "chance", 0.0))
        elif state.current_player() + 1 == human_mark:
            cmd = ask(state, inp, out)
            if cmd == "quit":
                return None
            if cmd == "undo":
                if not any(who == "human" for _, who, _ in history):
                    out.write("nothing to undo\n")
                    continue
                while history.pop()[1] != "human":  # back to before my last move (the agent's replies and rolls after it go too)
                    pass
                state = play_line(game, [a for a, _, _ in history])
                getattr(agent, "reset", lambda: None)()
                out.write(f"undone\n{state}\n")
                continue
            action = int(cmd)
            history.append((action, "human", 0.0))
        else:
            if tree_file:
                trees += 1
                write_tree(state, tree_path(tree_file, trees), tree_depth, out)
            start = time.perf_counter()
            try:
                action = agent.choose(state, clock.deadline(state, start))
            except Exception as exc:  # the agent forfeits, as in a tournament
                out.write(f"the agent failed ({type(exc).__name__}: {exc}): you win\n")
                return result(human_mark, "error", {3 - human_mark: f"{type(exc).__name__}: {exc}"}, failed=time.perf_counter() - start)
            took = time.perf_counter() - start
            clock.spend(took)
            if isinstance(action, bool) or not isinstance(action, int) or action not in state.legal_actions():
                what = state.game.action_noun
                out.write(f"the agent played an illegal {what} ({action!r}): you win\n")
                return result(human_mark, "illegal", {3 - human_mark: f"{what} {action!r} is illegal"}, failed=took)
            info = info_of(agent)
            out.write(f"agent plays {state.action_to_string(action)}" + (f"   [{describe(info, state)}]" if info else "") + "\n")
            history.append((action, "agent", took))
        state = state.apply(action)
        out.write(f"{state}\n")
    r = state.returns()
    winner = 1 if r[0] > 0 else 2 if r[0] < 0 else 0
    mine = r[human_mark - 1]
    margin = f" (score difference {mine:+g})" if game.win_value > 1 and r[0] else ""
    out.write("draw\n" if winner == 0 else "you win" + margin + "\n" if winner == human_mark else "the agent wins" + margin + "\n")
    return result(winner, "win" if winner else "draw", {}, list(r))


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m util.arena.play", description=__doc__.split("\n\n")[0],
                                epilog="Commands at the prompt: an action (ConnectX: a column number), u (undo), q (quit). "
                                       f"Games: --game NAME[:key=value,...] (default {DEFAULT_GAME}); python -m core --list shows "
                                       "the games and their parameters; other games play the engine agents, e.g. "
                                       "--game tictactoe --agent alphabeta.")
    p.add_argument("--agent", required=True, help="agent spec, as in util.arena.tournament (e.g. alphabeta:max_depth=6, kaggle:negamax, file.py)")
    add_game_arguments(p, default=DEFAULT_GAME)
    p.add_argument("--first", choices=("human", "agent"), default="human", help="who moves first (default: human)")
    p.add_argument("--time", type=seconds_in(), default=1.0, help="seconds per agent move; per turn in games whose turn is several decisions (default 1.0)")
    p.add_argument("--db", default=str(DEFAULT_DB), help=f"store for the finished game (default {DEFAULT_DB})")
    p.add_argument("--seed", type=SEED, default=0, help="seed for the agent's randomness and the dice (default 0)")
    p.add_argument("--tree", metavar="FILE", default=None,
                   help="before each agent move, write the tree a depth-limited alpha-beta explores from that position "
                        "(.json, .svg with Graphviz, else Graphviz DOT; FILE-2, FILE-3... for later moves)")
    p.add_argument("--tree-depth", type=int_in(1, MAX_TREE_DEPTH), default=2, help="depth of --tree (default 2; the tree is capped in size)")
    return p


def main(argv: list[str] | None = None, inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    args = build_parser().parse_args(argv)
    try:
        why = unwritable(args.tree) if args.tree else None
        if why:
            raise UsageError(f"--tree {why}; give a file in a writable folder")
        game = parse_game_args(args.game, args.shape)
        spec = players.resolve(args.agent, game)
        if spec.kind == "file":  # it loads inside its first move, as on Kaggle: a broken one is told here
            players.check_loads(spec, game, args.time)
        agent = players.state_player(spec, game, args.time, args.seed)
        players.check_data(spec, agent)  # a missing or damaged cache, book or table: one line now
        with Store(args.db) as store:
            human_mark = 1 if args.first == "human" else 2
            try:
                with stop_on_signals():  # Ctrl-C or SIGTERM: the agent (an agent file's process) is closed
                    result = play(agent, game, human_mark, args.time, inp, out, args.seed, args.tree, args.tree_depth)
            finally:
                agent.close()
            if result is None:
                out.write("quit: the unfinished game is not saved\n")
                return 0
            ids = [store.player_id(HUMAN, HUMAN, {}), store.player_id(spec.text, spec.version, dict(spec.params))]
            first, second = ids if human_mark == 1 else ids[::-1]
            gid = store.add_game(f"play-{uuid.uuid4().hex}", first, second, shape_text(game), result,
                                 time_per_move=args.time, engine="human", seed=args.seed, source="play", game=game.spec())
            out.write(f"saved as game {gid} in {store.path}\n")
            return 0
    except (UsageError, SpecError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(f"interrupted ({signal_name(exc)}): the unfinished game is not saved", file=sys.stderr)
        return exit_code(exc)


if __name__ == "__main__":
    sys.exit(main())
