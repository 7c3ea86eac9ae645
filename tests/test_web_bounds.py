"""No request can hang the web app or take it down: every size, count, time and id a client sends
is bounded and checked before any work (a 4xx with a JSON message naming the parameter, never a
command-line flag), bodies are small and shallow, agents' parameters name no server file, the
sessions' tables and the matches running at once are capped, and a bug is a JSON 500."""
from __future__ import annotations

import pytest

pytest.importorskip("flask")

from util.arena.web import (
    dashboard,  # noqa: E402
    play_api,  # noqa: E402  (the play screen's blueprint: a bug in it is patched in)
)
from util.arena.web.app import MAX_BODY, create_app  # noqa: E402
from util.arena.web.request_body import json_depth  # noqa: E402
from util.arena.web.sessions import SessionStore  # noqa: E402


@pytest.fixture()
def client(tmp_path):
    from util.arena.store import Store

    db = tmp_path / "t.sqlite"
    Store(db).close()  # an empty store: the dashboard's routes reach their checks
    return create_app(db=str(db)).test_client()


def session(client, **body) -> dict:
    r = client.post("/api/sessions", json={"game": "tictactoe", "agent": "random:seed=1", "time": 0.05, **body})
    assert r.status_code == 201, r.json
    return r.json


NEW = "/api/sessions"
CASES = [
    # board shapes: bounded and parsed strictly (the game's declared bounds)
    ({"game": "connectx", "params": {"rows": 100000, "columns": 100000}}, "rows must be an integer from 1 to 32"),
    ({"game": "connectx", "params": {"rows": 1e308}}, "rows must be an integer from 1 to 32"),
    ({"game": "connectx", "params": {"rows": "1e308"}}, "rows must be an integer"),
    ({"game": "connectx", "params": {"rows": 1.5}}, "rows must be an integer"),
    ({"game": "connectx", "params": {"columns": "\u0663"}}, "columns must be an integer"),  # Arabic-Indic three
    ({"game": "connectx", "params": {"rows": True}}, "rows must be an integer"),
    ({"game": "connect4_count", "params": {"rows": 1000, "columns": 1000}}, "rows must be an integer from 1 to 32"),
    ({"game": "quixo", "params": {"max_plies": 10 ** 30}}, "max_plies must be an integer from 0 to 1000000"),
    # tables, counts and times of agents
    ({"game": "connectx", "agent": "perfect:tt_size=1e20"}, "tt_size of agent 'perfect' must be an integer"),
    ({"game": "connectx", "agent": "perfect:tt_size=99999999999999999999"}, "tt_size of agent 'perfect' must be"),
    ({"game": "connectx", "agent": "perfect:tt_size=200000000"}, "on this server"),
    ({"game": "connectx", "agent": "alphabeta:tt_bits=30"}, "tt_bits of agent 'alphabeta' must be an integer from 4 to 22"),
    ({"game": "tictactoe", "agent": "alphabeta:tt_bits=24"}, "on this server"),
    ({"game": "connectx", "agent": "mcts:capacity=1e11"}, "capacity of agent 'mcts' must be an integer"),
    ({"game": "connectx", "agent": "mcts:margin=1e308"}, "margin of agent 'mcts' must be a number from 0 to 30"),
    ({"game": "connectx", "agent": "mcts:c=nan"}, "c of agent 'mcts' must be a finite number"),
    ({"game": "tictactoe", "agent": "mcts:seed=1.5"}, "seed of agent 'mcts' must be an integer"),
    ({"game": "tictactoe", "time": "nan"}, "time (seconds) must be a number from 0.01 to 30"),
    ({"game": "tictactoe", "time": 1e308}, "time (seconds) must be a number from 0.01 to 30"),
    ({"game": "tictactoe", "human": True}, "human must be 0"),
    # files: a client cannot make the server open a path of its choosing
    ({"game": "connectx", "agent": "mcts:cache=/etc/passwd"}, "cache of agent 'mcts' cannot name a file here"),
    ({"game": "connectx", "agent": "perfect:book=/etc/passwd"}, "book of agent 'perfect' cannot name a file here"),
    ({"game": "quixo", "agent": "quixo_perfect:table=/etc/passwd"}, "cannot name a file here"),
]


@pytest.mark.parametrize("body, words", CASES)
def test_bad_values_are_a_400_naming_the_parameter_before_any_work(client, body, words) -> None:
    r = client.post(NEW, json={"agent": "random", "time": 0.05, **body})
    assert r.status_code == 400, (r.status_code, r.json)
    message = r.json["error"]
    assert words in message, message
    assert "--" not in message and "Traceback" not in message, message  # no command-line flags on the web


def test_the_same_values_in_range_are_served(client) -> None:
    """The bounds refuse only what is out of range: the edges are games."""
    assert session(client, game="connectx", params={"rows": 32, "columns": 32, "inarow": 4})["name"] == "connectx"
    assert session(client, game="connectx", params={"rows": "5", "columns": 6.0})["game"].startswith("connectx:rows=5,columns=6")
    assert session(client, game="connectx", agent="mcts:cache=,capacity=1000")["agent"] == "mcts:cache=,capacity=1000"


def test_analysis_and_tree_requests_are_bounded(client) -> None:
    sid = session(client, game="connectx", params={"rows": 4, "columns": 5, "inarow": 3})["id"]
    for body, words in [({"time": "inf"}, "time (seconds) must be"), ({"agent": "mcts:cache=/etc/hostname"}, "cannot name a file"),
                        ({"agent": "alphabeta:tt_bits=26"}, "on this server")]:
        r = client.post(f"/api/sessions/{sid}/analyze", json=body)
        assert r.status_code == 400 and words in r.json["error"], r.json
    for query in ("depth=7", "depth=1.5", "depth=\u0663", "depth=" + "9" * 5000):
        r = client.get(f"/api/sessions/{sid}/tree?{query}")
        assert r.status_code == 400 and "depth must be an integer from 1 to 6" in r.json["error"], r.json


@pytest.mark.parametrize("data, status, words", [
    ("[" * 100_000 + "]" * 100_000, 413, "larger than"),  # past the body limit
    ("[" * 5_000 + "]" * 5_000, 400, "nests deeper"),  # small, but deeper than a parser's recursion
    ('{"game": "tictactoe", "params": ' + "[" * 20 + "]" * 20 + "}", 400, "nests deeper"),
    ("{not json", 400, "not valid JSON"),
    (b"\xff\xfe", 400, "not UTF-8"),
])
def test_bodies_are_small_shallow_json(client, data, status, words) -> None:
    r = client.post(NEW, data=data, content_type="application/json")
    assert r.status_code == status and words in r.json["error"], (r.status_code, r.json)
    r = client.post("/api/db/matches", data=data, content_type="application/json")
    assert r.status_code == status and words in r.json["error"], (r.status_code, r.json)


def test_json_depth_ignores_brackets_in_strings() -> None:
    assert json_depth('{"a": "[[[[[[", "b": [1, {"c": "\\"]]]"}]}') == 3
    assert json_depth("1") == 0


@pytest.mark.parametrize("url, status, words", [
    ("/api/db/games/9223372036854775808", 400, "game id must be an integer from 1 to 9223372036854775807"),
    ("/api/db/games/0", 400, "game id must be an integer from 1"),
    ("/api/db/games/-1", 400, "game id must be an integer"),
    ("/api/db/games/9223372036854775807", 404, "no game 9223372036854775807"),
    ("/api/db/standings?run=99999999999999999999999", 400, "run must be a run id"),
    ("/api/db/games?run=1.5", 400, "run must be a run id"),
    ("/api/db/games?run=%D9%A3", 400, "run must be a run id"),
    ("/api/db/standings?game=connectx:rows=100000", 400, "rows must be an integer from 1 to 32"),
])
def test_dashboard_ids_and_games_are_checked(client, url, status, words) -> None:
    r = client.get(url)
    assert r.status_code == status and words in r.json["error"], (r.status_code, r.json)


class _Running:
    """A match process that is still running (no real tournament is started)."""

    stderr = None

    def poll(self):
        return None


def test_matches_running_at_once_are_capped(client, monkeypatch) -> None:
    started = []
    monkeypatch.setattr(dashboard.subprocess, "Popen", lambda cmd, **kw: started.append(cmd) or _Running())
    body = {"agents": ["random", "random:seed=1"], "games": 2, "time": 0.05}
    codes = [client.post("/api/db/matches", json=body).status_code for _ in range(dashboard.MAX_RUNNING_MATCHES + 3)]
    assert codes == [202] * dashboard.MAX_RUNNING_MATCHES + [429] * 3
    assert len(started) == dashboard.MAX_RUNNING_MATCHES
    r = client.post("/api/db/matches", json=body)
    assert "at most" in r.json["error"]


@pytest.mark.parametrize("body, words", [
    ({"agents": ["random", "mcts:cache=results.npz"]}, "cannot name a file here"),  # no "/": a file beside the server
    ({"agents": ["random", "perfect:tt_size=1e20"]}, "tt_size of agent 'perfect' must be an integer"),
    ({"agents": ["random", "random"], "games": 10 ** 20}, "games must be an integer from 2 to"),
    ({"agents": ["random", "random"], "time": float("inf")}, "time (seconds a move) must be a number"),
    ({"agents": ["random", "random"], "time": "nan"}, "time (seconds a move) must be a number"),
])
def test_matches_are_checked_before_they_start(client, monkeypatch, body, words) -> None:
    monkeypatch.setattr(dashboard.subprocess, "Popen", lambda *a, **k: pytest.fail("a match started"))
    r = client.post("/api/db/matches", json=body)
    assert r.status_code == 400 and words in r.json["error"], r.json


def test_the_sessions_tables_are_capped_oldest_first() -> None:
    """A session holding a big table does not stay for ever: past the store's memory cap the
    least recently used sessions go (the newest always stays)."""
    from core.games import make_game

    store = SessionStore(capacity=100, memory=600 << 20)
    game = make_game("connectx")
    ids = [store.create(game, "perfect:tt_size=33554432", 1.0, 0).id for _ in range(3)]  # 256 MiB of table each
    assert len(store) == 2 and store.table_bytes() <= 600 << 20
    with pytest.raises(Exception, match="no game session"):
        store.get(ids[0])
    assert store.get(ids[2]).id == ids[2]


def deep_size(objects: list) -> int:
    """Bytes the objects take with everything they hold (each object counted once): the states,
    their word and history tuples and the ints in them that are not cached small ones."""
    import sys

    seen: set[int] = set()
    total = 0
    todo = list(objects)
    while todo:
        obj = todo.pop()
        if id(obj) in seen or (type(obj) is int and -5 <= obj <= 256):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, (tuple, list)):
            todo.extend(obj)
        elif hasattr(obj, "__slots__") or hasattr(obj, "__dict__"):
            fields = getattr(obj, "__dict__", None) or {k: getattr(obj, k) for k in obj.__slots__ if hasattr(obj, k)}
            todo.extend(v for k, v in fields.items() if k != "game")  # the game is shared, not a state's
    return total


@pytest.mark.parametrize("name, params", [("quixo", {"max_plies": 1000}), ("einstein", {}),
                                          ("connectx", {"rows": 20, "columns": 20}), ("reinforce_tactics", {})])
def test_the_states_memory_estimate_is_within_a_factor_of_two_of_what_they_take(name, params) -> None:
    """The store drops sessions by its estimate of their states' memory: each state holds its
    whole history (n**2 / 2 actions a game) and an object's overhead, which the estimate of
    words alone missed (Quixo: a twentieth of what its states take)."""
    import random

    from core.games import make_game

    for seed in range(4):  # games of several lengths: a fixed cost a state and the history's n**2 / 2 both tested
        store = SessionStore()
        session = store.create(make_game(name, **params), "random", 0.05, 0)
        rng = random.Random(seed)
        for _ in range(300):
            state = session.state
            if state.is_terminal():
                break
            session.push(state.apply(rng.choice(state.legal_actions())))
            session.roll()
        used = deep_size(session.states)
        assert len(session.states) > 8
        assert used / 2 <= store.state_bytes() <= 2 * used, (seed, store.state_bytes(), used)


def test_a_bug_is_a_json_500_with_no_traceback(client, monkeypatch) -> None:
    def broken(*a, **k):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(play_api, "view", broken)
    r = client.post(NEW, json={"game": "tictactoe", "agent": "random", "time": 0.05})
    assert r.status_code == 500 and "internal error (ZeroDivisionError)" in r.json["error"]
    assert "Traceback" not in r.get_data(as_text=True)


def test_body_limit_is_the_flask_setting() -> None:
    assert create_app().config["MAX_CONTENT_LENGTH"] == MAX_BODY


def test_an_illegal_move_is_named_in_the_games_notation(client) -> None:
    sid = session(client, human=0)["id"]
    r = client.post(f"/api/sessions/{sid}/move", json={"action": 99})
    assert r.status_code == 422 and "legal: a3 (0), b3 (1)" in r.json["error"], r.json
    r = client.post(f"/api/sessions/{sid}/move", json={"action": 10 ** 30})
    assert r.status_code == 422 and "a1 (6)" in r.json["error"], r.json


def test_a_stored_game_beyond_todays_bounds_is_a_422(client, tmp_path) -> None:
    """A store written before the bounds may hold a 40x40 board: shown as a 4xx, never a 500."""
    from util.arena.store import Store

    db = tmp_path / "t.sqlite"
    with Store(db) as store:
        a, b = store.player_id("random", "1", {}), store.player_id("random:seed=1", "1", {})
        gid = store.add_game("k", a, b, "40x40x4", {"moves": [], "winner": 0, "termination": "draw", "errors": {},
                                                                "move_times": [], "opening": []},
                             time_per_move=0.1, engine="direct", seed=0, source="test", game="connectx:rows=40,columns=40,inarow=4")
    r = client.get(f"/api/db/games/{gid}")
    assert r.status_code == 422 and "rows must be an integer from 1 to 32" in r.json["error"], r.json
