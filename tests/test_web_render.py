"""What the page draws: each game's picture against its rules, the search report's numbers,
and positions opened from a move list (util/arena/web/render.py, Game.picture)."""
from __future__ import annotations

import random

import pytest

from core import games
from util.arena.web import render

GAMES = [("connectx", {}), ("connect4_count", {"rows": 4, "columns": 5}), ("tictactoe", {}), ("quantik", {}),
         ("quixo", {"size": 4, "max_plies": 60}), ("einstein", {})]
KINDS = {"connectx": "connectx", "connect4_count": "connectx", "tictactoe": "tictactoe", "quantik": "quantik",
         "quixo": "quixo", "einstein": "einstein"}


def random_states(game, seed: int):
    rng = random.Random(seed)
    s = game.initial()
    states = [s]
    while not s.is_terminal():
        if s.is_chance_node():
            s = s.apply(rng.choice([a for a, _p in s.chance_outcomes()]))
        else:
            s = s.apply(rng.choice(s.legal_actions()))
        states.append(s)
    return states


@pytest.mark.parametrize("name,params", GAMES)
def test_every_picture_offers_exactly_the_legal_moves_and_draws_the_grid(name, params):
    """Over random games: the picture's moves are the legal actions (none at chance nodes or
    the end), its pieces are the grid's (the game's other picture accessor), and the last move
    is the action played."""
    game = games.make_game(name, **params)
    for seed in range(3):
        states = random_states(game, seed)
        for i, s in enumerate(states):
            pic = render.frame(states[:i + 1])
            assert pic["kind"] == KINDS[name]
            offered = sorted(m["action"] for m in pic["moves"])
            assert offered == ([] if s.is_terminal() or s.is_chance_node() else sorted(s.legal_actions()))
            assert all(m["text"] == s.action_to_string(m["action"]) for m in pic["moves"])
            grid = game.grid(s)
            owners = [[None if not label else int(label[0]) for label in row] for row in grid]
            assert [[c and c["p"] for c in row] for row in pic["cells"]] == owners
            if i and not states[i - 1].is_chance_node():
                assert pic["last"]["action"] == s.history[-1] and pic["last"]["player"] == states[i - 1].current_player()
        end = render.frame(states)
        assert end["terminal"] and end["to_move"] is None


def test_quixo_moves_end_where_the_kernel_pushes_the_cube():
    game = games.make_game("quixo", size=5)
    s = game.initial()
    for m in game.picture(s)["moves"]:
        after = game.grid(s.apply(m["action"]))
        r, c = m["to"]
        assert after[r][c] == "0X"  # the taken blank comes back as the mover's X at the far end
        assert m["from"][0] in (0, 4) or m["from"][1] in (0, 4)


def test_quantik_blocked_cells_give_the_rule_and_complete_the_legal_ones():
    game = games.make_game("quantik")
    s = game.initial().apply(game.string_to_action(game.initial(), "Aa4"))  # player 0 puts a cube on a4
    pic = game.picture(s)
    blocked = {(r, c): why for r, c, why in pic["blocked"][0]}
    legal = {tuple(m["cell"]) for m in pic["moves"] if m["shape"] == 0}
    assert len(blocked) + len(legal) == 15  # every empty cell is one or the other
    assert (0, 3) in blocked and "row, column or zone" in blocked[(0, 3)]  # a4's row
    assert (1, 1) in blocked and (3, 3) in legal  # b3 is in a4's zone; d1 is free of it
    assert pic["hand"] == [[1, 2, 2, 2], [2, 2, 2, 2]]


def test_einstein_picture_shows_the_die_and_the_cubes_it_lets_move():
    """The cubes offered are the die's, else the nearest numbers above and below (the rules)."""
    game = games.make_game("einstein")
    seen = 0
    for seed in range(6):
        for s in random_states(game, seed):
            if s.is_terminal() or s.is_chance_node() or not game.die(s):
                continue
            pic = game.picture(s)
            die, me = pic["die"], pic["to_move"]
            assert die == game.die(s) and pic["goals"] == [[4, 4], [0, 0]]
            own = {c["n"] for row in pic["cells"] for c in row if c and c["p"] == me}
            movers = {pic["cells"][r][c]["n"] for r, c in (m["from"] for m in pic["moves"])}
            nearest = {max((n for n in own if n < die), default=None), min((n for n in own if n > die), default=None)}
            assert movers == ({die} if die in own else nearest - {None})
            seen += die not in own
    assert seen  # some positions had the die's cube gone


@pytest.mark.parametrize("name,params", GAMES)
def test_move_lists_replay_to_the_same_position(name, params):
    """What the page lists (chance outcomes in brackets) opens the same position again."""
    game = games.make_game(name, **params)
    states = random_states(game, 7)
    texts = render.move_texts(states)
    again = render.play_texts(game, texts)
    assert again[-1].words == states[-1].words and len(again) == len(states)


def test_a_bad_move_list_names_the_bad_move():
    game = games.make_game("connectx")
    with pytest.raises(ValueError, match="move 3"):
        render.play_texts(game, ["4", "4", "9"])
    with pytest.raises(ValueError, match="at most"):
        render.play_texts(game, "4 4")


def test_the_report_keeps_simulations_apart_from_visits_and_reads_values():
    game = games.make_game("tictactoe")
    s = game.initial()
    info = {"simulations": 100, "nodes": 90, "value": 0.2, "visits": {0: 5000, 4: 60000},
            "action_values": {0: -0.1, 4: 0.2}, "pv": [4, 0], "cache_nodes": 2000}
    rep = render.search_report(info, s, 0.5)
    assert rep.kind == "mcts" and rep.simulations == 100 and rep.rate == 200.0
    assert rep.share == pytest.approx(0.6) and rep.value_text.startswith("60% to win")
    assert [r["text"] for r in rep.rows] == ["b2", "a3"] and rep.pv == ["b2", "a3"]
    assert "opening cache" in rep.notes[0] and "64,900" in rep.notes[0]
    solved = render.search_report({"value": -1.0, "exact": True, "nodes": 12, "action_values": {4: -1.0}}, s, 0.1)
    assert solved.kind == "solver" and solved.verdict == "loss" and solved.share == 0.0
    searched = render.search_report({"value": 0.000006, "depth": 5, "nodes": 4001}, s, 0.2)
    assert searched.kind == "search" and searched.value_text == "evaluation +0.000" and searched.rate == 20005.0
    assert render.count_text(58743276) == "58.7 M" and render.count_text(4001) == "4,001"


def test_sessions_open_a_position_and_refuse_a_wrong_move_list():
    from util.arena.web.app import create_app

    client = create_app().test_client()
    r = client.post("/api/sessions", json={"game": "tictactoe", "agent": "random:seed=1", "time": 0.05, "moves": ["b2", "a1"]})
    assert r.status_code == 201 and r.json["history"] == ["b2", "a1"] and r.json["picture"]["last"]["text"] == "a1"
    sid = r.json["id"]
    first = client.get(f"/api/sessions/{sid}/frame?ply=0")
    assert first.status_code == 200 and all(c is None for row in first.json["cells"] for c in row)
    assert client.get(f"/api/sessions/{sid}/frame?ply=9").status_code == 400
    bad = client.post("/api/sessions", json={"game": "tictactoe", "moves": ["b2", "b2"]})
    assert bad.status_code == 400 and "move 2" in bad.json["error"]


def test_a_new_analyst_is_warmed_up_before_its_timed_search_and_kept(monkeypatch):
    """Compiles and opening data are loaded outside the search's time (ConnectX MCTS's first
    search spent its whole 0.5 s loading its cache: 0 simulations), once per analyst, in the
    store's warm-up thread (never in the request: a 503 while it runs)."""
    import threading

    from util.arena.web import sessions

    calls: list[str] = []
    release = threading.Event()

    class Agent:
        def __init__(self, spec: str) -> None:
            self.spec = spec

        def warm_up(self) -> float:
            calls.append(f"warm {self.spec} in {threading.current_thread().name}")
            release.wait(60)  # a compile that lasts until the test has seen the 503
            return 0.0

        def choose(self, state, deadline):
            calls.append(f"choose {self.spec}")
            return state.legal_actions()[0]

        def info(self) -> dict:
            return {}

    monkeypatch.setattr(sessions, "make_agent", lambda spec, game: Agent(spec))
    monkeypatch.setattr(sessions, "WARM_WAIT", 0.01)
    store = sessions.SessionStore()
    session = store.create(games.parse_game("tictactoe"), "random", 0.1, 0)
    with pytest.raises(sessions.RequestError) as info:
        session.analyse("anything", session.state, 0.1)
    assert info.value.status == 503 and info.value.retry_after and "warming up" in str(info.value)
    release.set()
    assert session.ready.wait(60)
    for _ in range(2):
        while True:
            try:
                report, action = session.analyse("anything", session.state, 0.1)
                break
            except sessions.RequestError as exc:  # the analyst's warm-up, queued after the session's agent
                assert exc.status == 503
        assert action in session.state.legal_actions()
    assert calls == ["warm random in agent-warm-up", "warm anything in agent-warm-up", "choose anything", "choose anything"]
