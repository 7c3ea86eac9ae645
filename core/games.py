"""The games the toolkit knows, by name, with their parameters: one registry for every tool.

``make_game("connect4_count", rows=4, columns=5)``; ``python -m core --list`` prints them all.
A name whose module is not importable is left out with the reason kept for error messages.
"""
from __future__ import annotations

import importlib
from typing import Any

from core.game import Game

GAME_CLASSES: dict[str, str] = {
    "connectx": "core.connectx.game:ConnectX",
    "tictactoe": "core.tictactoe:TicTacToe",
    "quantik": "core.quantik:Quantik",
    "quixo": "core.quixo:Quixo",
    "connect4_count": "core.connect4_count:Connect4Count",
    "einstein": "core.einstein:Einstein",
}


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
    params = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        k, eq, v = item.partition("=")
        if not eq:
            raise ValueError(f"bad game parameter {item!r} in {spec!r}; write key=value, comma-separated")
        params[k.strip()] = v.strip()
    return make_game(name, **params)


def describe() -> str:
    lines = []
    for name in names():
        cls = game_class(name)
        params = ", ".join(f"{k}={d} ({h})" for k, (_t, d, h) in cls.PARAMS.items()) or "no parameters"
        doc = (cls.__doc__ or "").strip().splitlines()[0].replace("``", "") if cls.__doc__ else ""
        lines.append(f"{name}: {params}" + (f"\n    {doc}" if doc else ""))
    return "\n".join(lines)


def game_arg(parser: Any, text: str, without_chance: str = "") -> Game:
    """The game of a command's ``--game NAME[:key=value,...]`` argument, or ``parser.error``'s one
    line (an :class:`argparse.ArgumentParser`). ``without_chance``: refuse games with chance
    nodes, saying why (e.g. "the learner plays games without chance")."""
    try:
        game = parse_game(text)
    except ValueError as exc:
        parser.error(str(exc))
    if without_chance and game.has_chance:
        parser.error(f"--game {game.name}: has chance nodes; {without_chance}")
    return game
