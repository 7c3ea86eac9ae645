"""Reinforce Tactics in the web app's API: the picture against the core's own state (units,
structures, gold, the legal set), whole turns of the agent, illegal clicks refused with a
reason, a Kaggle episode (made here by kaggle-environments) replayed to the engine's own final
observation, and a stored game replayed turn by turn."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("flask")

from core.games import make_game  # noqa: E402
from core.reinforce_tactics import layout as L  # noqa: E402
from util.arena.web.app import create_app  # noqa: E402

PARAMS = {"map": "beginner", "seed": 3}


@pytest.fixture()
def client(tmp_path):
    return create_app(db=str(tmp_path / "none.sqlite")).test_client()


def new(client, **body):
    body = {"game": "reinforce_tactics", "params": PARAMS, "agent": "random:seed=1", "time": 0.2, "human": 0, **body}
    r = client.post("/api/sessions", json=body)
    assert r.status_code == 201, r.json
    return r.json


def random_states(seed: int, plies: int, params=PARAMS):
    """Positions of a random game (chance outcomes too), every one kept."""
    game = make_game("reinforce_tactics", **params)
    rng = random.Random(seed)
    s = game.initial()
    out = [s]
    for _ in range(plies):
        if s.is_terminal():
            break
        s = s.apply(rng.choice(s.legal_actions()))
        out.append(s)
    return out


def check_picture(state) -> None:
    """The picture says what the state's words say, read here independently of picture.py."""
    game = state.game
    pic = game.picture(state)
    r0, c0 = pic["origin"]
    w = state.words
    # the crop keeps every cell that is not ocean, and every cell it drops is ocean
    land = {(c // L.W, c % L.W) for c in range(L.CELLS) if game.g[L.G_TERRAIN + c] != L.TR_OCEAN}
    assert {(r + r0, c + c0) for r in range(pic["rows"]) for c in range(pic["columns"])} >= land
    assert min(r for r, _ in land) == r0 and min(c for _, c in land) == c0
    assert [row for row in pic["terrain"]] == ["".join(L.TILE_CODES[game.g[L.G_TERRAIN + (r + r0) * L.W + c + c0]]
                                                       for c in range(pic["columns"])) for r in range(pic["rows"])]
    units = sorted((u["p"], u["type"], u["c"] + c0, u["r"] + r0, u["hp"]) for u in pic["units"])
    assert units == sorted(game.units(state))
    for u in pic["units"]:
        assert pic["cells"][u["r"]][u["c"]] == {"p": u["p"], "t": u["type"]}
    assert len(pic["structures"]) == game.g[L.G_NS]
    for i, st in enumerate(pic["structures"]):
        cell = game.g[L.G_STRUCT_CELL + i]
        assert (st["r"] + r0, st["c"] + c0) == divmod(cell, L.W)
        assert (st["owner"], st["hp"]) == (w[L.S_BASE + i * L.SF + L.S_OWNER], w[L.S_BASE + i * L.SF + L.S_HP])
    assert pic["gold"] == [w[L.H_GOLD], w[L.H_GOLD + 1]]
    legal = [] if state.is_terminal() or state.is_chance_node() else state.legal_actions()
    assert [m["action"] for m in pic["moves"]] == legal
    for m in pic["moves"]:
        assert m["text"] == state.action_to_string(m["action"])
        if "from" in m:  # the acting unit stands there, and it is the mover's
            assert pic["cells"][m["from"][0]][m["from"][1]]["p"] == pic["to_move"]
    # exactly the mover's units with no legal action carry a reason
    busy = {tuple(m["from"]) for m in pic["moves"] if "from" in m}
    for u in pic["units"]:
        idle = u["p"] == pic["to_move"] and (u["r"], u["c"]) not in busy
        assert ("why" in u) == idle, u


def test_the_picture_matches_the_state_through_random_games():
    n = 0
    for seed, params in ((1, PARAMS), (2, {"map": "tower_rush", "seed": -1}), (3, {"map": "", "seed": 11})):
        for s in random_states(seed, 150, params)[::7]:
            check_picture(s)
            n += 1
    assert n > 45


def test_the_app_offers_the_game_with_its_parameters(client):
    games = {g["name"]: g for g in client.get("/api/games").json["games"]}
    rt = games["reinforce_tactics"]
    assert rt["turns"] and not games["connectx"]["turns"]
    assert {p["name"] for p in rt["params"]} >= {"map", "seed"} and "random" in rt["agents"]
    view = new(client, params={"map": "tower_rush", "seed": 5})
    assert view["game"].startswith("reinforce_tactics:map=tower_rush,seed=5")
    assert client.post("/api/sessions", json={"game": "reinforce_tactics", "params": {"map": "nowhere"}}).status_code == 400


def test_the_agent_plays_its_whole_turn_and_the_page_gets_its_moves(client):
    rng = random.Random(4)
    view = new(client)
    sid = view["id"]
    for _turn in range(6):
        assert not view["agent_to_move"] and view["to_move"] == 0
        while True:  # the person's turn: random legal moves, then the end
            moves = [m for m in view["picture"]["moves"] if m["kind"] != "end_turn"]
            end = next(m for m in view["picture"]["moves"] if m["kind"] == "end_turn")
            m = rng.choice(moves) if moves and rng.random() < 0.8 else end
            view = client.post(f"/api/sessions/{sid}/move", json={"action": m["action"]}).json
            if m is end or view["terminal"]:
                break
            assert view["picture"]["turn_moves"][-1]["action"] == m["action"]
        if view["terminal"]:
            break
        assert view["agent_to_move"] and view["picture"]["turn_moves"] == []
        before = len(view["history"])
        view = client.post(f"/api/sessions/{sid}/agent").json
        if view["terminal"]:
            break
        last = view["picture"]["last_turn"]
        assert last["player"] == 1 and last["moves"][-1]["kind"] == "end_turn"
        assert [m["text"] for m in last["moves"]] == [h.strip("()") for h in view["history"][before:]]
        assert view["turns"][-1] == {"ply": before, "player": 1}  # turns with moves: the agent's is the last


def test_illegal_clicks_are_refused_with_a_reason(client):
    view = new(client)
    sid = view["id"]
    game = make_game("reinforce_tactics", **PARAMS)
    create_c = next(m for m in view["picture"]["moves"] if m["kind"] == "create_unit" and m["unit_type"] == "C")
    view = client.post(f"/api/sessions/{sid}/move", json={"action": create_c["action"]}).json
    # the same building again: a unit stands on it; a Barbarian: 400 gold, 50 left
    r = client.post(f"/api/sessions/{sid}/move", json={"action": create_c["action"]})
    assert r.status_code == 422 and "a unit stands on it" in r.json["error"], r.json
    barbarian = create_c["action"] - L.T_CLERIC + L.T_BARBARIAN + 8  # the next structure
    r = client.post(f"/api/sessions/{sid}/move", json={"action": barbarian})
    assert r.status_code == 422 and ("costs 400 gold; you have 50" in r.json["error"] or "not yours" in r.json["error"]), r.json
    # the new Cleric cannot move on the turn it is recruited
    step = L.A_UNIT + L.SUB_MOVE
    r = client.post(f"/api/sessions/{sid}/move", json={"action": step})
    assert r.status_code == 422 and ("already moved" in r.json["error"] or "cannot move" in r.json["error"]), r.json
    for bad, status in ((-1, 422), (L.NUM_ACTIONS, 422), ("fly 1,1", 400), (1.5, 400)):
        r = client.post(f"/api/sessions/{sid}/move", json={"action": bad})
        assert r.status_code == status and r.json["error"], (bad, r.json)
    # the picture names why an idle unit cannot act: the Cleric just recruited
    cleric = next(u for u in view["picture"]["units"] if u["p"] == 0)
    assert "has already moved and acted" in cleric["why"]
    assert game  # the session's game is the one made here


def test_a_moved_unit_is_refused_a_second_move():
    """The reason for each illegal move of a unit that has moved, in random games."""
    seen = 0
    for s in random_states(7, 400):
        if s.is_terminal() or s.is_chance_node():
            continue
        game, w, p = s.game, s.words, s.current_player()
        legal = set(s.legal_actions())
        for k in range(w[L.H_COUNT + p]):
            b = L.U_BASE + (p * L.UMAX + k) * L.UF
            if w[b + L.U_CAN_MOVE] or w[b + L.U_PARALYZED]:
                continue
            a = L.A_UNIT + L.UNIT_STRIDE * k + L.SUB_MOVE
            assert a not in legal
            assert "already moved" in game.why_illegal(s, a) or "cannot move" in game.why_illegal(s, a)
            seen += 1
    assert seen > 20


def kaggle_episode(steps: int, seed: int, agents=("aggressive", "random")) -> dict:
    env_mod = pytest.importorskip("kaggle_environments")
    env = env_mod.make("reinforce_tactics", configuration={"episodeSteps": steps, "mapName": "beginner", "seed": seed})
    env.run(list(agents))
    return env.toJSON()


def test_a_kaggle_episode_replays_to_its_final_observation(client):
    ep = kaggle_episode(24, 5)
    r = client.post("/api/replays/kaggle", json={"episode": ep})
    assert r.status_code == 201, r.json
    view = r.json
    obs = ep["steps"][-1][0]["observation"]
    pic = view["picture"]
    r0, c0 = pic["origin"]
    assert pic["gold"] == obs["gold"] and pic["turn"] == obs["turnNumber"]
    assert sorted((u["type"], u["hp"], u["c"] + c0, u["r"] + r0, u["p"] + 1) for u in pic["units"]) == \
        sorted((u["type"], u["hp"], u["x"], u["y"], u["owner"]) for u in obs["units"])
    assert sorted((s["owner"] + 1 if s["owner"] >= 0 else 0, s["hp"], s["c"] + c0, s["r"] + r0) for s in pic["structures"]) == \
        sorted((s["owner"] or 0, s["hp"], s["x"], s["y"]) for s in obs["structures"])
    # one turn per step played, each as long as its action log
    played = [st[0]["observation"]["actionLog"] for st in ep["steps"][1:]]
    turns = view["turns"]
    assert len(turns) >= len([log for log in played if log]) - 1
    ends = [t["ply"] for t in turns[1:]] + [len(view["history"])]
    assert sum(1 for h in view["history"] if h == "end") == sum(1 for log in played for e in log if e["type"] == "end_turn")
    assert ends[-1] == len(view["history"])
    assert any(not h.startswith(("create", "end")) for h in view["history"]), "the aggressive agent moved and fought"
    # a frame in the middle: the turn in progress and the one before it
    k = next(k for k in range(1, len(turns) - 1) if turns[k + 1]["ply"] - turns[k]["ply"] >= 2)
    mid = turns[k]["ply"] + 1  # one action into a turn of several
    f = client.get(f"/api/sessions/{view['id']}/frame?ply={mid}").json
    assert len(f["turn_moves"]) == 1 and f["turn_moves"][0]["player"] == turns[k]["player"]
    assert f["last_turn"]["player"] == turns[k - 1]["player"] and len(f["last_turn"]["moves"]) == turns[k]["ply"] - turns[k - 1]["ply"]


def test_bad_kaggle_episodes_get_a_4xx_with_a_message(client):
    ep = kaggle_episode(6, 2)
    other = dict(ep, configuration=dict(ep["configuration"], mapName="tower_rush"))
    broken = dict(ep, steps=[*ep["steps"][:2], [{"observation": {"actionLog": [{"type": "attack", "attacker_pos": [0, 0],
                                                                                   "target_pos": [1, 1]}]}}]])
    cases = [({"episode": 5}, "must be a JSON object"), ({"episode": other}, "board is not"),
             ({"episode": dict(ep, name="connectx")}, "only reinforce_tactics"),
             ({"episode": dict(ep, steps="x")}, "no steps"), ({"episode": broken}, "step 2"),
             ({"episode": dict(ep, configuration=dict(ep["configuration"], episodeSteps=10 ** 9))}, "episodeSteps")]
    for body, words in cases:
        r = client.post("/api/replays/kaggle", json=body)
        assert 400 <= r.status_code < 500 and words in r.json["error"], (words, r.status_code, r.json)
    assert client.post("/api/sessions", json={"game": "tictactoe", "pad": "x" * 70_000}).status_code == 413
    assert client.post("/api/replays/kaggle", json={"episode": ep, "pad": "x" * 70_000}).status_code == 201
    from util.arena.web.app import MAX_REPLAY_BODY

    r = client.post("/api/replays/kaggle", data=b"{" + b" " * MAX_REPLAY_BODY + b"}", content_type="application/json")
    assert r.status_code == 413 and f"{MAX_REPLAY_BODY // 1024} KiB" in r.json["error"], r.json


def test_a_stored_game_replays_turn_by_turn(client, tmp_path):
    from util.arena.store import Store

    states = random_states(9, 120)
    moves = [s.history[-1] for s in states[1:]]
    db = tmp_path / "t.sqlite"
    spec = states[0].game.spec()
    with Store(db) as store:
        a, b = store.player_id("random", "1", {}), store.player_id("random:seed=1", "1", {})
        gid = store.add_game("k", a, b, "rt", {"moves": moves, "winner": 0, "termination": "draw", "errors": {},
                                                "move_times": [], "opening": []},
                             time_per_move=0.1, engine="direct", seed=0, source="test", game=spec)
    c = create_app(db=str(db)).test_client()
    r = c.post("/api/replays/stored", json={"id": gid})
    assert r.status_code == 201, r.json
    assert r.json["history"] == [s.action_to_string(a) if not s.is_chance_node() else f"({s.action_to_string(a)})"
                                 for s, a in zip(states, moves)]
    g = c.get(f"/api/db/games/{gid}").json
    ends = sorted({0, *(t["ply"] for t in r.json["turns"]), len(moves)})  # the start, each turn's end, the last position
    assert g["turns"] and [f["ply"] for f in g["frames"]] == ends
    for f in g["frames"][1:]:
        assert f["move"] and f["picture"]["moves"] == []
    assert c.post("/api/replays/stored", json={"id": gid + 1}).status_code == 404
    assert c.post("/api/replays/stored", json={"id": "x"}).status_code == 400


def test_long_histories_push_out_the_oldest_sessions():
    """The sessions' states are bounded too: a replayed game of many 1,804-word states makes room
    by dropping the least recently used sessions, never the one just made."""
    from util.arena.web.app import replay_session
    from util.arena.web.sessions import WORD_BYTES, SessionStore

    states = random_states(5, 60)
    one = len(states) * L.STATE_LEN * WORD_BYTES
    store = SessionStore(capacity=100, state_memory=int(2.5 * one))
    first = [replay_session(store, states, None).id for _ in range(2)]
    assert len(store) == 2 and store.state_bytes() <= 2.5 * one
    last = replay_session(store, states, None)
    assert len(store) == 2 and store.get(last.id) is last
    with pytest.raises(ValueError, match="expired or never made"):
        store.get(first[0])
    store.get(first[1])
