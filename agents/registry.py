"""Every agent by ``(game, name)``: the one place that says which class a spec builds on a game.

A game's table is the generic searches' (:data:`agents.engine.registry.ENGINE_AGENTS`) with the
game's own table (:data:`GAME_TABLES`) merged over it, so a game's own agent of a generic name
(ConnectX's ``perfect``, ``alphabeta``, ``mcts``, ...) outranks the generic one by construction.
A game's table is a module with ``AGENTS: dict[str, str]`` (``name -> "module:Class"``) and,
optionally, ``build(cls, kwargs, game, spec)`` (how its classes are built for ``game``; the
default is ``cls(game=game, **kwargs)``). A game adds its agents with one line in
:data:`GAME_TABLES`. Specs and their parameters: :mod:`agents.engine.spec`.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from agents.engine.registry import ENGINE_AGENTS, refusal, supports
from agents.engine.spec import SpecError, convert_params, parse_spec

GAME_TABLES: dict[str, str] = {
    "connectx": "agents.connectx.registry",
    "quixo": "agents.quixo",
    "quantik": "agents.quantik",
    "reinforce_tactics": "agents.reinforce_tactics",
}
"""Game name -> the module of that game's own agent table (see the module docstring)."""


def _table_module(game_name: str | None) -> Any:
    path = GAME_TABLES.get(game_name or "")
    return importlib.import_module(path) if path else None


def own_table(game_name: str) -> dict[str, str]:
    """``game_name``'s own table (empty for a game without one)."""
    return getattr(_table_module(game_name), "AGENTS", {})


def _default_build(cls: type, kwargs: dict[str, Any], game: Any, spec: str) -> Any:
    return cls(game=game, **kwargs)


def table(game_name: str) -> dict[str, str]:
    """``name -> "module:Class"`` on ``game_name``: the game's own entries over the generic ones
    (the game's own names first)."""
    own = own_table(game_name)
    return {**own, **{k: v for k, v in ENGINE_AGENTS.items() if k not in own}}


def _load(name: str, target: str) -> type:
    module, cls = target.split(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise SpecError(f"agent {name!r} is not available ({exc})") from None


def games_of(name: str) -> list[str]:
    """The games whose own table has ``name`` (none for a generic name)."""
    return [g for g in GAME_TABLES if name in own_table(g)]


def agent_class(game_name: str, name: str) -> type:
    """The class agent ``name`` builds on ``game_name``; SpecError names the games it plays when
    ``game_name`` is not one of them, or the valid names when there is no such agent."""
    here = table(game_name)
    if name not in here:
        games = games_of(name)
        if games:
            raise SpecError(f"agent {name!r} does not play {game_name!r}; it plays: {', '.join(games)}")
        raise SpecError(f"unknown agent {name!r}; valid agents: {', '.join(here)}")
    cls = _load(name, here[name])
    why = refusal(cls, game_name)
    if why is not None:
        raise SpecError(f"agent {name!r} does not play {game_name!r}; {why}")
    return cls


def builder(game_name: str, name: str) -> Callable[..., Any]:
    """How ``name``'s class is built on ``game_name``: the game table's ``build`` hook for its own
    names, ``cls(game=game, **kwargs)`` for the generic ones."""
    module = _table_module(game_name)
    if module is not None and name in getattr(module, "AGENTS", {}):
        return getattr(module, "build", _default_build)
    return _default_build


def names(game_name: str | None = None) -> list[str]:
    """Agents that load here and play ``game_name`` (every game's, when None)."""
    if game_name is None:
        candidates = [(g, n) for g in GAME_TABLES for n in table(g)] + [(None, n) for n in ENGINE_AGENTS]
    else:
        candidates = [(game_name, n) for n in table(game_name)]
    out: list[str] = []
    for game, name in candidates:
        if name in out:
            continue
        try:
            cls = _load(name, table(game)[name] if game else ENGINE_AGENTS[name])
        except SpecError:
            continue
        if game_name is None or supports(cls, game_name):
            out.append(name)
    return out


def make(spec: str, game: Any, server: bool = False) -> Any:
    """The agent of ``spec`` for ``game`` (a :class:`core.game.Game`), choosing with
    ``choose(state, deadline)``; a clear error names the games the agent supports when ``game``
    is not one of them. ``server=True``: a server's request (no file names, smaller tables:
    :func:`agents.engine.spec.convert_params`)."""
    name, params = parse_spec(spec)
    cls = agent_class(game.name, name)
    kwargs = convert_params(cls, name, params, server, game)
    try:
        return builder(game.name, name)(cls, kwargs, game, spec)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"agent {name!r}: {exc}") from None
