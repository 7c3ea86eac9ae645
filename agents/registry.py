"""Every agent by ``(game, name)``: the one place that says which class a spec builds on a game.

A game's table is the generic searches' (:data:`agents.engine.registry.ENGINE_AGENTS`) with the
game's own table (:data:`GAME_TABLES`) merged over it, so a game's own agent of a generic name
(ConnectX's ``perfect``, ``alphabeta``, ``mcts``, ...) outranks the generic one by construction.
A game's table is a module with ``AGENTS: dict[str, str]`` (``name -> "module:Class"``) and,
optionally, ``build(cls, kwargs, game, spec)`` (how its classes are built for ``game``; the
default is ``cls(game=game, **kwargs)``). A game adds its agents with one line in
:data:`GAME_TABLES`. The table may also give the hooks of its agents package: ``PLAYERS``
(players that are no agent of the table, such as ConnectX's ``openspiel_mcts``: :func:`players`),
``KAGGLE_ADAPTER`` (``"module:function"``: one of its agents as Kaggle's ``agent(obs, config)``,
:func:`kaggle_adapter`) and ``SUBMISSION`` (the module of its Kaggle submission hooks,
:class:`agents.submission.SubmissionHooks`: :func:`submission_hooks`). Specs and their
parameters: :mod:`agents.engine.spec`.
"""
from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.engine.registry import (
    BUNDLE_PREFIX,
    CHEAT,
    ENGINE_AGENTS,
    generic_class,
    observation_only,
    perfect_information_refusal,
    refusal,
    supports,
)
from agents.engine.spec import (
    MAX_SPEC_DEPTH,
    SpecError,
    check_data_file,
    convert_params,
    field_default,
    names_file,
    parameters_of,
    parse_spec,
    sized_bytes,
)
from base.bounds import shown
from base.params import Param

GAME_TABLES: dict[str, str] = {
    "connectx": "agents.connectx.registry",
    "quixo": "agents.quixo",
    "quantik": "agents.quantik",
    "reinforce_tactics": "agents.reinforce_tactics",
}
"""Game name -> the module of that game's own agent table (see the module docstring)."""


def _table_module(game_name: str | None) -> Any:
    path = GAME_TABLES.get(game_name or "")
    return importlib.import_module(BUNDLE_PREFIX + path) if path else None  # a submission's bundle: under its prefix


def submission_games() -> list[str]:
    """The games whose agent table names submission hooks (``SUBMISSION``): those
    ``build_submission.py --game`` builds a Kaggle file for."""
    return [g for g in GAME_TABLES if getattr(_table_module(g), "SUBMISSION", None)]


def submission_hooks(game_name: str) -> Any:
    """The submission hooks of ``game_name`` (:class:`agents.submission.SubmissionHooks`: the
    module its agent table's ``SUBMISSION`` names); ValueError naming the games that have
    them for a game without."""
    path = getattr(_table_module(game_name), "SUBMISSION", None) if game_name in GAME_TABLES else None
    if not path:
        raise ValueError(f"Kaggle submissions exist for {' and '.join(submission_games())}, not {game_name!r} "
                         "(other games: python -m util.arena.tournament/util.arena.play --game NAME)")
    return importlib.import_module(path)


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
        return getattr(importlib.import_module(BUNDLE_PREFIX + module), cls)
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


def players(game_name: str) -> dict[str, str]:
    """``game_name``'s players that are no agent of its table: name -> the module path of one with
    ``resolve_params(params) -> (text, name, params, version)`` and ``build(game, seed, **params)``."""
    return dict(getattr(_table_module(game_name), "PLAYERS", {}))


def player_module(game_name: str, name: str) -> Any:
    """The module of ``game_name``'s player ``name`` (:func:`players`); SpecError when it is none."""
    path = players(game_name).get(name)
    if path is None:
        raise SpecError(f"no player {name!r} on {game_name!r}")
    return importlib.import_module(path)


def player_games(name: str) -> list[str]:
    """The games whose table has the player ``name`` (:func:`players`)."""
    return [g for g in GAME_TABLES if name in players(g)]


def kaggle_adapter(game_name: str) -> Callable[[Any], Callable[[Any, Any], Any]] | None:
    """``game_name``'s ``adapter(agent) -> agent(obs, config)`` (its table's ``KAGGLE_ADAPTER``), or None."""
    target = getattr(_table_module(game_name), "KAGGLE_ADAPTER", "")
    if not target:
        return None
    module, function = target.split(":")
    return getattr(importlib.import_module(module), function)


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


@dataclass(frozen=True)
class SpecNode:
    """One agent of a spec: its name, class, converted parameters (``kwargs``) and the agents
    its parameters name (``children``: field name -> node; :data:`agents.engine.spec.AGENT_SPEC`),
    a default included."""

    name: str
    cls: type
    kwargs: dict[str, Any]
    children: dict[str, SpecNode] = field(default_factory=dict)
    cheat: bool = False  # the top agent reads the whole state of a game of hidden information, by opt-in (CHEAT)

    def nodes(self) -> list[SpecNode]:
        """This node and every node below it, parents first."""
        return [self, *(n for c in self.children.values() for n in c.nodes())]

    def table_bytes(self) -> int:
        """An upper estimate of the bytes the tables of every agent of the tree may hold (each
        one's sizing fields, defaults included: :func:`agents.engine.spec.sized_bytes`), the
        agents a parent builds later (a fallback) included: what a server counts for a spec."""
        return sum(sized_bytes({**parameters_of(n.cls), **n.kwargs}) for n in self.nodes())


def spec_tree(game: Any, spec: str, server: bool = False, data_root: str | os.PathLike | None = None,
              generic: bool = False, depth: int = 0, top: bool = False) -> SpecNode:
    """``spec`` parsed once into a tree of :class:`SpecNode` for ``game``, every agent it builds
    checked as a whole: names, parameters and bounds (:func:`agents.engine.spec.convert_params`;
    with ``server``, the server bounds of :data:`~agents.engine.spec.AGENT_PARAMS` and no file outside ``data_root``),
    at every depth (at most :data:`~agents.engine.spec.MAX_SPEC_DEPTH`). A file a parameter names
    must be a regular file (a FIFO would block the agent that opens it). ``generic``: the
    spec names a generic engine agent (:data:`~agents.engine.spec.GENERIC_AGENT_SPEC`). ``top``:
    the agent a tool hands the true state (:func:`check_spec_tree`): it takes the parameter
    :data:`~agents.engine.registry.CHEAT`, and without it an agent that reads the whole state is
    refused on a game of hidden information
    (:func:`~agents.engine.registry.perfect_information_refusal`). The agents below it are not
    asked: the agent above them chooses what they see (PIMC's search sees determinizations)."""
    if depth > MAX_SPEC_DEPTH:
        raise SpecError(f"agent spec {shown(spec)} nests agents deeper than {MAX_SPEC_DEPTH}")
    name, params = parse_spec(spec)
    cls = generic_class(name, game.name) if generic else agent_class(game.name, name)
    cheat = False
    if top:
        try:
            cheat = bool(Param(CHEAT, False, kind=bool).parse(params.pop(CHEAT, False), f"parameter {CHEAT} of agent {name!r}"))
        except ValueError as exc:
            raise SpecError(str(exc)) from None
        why = perfect_information_refusal(cls, name, game)
        if why is not None and not cheat:
            fair = [n for n in names(game.name) if observation_only(_load(n, table(game.name)[n]))]
            raise SpecError(why + (f", or play one that sees only its observation: {', '.join(fair)}" if fair else ""))
        cheat = cheat and why is not None  # kept only where it changes something (the spec's text says it)
    kwargs = convert_params(cls, name, params, server, game, data_root)
    for key, value in kwargs.items():
        if names_file(key, value):
            check_data_file(value, f"parameter {key} of agent {name!r}", data_root if server else None)
    children = {}
    for key, text, generic_child in nested_specs(cls, kwargs):
        try:
            children[key] = spec_tree(game, text, server, data_root, generic_child, depth + 1)
        except SpecError as exc:
            raise SpecError(f"parameter {key} of agent {name!r}: {exc}") from None
    return SpecNode(name, cls, kwargs, children, cheat)


def nested_specs(cls: type, values: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """``(field, spec, generic)`` for each field of agent class ``cls`` that holds another
    agent's spec (:data:`agents.engine.spec.AGENT_SPEC`) and is set, in ``values`` or by its
    default; ``generic``: a generic engine agent's spec (GENERIC_AGENT_SPEC)."""
    out = []
    for f in dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ():
        kind = f.metadata.get("agent_spec")
        text = str(values.get(f.name, field_default(f)) or "").strip() if kind else ""
        if text:
            out.append((f.name, text, kind == "generic"))
    return out


def spec_modules(game: Any, cls: type, params: dict[str, Any]) -> list[str]:
    """The modules of the agents an agent of class ``cls`` with parameters ``params`` builds from
    spec-valued fields (:data:`agents.engine.spec.AGENT_SPEC`, defaults included), at every
    depth: named by string, no import statement carries them into a submission's bundle (pimc's
    file once could not create its default search, expectimax)."""
    out = [n.cls.__module__ for _, text, generic in nested_specs(cls, params)
           for n in spec_tree(game, text, generic=generic).nodes()]
    return list(dict.fromkeys(out))


def check_spec_tree(game: Any, spec: str, server: bool = False, data_root: str | os.PathLike | None = None,
                    inner: bool = False) -> SpecNode:
    """The checked tree of ``spec`` on ``game`` (:func:`spec_tree`), or SpecError (one line): the
    one check of a spec a command or a server runs before it builds or plays anything.
    ``server=True``: a server's request, every agent within the server's bounds, file
    parameters only regular files inside ``data_root`` (None: no file at all). On a game of
    hidden information an agent that reads the whole state is refused unless the spec says
    ``cheat=1`` (:func:`spec_tree`'s ``top``); ``inner=True``: an agent builds it for states of
    its own choosing (a determinization), so neither applies."""
    return spec_tree(game, spec, server, data_root, top=not inner)


def make(spec: str, game: Any, server: bool = False, data_root: str | os.PathLike | None = None,
         inner: bool = False) -> Any:
    """The agent of ``spec`` for ``game`` (a :class:`core.game.Game`), choosing with
    ``choose(state, deadline)``; a clear error names the games the agent supports when ``game``
    is not one of them. The whole spec is checked first (:func:`check_spec_tree`), the agents
    its parameters name included. ``server=True``: a server's request (no file names outside
    ``data_root``, smaller tables: :func:`agents.engine.spec.convert_params`). ``inner=True``: an
    agent builds it to search states it hands it (:func:`check_spec_tree`)."""
    return build_node(check_spec_tree(game, spec, server, data_root, inner), game, spec)


def build_node(node: SpecNode, game: Any, spec: str) -> Any:
    """The agent of a checked :class:`SpecNode` (its own parameters: the agents below it are
    built by it, from their specs)."""
    try:
        return builder(game.name, node.name)(node.cls, dict(node.kwargs), game, spec)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"agent {node.name!r}: {exc}") from None
