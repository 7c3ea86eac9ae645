"""The games the pages offer (``GET /api/games``: each game's parameters, agents and heuristics),
and the game a request names (:func:`make_game`, within the game's declared bounds)."""
from __future__ import annotations

import importlib
from typing import Any

from flask import Blueprint, jsonify

from agents import registry
from agents.engine.spec import agent_params
from base.params import Param
from core import games as game_registry
from core.game import Game
from util.arena.web.request_body import body
from util.arena.web.sessions import RequestError

games_api = Blueprint("games", __name__)


@games_api.get("/api/games")
def list_games():
    out = []
    for name in game_registry.names():
        cls = game_registry.game_class(name)
        out.append({
            "name": name,
            "doc": (cls.__doc__ or "").strip().splitlines()[0].replace("``", "") if cls.__doc__ else "",
            "params": [_param(k, spec) for k, spec in cls.PARAMS.items()],
            "hidden_information": not cls.perfect_information,  # with its default parameters (fog=1 makes another)
            "agents": offered_agents(cls()),
            "heuristics": heuristic_params(cls),  # each heuristic's parameters an agent spec may name
            "turns": cls.end_turn_action is not None,  # a turn is several moves, ended by an action
        })
    return jsonify(games=out, default=game_registry.DEFAULT_GAME)  # the game the page shows first


def offered_agents(game: Game) -> list[str]:
    """The agents ``game`` (with its parameters) accepts from a person's request: the registry's
    (which keeps the searches of hidden information, such as CFR, to games that have it), and in
    a game of hidden information only those that read the mover's observation alone
    (:func:`agents.registry.observation_only`; a whole-state search needs ``cheat=1``, typed as a spec)."""
    names = registry.names(game.name)
    if game.perfect_information:
        return names
    return [n for n in names if registry.observation_only(registry.agent_class(game.name, n))]


@games_api.post("/api/agents")
def list_agents():
    """The agents a game with the given parameters accepts (``{"game", "params"}``), each with
    its parameters (name, type, default, bounds, meaning) for the page's form of an agent spec."""
    data = body()
    game = make_game(data.get("game"), data.get("params", {}))
    out = []
    for name in offered_agents(game):
        params = agent_params(registry.agent_class(game.name, name))
        out.append({"name": name, "params": [_agent_param(k, p) for k, p in params.items()]})
    return jsonify(game=game.spec(), hidden_information=not game.perfect_information, agents=out)


def _agent_param(name: str, p: Param) -> dict:
    """An agent parameter as the page lists it (a default JSON cannot hold is written as text)."""
    default = p.default if isinstance(p.default, (int, float, str, bool)) or p.default is None else str(p.default)
    return {"name": name, "type": getattr(p.kind, "__name__", str(p.kind)), "default": default, "help": p.doc,
            "min": p.lo, "max": p.hi}


def default_heuristic(game: Game) -> str | None:
    """The first heuristic the game's heuristics module lists, or None (no heuristic)."""
    if not game.heuristics:
        return None
    table = getattr(importlib.import_module(game.heuristics), "HEURISTICS", {})
    return next(iter(table), None)


def heuristic_params(cls: type) -> dict[str, list[dict]]:
    """Each heuristic of game class ``cls`` -> its parameters as the page lists them (name,
    default, bounds, meaning): the declaration the agents read (:func:`agents.engine.params.declared`),
    the names a spec such as ``alphabeta:heuristic=lines,w3=5`` takes."""
    from agents.engine.params import declared

    return {h: [{"name": p.name, "default": p.default, "lo": p.lo, "hi": p.hi, "doc": p.doc} for p in params]
            for h, params in declared(cls()).items()}


def _param(name: str, p: Param) -> dict:
    """A game parameter as the page lists it: name, type, default, help, and its bounds."""
    return {"name": name, "type": p.kind.__name__, "default": p.default, "help": p.doc, "min": p.lo, "max": p.hi}


def make_game(name: Any, params: Any) -> Game:
    """The game a request names, whose initial state can be built; else a 400 naming what is wrong."""
    if not isinstance(name, str) or not name:
        raise RequestError(f"game must be one of: {', '.join(game_registry.names())}")
    if not isinstance(params, dict):
        raise RequestError("params must be a JSON object of the game's parameters")
    try:
        game = game_registry.make_game(name, **params)
        game.initial()  # a value the game's bounds let through but its start cannot hold is the request's fault too
        return game
    except OverflowError as exc:  # a number past what the game's integers hold, caught below its bounds
        raise RequestError(f"a parameter of {name} is too large for the game ({exc}): {params_text(params)}") from None
    except (ValueError, TypeError) as exc:  # whatever layer refuses a value: a 400 naming it
        raise RequestError(str(exc)) from None


def params_text(params: dict) -> str:
    """The game parameters a request gave, shortened for a message."""
    return ", ".join(f"{str(k)[:40]}={str(v)[:40]}" for k, v in list(params.items())[:10])
