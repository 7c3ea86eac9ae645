"""The web app on games of hidden information (issue 36 point 5): the agents offered, each seat's
view, and no leak of what the opponent hides in any response (a session's view, a move, the
agent's move, a replay frame, an analysis). The no-leak tests compare the responses for two
states the person cannot tell apart (the opponent's card, or a determinization of the fog game's
hidden units): they must be equal, and they differ when the full state is sent."""
from __future__ import annotations

import json
import random
import time

import pytest

from core import games as core_games

pytest.importorskip("flask")

from util.arena.web.app import create_app  # noqa: E402
from util.arena.web.render import frame  # noqa: E402
from util.arena.web.views import seat_view  # noqa: E402


@pytest.fixture()
def app(tmp_path):
    return create_app(db=str(tmp_path / "none.sqlite"))


@pytest.fixture()
def client(app):
    return app.test_client()


def ask(client, method, url, **kw):
    """A request asked again while the agent warms up (503) or the session is busy (409)."""
    for _ in range(60):
        r = getattr(client, method)(url, **kw)
        if r.status_code not in (409, 503):
            return r
        time.sleep(0.5)
    return r


def new(client, **body):
    body = {"game": "kuhn_poker", "agent": "random:seed=3", "time": 0.05, "human": 1, **body}
    r = client.post("/api/sessions", json=body)
    assert r.status_code == 201, r.json
    return r.json


def strip(data: dict) -> str:
    return json.dumps({k: v for k, v in data.items() if k != "id"}, sort_keys=True)


# --- the agents offered --------------------------------------------------------------------------
def test_games_say_hidden_and_offer_only_fair_agents(client):
    games = {g["name"]: g for g in client.get("/api/games").json["games"]}
    assert games["kuhn_poker"]["hidden_information"] and not games["connectx"]["hidden_information"]
    assert set(games["kuhn_poker"]["agents"]) == {"random", "ismcts", "pimc", "cfr"}  # no whole-state search
    assert "cfr" not in games["connectx"]["agents"] and "alphabeta" in games["connectx"]["agents"]
    assert "greedy" in games["reinforce_tactics"]["agents"]  # fog=0 by default


def test_agents_route_follows_the_game_parameters_and_lists_params(client):
    fog = client.post("/api/agents", json={"game": "reinforce_tactics", "params": {"fog": 1}}).json
    assert fog["hidden_information"] and "greedy" not in [a["name"] for a in fog["agents"]]
    pimc = next(a for a in fog["agents"] if a["name"] == "pimc")
    assert {"samples", "search", "view"} <= {p["name"] for p in pimc["params"]}
    plain = client.post("/api/agents", json={"game": "reinforce_tactics", "params": {}}).json
    assert not plain["hidden_information"] and "greedy" in [a["name"] for a in plain["agents"]]


@pytest.mark.parametrize("body", [{"game": "nope"}, {"game": "kuhn_poker", "params": 3}, {"game": "reinforce_tactics", "params": {"fog": 7}}, {}])
def test_agents_route_bad_input_is_400(client, body):
    r = client.post("/api/agents", json=body)
    assert r.status_code == 400 and r.json["error"]


def test_whole_state_agent_refused_on_a_hidden_game(client):
    r = client.post("/api/sessions", json={"game": "kuhn_poker", "agent": "alphabeta"})
    assert r.status_code == 400 and "cheat=1" in r.json["error"]


def test_a_move_list_cannot_open_a_hidden_game(client):
    r = client.post("/api/sessions", json={"game": "kuhn_poker", "agent": "random", "moves": ["deal K", "deal J"]})
    assert r.status_code == 400 and "hidden information" in r.json["error"]


# --- the generic hook ----------------------------------------------------------------------------
def test_seen_move_text_hides_only_the_opponents_deal():
    for name, public in (("kuhn_poker", False), ("leduc_poker", True), ("liars_dice", False)):
        game = core_games.make_game(name)
        s0 = game.initial()
        s1 = s0.apply(s0.legal_actions()[0])
        assert game.seen_move_text(s0, s0.legal_actions()[0], 0) is not None  # its own card
        assert game.seen_move_text(s0, s0.legal_actions()[0], 1) is None  # the opponent's
        assert game.seen_move_text(s1, s1.legal_actions()[0], 0) is None
        assert game.seen_move_text(s1, s1.legal_actions()[0], 1) is not None
        if public:  # Leduc's public card, after the first round
            s = s1.apply(s1.legal_actions()[0]).apply(1).apply(1)
            assert s.is_chance_node()
            assert all(game.seen_move_text(s, a, p) is not None for a in s.legal_actions() for p in (0, 1))


def test_perfect_information_views_are_the_full_picture():
    game = core_games.make_game("tictactoe")
    states = [game.initial()]
    states.append(states[0].apply(4))
    assert seat_view(states, 0)["picture"] == seat_view(states, None)["picture"] == frame(states)


# --- no leak: Kuhn, two deals the person cannot tell apart --------------------------------------
def kuhn_pair(app, client, agent_cards=(0, 2), human_card=1):
    """Two sessions, the person (seat 1) holding ``human_card``, the agent one of ``agent_cards``."""
    out = []
    store = app.extensions["sessions"]
    for card in agent_cards:
        v = new(client)
        session = store.get(v["id"])
        game = session.game
        s = game.initial().apply(card)
        session.states = [game.initial(), s, s.apply(human_card)]
        session.infos = [{}, {}, {}]
        out.append(v["id"])
    return out


def test_kuhn_views_do_not_tell_the_agents_card(app, client):
    a, b = kuhn_pair(app, client)
    assert strip(client.get(f"/api/sessions/{a}").json) == strip(client.get(f"/api/sessions/{b}").json)
    moved = [ask(client, "post", f"/api/sessions/{sid}/agent") for sid in (a, b)]  # random:seed=3 ignores the cards
    assert all(r.status_code == 200 for r in moved)
    assert strip(moved[0].json) == strip(moved[1].json)
    assert moved[0].json["last_analysis"] is None and moved[0].json["history"][0] == "(?)"
    for ply in range(len(moved[0].json["history"]) + 1):
        fa, fb = (client.get(f"/api/sessions/{sid}/frame?ply={ply}").json for sid in (a, b))
        assert fa == fb
    if not moved[0].json["terminal"]:
        an = [ask(client, "post", f"/api/sessions/{sid}/analyze", json={"agent": "random:seed=1", "time": 0.05}) for sid in (a, b)]
        assert [r.status_code for r in an] == [200, 200]
        assert strip(an[0].json | {"seconds": 0}) == strip(an[1].json | {"seconds": 0})


def test_kuhn_own_card_is_shown(app, client):
    a, _b = kuhn_pair(app, client)
    cards = client.get(f"/api/sessions/{a}").json["picture"]["cards"]
    assert cards == [{"owner": 0, "text": None}, {"owner": 1, "text": "deal Q"}]


def test_other_seats_and_full_view_only_once_over(app, client):
    a, _b = kuhn_pair(app, client)
    for seat in ("0", "full"):
        r = client.get(f"/api/sessions/{a}/frame?ply=2&seat={seat}")
        assert r.status_code == 403 and "until it is over" in r.json["error"]
    assert client.get(f"/api/sessions/{a}/frame?ply=2&seat=1").status_code == 200
    assert client.get(f"/api/sessions/{a}/frame?seat=2").status_code == 400
    session = app.extensions["sessions"].get(a)
    s = session.state.apply(0).apply(0)  # pass, pass: the showdown
    session.states += [session.state.apply(0), s]
    session.infos += [{}, {}]
    assert s.is_terminal()
    full = client.get(f"/api/sessions/{a}/frame?ply=2&seat=full").json
    assert [c["text"] for c in full["cards"]] == ["deal J", "deal Q"] and full["viewer"] is None  # every card
    seat0 = client.get(f"/api/sessions/{a}/frame?ply=2&seat=0").json
    assert seat0["cards"][0]["text"] == "deal J" and seat0["cards"][1]["text"] is None


def test_analysis_only_of_own_position_by_a_fair_agent(app, client):
    v = new(client, human=0)
    sid = v["id"]
    if v["agent_to_move"]:
        pytest.skip("the person moves first in Kuhn")
    r = client.post(f"/api/sessions/{sid}/analyze", json={"agent": "solver:cheat=1", "time": 0.05})
    assert r.status_code == 403 and "reads the whole state" in r.json["error"]
    assert client.get(f"/api/sessions/{sid}/tree").status_code == 403
    r = ask(client, "post", f"/api/sessions/{sid}/analyze", json={"agent": "ismcts:max_sims=50", "time": 0.2})
    assert r.status_code == 200 and r.json["pv"] == []
    moved = client.post(f"/api/sessions/{sid}/move", json={"action": 1}).json  # bet: the agent is to move
    assert moved["agent_to_move"]
    r = client.post(f"/api/sessions/{sid}/analyze", json={"agent": "ismcts:max_sims=50", "time": 0.2})
    assert r.status_code == 403 and "when you are to move" in r.json["error"]


# --- no leak: Reinforce Tactics under fog ---------------------------------------------------------
def fog_states(seed: int = 4, plies: int = 160):
    """A fog game of random legal moves, both players."""
    game = core_games.make_game("reinforce_tactics", fog=1, map="beginner")
    rng = random.Random(seed)
    states = [game.initial()]
    while len(states) < plies and not states[-1].is_terminal():
        s = states[-1]
        legal = s.legal_actions()
        end = game.end_turn_action
        moves = [a for a in legal if a != end]
        a = end if end in legal and (not moves or rng.random() < 0.15) else rng.choice(moves or legal)
        states.append(s.apply(a))
    return game, states


def test_fog_picture_is_the_same_for_states_the_seat_cannot_tell_apart():
    game, states = fog_states()
    checked = 0
    for s in states[40::10]:
        if s.is_chance_node():
            continue
        for p in (0, 1):
            d = game.determinize(s, p, 11)
            if game.picture(d) == game.picture(s):
                continue  # nothing hidden differs here
            a, b = frame([s], p), frame([d], p)
            if s.current_player() == p:  # the moves are the true state's (a path blocked in the fog)
                a.pop("moves"), b.pop("moves")
            assert a == b, f"player {p} at ply {len(s.history)}"
            checked += 1
    assert checked >= 3


def test_fog_views_show_no_enemy_unit_out_of_sight():
    game, states = fog_states()
    hidden_somewhere = False
    for i in range(30, len(states), 7):
        for p in (0, 1):
            pic = seat_view(states[:i + 1], p)["picture"]
            cells = pic["fog"][p]["cells"]
            assert pic["fog"][1 - p] is None and pic["gold"][1 - p] is None
            for u in pic["units"]:
                if u["p"] != p:
                    assert cells[u["r"]][u["c"]] == "2", (i, p, u)
            full = frame(states[:i + 1])
            enemies = [u for u in full["units"] if u["p"] != p]
            hidden_somewhere |= len(enemies) > len([u for u in pic["units"] if u["p"] != p])
    assert hidden_somewhere  # the test saw the fog hide a unit


def test_fog_history_hides_enemy_moves_out_of_sight():
    game, states = fog_states()
    for p in (0, 1):
        seen = seat_view(states, p)["history"]
        full = seat_view(states, None)["history"]
        assert len(seen) == len(full)  # the count of moves is seen (docs/web-app.md)
        assert "?" in seen
        for i, (a, b) in enumerate(zip(seen, full)):
            if states[i].current_player() == p:
                assert a == b
            elif a != "?" and not states[i].is_chance_node():  # an enemy act seen: every cell it names in sight then
                entry = frame(states[:i + 2], p)["last"]
                cells = frame(states[:i + 2])["fog"][p]["cells"]
                for key in ("from", "to", "cell"):
                    if key in entry:
                        assert cells[entry[key][0]][entry[key][1]] == "2", (i, p, entry)


def test_fog_session_through_the_api(client):
    v = new(client, game="reinforce_tactics", params={"fog": 1}, agent="random:seed=2", human=0)
    assert v["hidden_information"] and v["text"] == "" and v["grid"] is None
    sid = v["id"]
    for _ in range(3):
        if v["terminal"]:
            break
        if v["agent_to_move"]:
            v = ask(client, "post", f"/api/sessions/{sid}/agent").json
        else:
            end = next(m for m in v["picture"]["moves"] if m["kind"] == "end_turn")
            v = client.post(f"/api/sessions/{sid}/move", json={"action": end["action"]}).json
        pic = v["picture"]
        assert pic["viewer"] == 0 and pic["fog"][1] is None and pic["gold"][1] is None
        assert v["last_analysis"] is None
