"""The engine's heuristic parameters (agents.engine.params): by name (``heuristic=lines,power=3``,
or ``params=power=3``) or all by position (``params=1.5/2``), read the same by every engine
agent, checked against the heuristic's declaration (names, count, bounds)."""
from __future__ import annotations

import pytest

from agents import registry
from agents.engine.agents import AlphaBetaAgent
from agents.engine.expectimax import ExpectimaxAgent
from agents.engine.negamax import Search
from agents.engine.params import heuristic_values, parse_params
from agents.engine.spec import SpecError
from core.game import parse_line
from core.games import make_game


@pytest.mark.parametrize("text, numbers", [
    ("1.5/2", [1.5, 2.0]),
    (" 1.5 / 2 ", [1.5, 2.0]),
    ("-1e-3/4/0", [-0.001, 4.0, 0.0]),
    ("7", [7.0]),
    ("1;2", [1.0, 2.0]),  # older specs' separators are still read
    ("1,2", [1.0, 2.0]),
    ("", None),
    ("/", None),
    ("power=3/open_weight=0.25", {"power": 3.0, "open_weight": 0.25}),
])
def test_parse_params_reads_numbers_separated_by_slashes(text: str, numbers) -> None:
    assert parse_params(text) == numbers


@pytest.mark.parametrize("text", ["a/2", "1.5/two", "1..5", "power=2/3"])
def test_parse_params_refuses_words_showing_the_form(text: str) -> None:
    with pytest.raises(ValueError, match=r"e\.g\. power=2/threat=1, or all the heuristic's numbers in order, e\.g\. 1\.5/2"):
        parse_params(text)


def test_values_count_against_the_declaration() -> None:
    game = make_game("connect4_count", rows=4, columns=5)
    assert heuristic_values(game, "lines", "1/2") == [1.0, 2.0]
    assert heuristic_values(game, "lines", "") == [0.5, 2.0]
    with pytest.raises(ValueError, match=r"heuristic 'lines' takes 2 numbers \(open_weight/power, defaults 0.5/2\); got 1"):
        heuristic_values(game, "lines", "1")
    with pytest.raises(ValueError, match="takes no numbers"):
        heuristic_values(game, "score", "1")


def test_the_numbers_reach_the_search() -> None:
    game = make_game("connect4_count", rows=4, columns=5)
    state = parse_line(game, "")
    agent = AlphaBetaAgent(game=game, heuristic="lines", params="0.25/7")
    tuned = agent.kernel_search(False).run(state, 3).value
    assert tuned == Search(game, "lines", [0.25, 7.0], jit=False, ply_cap=3).run(state, 3).value
    assert tuned != Search(game, "lines", None, jit=False, ply_cap=3).run(state, 3).value  # the defaults differ


@pytest.mark.parametrize("cls", [AlphaBetaAgent, ExpectimaxAgent])
def test_a_wrong_count_is_refused_by_every_depth_first_agent(cls) -> None:
    game = make_game("connect4_count", rows=4, columns=5)
    with pytest.raises(ValueError, match="takes 2 numbers"):
        cls(game=game, heuristic="lines", params="1")
    assert cls(game=game, heuristic="lines", params="1/3")._params == [1.0, 3.0]


def test_a_spec_carries_the_numbers_and_a_bad_one_names_the_form() -> None:
    game = make_game("connect4_count", rows=4, columns=5)
    assert registry.make("alphabeta:heuristic=lines,params=1/3", game)._params == [1.0, 3.0]
    with pytest.raises(SpecError, match="separated by '/'"):
        registry.make("alphabeta:heuristic=lines,params=x", game)


def test_mcts_leaves_take_the_same_numbers_in_the_same_form() -> None:
    """One form from a spec to every search: MCTS's heuristic leaves read ``params`` as
    alpha-beta does, refuse a wrong count alike, and the numbers change what the leaves say."""
    from agents.engine.mcts import MCTSAgent

    game = make_game("connect4_count", rows=4, columns=5)
    agent = registry.make("mcts:leaf=heuristic,heuristic=lines,params=0.25/7,jit=false,max_sims=300", game)
    assert agent.heuristic_values == [0.25, 7.0]
    with pytest.raises((ValueError, SpecError), match="takes 2 numbers"):
        registry.make("mcts:leaf=heuristic,heuristic=lines,params=1,jit=false", game)
    state = parse_line(game, "")
    values = []
    for params in ("", "0.25/7"):
        a = MCTSAgent(game=game, leaf="heuristic", heuristic="lines", params=params, jit=False, max_sims=300,
                      background_compile=False)
        a.choose(state, 1e18)
        values.append(a.info()["value"])
    assert values[0] != values[1]
