"""ConnectX's ant colony search (the generic search's ant policy, whose choice rule, evaporation
and deposits tests/test_engine_ant.py checks): proofs and forced wins, compiled vs plain
agreement, games against random."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from agents.ant_colony import AntColonyAgent
from agents.random_agent import RandomAgent
from agents.registry import make
from core.connectx import Position
from tests.test_mcts import engine_search, keeps_a_win, pons, prove, sample_by_distance
from util.arena.game import play_game
from util.jit import numba_available


@pytest.mark.parametrize("plies,distance", [(3, 1), (5, 2)])
def test_forced_win_found(plies, distance):
    agent = AntColonyAgent(leaf="heuristic", max_sims=300_000, seed=3)
    for i, pos in enumerate(sample_by_distance("Test_L2_R1", distance, 10, seed=10 + plies)):
        col = agent.choose(pos, time.perf_counter() + 60)
        assert keeps_a_win(pos, col, plies), f"position {i}: column {col} lets the win go"
        info = agent.info()
        assert info.get("proven") == "win" or info["reason"] == "forced block", info


def test_solver_proves_end_positions():
    if not numba_available():
        pytest.skip("numba not installed")
    agent = AntColonyAgent(leaf="rollout", capacity=1_000_000)
    for moves, score in random.Random(8).sample(pons("Test_L3_R1"), 200):
        value, n = prove(agent, Position.from_moves(moves), 2_000_000)
        assert value == np.sign(score), f"{moves}: proved {value} after {n} simulations, Pons says {score}"


def test_numba_and_python_agree_on_the_same_seed():
    if not numba_available():
        pytest.skip("numba not installed")
    pos = Position.from_moves("4453")
    runs = []
    for jit in (False, True):
        agent = AntColonyAgent(leaf="heuristic", capacity=3000, seed=2)
        col, info = engine_search(agent, pos, 1000, jit)
        runs.append((col, info["nodes"], info["visits"], info["action_values"]))
    (c1, n1, v1, a1), (c2, n2, v2, a2) = runs
    assert c1 == c2 and n1 == n2 and v1 == v2
    assert a1.keys() == a2.keys() and all(abs(a1[k] - a2[k]) < 1e-9 for k in a1)


def test_beats_random_every_game():
    agent, rnd = AntColonyAgent(leaf="rollout", max_sims=3000, seed=1), RandomAgent(seed=3)
    for g in range(10):
        result = play_game(agent, rnd, time_per_move=30) if g % 2 == 0 else play_game(rnd, agent, time_per_move=30)
        assert result.winner == (1 if g % 2 == 0 else 2), result


def test_registry_builds_it_and_rejects_bad_parameters():
    agent = make("ant_colony", power="1.5", evaporation="0.1")
    assert isinstance(agent, AntColonyAgent) and agent.power == 1.5 and agent.evaporation == 0.1
    for bad in ({"evaporation": "1.0"}, {"start": "0"}, {"power": "-1"}):
        with pytest.raises(ValueError):
            make("ant_colony", **bad)
