"""The analysis panel for Reinforce Tactics (issue 27 point 6): a turn planner's report of the
position on the board is the whole turn it would play (legal in sequence from that position,
checked here by replaying it on the core, chance by its likeliest outcome), its value, and the
alternatives it tried (the sampling searches' most visited turns, the evolution's fittest, the
greedy planner's best-scored first acts). Plain-Python kernels (``jit=false``) and fixed
iteration counts, so the searches are quick and repeatable without a numba compile."""
from __future__ import annotations

import math
import random

import pytest

pytest.importorskip("flask")

from agents.engine.turn_plan import alternatives, likeliest_line  # noqa: E402
from core.games import make_game  # noqa: E402
from util.arena.web.app import create_app  # noqa: E402
from util.arena.web.render import move_texts, turn_report  # noqa: E402

PARAMS = {"map": "beginner", "seed": 3}
SEARCHES = {"macro_mcts": "macro_mcts:jit=false,max_iters=30", "naive_mcts": "naive_mcts:jit=false,max_iters=30",
            "evolution": "evolution:jit=false,max_iters=40"}


def midgame(seed: int = 5, plies: int = 400):
    """States of a random game with units on the map (turns end with probability 0.15 a decision)."""
    game = make_game("reinforce_tactics", **PARAMS)
    rng = random.Random(seed)
    end = game.end_turn_action
    states = [game.initial()]
    while len(states) < plies and not states[-1].is_terminal():
        legal = states[-1].legal_actions()
        states.append(states[-1].apply(end if end in legal and rng.random() < 0.15 else rng.choice(legal)))
    while states[-1].is_chance_node():
        states.append(likeliest_line(states[-1]))
    assert not states[-1].is_terminal()
    return states


@pytest.fixture(scope="module")
def session():
    client = create_app(db=None).test_client()
    states = midgame()
    r = client.post("/api/sessions", json={"game": "reinforce_tactics", "params": PARAMS, "agent": "random:seed=1",
                                          "time": 0.2, "human": states[-1].current_player(), "moves": move_texts(states)})
    assert r.status_code == 201, r.json
    return client, r.json["id"], states[-1]


def analyse(session, spec: str) -> dict:
    client, sid, _state = session
    r = client.post(f"/api/sessions/{sid}/analyze", json={"agent": spec, "time": 30})
    assert r.status_code == 200, r.json
    return r.json


def replay(state, actions: list[int]) -> None:
    """``actions`` are legal one after the other from ``state`` (likeliest chance between them),
    the mover's all along, and the last ends the turn."""
    me, end = state.current_player(), state.game.end_turn_action
    s = state
    for a in actions:
        s = likeliest_line(s)
        assert not s.is_terminal() and s.current_player() == me
        assert a in s.legal_actions(), (a, s.action_to_string(a) if 0 <= a < s.game.num_actions else a)
        s = s.apply(a)
    assert actions[-1] == end


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_a_sampling_search_reports_its_turn_value_and_alternatives(session, name):
    state = session[2]
    a = analyse(session, SEARCHES[name])
    turn = a["turn"]
    assert a["kind"] == "turn" and turn["player"] == state.current_player()
    assert len(turn["actions"]) >= 2  # the position has units that can act: more than "end"
    replay(state, turn["actions"])
    assert [m["action"] for m in turn["moves"]] == turn["actions"]
    assert a["action"] == turn["actions"][0]
    assert isinstance(turn["value"], float) and -1 <= turn["value"] <= 1 and turn["value"] == a["value"]
    alts = turn["alternatives"]
    assert len(alts) >= 2
    for alt in alts:
        replay(state, alt["actions"])
    assert len({tuple(alt["actions"]) for alt in alts}) == len(alts)  # merged duplicates: distinct turns
    if name == "evolution":
        assert turn["ranked_by"] == "fitness"
        fit = [alt["fitness"] for alt in alts]
        assert fit == sorted(fit, reverse=True) and math.isclose(fit[0], turn["value"])
    else:
        assert turn["ranked_by"] == "visits"
        visits = [alt["visits"] for alt in alts]
        assert visits == sorted(visits, reverse=True) and sum(visits) <= 30
        assert math.isclose(alts[0]["value"], turn["value"])  # the plan is the most visited turn
    assert alts[0]["actions"] == turn["actions"]


def test_the_greedy_planner_reports_its_plan_and_first_acts(session):
    state = session[2]
    a = analyse(session, "greedy:jit=false")
    turn = a["turn"]
    replay(state, turn["actions"])
    assert turn["unit"] == "heuristic" and isinstance(turn["value"], float)
    alts = turn["alternatives"]
    assert turn["ranked_by"] == "first decision" and len(alts) >= 2
    legal = state.legal_actions()
    assert all(len(alt["actions"]) == 1 and alt["actions"][0] in legal for alt in alts)
    values = [alt["value"] for alt in alts]
    assert values == sorted(values, reverse=True)
    # its first act is the best-scored one (a tie may list another first)
    first = next(alt for alt in alts if alt["actions"] == turn["actions"][:1])
    assert first["value"] == values[0]


def test_the_report_skips_what_is_not_legal_in_sequence():
    state = midgame()[-1]
    legal = state.legal_actions()
    end = state.game.end_turn_action
    act = next(a for a in legal if a != end)
    illegal = next(a for a in range(state.game.num_actions) if a not in legal)
    info = {"plan": [illegal, act, act, end, act], "value": 0.5, "value_unit": "reward",
            "alternatives": [{"actions": [act, end], "visits": 3, "value": 0.25}, "garbage"]}
    rep = turn_report(info, state)
    assert rep["actions"] == [act, end]  # the illegal one, the repeat and what follows the end dropped
    assert len(rep["alternatives"]) == 1 and rep["alternatives"][0]["actions"] == [act, end]
    assert rep["share"] == 0.75


def test_other_games_panels_have_no_turn():
    client = create_app(db=None).test_client()
    sid = client.post("/api/sessions", json={"game": "tictactoe", "agent": "random:seed=1", "time": 0.1, "human": 0}).json["id"]
    a = client.post(f"/api/sessions/{sid}/analyze", json={"agent": "mcts:seed=1,jit=false", "time": 0.3}).json
    assert a["kind"] == "mcts" and a["turn"] is None  # its panel as before: rows and line, no turn


def test_alternatives_rank_as_the_searches_choose():
    tried = [[(1, 9), 3, 0.3], [(2, 9), 5, -1.0], [(3, 9), 3, 0.9], [(4, 9), 0, 0.0], [(5, 9), 1, 0.95, "extra"]]
    by_visits = alternatives(tried, limit=3)
    assert [a["actions"] for a in by_visits] == [[2, 9], [3, 9], [1, 9]]  # most visited, ties: the better mean
    assert by_visits[1] == {"actions": [3, 9], "visits": 3, "value": 0.3}
    by_fitness = alternatives(tried, by="fitness")
    assert [a["actions"] for a in by_fitness] == [[5, 9], [3, 9], [1, 9], [2, 9]]  # the unevaluated one left out
