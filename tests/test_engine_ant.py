"""Ant colony selection of the game-generic MCTS (agents.engine.mcts.AntColonyAgent): deposits
and evaporation on the tree, the pheromone draw against its probabilities, both kernel paths
on the same seed, tactics on tic-tac-toe, and games against random play."""
from __future__ import annotations

import numpy as np
import pytest

from agents import registry
from agents.engine import mcts_kernels as MK
from agents.engine.mcts import AntColonyAgent, seed_state
from agents.engine.random_agent import RandomAgent
from core.game import bind, play_line
from core.games import make_game, parse_game
from tests.test_engine_mcts import FAR, TTT_BLOCK, TTT_WIN, needs_numba, self_play_trace
from util.arena.match import play


def expanded_root(**params) -> AntColonyAgent:
    """An ant agent whose tree holds the tic-tac-toe root and its nine children, one walk each."""
    agent = AntColonyAgent(game=make_game("tictactoe"), jit=False, solver=False, gamma=1.0, max_sims=9, **params)
    agent.choose(agent.game.initial(), FAR)
    assert [k["visits"] for k in agent._tree.children(0)] == [1.0] * 9
    return agent


def test_each_walk_deposits_the_movers_reward_on_its_edges():
    agent = expanded_root(evaporation=0.0, start=0.5, deposit=2.0)
    for kid in agent._tree.children(0):
        assert kid["pher"] == pytest.approx(0.5 + 2.0 * (1.0 + kid["value"]) / 2.0), kid


def test_draw_follows_the_pheromone_to_the_power_above_the_floor():
    agent = expanded_root(evaporation=0.0, power=2.0, floor=0.1)
    tree, g = agent._tree, agent.game
    k = bind(g, MK, jit=False)
    kids = tree.children(0)
    pher = [1.0, 2.0, 3.0, 1e-9, 0.0, 0.5, 2.5, 1.5, 10.0]  # two below the floor (0.1 * 10)
    for kid, p in zip(kids, pher):
        tree.floats[int(tree.ints[MK.I_PHER]) + kid["id"]] = p
    weights = np.array([max(p, 1.0) ** 2 for p in pher])
    expected = weights / weights.sum()
    slot = {kid["id"]: i for i, kid in enumerate(kids)}
    counts = np.zeros(9)
    rng = seed_state(5)
    draws = 6000
    for _ in range(draws):
        ch, rng = k.select(tree.ints, tree.floats, 0, 0, False, -1, rng)  # F_POLICY: ant (the agent's settings)
        counts[slot[ch]] += 1
    sigma = np.sqrt(expected * (1 - expected) / draws)
    assert np.all(np.abs(counts / draws - expected) < 4 * sigma), counts / draws


def test_looking_at_the_children_evaporates_their_pheromone():
    agent = expanded_root(evaporation=0.25)
    tree = agent._tree
    before = [kid["pher"] for kid in tree.children(0)]
    k = bind(agent.game, MK, jit=False)
    k.select(tree.ints, tree.floats, 0, 0, False, -1, seed_state(1))
    after = [kid["pher"] for kid in tree.children(0)]
    assert after == pytest.approx([0.75 * p for p in before])


@needs_numba
@pytest.mark.parametrize("open_loop", [False, True])
def test_compiled_and_plain_paths_agree_exactly_over_a_game_with_reuse(open_loop):
    g = make_game("tictactoe")
    runs = [self_play_trace(g, jit, AntColonyAgent, seed=3, max_sims=1500, open_loop=open_loop, evaporation=0.05)
            for jit in (False, True)]
    assert runs[0] == runs[1]
    assert any(t[5] for t in runs[0][1:])  # the tree was reused and re-rooted on both paths


@needs_numba
def test_compiled_and_plain_kernels_leave_the_same_pheromone():
    g = make_game("tictactoe")
    state = play_line(g, [4])
    trees = []
    for jit in (False, True):
        agent = AntColonyAgent(game=g, jit=jit, background_compile=False, max_sims=800, seed=9, solver=False)
        agent.choose(state, FAR)
        trees.append(sorted((k["action"], k["visits"], k["pher"]) for k in agent._tree.children(0)))
    assert trees[0] == trees[1]


@pytest.mark.parametrize("solver,sims", [(True, 400), (False, 3000)])
def test_wins_in_one_and_blocks_on_tictactoe_over_seeds(solver, sims):
    """Without the solver ants need more walks: they pick the opponent's winning reply only by
    chance (not greedily, as UCT soon does), so a losing move's mean falls slowly towards -1."""
    g = make_game("tictactoe")
    for moves, good in TTT_WIN + TTT_BLOCK:
        for seed in range(4):
            agent = AntColonyAgent(game=g, jit=False, seed=seed, max_sims=sims, solver=solver)
            action = agent.choose(play_line(g, moves), FAR)
            assert action in good, (moves, seed, action)


@pytest.mark.parametrize("spec,games,min_wins", [("tictactoe", 12, 10), ("connect4_count:rows=4,columns=4", 24, 9)])
def test_beats_random_over_seeded_games(spec, games, min_wins):
    """``games`` games, seats alternating: never a loss, and at least ``min_wins`` wins (random
    play against itself loses about as often as it wins). On 4x4 count-the-fours the ant wins
    about half its games against random play and draws the rest (48-52% over 320 seeds)."""
    g = parse_game(spec)
    returns = []
    for k in range(games):
        ant = AntColonyAgent(game=g, jit=False, max_sims=300, seed=k)
        rnd = RandomAgent(game=g, seed=100 + k)
        if k % 2 == 0:
            returns.append(play(ant, rnd, g, time_per_move=60)["returns"][0])
        else:
            returns.append(-play(rnd, ant, g, time_per_move=60)["returns"][0])
    assert min(returns) >= 0 and sum(r > 0 for r in returns) >= min_wins, returns


def test_registry_builds_it_and_connectx_keeps_its_own():
    agent = registry.make("ant_colony:power=2,evaporation=0.1,start=0.5,deposit=3,floor=0.2", make_game("tictactoe"))
    assert isinstance(agent, AntColonyAgent)
    assert (agent.power, agent.evaporation, agent.start, agent.deposit, agent.floor) == (2.0, 0.1, 0.5, 3.0, 0.2)
    floats = [0.0] * MK.FHEADER
    agent._settings(floats)
    assert floats[MK.F_POLICY] == MK.POLICY_ANT and floats[MK.F_TAU0] == 0.5 and floats[MK.F_DEPOSIT] == 3.0
    for bad in ("evaporation=1", "start=0", "power=-1", "floor=2"):
        with pytest.raises(registry.SpecError):
            registry.make(f"ant_colony:{bad}", make_game("tictactoe"))
    from agents.connectx.ant_colony import AntColonyAgent as ConnectXAnt

    cx = registry.make("ant_colony:power=1.5", make_game("connectx"))
    assert isinstance(cx, ConnectXAnt) and cx.power == 1.5  # ConnectX's own, choosing from a State like every agent
