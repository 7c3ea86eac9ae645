"""Every agent's ``info()`` is one typed value, :class:`agents.engine.info.SearchInfo`: checked
over the registry (every agent of every game, one move each), and the value's own rules (the
JSON form, the read-only mapping, no field hidden in ``extra``)."""
from __future__ import annotations

import json
import random
import time

import pytest

from agents import registry
from agents.engine.info import EMPTY, SearchInfo, info_of
from agents.engine.spec import SpecError
from core.games import make_game
from core.games import names as game_names

SMALL = ("tictactoe", "connectx")  # the default suite's games: every agent moves in well under a second
# mc_learner plays from a trained table (a file, data/ has none): its info is checked in tests/test_mc_learner.py.
CHOICES = [(g, n) for g in game_names() for n in registry.names(g) if n != "mc_learner"]
SLOW: set[tuple[str, str]] = set()  # agents of the small games too slow for the default suite


def _one_move(game_name: str, name: str, seed: int) -> tuple[object, object]:
    game = make_game(game_name)
    try:
        agent = registry.make(name if game.perfect_information else f"{name}:cheat=1", game)  # the opt-in: harmless for fair agents
    except SpecError as exc:  # the exact solvers refuse Reinforce Tactics by design, with this message
        if "too big to solve exactly" not in str(exc):
            raise
        pytest.skip(str(exc))
    state = game.initial()
    rng = random.Random(seed)
    for _ in range(rng.randrange(3)):  # a few random plies in (decisions only: chance nodes sampled)
        while state.is_chance_node():
            state = state.apply(rng.choice(state.legal_actions()))
        after = state.apply(rng.choice(state.legal_actions()))
        if after.is_terminal():  # a short game (Kuhn poker: two or three decisions) is not played to its end
            break
        state = after
    while state.is_chance_node():
        state = state.apply(rng.choice(state.legal_actions()))
    action = agent.choose(state, time.perf_counter() + 0.3)
    assert action in state.legal_actions(), (game_name, name, action)
    return agent, action


def _check(game_name: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONNECTX_NUMBA", "0")  # the plain path: no compile in the default suite
    agent, action = _one_move(game_name, name, seed=len(name))
    info = agent.info()
    assert isinstance(info, SearchInfo), (game_name, name, type(info))
    assert info_of(agent) == info
    json.dumps(info.as_dict())  # the JSON consumers' form
    if info.pv:
        assert info.pv[0] == action, (game_name, name, info.pv)


@pytest.mark.parametrize("game_name,name", [c for c in CHOICES if c[0] in SMALL and c not in SLOW])
def test_every_agent_of_the_small_games_reports_a_search_info(game_name, name, monkeypatch):
    _check(game_name, name, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("game_name,name", [c for c in CHOICES if c[0] not in SMALL or c in SLOW])
def test_every_agent_of_the_other_games_reports_a_search_info(game_name, name, monkeypatch):
    _check(game_name, name, monkeypatch)


def test_the_json_form_is_the_set_fields_then_extra():
    info = SearchInfo(value=0.5, pv=(3, 2), nodes=10, exact=False, action_values={3: 0.5}, extra={"rule": "win"})
    assert info.as_dict() == {"value": 0.5, "pv": [3, 2], "nodes": 10, "exact": False, "action_values": {3: 0.5}, "rule": "win"}
    assert info["rule"] == "win" and info.get("depth") is None and "simulations" not in info
    assert not EMPTY and len(info) == 6


def test_from_dict_puts_known_keys_in_fields_and_the_rest_in_extra():
    info = SearchInfo.from_dict({"value": 1, "pv": [4], "simulations": 7, "reused": 3}, action=4)
    assert (info.value, info.pv, info.simulations, info.action, dict(info.extra)) == (1, (4,), 7, 4, {"reused": 3})
    assert SearchInfo.from_dict(info.as_dict()) == info


def test_a_field_cannot_hide_in_extra():
    with pytest.raises(ValueError, match="typed fields"):
        SearchInfo(extra={"value": 1.0})
    assert SearchInfo(value=1.0).replace(depth=3, note="x").as_dict() == {"value": 1.0, "depth": 3, "note": "x"}


def test_info_of_answers_for_an_agent_without_info_and_converts_a_plain_mapping():
    class Bare:
        pass

    class Plain:
        def info(self):
            return {"depth": 2, "mine": True}

    assert info_of(Bare()) is EMPTY
    assert info_of(Plain()).depth == 2 and info_of(Plain()).extra == {"mine": True}


def test_the_line_of_an_mcts_starts_with_the_action_chosen(monkeypatch):
    # With its solver MCTS may choose a proven child that another child outnumbers in visits (a
    # loaded machine's short search did, in the default suite): the line starts with the choice.
    from agents.engine.mcts import MCTSAgent

    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    game = make_game("tictactoe")
    least_visited: dict[str, int] = {}

    def choose_least_visited(self, state, legal):
        kids = [k for k in self._tree.children(0) if k["action"] in legal and k["visits"] > 0]
        least_visited["action"] = min(kids, key=lambda k: (k["visits"], k["action"]))["action"]
        return least_visited["action"]

    monkeypatch.setattr(MCTSAgent, "_best", choose_least_visited)
    agent = registry.make("mcts:max_sims=400", game)
    action = agent.choose(game.initial(), time.perf_counter() + 30)
    info = agent.info()
    visits = info.extra["visits"]
    assert action == least_visited["action"] and info.pv[0] == action, (action, info.pv, visits)
    assert max(visits.values()) > visits[action]  # the most visited child is another
