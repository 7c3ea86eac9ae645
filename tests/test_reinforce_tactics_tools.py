"""Reinforce Tactics in the tools: the registry, Kaggle's observation of our states, Kaggle's
built-in agents as arena players (checked turn by turn against real Kaggle episodes), the
arena's time per turn, and a short tournament whose store replays."""
from __future__ import annotations

import sqlite3
import subprocess
import sys

import numpy as np
import pytest

from core.game import State
from core.games import parse_game
from core.reinforce_tactics import K, ReinforceTactics
from core.reinforce_tactics import kaggle as KG
from core.reinforce_tactics.layout import H_OVER
from util.arena import match
from util.arena.kaggle_turns import KaggleTurnPlayer
from util.arena.players import resolve, state_player

SPEC = "reinforce_tactics:map=beginner,episode_steps=20"


def kaggle_frames(map_name: str, seed: int, steps: int, agents: list[str]) -> list:
    from kaggle_environments import make

    env = make("reinforce_tactics", configuration={"mapName": map_name, "seed": seed, "episodeSteps": steps})
    return env.run(agents)


def unit_key(u: dict) -> tuple:
    return (u["owner"], u["y"], u["x"])


def test_registered_with_parameters():
    game = parse_game("reinforce_tactics:map=skirmish,seed=4,episode_steps=30")
    assert isinstance(game, ReinforceTactics)
    assert game.params["map"] == "skirmish" and game.params["episode_steps"] == 30
    assert parse_game(game.spec()) == game
    with pytest.raises(ValueError, match="not built in"):
        parse_game("reinforce_tactics:map=nowhere")


@pytest.mark.parametrize("map_name,seed", [("beginner", 3), ("skirmish", 8)])
def test_observation_of_our_state_is_kaggles(map_name, seed):
    """At the start of every turn of a real episode, the observation we build from our state
    equals the one Kaggle gave (units compared as a set: see observation_from_state)."""
    frames = kaggle_frames(map_name, seed, 40, ["aggressive", "random"])
    game = ReinforceTactics(map=map_name, seed=seed, episode_steps=40)
    compared = 0
    for frame in frames[1:-1]:
        mover = 0 if frame[0].status == "ACTIVE" else 1
        obs = {**frame[0].observation, "player": mover}
        ours = KG.observation_from_state(game.g, KG.state_from_observation(game.g, obs))
        assert ours["board"] == [list(r) for r in obs["board"]]
        assert ours["structures"] == [dict(st) for st in obs["structures"]]
        assert sorted(ours["units"], key=unit_key) == sorted((dict(u) for u in obs["units"]), key=unit_key)
        for k in ("gold", "player", "turnNumber", "mapWidth", "mapHeight"):
            assert ours[k] == obs[k], k
        compared += bool(obs["units"])
    assert compared >= 10  # turns with units on the board were compared


@pytest.mark.parametrize("seed", [5, 21])
def test_kaggle_player_plays_the_turns_kaggle_executed(seed):
    """Our arena player of Kaggle's ``aggressive`` built-in (deterministic), given each turn's
    start of a real episode, plays exactly the actions Kaggle's interpreter executed that turn
    (skipped entries skipped), the Rogue's evasion outcomes forced to Kaggle's."""
    name = "aggressive"
    frames = kaggle_frames("beginner", seed, 60, [name, name])
    game = ReinforceTactics(map="beginner", seed=seed, episode_steps=60)
    s = np.array(game.initial().words, np.int64)
    turns = 0
    for before, after in zip(frames, frames[1:]):
        mover = 0 if before[0].status == "ACTIVE" else 1
        want = KG.log_to_actions(game.g, s, after[0].observation.actionLog)
        player = KaggleTurnPlayer(name, game, 5.0, seed=turns)
        state = State(game, tuple(int(w) for w in s))
        got = []
        for a in want:
            if state.is_chance_node():
                got.append(a)  # Kaggle's outcome
            else:
                got.append(player.choose(state, 0.0))
            state = state.apply(got[-1])
            if state.is_terminal():
                break
        assert got == want, f"turn {turns} (player {mover})"
        for a in want:
            s = K.play(game.g, s, a)
        turns += 1
    assert s[H_OVER] == 1 and turns >= 10


def test_kaggle_player_skips_what_kaggle_skips_and_forfeits_a_non_dict():
    game = ReinforceTactics(map="beginner", episode_steps=20)
    state = game.initial()
    player = KaggleTurnPlayer("random", game, 1.0)
    player.turn_actions = lambda s: [{"type": "move", "from_x": 0, "from_y": 0, "to_x": 1, "to_y": 0},
                                     {"type": "teleport"}, {"type": "end_turn"}, {"type": "create_unit"}]
    assert player.choose(state, 0.0) == game.end_turn_action  # both entries skipped, then end_turn
    player.reset()
    player.turn_actions = lambda s: ["end_turn"]
    with pytest.raises(ValueError, match="not an action dict"):
        player.choose(state, 0.0)


def test_specs_resolve_for_the_game_and_refuse_unknown_builtins():
    game = parse_game(SPEC)
    spec = resolve("kaggle:aggressive", game)
    assert spec.kind == "kaggle_turns" and spec.text == "kaggle:aggressive"
    assert isinstance(state_player(spec, game, 1.0, 0), KaggleTurnPlayer)
    with pytest.raises(ValueError, match="valid: kaggle:aggressive"):
        resolve("kaggle:negamax", game)
    with pytest.raises(ValueError, match="plays only connectx"):
        resolve("kaggle:negamax", parse_game("tictactoe"))


class FakeClock:
    """A perf_counter the agents advance: time in tests without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now


class Spender:
    """Spends ``cost`` seconds of the fake clock a decision, records its deadlines, plays the
    first legal action (Reinforce Tactics: create units, then move them, then end the turn)."""

    def __init__(self, clock: FakeClock, cost: float) -> None:
        self.clock, self.cost, self.seen = clock, cost, []

    def choose(self, state: State, deadline: float) -> int:
        self.seen.append((state.game.turn_index(state), state.current_player(), deadline - self.clock.now))
        self.clock.now += self.cost
        return state.legal_actions()[0]


def test_time_control_is_per_turn_in_games_of_several_decisions(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(match, "time", clock)
    game = parse_game(SPEC)
    one, two = Spender(clock, 0.1), Spender(clock, 0.1)
    r = match.play(one, two, game, time_per_move=1.0, hard_limit=10.0)
    assert r["termination"] == "draw"
    by_turn: dict = {}
    for turn, _p, left in one.seen + two.seen:
        by_turn.setdefault(turn, []).append(left)
    long_turns = [v for v in by_turn.values() if len(v) > 1]
    assert long_turns  # some turns have several decisions
    for lefts in by_turn.values():  # each decision gets the turn's time less what was spent
        assert lefts == pytest.approx([1.0 - 0.1 * i for i in range(len(lefts))])
    # The hard limit applies to a turn's total: 0.4 s a decision passes a 1 s limit within a turn.
    clock2 = FakeClock()
    monkeypatch.setattr(match, "time", clock2)
    r = match.play(Spender(clock2, 0.4), Spender(clock2, 0.4), game, time_per_move=0.5, hard_limit=1.0)
    assert r["termination"] == "timeout" and "turn took 1.200 s" in next(iter(r["errors"].values()))


def test_time_control_stays_per_move_in_games_of_one_decision(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(match, "time", clock)
    game = parse_game("tictactoe")
    one, two = Spender(clock, 0.4), Spender(clock, 0.4)
    r = match.play(one, two, game, time_per_move=0.5, hard_limit=1.0)
    assert r["termination"] in ("win", "draw")
    assert all(left == pytest.approx(0.5) for _t, _p, left in one.seen + two.seen)


def test_tournament_stores_a_replayable_game(tmp_path):
    db = tmp_path / "rt.sqlite"
    cmd = [sys.executable, "-m", "util.arena.tournament", "--game", SPEC, "--agents", "kaggle:aggressive,random",
           "--games", "2", "--workers", "1", "--db", str(db), "--time", "2", "--quiet"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("pragma table_info(games)")]
    rows = [dict(zip(cols, r)) for r in con.execute("select * from games")]
    assert len(rows) == 2
    game = parse_game(SPEC)
    for row in rows:
        assert parse_game(row["game"]) == game
        moves = [int(m) for m in str(row["moves"]).split(",")]
        state = game.initial()
        for a in moves:
            state = state.apply(a)
        assert state.is_terminal()  # every action was stored: the game replays to its end
