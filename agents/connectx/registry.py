"""ConnectX's own agents by name: the ConnectX table of :mod:`agents.registry`.

Each name maps to ``module:Class``, a dataclass on :class:`agents.connectx.base.PositionAgent`
(``choose(state, deadline)``, searching on a :class:`core.connectx.position.Position` inside). On
ConnectX these names outrank the game-generic ones of the same name (book, Pons-style solver,
threat pruning): :data:`AGENTS` is merged over :data:`agents.engine.registry.ENGINE_AGENTS` by
:mod:`agents.registry`, whose :func:`build` hook tells them their game.

The functions here (:func:`make`, :func:`names`, :func:`parameters`) serve the ConnectX-only
tools (the submission builder, the MCTS cache): ConnectX's own names only, their classes looked up
in the one map :mod:`agents.registry`, built without a game (the standard board: the Kaggle
adapter tells them the board it reads). A name whose module is not importable is left out of
:func:`names`.
"""
from __future__ import annotations

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

PLAYERS: dict[str, str] = {"openspiel_mcts": "agents.connectx.openspiel_player"}
"""Players of ConnectX that are no agent of the table (the arena's ``--agents`` names them): name ->
a module with ``resolve_params(params) -> (text, name, params, version)`` and
``build(game, seed, **params)`` (:mod:`agents.registry`'s :func:`~agents.registry.players`)."""

KAGGLE_ADAPTER = "agents.connectx.arena:kaggle_adapter"
"""How the arena plays one of these agents in kaggle-environments (``--engine kaggle``):
``adapter(agent) -> agent(obs, config)`` (:func:`agents.registry.kaggle_adapter`)."""

SUBMISSION = "agents.connectx.submission"
"""ConnectX's Kaggle submission hooks (:func:`agents.registry.submission_hooks`)."""


def build(cls: type, kwargs: dict[str, Any], game: Any, spec: str) -> Any:
    """The table's hook for :func:`agents.registry.make`: ``cls(**kwargs)`` (it takes no ``game``
    parameter), told its game's board (:attr:`agents.connectx.base.PositionAgent.game`)."""
    agent = cls(**kwargs)
    agent.game = game
    return agent


def agent_class(name: str) -> type:
    """The class of ConnectX's own agent ``name``, looked up in the one map
    (:func:`agents.registry.agent_class` on connectx)."""
    if name not in AGENT_CLASSES:
        raise SpecError(f"unknown agent {name!r}; valid agents: {', '.join(names())}")
    from agents import registry  # the one map (game, name) -> class; it loads this table by name

    try:
        return registry.agent_class("connectx", name)
    except SpecError as exc:
        raise SpecError(f"{exc}; valid agents: {', '.join(names())}") from None


def names() -> list[str]:
    """Names of ConnectX's own agents that can be built here, strongest first."""
    from agents import registry

    playable = set(registry.names("connectx"))
    return [name for name in AGENT_CLASSES if name in playable]


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
