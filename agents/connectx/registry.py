"""ConnectX's own agents by name: the ConnectX table of :mod:`agents.registry`.

Each name maps to ``module:Class``, a dataclass on :class:`agents.connectx.base.PositionAgent`
(``choose(state, deadline)``, searching on a :class:`core.connectx.position.Position` inside). On
ConnectX these names outrank the game-generic ones of the same name (book, Pons-style solver,
threat pruning): :data:`AGENTS` is merged over :data:`agents.engine.registry.ENGINE_AGENTS` by
:mod:`agents.registry`, whose :func:`build` hook tells them their game.

The functions here (:func:`make`, :func:`names`, :func:`parameters`) serve the ConnectX-only
tools: the submission builder, the MCTS cache. A name whose module is not importable is left
out of :func:`names`.
"""
from __future__ import annotations

import importlib
from typing import Any

from agents.engine.spec import SpecError, convert_params, parameters_of, parse_spec

# Strongest first: the first importable name is build_submission.py's default.
AGENT_CLASSES: dict[str, str] = {
    "perfect": "agents.connectx.perfect:PerfectAgent",
    "alphabeta": "agents.connectx.alphabeta:AlphaBetaAgent",
    "negamax": "agents.connectx.alphabeta:NegamaxAgent",
    "mcts": "agents.connectx.mcts:MCTSAgent",
    "ant_colony": "agents.connectx.ant_colony:AntColonyAgent",
    "rules": "agents.connectx.rules:RulesAgent",
    "random": "agents.connectx.random_agent:RandomAgent",
}

AGENTS = AGENT_CLASSES
"""The ConnectX table :mod:`agents.registry` merges over the generic names."""

STRENGTH_ORDER: tuple[str, ...] = tuple(AGENT_CLASSES)


def build(cls: type, kwargs: dict[str, Any], game: Any, spec: str) -> Any:
    """The table's hook for :func:`agents.registry.make`: ``cls(**kwargs)`` (it takes no ``game``
    parameter), told its game's board (:attr:`agents.connectx.base.PositionAgent.game`)."""
    agent = cls(**kwargs)
    agent.game = game
    return agent


def agent_class(name: str) -> type:
    if name not in AGENT_CLASSES:
        raise SpecError(f"unknown agent {name!r}; valid agents: {', '.join(names())}")
    module_name, cls_name = AGENT_CLASSES[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SpecError(f"agent {name!r} is not available ({exc}); valid agents: {', '.join(names())}") from None
    return getattr(module, cls_name)


def names() -> list[str]:
    """Names of the agents that can be built here, strongest first."""
    out = []
    for name, target in AGENT_CLASSES.items():
        try:
            module = importlib.import_module(target.split(":")[0])
        except ImportError:
            continue
        if hasattr(module, target.split(":")[1]):
            out.append(name)
    return out


def parameters(name: str) -> dict[str, Any]:
    """Parameter names of agent ``name`` with their defaults."""
    return parameters_of(agent_class(name))


def make(name: str, server: bool = False, **params: Any) -> Any:
    """Build agent ``name`` with ``params`` (strings are converted to the field's type;
    ``server=True``: a server's request, see :func:`agents.engine.spec.convert_params`)."""
    return make_with(name, params, server)


def make_with(name: str, params: dict[str, Any], server: bool = False) -> Any:
    """:func:`make` with ``params`` as a dict: a parameter named ``server`` (from a user's spec)
    is the agent's, refused as unknown, never taken for the ``server`` flag."""
    cls = agent_class(name)
    kwargs = convert_params(cls, name, params, server)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"agent {name!r}: {exc}") from None


def make_from_spec(spec: str) -> Any:
    name, params = parse_spec(spec)
    return make_with(name, params)
