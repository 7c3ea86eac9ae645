"""Ant colony search: the pheromone choice rule against hand-computed probabilities, evaporation,
deposits, proofs and forced wins through the shared tree, and compiled vs plain agreement."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

import agents.mcts_tree as mt
from agents.ant_colony import AntColonyAgent
from agents.mcts import Tree, seed_state
from agents.random_agent import RandomAgent
from agents.registry import make
from core.connectx import Position
from tests.test_mcts import PATHS, K, kernel_ns, keeps_a_win, pons, prove, sample_by_distance
from util.arena.game import play_game
from util.jit import compiled, numba_available


def pheromone_tree(pher: list[float]) -> Tree:
    tree = Tree(16, 7, True)
    tree.children[:] = mt.ILLEGAL
    tree.lo[:] = -1
    tree.hi[:] = 1
    tree.visits[0] = 10.0
    for i, p in enumerate(pher):
        tree.children[0, i] = i + 1
        tree.visits[i + 1] = 1.0
        tree.pher[i + 1] = p
    return tree


@pytest.mark.parametrize("which", PATHS)
def test_choice_follows_pheromone_to_the_power(which):
    k = kernel_ns(which)
    tree = pheromone_tree([1.0, 2.0, 3.0])
    counts = np.zeros(3)
    rng = seed_state(5)
    draws = 20_000 if which == "numba" else 4000
    for _ in range(draws):
        col, rng = k.select_ant(tree.children, tree.lo, tree.hi, tree.pher, 0, 7, 2.0, 0.0, 0.0, rng)
        counts[col] += 1
    expected = np.array([1.0, 4.0, 9.0]) / 14.0  # 1^2, 2^2, 3^2 over their sum
    sigma = np.sqrt(expected * (1 - expected) / draws)
    assert np.all(np.abs(counts / draws - expected) < 4 * sigma), counts / draws


@pytest.mark.parametrize("which", PATHS)
def test_floor_keeps_starved_children_in_play(which):
    k = kernel_ns(which)
    tree = pheromone_tree([1.0, 1e-9, 100.0])
    counts = np.zeros(3)
    rng = seed_state(9)
    draws = 20_000 if which == "numba" else 4000
    for _ in range(draws):
        col, rng = k.select_ant(tree.children, tree.lo, tree.hi, tree.pher, 0, 7, 2.0, 0.0, 0.1, rng)
        counts[col] += 1
    expected = np.array([100.0, 100.0, 10000.0]) / 10200.0  # both weak ones count as (0.1 * 100) ** 2
    sigma = np.sqrt(expected * (1 - expected) / draws)
    assert np.all(np.abs(counts / draws - expected) < 4 * sigma), counts / draws


@pytest.mark.parametrize("which", PATHS)
def test_visit_evaporates_the_children_and_skips_proven_losses(which):
    k = kernel_ns(which)
    tree = pheromone_tree([1.0, 2.0, 3.0])
    tree.lo[3], tree.hi[3] = 1, 1  # column 2 loses for the mover: never chosen, never aged
    seen = set()
    rng = seed_state(1)
    for _ in range(200):
        col, rng = k.select_ant(tree.children, tree.lo, tree.hi, tree.pher, 0, 7, 1.0, 0.1, 0.0, rng)
        seen.add(col)
    assert seen == {0, 1}
    assert tree.pher[1] == pytest.approx(1.0 * 0.9**200) and tree.pher[2] == pytest.approx(2.0 * 0.9**200)
    assert tree.pher[3] == 3.0


def test_deposit_follows_the_movers_reward():
    # X to move; O threatens column 3 only (bottom row 4, 5, 6), so every other X move lets O
    # win at once: those children are proven lost for X, whose reward -1 lays (1 - 1) / 2 = 0.
    pos = Position.from_moves([0, 4, 0, 5, 1, 6])
    agent = AntColonyAgent(leaf="rollout", start=0.5, deposit=2.0)
    tree = Tree(64, 7, True)
    K.new_tree(*tree.arrays(), pos.current, pos.mask, pos.ply, 6, 7, 4, 0.5, 1)
    K.run(*tree.arrays(), np.zeros(44, np.int64), 0, pos.current, pos.mask, pos.ply, 6, 7, 4, agent.params_array(),
          np.zeros(1), 7)
    for col in range(7):
        ch = tree.children[0, col]
        mover_reward = tree.values[ch]  # one walk each
        assert tree.pher[ch] == pytest.approx(0.5 + 2.0 * (1.0 + mover_reward) / 2)
        if col != 3:
            assert tree.pher[ch] == 0.5


@pytest.mark.parametrize("plies,distance", [(3, 1), (5, 2)])
def test_forced_win_found(plies, distance):
    agent = AntColonyAgent(leaf="heuristic", max_sims=300_000, seed=3)
    for i, pos in enumerate(sample_by_distance("Test_L2_R1", distance, 10, seed=10 + plies)):
        col = agent.choose(pos, time.perf_counter() + 60)
        assert keeps_a_win(pos, col, plies), f"position {i}: column {col} lets the win go"
        info = agent.info()
        assert info.get("proven") == "win" or info["reason"] == "forced block", info


def test_solver_proves_end_positions():
    if K is mt:
        pytest.skip("numba not installed")
    agent, tree = AntColonyAgent(leaf="rollout"), Tree(1_000_000, 7, True)
    for moves, score in random.Random(8).sample(pons("Test_L3_R1"), 200):
        value, n = prove(K, tree, Position.from_moves(moves), agent, 2_000_000)
        assert value == np.sign(score), f"{moves}: proved {value} after {n} simulations, Pons says {score}"


def test_numba_and_python_agree_on_the_same_seed():
    if not numba_available():
        pytest.skip("numba not installed")
    pos = Position.from_moves("4453")
    trees = []
    for k in (mt, compiled(mt)):
        agent = AntColonyAgent(leaf="heuristic")
        tree = Tree(3000, 7, True)
        k.new_tree(*tree.arrays(), pos.current, pos.mask, pos.ply, 6, 7, 4, agent.start, seed_state(2))
        k.run(*tree.arrays(), np.zeros(44, np.int64), 0, pos.current, pos.mask, pos.ply, 6, 7, 4,
              agent.params_array(), agent._hparams, 1000)
        trees.append(tree)
    a, b = trees
    n = a.used
    assert n == b.used and np.array_equal(a.children[:n], b.children[:n]) and np.array_equal(a.visits[:n], b.visits[:n])
    assert np.allclose(a.pher[:n], b.pher[:n], rtol=0, atol=1e-9)


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
