"""The web app's API (util.arena.web): whole games through it, bad requests get a 4xx with a message
(never a 500), sessions never share state, concurrent sessions stay apart."""
from __future__ import annotations

import random
import threading
import time

import pytest

from core import games as core_games

pytest.importorskip("flask")

from util.arena.web.app import create_app  # noqa: E402


@pytest.fixture()
def client(tmp_path):
    app = create_app(db=str(tmp_path / "none.sqlite"))
    return app.test_client()


def new(client, **body):
    body = {"game": "tictactoe", "agent": "random:seed=1", "time": 0.05, "human": 0, **body}
    r = client.post("/api/sessions", json=body)
    assert r.status_code == 201, r.json
    return r.json


RETRY = (409, 429, 503)  # busy session, all search slots or this client's requests taken, warming up: "try again"


def play_out(client, view, rng):
    """Random legal moves for the person, the agent's reply after each, to the end; an answer
    that says to try again (:data:`RETRY`, with Retry-After) is asked again, as the page does."""
    sid = view["id"]
    retries = 0
    while not view["terminal"]:
        if view["agent_to_move"]:
            r = client.post(f"/api/sessions/{sid}/agent")
        else:
            assert view["legal"], view
            r = client.post(f"/api/sessions/{sid}/move", json={"action": rng.choice(view["legal"])["action"]})
        if r.status_code in RETRY and "Retry-After" in r.headers and retries < 2000:
            retries += 1
            time.sleep(0.01)
            continue
        assert r.status_code == 200, r.json
        view = r.json
    return view


@pytest.mark.parametrize("game,params", [("tictactoe", {}), ("connectx", {"rows": 4, "columns": 5, "inarow": 3})])
@pytest.mark.parametrize("human", [0, 1])
def test_whole_games_through_the_api_end_with_a_result(client, game, params, human):
    rng = random.Random(human)
    for seed in range(3):
        view = new(client, game=game, params=params, human=human, agent=f"random:seed={seed}")
        end = play_out(client, view, rng)
        assert end["result"] and end["legal"] == [] and end["to_move"] is None
        assert len(end["history"]) >= 5


def test_text_actions_and_undo_return_the_turn_to_the_person(client):
    view = new(client)
    sid = view["id"]
    r = client.post(f"/api/sessions/{sid}/move", json={"action": "b2"})
    assert r.status_code == 200 and r.json["history"] == ["b2"]
    r = client.post(f"/api/sessions/{sid}/agent")
    assert r.status_code == 200 and len(r.json["history"]) == 2
    r = client.post(f"/api/sessions/{sid}/undo")
    assert r.status_code == 200 and r.json["history"] == [] and not r.json["agent_to_move"]
    assert client.post(f"/api/sessions/{sid}/undo").status_code == 409


@pytest.mark.parametrize("method,url,body,status", [
    ("post", "/api/sessions", {"game": "chess"}, 400),
    ("post", "/api/sessions", {"game": "connectx", "params": {"rows": "x"}}, 400),
    ("post", "/api/sessions", {"game": "connectx", "params": [1]}, 400),
    ("post", "/api/sessions", {"game": "connectx", "params": {"rows": 0}}, 400),
    ("post", "/api/sessions", {"game": "connectx", "params": {"inarow": 9}}, 400),
    ("post", "/api/sessions", {"game": "tictactoe", "agent": "nosuchagent"}, 400),
    ("post", "/api/sessions", {"game": "tictactoe", "agent": "random:bogus=1"}, 400),
    ("post", "/api/sessions", {"game": "tictactoe", "time": "soon"}, 400),
    ("post", "/api/sessions", {"game": "tictactoe", "time": 1e9}, 400),
    ("post", "/api/sessions", {"game": "tictactoe", "human": 2}, 400),
    ("post", "/api/sessions", [1, 2], 400),
    ("post", "/api/sessions/nope/move", {"action": 1}, 404),
    ("post", "/api/sessions/nope/agent", None, 404),
    ("get", "/api/nothing-here", None, 404),
    ("delete", "/api/games", None, 405),
    ("get", "/api/db/runs", None, 404),
])
def test_bad_requests_get_a_4xx_and_a_message(client, method, url, body, status):
    r = getattr(client, method)(url, json=body) if body is not None else getattr(client, method)(url)
    assert r.status_code == status
    assert isinstance(r.json["error"], str) and len(r.json["error"]) > 5


def test_moves_out_of_turn_illegal_or_malformed_are_refused(client):
    view = new(client)
    sid = view["id"]
    for body, status in [({"action": 9}, 422), ({"action": "z9"}, 400), ({"action": None}, 400), ({}, 400),
                         ({"action": True}, 400), ({"action": 1.5}, 400)]:
        r = client.post(f"/api/sessions/{sid}/move", json=body)
        assert r.status_code == status, (body, r.json)
    r = client.post(f"/api/sessions/{sid}/move", data="{not json", content_type="application/json")
    assert r.status_code == 400
    assert client.post(f"/api/sessions/{sid}/agent").status_code == 409  # the person's turn
    assert client.post(f"/api/sessions/{sid}/move", json={"action": 4}).status_code == 200
    r = client.post(f"/api/sessions/{sid}/move", json={"action": 0})  # a second move out of turn
    assert r.status_code == 409 and "agent's turn" in r.json["error"]
    assert client.get(f"/api/sessions/{sid}").json["history"] == ["b2"]


def test_sessions_do_not_share_state_and_ids_are_unguessable(client):
    a, b = new(client), new(client)
    assert a["id"] != b["id"] and len(a["id"]) >= 20
    client.post(f"/api/sessions/{a['id']}/move", json={"action": 0})
    assert client.get(f"/api/sessions/{b['id']}").json["history"] == []


def test_concurrent_sessions_play_whole_games_apart(client):
    errors: list[str] = []

    def worker(seed: int) -> None:
        try:
            rng = random.Random(seed)
            view = new(client, agent=f"random:seed={seed}")
            end = play_out(client, view, rng)
            final = client.get(f"/api/sessions/{view['id']}").json
            if final["history"] != end["history"]:
                errors.append(f"session {seed} changed after its end")
        except AssertionError as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors


def test_games_list_their_parameters_and_agents(client):
    listed = client.get("/api/games").json
    games = {g["name"]: g for g in listed["games"]}
    assert {"connectx", "tictactoe"} <= set(games)
    assert listed["default"] == core_games.DEFAULT_GAME and listed["default"] in games  # the page shows it first
    assert [p["name"] for p in games["connectx"]["params"]] == ["rows", "columns", "inarow"]
    assert "perfect" in games["connectx"]["agents"] and "random" in games["tictactoe"]["agents"]
