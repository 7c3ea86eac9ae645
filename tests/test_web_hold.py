"""No request can hold the web server: a move in progress holds no other request (frames read a
copy, requests that change the session get a 409 after a short wait), one client's burst gets a
429 beyond its share, a heavy body is refused before the parser runs, an agent warms up in the
background (a 503 with Retry-After meanwhile, never a compile inside a move), and any bad value,
whatever layer refuses it, is a 4xx.

Every "answered while held" is by construction: the agent blocks on an Event the test sets only
after the other requests have been answered, so no wall-clock bound is asserted."""
from __future__ import annotations

import contextlib
import threading
from types import SimpleNamespace

import pytest

pytest.importorskip("flask")

from util.arena.web import request_body  # noqa: E402
from util.arena.web import sessions as sessions_mod  # noqa: E402
from util.arena.web.app import MAX_PER_CLIENT, MAX_REPLAY_BODY, create_app  # noqa: E402

HOLD = 60.0  # seconds a blocking agent waits at most (reached only when the code under test holds a request)


class Blocking:
    """An agent whose move (and, with ``warm``, whose warm-up) lasts until ``release`` is set."""

    def __init__(self, warm: bool = False) -> None:
        self.entered = threading.Event()  # the move (or warm-up) has started
        self.release = threading.Event()
        self.done = False  # the move is over
        self.warm_thread: str | None = None
        if warm:
            self.warm_up = self._warm_up

    def _warm_up(self) -> float:
        self.warm_thread = threading.current_thread().name
        self.entered.set()
        self.release.wait(HOLD)
        return 0.0

    def choose(self, state, deadline):
        self.entered.set()
        self.release.wait(HOLD)
        self.done = True
        return state.legal_actions()[0]

    def info(self) -> dict:
        return {}


@pytest.fixture()
def app(tmp_path):
    return create_app(db=str(tmp_path / "none.sqlite"))


def new(client, human: int = 0, **extra) -> str:
    r = client.post("/api/sessions", json={"game": "tictactoe", "agent": "random:seed=1", "time": 0.05, "human": human, **extra})
    assert r.status_code == 201, r.json
    return r.json["id"]


def in_background(fn):
    out: dict = {}
    t = threading.Thread(target=lambda: out.setdefault("r", fn()), daemon=True)
    t.start()
    return t, out


def test_a_move_in_progress_holds_no_other_request(app) -> None:
    """One long agent move plus ten frames on its session held all eight threads: now the frames,
    the page, the session's view and other sessions are answered while the move still runs, and
    a request that would change the session gets a 409 with Retry-After."""
    client = app.test_client()
    store = app.extensions["sessions"]
    sid, other = new(client, human=1), new(client)  # the agent moves first in ``sid``
    agent = Blocking()
    store.get(sid).agent = agent
    thread, out = in_background(lambda: app.test_client().post(f"/api/sessions/{sid}/agent"))
    assert agent.entered.wait(HOLD)
    answered = []
    for _ in range(10):
        r = client.get(f"/api/sessions/{sid}/frame")
        answered.append((r.status_code, agent.done))
    for url in ("/", f"/api/sessions/{sid}", "/api/games"):
        answered.append((client.get(url).status_code, agent.done))
    busy = client.post(f"/api/sessions/{sid}/undo")
    answered.append((busy.status_code, agent.done))
    r = client.post(f"/api/sessions/{other}/move", json={"action": 4})
    answered.append((r.status_code, agent.done))
    answered.append((client.post(f"/api/sessions/{other}/agent").status_code, agent.done))
    agent.release.set()
    thread.join(HOLD)
    assert answered == [(200, False)] * 13 + [(409, False), (200, False), (200, False)], answered
    assert "busy" in busy.json["error"] and busy.headers["Retry-After"] == "1"
    assert out["r"].status_code == 200 and out["r"].json["history"] == ["a3"]


def test_a_second_analysis_of_a_session_is_a_409_not_a_wait(app, monkeypatch) -> None:
    client = app.test_client()
    sid = new(client)
    agent = Blocking()
    monkeypatch.setattr(sessions_mod, "make_agent", lambda spec, game: agent)
    thread, out = in_background(lambda: app.test_client().post(f"/api/sessions/{sid}/analyze", json={"agent": "x"}))
    assert agent.entered.wait(HOLD)
    r = client.post(f"/api/sessions/{sid}/analyze", json={"agent": "x"})
    held = agent.done
    agent.release.set()
    thread.join(HOLD)
    assert (r.status_code, held) == (409, False) and "busy" in r.json["error"], r.json
    assert out["r"].status_code == 200


def test_one_clients_burst_gets_a_429_beyond_its_share(app) -> None:
    """A client with MAX_PER_CLIENT API requests in progress gets a 429 for the next one; the
    pages, and other clients, are served; a search tree waits for no slot (a 429, not a 400)."""
    client = app.test_client()
    store = app.extensions["sessions"]
    tree_sid = new(client)
    agents, threads = [], []
    for _ in range(MAX_PER_CLIENT):
        sid = new(client, human=1)
        agent = Blocking()
        store.get(sid).agent = agent
        agents.append(agent)
        threads.append(in_background(lambda sid=sid: app.test_client().post(f"/api/sessions/{sid}/agent")))
    for agent in agents:
        assert agent.entered.wait(HOLD)
    burst = client.get("/api/games")
    page = client.get("/")
    other = app.test_client().get("/api/games", environ_base={"REMOTE_ADDR": "10.0.0.2"})
    tree = app.test_client().get(f"/api/sessions/{tree_sid}/tree?depth=1", environ_base={"REMOTE_ADDR": "10.0.0.3"})
    held = [a.done for a in agents]
    for agent in agents:
        agent.release.set()
    for thread, _out in threads:
        thread.join(HOLD)
    assert (burst.status_code, page.status_code, other.status_code, held) == (429, 200, 200, [False] * MAX_PER_CLIENT)
    assert tree.status_code == 429 and "searches are running" in tree.json["error"], tree.json  # the four slots are taken
    assert "in progress" in burst.json["error"] and burst.headers["Retry-After"] == "1"
    assert [out["r"].status_code for _t, out in threads] == [200] * MAX_PER_CLIENT
    assert client.get("/api/games").status_code == 200  # its share is back


@pytest.mark.parametrize("body, words", [
    ('{"episode": [' + ",".join(["[" * 15 + "]" * 15] * 500_000) + "]}", "more than 200,000 arrays and objects"),
    ('{"episode": [' + "1," * 2_100_000 + "1]}", "more than 2,000,000 values"),
    ('{"episode": "' + "[" * 100 + '", "x": ' + "[" * 17 + "]" * 17 + "}", "nests deeper than 16"),
])
def test_a_heavy_body_is_refused_before_the_parser_runs(app, monkeypatch, body, words) -> None:
    """A 15 MiB body of brackets cost the parser 20 s of CPU before its 422: its shape is measured
    first, and json.loads never sees it."""
    assert len(body) < MAX_REPLAY_BODY
    monkeypatch.setattr(request_body, "json", SimpleNamespace(loads=lambda *a, **k: pytest.fail("the parser ran")))
    r = app.test_client().post("/api/replays/kaggle", data=body, content_type="application/json")
    assert r.status_code == 400 and words in r.json["error"], (r.status_code, r.json)


def test_the_shape_counts_what_is_outside_strings() -> None:
    shape = request_body.json_shape(b'{"a": "[[{,,", "b": [1, {"c": "\\\\"}, "\\"]"], "d": []}')
    assert shape == (3, 4, 8)  # depth, containers, values: 4 commas and 4 containers


def test_an_agent_warms_up_in_the_background_and_its_move_waits_with_a_503(app, monkeypatch) -> None:
    """The first move of a compiled agent took 38.6 s inside the request: the warm-up runs in the
    store's thread from the session's start; a move asked for meanwhile is a 503 with
    Retry-After and the view says ``warming_up``."""
    agent = Blocking(warm=True)
    agent.release.set()  # its moves do not block; the warm-up waits on ``warm``
    warm = threading.Event()
    agent.warm_up = lambda: (agent.entered.set(), warm.wait(HOLD))
    monkeypatch.setattr(sessions_mod, "make_agent", lambda spec, game: agent)
    monkeypatch.setattr(sessions_mod, "WARM_WAIT", 0.01)
    client = app.test_client()
    r = client.post("/api/sessions", json={"game": "tictactoe", "agent": "x", "time": 0.05, "human": 1})
    assert r.status_code == 201 and r.json["warming_up"] is True
    assert agent.entered.wait(HOLD)
    sid = r.json["id"]
    move = client.post(f"/api/sessions/{sid}/agent")
    still = not warm.is_set()
    warm.set()
    assert app.extensions["sessions"].get(sid).ready.wait(HOLD)
    assert (move.status_code, still, move.json.get("warming_up")) == (503, True, True), move.json
    assert "warming up" in move.json["error"] and move.headers["Retry-After"] == "2"
    r = client.post(f"/api/sessions/{sid}/agent")
    assert r.status_code == 200 and r.json["warming_up"] is False and len(r.json["history"]) == 1


def test_the_warm_up_runs_outside_the_request_thread(app, monkeypatch) -> None:
    agent = Blocking(warm=True)
    agent.release.set()
    monkeypatch.setattr(sessions_mod, "make_agent", lambda spec, game: agent)
    sid = new(app.test_client(), agent="x")
    assert app.extensions["sessions"].get(sid).ready.wait(HOLD)
    assert agent.warm_thread == "agent-warm-up"


@pytest.mark.parametrize("params", [{"starting_gold": 10 ** 30}, {"starting_gold": -(10 ** 30)}])
def test_a_number_too_large_for_the_game_is_a_400_whatever_layer_refuses_it(app, params) -> None:
    """``starting_gold: 10**30`` was a 500 (an OverflowError where the initial state is written)."""
    r = app.test_client().post("/api/sessions", json={"game": "reinforce_tactics", "params": params, "agent": "random"})
    assert r.status_code == 400 and "starting_gold" in r.json["error"], (r.status_code, r.json)
    assert "internal error" not in r.json["error"]


NESTED = [
    ("quixo", "quixo_perfect:fallback=mc_learner:table=/etc/passwd", "cannot name a file"),
    ("quixo", "quixo_perfect:fallback=alphabeta:tt_bits=26", "on this server"),
]


@pytest.mark.parametrize("game, spec, words", NESTED)
def test_a_nested_spec_is_held_to_the_servers_rules(app, monkeypatch, game, spec, words) -> None:
    """``registry.make(spec, game, server=True)`` checks every agent a spec builds: a nested file
    or table size is a 400 before anything is built, and no file is opened."""
    import numpy as np

    monkeypatch.setattr(np, "load", lambda *a, **k: pytest.fail("a file was opened"))
    client = app.test_client()
    r = client.post("/api/sessions", json={"game": game, "agent": spec})
    assert r.status_code == 400 and words in r.json["error"], (r.status_code, r.json)
    sid = new(client)
    r = client.post(f"/api/sessions/{sid}/analyze", json={"agent": spec.replace("quixo_perfect", "solve_first")})
    assert r.status_code == 400, (r.status_code, r.json)


def test_a_stuck_warm_up_does_not_stall_the_others(app, monkeypatch) -> None:
    """A warm-up that never ends (an agent blocked on something) would leave every later agent
    warming for ever: past WARM_STUCK seconds the next gets a thread of its own."""
    stuck, quick = Blocking(warm=True), Blocking(warm=True)
    quick.release.set()
    made = iter([stuck, quick])
    monkeypatch.setattr(sessions_mod, "make_agent", lambda spec, game: next(made))
    monkeypatch.setattr(sessions_mod, "WARM_STUCK", 0.0)
    client = app.test_client()
    first = new(client, agent="x")
    assert stuck.entered.wait(HOLD)
    second = new(client, agent="y")
    store = app.extensions["sessions"]
    assert store.get(second).ready.wait(HOLD)
    held = not store.get(first).ready.is_set()
    stuck.release.set()
    assert held and quick.warm_thread == "agent-warm-up1"


def test_a_dropped_sessions_queued_warm_up_is_skipped(monkeypatch) -> None:
    from core.games import make_game

    blocker, queued = Blocking(warm=True), Blocking(warm=True)
    made = iter([blocker, queued, Blocking()])
    monkeypatch.setattr(sessions_mod, "make_agent", lambda spec, game: next(made))
    store = sessions_mod.SessionStore(capacity=1)
    game = make_game("tictactoe")
    store.create(game, "x", 0.1, 0)
    assert blocker.entered.wait(HOLD)
    dropped = store.create(game, "y", 0.1, 0)  # queued behind the first
    store.create(game, "z", 0.1, 0)  # the store keeps one: the second is dropped before its turn
    blocker.release.set()
    assert dropped.dropped and dropped.ready.wait(HOLD)
    assert queued.warm_thread is None  # its warm-up never ran


def test_a_replay_of_too_many_actions_is_refused_as_it_is_replayed(app, monkeypatch) -> None:
    """A replay's CPU is bounded by the states it may make (a 16 MiB body of valid turns was
    thousands of actions, each a kernel call)."""
    from util.arena.web import replays

    env_mod = pytest.importorskip("kaggle_environments")
    env = env_mod.make("reinforce_tactics", configuration={"episodeSteps": 12, "mapName": "beginner", "seed": 3})
    env.run(["aggressive", "random"])
    episode = env.toJSON()
    client = app.test_client()
    r = client.post("/api/replays/kaggle", json={"episode": episode})
    assert r.status_code == 201, r.json
    made = len(r.json["history"]) + 1
    monkeypatch.setattr(replays, "MAX_STATES", made - 1)
    r = client.post("/api/replays/kaggle", json={"episode": episode})
    assert r.status_code == 422 and f"more than {made - 1:,} actions" in r.json["error"], r.json


def test_on_waitress_a_held_move_and_ten_frames_leave_threads_for_the_page(app) -> None:
    """The case found: one long move plus ten concurrent frames on its session took all eight
    waitress threads (GET / waited 27 s). On a real server with eight threads, while the move
    is held, ten frames at once and then the page and another session are all answered."""
    import http.client
    import json

    waitress = pytest.importorskip("waitress")
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
    port = server.socket.getsockname()[1]

    def serve() -> None:
        with contextlib.suppress(OSError, ValueError):  # its select on the socket closed at the end
            server.run()

    serving = threading.Thread(target=serve, daemon=True)
    serving.start()

    def get(method: str, path: str, body: object = None) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HOLD)
        try:
            conn.request(method, path, body=None if body is None else json.dumps(body),
                         headers={"Content-Type": "application/json"})
            return conn.getresponse().status
        finally:
            conn.close()

    try:
        client = app.test_client()
        sid, other = new(client, human=1), new(client)
        agent = Blocking()
        app.extensions["sessions"].get(sid).agent = agent
        mover, out = in_background(lambda: get("POST", f"/api/sessions/{sid}/agent"))
        assert agent.entered.wait(HOLD)
        frames = [in_background(lambda: get("GET", f"/api/sessions/{sid}/frame")) for _ in range(10)]
        for thread, _out in frames:
            thread.join(HOLD)
        answered = [(o["r"], agent.done) for _t, o in frames]
        answered += [(get("GET", "/"), agent.done), (get("POST", f"/api/sessions/{other}/move", {"action": 4}), agent.done)]
        agent.release.set()
        mover.join(HOLD)
    finally:
        server.close()
        serving.join(HOLD)
    # the frames: served or, past this client's share of requests in progress, a 429 at once
    assert all(code in (200, 429) and not done for code, done in answered[:10]), answered
    assert answered[10:] == [(200, False), (200, False)] and out["r"] == 200, answered


def test_an_overflow_below_the_games_bounds_is_a_400_too(app, monkeypatch) -> None:
    """Whatever layer raises: an OverflowError where a game writes its start (a bound missed) is
    still the request's fault, a 400 naming the parameters, never a 500."""
    from core.games import game_class

    def overflow(self):
        raise OverflowError("Python int too large to convert to C long")

    monkeypatch.setattr(game_class("tictactoe"), "initial_words", overflow)
    r = app.test_client().post("/api/sessions", json={"game": "tictactoe", "params": {}, "agent": "random"})
    assert r.status_code == 400 and "too large for the game" in r.json["error"], (r.status_code, r.json)
