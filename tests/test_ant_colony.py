"""Ant colony search: the pheromone choice rule against hand-computed probabilities, evaporation,
deposits, proofs and forced wins through the shared tree, and compiled vs plain agreement."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from agents.connectx.ant_colony import AntColonyAgent
from agents.connectx.mcts import seed_state
from agents.connectx.random_agent import RandomAgent
from agents.connectx.registry import make
from agents.engine import mcts_kernels as MK
from core.connectx import Position
from tests.test_mcts import JIT, PATHS, Bench, keeps_a_win, need, pons, prove, sample_by_distance, snapshot
from util.arena.game import play_game


def pheromone_tree(jit: bool, pher: list[float], **params) -> Bench:
    """Root "4453" with children at columns 0..n-1 holding the given pheromone (one visit
    each), under an ant agent's settings."""
    b = Bench(AntColonyAgent(leaf="rollout", **params), Position.from_moves("4453"), 16, jit).new()
    t = b.tree
    b.k.set_stats(t.floats, 0, 10.0, 0.0, -1.0, 1.0)
    for col, p in enumerate(pher):
        ch = b.k.add_child(b.g, t.ints, t.floats, b.hp, 0, b.words, col)
        b.k.set_stats(t.floats, ch, 1.0, 0.0, -1.0, 1.0)
        t.floats[int(t.ints[MK.I_PHER]) + ch] = p  # as tests/test_engine_ant.py sets it
    return b


def draw(b: Bench, rng: int) -> tuple[int, int]:
    """(the column an ant picks at the root, rng)."""
    ch, rng = b.k.select(b.tree.ints, b.tree.floats, 0, 0, True, -1, rng)  # F_POLICY: ant (the agent's settings)
    return b.tree.node(ch)["action"], rng


def pher(b: Bench, col: int) -> float:
    return b.tree.node(b.tree.child(0, col))["pher"]


@pytest.mark.parametrize("jit", PATHS)
def test_choice_follows_pheromone_to_the_power(jit):
    b = pheromone_tree(jit, [1.0, 2.0, 3.0], power=2.0, evaporation=0.0, floor=0.0)
    counts = np.zeros(3)
    rng = seed_state(5)
    draws = 20_000 if jit else 4000
    for _ in range(draws):
        col, rng = draw(b, rng)
        counts[col] += 1
    expected = np.array([1.0, 4.0, 9.0]) / 14.0  # 1^2, 2^2, 3^2 over their sum
    sigma = np.sqrt(expected * (1 - expected) / draws)
    assert np.all(np.abs(counts / draws - expected) < 4 * sigma), counts / draws


@pytest.mark.parametrize("jit", PATHS)
def test_floor_keeps_starved_children_in_play(jit):
    b = pheromone_tree(jit, [1.0, 1e-9, 100.0], power=2.0, evaporation=0.0, floor=0.1)
    counts = np.zeros(3)
    rng = seed_state(9)
    draws = 20_000 if jit else 4000
    for _ in range(draws):
        col, rng = draw(b, rng)
        counts[col] += 1
    expected = np.array([100.0, 100.0, 10000.0]) / 10200.0  # both weak ones count as (0.1 * 100) ** 2
    sigma = np.sqrt(expected * (1 - expected) / draws)
    assert np.all(np.abs(counts / draws - expected) < 4 * sigma), counts / draws


@pytest.mark.parametrize("jit", PATHS)
def test_visit_evaporates_the_children_and_skips_proven_losses(jit):
    b = pheromone_tree(jit, [1.0, 2.0, 3.0], power=1.0, evaporation=0.1, floor=0.0)
    b.k.set_stats(b.tree.floats, b.tree.child(0, 2), 1.0, 0.0, -1.0, -1.0)  # column 2 loses for X: never chosen, never aged
    seen = set()
    rng = seed_state(1)
    for _ in range(200):
        col, rng = draw(b, rng)
        seen.add(col)
    assert seen == {0, 1}
    assert pher(b, 0) == pytest.approx(1.0 * 0.9**200) and pher(b, 1) == pytest.approx(2.0 * 0.9**200)
    assert pher(b, 2) == 3.0


@pytest.mark.parametrize("jit", PATHS)
def test_deposit_follows_the_movers_reward(jit):
    # One walk per child: each child's pheromone is the start plus deposit * (1 + X's reward) / 2.
    pos = Position.from_moves("4453")
    b = Bench(AntColonyAgent(leaf="rollout", start=0.5, deposit=2.0), pos, 64, jit).new()
    b.run(len(pos.legal_columns()))
    kids = b.tree.children(0)
    assert len(kids) >= 5 and {k["visits"] for k in kids} == {1.0}
    for k in kids:
        assert k["pher"] == pytest.approx(0.5 + 2.0 * (1.0 + k["value"]) / 2), k


@pytest.mark.parametrize("plies,distance", [(3, 1), (5, 2)])
def test_forced_win_found(plies, distance):
    agent = AntColonyAgent(leaf="heuristic", max_sims=300_000, seed=3)
    for i, pos in enumerate(sample_by_distance("Test_L2_R1", distance, 10, seed=10 + plies)):
        col = agent.choose_position(pos, time.perf_counter() + 60)
        assert keeps_a_win(pos, col, plies), f"position {i}: column {col} lets the win go"
        info = agent.info()
        assert info.get("proven") == "win" or info["reason"] == "forced block", info


def test_solver_proves_end_positions():
    if not JIT:
        pytest.skip("numba not installed")
    agent = AntColonyAgent(leaf="rollout")
    for moves, score in random.Random(8).sample(pons("Test_L3_R1"), 200):
        value, n = prove(agent, Position.from_moves(moves), 2_000_000)
        assert value == np.sign(score), f"{moves}: proved {value} after {n} simulations, Pons says {score}"


def test_numba_and_python_agree_on_the_same_seed():
    need(True)
    pos = Position.from_moves("4453")
    runs = []
    for jit in (False, True):
        b = Bench(AntColonyAgent(leaf="heuristic"), pos, 3000, jit).new(2)
        b.run(1000)
        runs.append((b.tree.used, snapshot(b.tree), sorted((k["action"], k["pher"]) for k in b.tree.children(0))))
    assert runs[0][0] > 100 and runs[0][:2] == runs[1][:2]
    assert [a for a, _ in runs[0][2]] == [a for a, _ in runs[1][2]]
    assert np.allclose([p for _, p in runs[0][2]], [p for _, p in runs[1][2]], rtol=0, atol=1e-9)


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
