"""The one agent registry (agents/registry.py): every game's table is the generic one with the
game's own entries merged over it, by construction; a game's table is added with one line."""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from agents import registry
from agents.engine.registry import ENGINE_AGENTS
from agents.engine.spec import SpecError
from core.games import make_game
from core.games import names as game_names


@pytest.mark.parametrize("game_name", game_names())
def test_a_games_table_is_the_generic_one_under_its_own(game_name):
    table = registry.table(game_name)
    assert set(table) == set(ENGINE_AGENTS) | set(registry.own_table(game_name))
    for name, target in table.items():
        assert target == registry.own_table(game_name).get(name, ENGINE_AGENTS.get(name))
    assert list(table)[:len(registry.own_table(game_name))] == list(registry.own_table(game_name))  # the game's own names first


def test_the_generic_table_holds_only_generic_searches_and_each_game_table_its_own_agents():
    """A game's agent in the generic table would play every game it claims under a generic name:
    the generic table names modules of agents/engine/ only, a game's table its own package's
    (or a generic class it configures, as Quixo's mc_learner)."""
    assert all(t.startswith("agents.engine.") for t in ENGINE_AGENTS.values()), ENGINE_AGENTS
    for game_name, module in registry.GAME_TABLES.items():
        package = module if module.count(".") == 1 else module.rpartition(".")[0]
        for name, target in registry.own_table(game_name).items():
            assert target.startswith((package + ".", "agents.engine.")), (game_name, name, target)


def test_a_games_own_name_outranks_the_generic_one():
    from agents.connectx.perfect import PerfectAgent
    from agents.engine.opening_book import BookSolverAgent

    assert registry.agent_class("connectx", "perfect") is PerfectAgent
    assert registry.agent_class("tictactoe", "perfect") is BookSolverAgent
    agent = registry.make("perfect:background_compile=false", make_game("connectx"))
    assert isinstance(agent, PerfectAgent) and agent.game.name == "connectx"
    assert isinstance(registry.make("perfect", make_game("tictactoe")), BookSolverAgent)


@pytest.mark.parametrize("spec,game_name,words", [
    ("quixo_perfect", "connectx", "does not play 'connectx'; it plays: quixo"),
    ("negamax", "tictactoe", "does not play 'tictactoe'; it plays: connectx"),
    ("quantik_strategy", "quixo", "does not play 'quixo'; it plays: quantik"),
    ("nosuch", "quantik", "unknown agent 'nosuch'; valid agents: quantik_strategy, random"),
    ("alphabeta:nosuch=1", "tictactoe", "has no parameter 'nosuch'"),
    ("random:server=1", "connectx", "has no parameter 'server'"),
])
def test_bad_specs_get_one_line_that_says_why(spec, game_name, words):
    with pytest.raises(SpecError, match=words):
        registry.make(spec, make_game(game_name))


def test_names_of_a_game_are_those_that_play_it():
    assert registry.names("quixo")[:2] == ["quixo_perfect", "course_minimax"]
    assert "negamax" in registry.names("connectx") and "negamax" not in registry.names("tictactoe")
    assert "quantik_strategy" not in registry.names("quixo")
    every = registry.names()
    assert len(every) == len(set(every)) and {"negamax", "quixo_perfect", "quantik_strategy", "solver"} <= set(every)


def test_a_games_table_added_with_one_line_builds_through_its_hook(monkeypatch):
    """A table from outside the tree: its own agent, its generic names, its build hook."""

    @dataclass
    class ToyAgent:
        game: Any = None
        depth: int = 1  # a parameter, converted from the spec's text
        games: ClassVar[tuple[str, ...]] = ("tictactoe",)

        def choose(self, state: Any, deadline: float) -> int:
            return state.legal_actions()[0]

    built: list[str] = []

    def build(cls: type, kwargs: dict[str, Any], game: Any, spec: str) -> Any:
        built.append(spec)
        return cls(game=game, **kwargs)

    module = types.ModuleType("toy_agents")
    module.AGENTS = {"toy": "toy_agents:ToyAgent", "random": "toy_agents:ToyAgent"}
    module.build = build
    module.ToyAgent = ToyAgent
    monkeypatch.setitem(sys.modules, "toy_agents", module)
    monkeypatch.setitem(registry.GAME_TABLES, "tictactoe", "toy_agents")  # the one line
    game = make_game("tictactoe")
    agent = registry.make("toy:depth=3", game)
    assert isinstance(agent, ToyAgent) and agent.depth == 3 and built == ["toy:depth=3"]
    assert isinstance(registry.make("random", game), ToyAgent)  # its own name over the generic one
    assert type(registry.make("alphabeta", game)).__module__ == "agents.engine.agents"  # the generic ones stay
    assert registry.names("tictactoe")[:2] == ["toy", "random"]
    with pytest.raises(SpecError, match="does not play 'quixo'; it plays: tictactoe"):
        registry.make("toy", make_game("quixo"))
