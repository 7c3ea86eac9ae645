"""The games the toolkit knows, by name, with their parameters: one registry for every tool.

``make_game("connect4_count", rows=4, columns=5)``; ``python -m core --list`` prints them all.
A name whose module is not importable is left out with the reason kept for error messages.
"""
from __future__ import annotations

import importlib
from typing import Any

from base.bounds import key_values, shown
from core.game import Game

GAME_CLASSES: dict[str, str] = {
    "connectx": "core.connectx.game:ConnectX",
    "tictactoe": "core.tictactoe:TicTacToe",
    "quantik": "core.quantik:Quantik",
    "quixo": "core.quixo:Quixo",
    "connect4_count": "core.connect4_count:Connect4Count",
    "einstein": "core.einstein:Einstein",
    "reinforce_tactics": "core.reinforce_tactics:ReinforceTactics",
    "kuhn_poker": "core.kuhn_poker:KuhnPoker",
    "leduc_poker": "core.leduc_poker:LeducPoker",
    "liars_dice": "core.liars_dice:LiarsDice",
}

DEFAULT_GAME = "connectx"
"""The game of a command without ``--game`` and of store rows written before games had specs
(:meth:`core.game.Game.from_legacy_key`)."""


def game_class(name: str) -> type[Game]:
    if name not in GAME_CLASSES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(names())}")
    module, cls = GAME_CLASSES[name].split(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"game {name!r} is not available ({exc}); games: {', '.join(names())}") from None


def names() -> list[str]:
    out = []
    for name in GAME_CLASSES:
        try:
            game_class(name)
        except ValueError:
            continue
        out.append(name)
    return out


def make_game(name: str, **params: Any) -> Game:
    """Game ``name`` with ``params`` (strings converted to each parameter's type)."""
    return game_class(name)(**params)


def parse_game(spec: str) -> Game:
    """``"connect4_count:rows=4,columns=5"`` -> that game."""
    name, _, rest = spec.strip().partition(":")
    return make_game(name, **key_values(rest, "game parameter", shown(spec)))


def describe() -> str:
    lines = []
    for name in names():
        cls = game_class(name)
        params = ", ".join(f"{k}={p.default} ({p.help()})" for k, p in cls.PARAMS.items()) or "no parameters"
        doc = (cls.__doc__ or "").strip().splitlines()[0].replace("``", "") if cls.__doc__ else ""
        lines.append(f"{name}: {params}" + (f"\n    {doc}" if doc else ""))
    return "\n".join(lines)


# --- one way for every command line to read its game ---------------------------------------
_GAME_HELP = "python -m core --list shows the games and their parameters"


def game_from_text(game: str | None, shape: str | None = None) -> Game:
    """The game of ``--game NAME[:key=value,...]`` (None: connectx) and ``--shape RxCxK``
    (ConnectX's board shorthand, for ``--game connectx:rows=R,columns=C,inarow=K``). Bad input
    is a ValueError of one line that says what is wrong and names the games."""
    try:
        g = parse_game(game or DEFAULT_GAME)
    except ValueError as exc:
        raise ValueError(f"bad --game {game!r}: {exc} ({_GAME_HELP})") from None
    if shape is not None:
        if g.name != "connectx":
            raise ValueError(f"--shape is ConnectX's board; {g.name}'s parameters go in --game {g.name}:key=value,...")
        if game and ":" in game:
            raise ValueError("give the board once: --game connectx:rows=R,columns=C,inarow=K or --shape RxCxK, not both")
        shape_class = importlib.import_module("core.connectx.shape").Shape  # by name, as GAME_CLASSES: no import circle

        try:
            s = shape_class.parse(shape)
        except ValueError as exc:
            raise ValueError(f"bad --shape {shape!r}: {exc}") from None
        g = parse_game(f"connectx:rows={s.rows},columns={s.columns},inarow={s.inarow}")
    return g


def add_game_arguments(parser: Any, default: str | None = DEFAULT_GAME, note: str = "") -> None:
    """Add ``--game NAME[:key=value,...]`` and ``--shape RxCxK`` to ``parser`` (an
    :class:`argparse.ArgumentParser` or a subcommand's); :func:`game_from_args` reads them.
    ``default``: the game when neither is given (None: ``--game`` is required). Both options
    parse to None when not given, so a tool can tell whether a game was named. ``note``: more
    help for ``--game`` (e.g. "with --report: only this game")."""
    parser.add_argument("--game", default=None, metavar="NAME[:K=V,...]",
                        help=f"game and its parameters (default {default or 'none: required'}; {_GAME_HELP})"
                        + (f"; {note}" if note else ""))
    parser.add_argument("--shape", default=None, metavar="RxCxK",
                        help="ConnectX's board as ROWSxCOLUMNSxINAROW (default 6x7x4): shorthand for "
                        "--game connectx:rows=R,columns=C,inarow=K")
    parser.set_defaults(game_default=default)


def game_from_args(parser: Any, args: Any, without_chance: str = "") -> Game:
    """The game of the arguments :func:`add_game_arguments` added, or ``parser.error``'s one line
    (exit 2 with :class:`base.cli.OneLineParser`). ``without_chance``: refuse games with chance
    nodes, saying why (e.g. "the learner plays games without chance")."""
    game, shape = args.game, args.shape
    if game is None and shape is None:
        game = args.game_default
        if game is None:
            parser.error(f"give --game NAME[:key=value,...]; games: {', '.join(names())} ({_GAME_HELP})")
    try:
        g = game_from_text(game, shape)
    except ValueError as exc:
        parser.error(str(exc))
    if without_chance and g.has_chance:
        parser.error(f"--game {g.name}: has chance nodes; {without_chance}")
    return g
