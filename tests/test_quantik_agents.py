"""Quantik's engine agents: MCTS where the only wins leave the opponent no legal move (the seed
bot's MCTS credited such a game to the wrong player), ``perfect`` as second player against
random and alpha-beta, and ``util.arena.play --game quantik --agent perfect`` driven through stdin.

Everything runs on the plain (pure Python) path so that no numba compile is paid here; the
compiled kernels are checked against the plain ones in ``tests/test_quantik.py``.
"""
from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents import registry
from agents.engine.mcts import MCTSAgent
from agents.engine.solver import Solver
from core.game import State, play_line
from core.games import make_game
from core.quantik import kernels as K
from util.arena.match import play
from util.arena.store import Store

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def game():
    return make_game("quantik")


def blocking_win_positions(game, want: int = 4, max_games: int = 400) -> list[tuple[State, list[int]]]:
    """Positions from seeded random games where the side to move wins, no move completes a
    line, and every winning move (by the exact solver's per-action values) ends the game by
    leaving the opponent no legal placement, while some other move does not win: ``(state,
    winning actions)``. Players avoid moves that give the opponent a line at once (else most
    games end by a line before such positions come up). Both colours to move are collected."""
    solver = Solver(game, tt_bits=16, jit=False)
    g = game.g
    found: dict[int, list[tuple[State, list[int]]]] = {0: [], 1: []}
    for seed in range(max_games):
        if all(len(v) >= want // 2 for v in found.values()):
            break
        rng = random.Random(seed)
        s = game.initial()
        while not s.is_terminal():
            legal = s.legal_actions()
            kids = {a: K.play(g, s.words, a) for a in legal}
            blocks = [a for a in legal if K.terminal(g, kids[a])]
            if blocks and len(blocks) < len(legal) and not K.can_win_now(s.words):
                values = solver.action_values(s)
                wins = [a for a, v in values.items() if v > 0]
                if wins and set(wins) <= set(blocks) and len(found[s.current_player()]) < want // 2:
                    found[s.current_player()].append((s, wins))
            safe = [a for a in legal if not K.can_win_now(kids[a])]
            s = s.apply(rng.choice(safe or legal))
    return found[0] + found[1]


@pytest.fixture(scope="module")
def blocking(game):
    return blocking_win_positions(game)


def test_scan_finds_positions_won_only_by_leaving_no_move_for_either_colour(game, blocking):
    assert len(blocking) == 4, "the scan should find 2 such positions per colour in 400 seeded games"
    assert {s.current_player() for s, _ in blocking} == {0, 1}
    for s, wins in blocking:
        g = game.g
        assert not any(K.complete(K.play(g, s.words, a)) for a in s.legal_actions())  # no line can be completed
        for a in wins:
            after = K.play(g, s.words, a)
            assert K.terminal(g, after) and not K.complete(after) and not K.has_move(after)
        assert len(wins) < len(s.legal_actions())


def test_blocking_win_is_credited_to_the_player_who_made_it(game, blocking):
    for s, wins in blocking:
        mover = s.current_player()
        for a in wins:
            end = s.apply(a)
            assert end.is_terminal() and end.current_player() == 1 - mover  # the stuck player is to move
            r = end.returns()
            assert r[mover] == game.win_value and r[1 - mover] == -game.win_value
            assert K.outcome(game.g, end.words) == (game.win_value if mover == 0 else -game.win_value)


@pytest.mark.parametrize("solver", [True, False], ids=["mcts-solver", "plain-uct"])
def test_mcts_plays_the_win_that_leaves_the_opponent_no_move(game, blocking, solver):
    """With proven bounds (the terminal child is a proven win) and without them (the child's
    reward alone): a wrong sign in ``outcome`` or in the backup would pick a losing move."""
    for s, wins in blocking:
        for seed in range(3):
            agent = MCTSAgent(game=game, seed=seed, max_sims=400, jit=False, solver=solver, reuse=False)
            a = agent.choose(s, time.perf_counter() + 60.0)
            assert a in wins, (f"seed {seed}: played {s.action_to_string(a)} at {' '.join(s.action_to_string(x) for x in s.history)}; "
                               f"wins: {[s.action_to_string(x) for x in wins]}; info {agent.info()}")


class Recorder:
    """Wraps an agent and keeps ``info()`` of each of its moves."""

    def __init__(self, agent) -> None:
        self.agent, self.infos = agent, []

    def reset(self) -> None:
        getattr(self.agent, "reset", lambda: None)()

    def choose(self, state: State, deadline: float) -> int:
        a = self.agent.choose(state, deadline)
        self.infos.append(self.agent.info())
        return a


class Budget:
    """An agent held to its own seconds per move, whatever the game loop allows."""

    def __init__(self, agent, seconds: float) -> None:
        self.agent, self.seconds = agent, seconds

    def reset(self) -> None:
        getattr(self.agent, "reset", lambda: None)()

    def choose(self, state: State, deadline: float) -> int:
        return self.agent.choose(state, min(deadline, time.perf_counter() + self.seconds))


@pytest.mark.slow
@pytest.mark.parametrize("opponent,games,seconds", [("random", 4, 0.05), ("alphabeta", 2, 0.5), ("mcts", 2, 0.5)])
def test_perfect_as_second_player_wins_every_game(game, opponent, games, seconds):
    """Quantik is a second-player win: ``perfect`` (compiled in place on its first move, then
    given ample time) must win each game as second player, every move proven by the solver.
    Slow: numba's compile of the searches takes tens of seconds on a loaded machine."""
    perfect = Recorder(registry.make("perfect:background_compile=false", game))
    for k in range(games):
        spec = f"{opponent}:seed={k}" if opponent != "alphabeta" else "alphabeta:background_compile=false"
        first = Budget(registry.make(spec, game), seconds)
        r = play(first, perfect, game, time_per_move=120.0)  # the compile happens inside perfect's first move
        assert r["termination"] == "win" and r["winner"] == 2, f"game {k} against {opponent}: {r}"
        end = play_line(game, r["moves"])
        assert end.is_terminal() and end.returns()[1] == game.win_value
    assert perfect.infos and all(i.get("exact") for i in perfect.infos)


@pytest.mark.slow
def test_play_cli_plays_a_whole_game_against_perfect(tmp_path: Path):
    """A person (a seeded shuffle of all 64 actions, repeated: each turn the first legal one
    is played, the rest are refused) moves first and loses to ``perfect``; the game is saved.
    Slow: the agent compiles numba's kernels in its first move."""
    game = make_game("quantik")
    s0 = game.initial()
    order = list(range(64))
    random.Random(7).shuffle(order)
    typed = "".join(game.action_to_string(s0, a) + "\n" for a in order) * 9
    proc = subprocess.run([sys.executable, "-m", "util.arena.play", "--game", "quantik", "--agent", "perfect:background_compile=false",
                           "--time", "5", "--db", str(tmp_path / "p.sqlite")],
                          cwd=ROOT, input=typed, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "the agent wins" in out and "saved as game" in out
    assert out.count("agent plays") >= 2 and "is not legal here" in out  # refused lines were asked again
    with Store(tmp_path / "p.sqlite") as store:
        games = list(store.games())
    assert len(games) == 1 and games[0].winner == 2 and games[0].engine == "human"
    end = play_line(game, games[0].moves)
    assert end.is_terminal() and end.returns()[1] == game.win_value
