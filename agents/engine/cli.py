"""Command-line pieces shared by the engine's tools: ``--game NAME --param k=v ...``."""
from __future__ import annotations

import argparse
from typing import Any


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game`` (required) and repeatable ``--param K=V`` (the game's parameters)."""
    from core.games import names

    parser.add_argument("--game", required=True, help=f"the game ({', '.join(names())})")
    parser.add_argument("--param", action="append", default=[], metavar="K=V", help="a game parameter (repeatable)")


def game_from_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The game the arguments name; a bad name or parameter is one line and exit 2 (``parser.error``)."""
    from core.games import game_class

    params = {}
    for item in args.param:
        k, eq, v = item.partition("=")
        if not eq or not k.strip():
            parser.error(f"--param {item!r}: write key=value, e.g. --param rows=4")
        params[k.strip()] = v.strip()
    try:
        return game_class(args.game)(**params)
    except ValueError as exc:
        parser.error(str(exc))
