"""The game-generic agents by name: ``name -> "module:Class"``, the base table of
:mod:`agents.registry` (which merges each game's own table over it).

Each class is a dataclass whose fields are its parameters, with a ``games`` class attribute:
the game names it supports, or None for every game. Specs are ``name:key=value,...``
(:func:`agents.engine.spec.parse_spec`, :func:`agents.engine.spec.convert_params`). A generic
search added to this package registers here with one line.
"""
from __future__ import annotations

import importlib
from typing import Any

from agents.engine.spec import SpecError, convert_params, parse_spec

ENGINE_AGENTS: dict[str, str] = {
    "random": "agents.engine.random_agent:RandomAgent",
    "mcts": "agents.engine.mcts:MCTSAgent",
    "ant_colony": "agents.engine.mcts:AntColonyAgent",
    "alphabeta": "agents.engine.agents:AlphaBetaAgent",
    "minimax": "agents.engine.agents:MinimaxAgent",
    "solver": "agents.engine.agents:SolverAgent",
    "perfect": "agents.engine.opening_book:BookSolverAgent",
    "solve_first": "agents.engine.solve_first:SolveFirstAgent",
    "expectimax": "agents.engine.expectimax:ExpectimaxAgent",
    "mc_learner": "agents.engine.mc_learner:MCLearnerAgent",
    "macro_mcts": "agents.engine.macro_mcts:MacroMCTSAgent",
    "naive_mcts": "agents.engine.naive_mcts:NaiveMCTSAgent",
    "evolution": "agents.engine.evolution:EvolutionAgent",
    "ismcts": "agents.engine.ismcts:ISMCTSAgent",
    "pimc": "agents.engine.pimc:PIMCAgent",
    "root_parallel": "agents.engine.root_parallel:RootParallelAgent",
    "cfr": "agents.engine.cfr_agent:CFRAgent",
}


BUNDLE_PREFIX = __name__[:-len("agents.engine.registry")]
"""The private top package a submission bundles the toolkit under (base/bundle.py), with its dot
('' in the repo): an agent named here by string is imported under it, as the bundle has it."""


def supports(cls: type, game_name: str) -> bool:
    """Whether agent class ``cls`` plays ``game_name`` (:func:`refusal` has nothing to say)."""
    return refusal(cls, game_name) is None


def refusal(cls: type, game_name: str) -> str | None:
    """Why agent class ``cls`` does not play ``game_name``, in a few words, or None when it does:
    its ``games`` (None: every game) leave it out; ``turn_games_only`` is set and the game's turn
    is one decision (:func:`has_turns`); ``needs_exact_solver`` is set and the exact solver does
    not take the game (:func:`solvable`); ``hidden_information_only`` is set and the game is of
    perfect information (:func:`perfect_information`)."""
    games = getattr(cls, "games", None)
    if games is not None and game_name not in games:
        return f"it plays: {', '.join(games)}"
    if getattr(cls, "turn_games_only", False) and not has_turns(game_name):
        return "it searches turns of several decisions, and a turn of this game is one"
    if getattr(cls, "needs_exact_solver", False) and not solvable(game_name):
        return "it needs the exact solver, and the game is too big to solve exactly"
    if getattr(cls, "hidden_information_only", False) and perfect_information(game_name):
        return "it plays games of hidden information, and this one has none"
    return None


def has_turns(game_name: str) -> bool:
    """Whether the registered game ``game_name`` has turns of several decisions
    (``Game.end_turn_action``); a name the game registry does not know (a game built in a test
    or a script) is given the benefit of the doubt."""
    from core.games import game_class

    try:
        return game_class(game_name).end_turn_action is not None
    except ValueError:
        return True


def solvable(game_name: str) -> bool:
    """Whether the exact solver (:mod:`agents.engine.exact`) takes the registered game
    ``game_name``: not a game whose state is an array (``Game.array_state``: too big to solve,
    :func:`agents.engine.exact.refuse_exact`); an unknown name is given the benefit of the doubt."""
    from core.games import game_class

    try:
        return not game_class(game_name).array_state
    except ValueError:
        return True


def perfect_information(game_name: str) -> bool:
    """Whether the registered game ``game_name`` is of perfect information (``Game.perfect_information``);
    an unknown name is given the benefit of the doubt (False)."""
    from core.games import game_class

    try:
        return game_class(game_name).perfect_information
    except ValueError:
        return False


CHEAT = "cheat"
"""The spec parameter every agent takes at the top of a spec (``alphabeta:cheat=1``): the opt-in
that lets an agent which reads the whole state play a game of hidden information
(:func:`perfect_information_refusal`)."""


def observation_only(cls: type) -> bool:
    """Whether agent class ``cls`` decides from what the mover observes only (its class attribute
    ``observation_only``: random play, the information-set searches, the CFR policy): on a game of
    hidden information it plays fair. Every other agent reads the whole state it is handed."""
    return bool(getattr(cls, "observation_only", False))


def perfect_information_refusal(cls: type, name: str, game: Any) -> str | None:
    """Why agent ``name`` (class ``cls``) may not play ``game`` (a :class:`core.game.Game`: its
    parameters may hide information, as ``fog=1``) without the opt-in :data:`CHEAT`, or None:
    the game hides information (``Game.perfect_information`` False) and the agent reads the whole
    state (not :func:`observation_only`), so it would see what its opponent hides."""
    if getattr(game, "perfect_information", True) or observation_only(cls):
        return None
    return (f"agent {name!r} reads the whole state, and {game.name!r} hides information from its players "
            f"(it would see what the opponent hides); give {name}:{CHEAT}=1 to let it (a ceiling, not fair play)")


def generic_class(name: str, game_name: str) -> type:
    """The class of the generic agent ``name`` (:data:`ENGINE_AGENTS`) for ``game_name``;
    SpecError for another name, or when it does not play the game."""
    if name not in ENGINE_AGENTS:
        raise SpecError(f"unknown generic agent {name!r}; valid: {', '.join(ENGINE_AGENTS)}")
    module, cls_name = ENGINE_AGENTS[name].split(":")
    cls = getattr(importlib.import_module(BUNDLE_PREFIX + module), cls_name)
    why = refusal(cls, game_name)
    if why is not None:
        raise SpecError(f"agent {name!r} does not play {game_name!r}; {why}")
    return cls


def make_generic(spec: str, game: Any) -> Any:
    """The generic agent of ``spec`` for ``game`` (names of :data:`ENGINE_AGENTS` only: an engine
    search that builds a helper agent by spec, e.g. a fallback, stays game-generic); the agents
    of every game: :func:`agents.registry.make`."""
    name, params = parse_spec(spec)
    cls = generic_class(name, game.name)
    try:
        return cls(game=game, **convert_params(cls, name, params))
    except (TypeError, ValueError) as exc:
        raise SpecError(f"agent {name!r}: {exc}") from None
