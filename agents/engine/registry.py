"""Engine agents (game-generic) by name: ``name -> "module:Class"``.

Each class is a dataclass whose fields are its parameters, with a ``games`` class attribute:
the game names it supports, or None for every game. Specs are ``name:key=value,...`` as for
ConnectX's agents (:func:`agents.registry.parse_spec`, :func:`agents.registry.convert_params`).
"""
from __future__ import annotations

import importlib
from typing import Any

from agents import registry as connectx_registry
from agents.registry import SpecError, convert_params, parse_spec

ENGINE_AGENTS: dict[str, str] = {
    "random": "agents.engine.random_agent:RandomAgent",
    "quantik_strategy": "agents.engine.quantik_strategy:QuantikStrategyAgent",
    "mcts": "agents.engine.mcts:MCTSAgent",
    "ant_colony": "agents.engine.mcts:AntColonyAgent",
    "alphabeta": "agents.engine.agents:AlphaBetaAgent",
    "minimax": "agents.engine.agents:MinimaxAgent",
    "solver": "agents.engine.agents:SolverAgent",
    "perfect": "agents.engine.opening_book:BookSolverAgent",
    "solve_first": "agents.engine.solve_first:SolveFirstAgent",
    "expectimax": "agents.engine.expectimax:ExpectimaxAgent",
    "quixo_perfect": "agents.engine.quixo_perfect:QuixoPerfectAgent",
    "course_minimax": "agents.engine.course_minimax:CourseMinimaxAgent",
    "mc_learner": "agents.engine.mc_learner:MCLearnerAgent",
    "greedy": "agents.reinforce_tactics.greedy:GreedyAgent",
}


def agent_class(name: str) -> type:
    if name not in ENGINE_AGENTS:
        raise SpecError(f"unknown agent {name!r}; valid agents: {', '.join(ENGINE_AGENTS)}")
    module, cls = ENGINE_AGENTS[name].split(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise SpecError(f"agent {name!r} is not available ({exc})") from None


def supports(cls: type, game_name: str) -> bool:
    games = getattr(cls, "games", None)
    return games is None or game_name in games


def names(game_name: str | None = None) -> list[str]:
    """Agents that load here (and support ``game_name``, when given)."""
    out = connectx_registry.names() if game_name == "connectx" else []
    for name in ENGINE_AGENTS:
        try:
            cls = agent_class(name)
        except SpecError:
            continue
        if (game_name is None or supports(cls, game_name)) and name not in out:
            out.append(name)
    return out


def make(spec: str, game: Any, server: bool = False) -> Any:
    """The agent of ``spec`` for ``game`` (a :class:`core.game.Game`); a clear error names the
    games the agent supports when ``game`` is not one of them. ``server=True``: a server's
    request (no file names, smaller tables: :func:`agents.registry.convert_params`)."""
    name, params = parse_spec(spec)
    if game.name == "connectx" and name in connectx_registry.AGENT_CLASSES:
        # ConnectX's own agents (book, Pons-style solver, threat pruning) outrank the generic ones.
        from agents.engine.connectx_bridge import ConnectXAgent

        return ConnectXAgent(game, connectx_registry.make(name, server, **params), spec)
    cls = agent_class(name)
    if not supports(cls, game.name):
        raise SpecError(f"agent {name!r} does not play {game.name!r}; it plays: {', '.join(cls.games)}")
    kwargs = convert_params(cls, name, params, server)
    try:
        return cls(game=game, **kwargs)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"agent {name!r}: {exc}") from None
