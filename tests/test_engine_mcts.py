"""The game-generic MCTS (agents.engine.mcts): both paths agree, tactics, the solver against
brute force, chance nodes, open loop, urgency, tree reuse. Test games in tests/games_*.py."""
from __future__ import annotations

import functools
import random
import statistics
import time

import pytest

from agents.engine.mcts import MCTSAgent
from base.jit import numba_available
from core.game import play_line
from core.games import make_game
from tests.games_dice import A, B, OneRoll, roll_value
from tests.games_dicenim import DiceNim
from tests.games_nim import Nim
from tests.games_race import Race

FAR = 1e9  # a deadline that never binds: max_sims decides (and compiles happen in place)
needs_numba = pytest.mark.skipif(not numba_available(), reason="numba not installed")


def search(game, state, **params):
    agent = MCTSAgent(game=game, background_compile=False, **params)
    action = agent.choose(state, time.perf_counter() + FAR)
    return action, agent.info()


def snapshot(tree, node=0):
    """A subtree as nested tuples, ids left out (they change when the tree is re-rooted)."""
    n = tree.node(node)
    kids = sorted((snapshot(tree, k["id"]) for k in tree.children(node)), key=lambda t: t[0])
    return (n["action"], n["player"], n["visits"], n["value"], n["lo"], n["hi"], n["legal"], tuple(kids))


def sample(state, rng):
    outcomes = state.chance_outcomes()
    return state.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])


def self_play_trace(game, jit: bool, cls: type = MCTSAgent, **params) -> list[tuple]:
    """One agent (of ``cls``) playing both seats to the end (chance sampled with a fixed seed):
    each move's action, visits, values, pv, nodes and reuse."""
    rng = random.Random(2)
    agent = cls(game=game, jit=jit, background_compile=False, **params)
    state, trace = game.initial(), []
    while not state.is_terminal():
        if state.is_chance_node():
            state = sample(state, rng)
            continue
        a = agent.choose(state, time.perf_counter() + FAR)
        info = agent.info()
        trace.append((a, info["visits"], info["action_values"], info["pv"], info["nodes"], info.get("reused")))
        state = state.apply(a)
    return trace


# --- both paths ------------------------------------------------------------------------------
@needs_numba
@pytest.mark.parametrize("open_loop", [False, True])
def test_compiled_and_plain_paths_agree_exactly_over_a_game_with_reuse(open_loop):
    g = make_game("tictactoe")
    runs = [self_play_trace(g, jit, seed=7, max_sims=1500, open_loop=open_loop) for jit in (False, True)]
    assert runs[0] == runs[1]
    assert any(t[5] for t in runs[0][1:])  # the tree was reused and re-rooted on both paths


# --- tactics and the solver ------------------------------------------------------------------
TTT_WIN = [([0, 3, 1, 4], {2}), ([4, 0, 8, 2, 1], {7})]  # (moves, winning cells) with the mover to win at once
TTT_BLOCK = [([0, 4, 1], {2}), ([4, 0, 5], {3})]  # the opponent threatens one cell


@pytest.mark.parametrize("solver", [False, True])
def test_wins_in_one_and_blocks_on_tictactoe_over_seeds(solver):
    g = make_game("tictactoe")
    for moves, good in TTT_WIN + TTT_BLOCK:
        for seed in range(4):
            action, _ = search(g, play_line(g, moves), jit=False, seed=seed, max_sims=400, solver=solver)
            assert action in good, (moves, seed, action)


@needs_numba
def test_solver_proves_tictactoe_a_draw_from_the_empty_board():
    g = make_game("tictactoe")
    _, info = search(g, g.initial(), max_sims=100_000, seed=1)
    assert info["exact"] and info["value"] == 0.0
    assert info["simulations"] < 100_000  # stopped on the proof


@functools.cache
def nim_value(pile: int, player: int, bonus: int) -> float:
    """Player 0's result with best play, by plain recursion over the rules as stated (oracle)."""
    if pile == 0:
        return 1.0 if player == 1 else -1.0
    results = []
    for take in (1, 2, 3):
        if take <= pile:
            nxt = player if take == bonus else 1 - player
            results.append(nim_value(pile - take, nxt, bonus))
    return max(results) if player == 0 else min(results)


@pytest.mark.parametrize("bonus", [0, 2])
def test_solver_values_match_brute_force_on_nim_with_extra_turns(bonus):
    """Turns that do not alternate: taking ``bonus`` stones moves again (even at an empty pile)."""
    g = Nim(bonus=bonus)
    for pile in range(2, 11):  # pile 1: one legal move, played without a search
        for player in (0, 1):
            state = g.new_state((pile, player))
            action, info = search(g, state, jit=False, max_sims=20_000)
            truth = nim_value(pile, player, bonus)
            mine = truth if player == 0 else -truth
            assert info["exact"] and info["value"] == mine, (pile, player)
            nxt = player if action + 1 == bonus else 1 - player
            assert nim_value(pile - action - 1, nxt, bonus) == truth  # the move keeps the value


@pytest.mark.parametrize("solver", [False, True])
def test_finds_the_only_win_leaving_the_opponent_no_legal_move(solver):
    g = Nim()
    for player in (0, 1):
        for seed in range(4):
            action, _ = search(g, g.new_state((3, player)), jit=False, seed=seed, max_sims=300, solver=solver)
            assert action == 2  # take all three: the opponent cannot move and loses


def minimax_value(game, state, memo) -> float:
    """Player 0's exact return by plain minimax over the State API (oracle; no pruning)."""
    if state.words in memo:
        return memo[state.words]
    if state.is_terminal():
        v = state.returns()[0]
    else:
        vs = [minimax_value(game, state.apply(a), memo) for a in state.legal_actions()]
        v = max(vs) if state.current_player() == 0 else min(vs)
    memo[state.words] = v
    return v


@pytest.mark.parametrize("shape", [(3, 3, 2), (3, 3, 3), pytest.param((3, 4, 3), marks=pytest.mark.slow),
                                   pytest.param((4, 3, 3), marks=pytest.mark.slow)])
def test_score_bounded_solver_proves_count_the_fours_scores(shape):
    """Returns that are score differences: proven bounds are fractions of win_value, and the
    game's ``bounds`` hook bounds new nodes."""
    rows, columns, inarow = shape
    g = make_game("connect4_count", rows=rows, columns=columns, inarow=inarow)
    _, info = search(g, g.initial(), jit=False, max_sims=400_000, capacity=400_000)
    assert info["exact"] and info["value"] * g.win_value == pytest.approx(minimax_value(g, g.initial(), {}), abs=1e-9)


def test_a_full_tree_still_searches_and_plays_legal_moves():
    g = make_game("tictactoe")
    for seed in range(3):
        action, info = search(g, play_line(g, [0, 3, 1, 4]), jit=False, seed=seed, capacity=16, max_sims=300, solver=False)
        assert action == 2 and info["nodes"] == 16 and info["simulations"] == 300


# --- chance nodes and open loop --------------------------------------------------------------
def test_chance_node_value_converges_to_the_probability_weighted_mean():
    g = OneRoll()
    expected = roll_value() / g.win_value
    means = []
    for seed in range(3):
        _, info = search(g, g.initial(), jit=False, seed=seed, max_sims=3000, gamma=1.0, solver=False)
        means.append(info["action_values"][1])
    assert abs(statistics.mean(means) - expected) < 0.03, (means, expected)
    uniform = sum(a if d % 2 else min(a, b) for d, (a, b) in enumerate(zip(A, B))) / 6 / g.win_value
    assert abs(uniform - expected) > 0.1  # the test tells a probability-weighted mean from a plain one


def test_solver_proves_the_chance_value_exactly():
    g = OneRoll()
    action, info = search(g, g.initial(), jit=False, max_sims=5000, gamma=1.0)
    assert info["exact"] and info["value"] == pytest.approx(roll_value() / g.win_value, abs=1e-12)
    assert action == 1  # rolling (1.35) beats standing (1)


@pytest.mark.parametrize("open_loop", [False, True])
def test_dice_games_only_ever_play_legal_actions(open_loop):
    """DiceNim's legal actions change with every roll; its ``play`` raises on an illegal take,
    inside the search as well. The agent plays both seats against random play, reusing trees."""
    rng = random.Random(5)
    g = DiceNim(pile=15)
    reused = 0
    for game_no in range(4):
        agent = MCTSAgent(game=g, jit=False, seed=game_no, max_sims=250, open_loop=open_loop)
        seat = game_no % 2
        state = g.initial()
        while not state.is_terminal():
            if state.is_chance_node():
                state = sample(state, rng)
            elif state.current_player() == seat:
                action = agent.choose(state, time.perf_counter() + FAR)
                assert action in state.legal_actions()
                assert set(agent.info().get("visits", {})) <= set(state.legal_actions())
                reused += bool(agent.info()["reused"])
                state = state.apply(action)
            else:
                state = state.apply(rng.choice(state.legal_actions()))
    assert reused > 0
    one = OneRoll()
    for face in range(6):  # player 1's decision after each roll: one or two legal actions
        state = one.initial().apply(1).apply(face)
        action, _ = search(one, state, jit=False, max_sims=200, open_loop=open_loop)
        assert action in state.legal_actions()


# --- urgency ---------------------------------------------------------------------------------
def race_moves(gamma: float, seed: int) -> int:
    g = Race(need0=10, need1=30)  # random play wins for player 0 from almost anywhere
    rng = random.Random(seed)
    agent = MCTSAgent(game=g, jit=False, seed=seed, max_sims=400, gamma=gamma)
    state, moves = g.initial(), 0
    while not state.is_terminal():
        if state.current_player() == 0:
            state = state.apply(agent.choose(state, time.perf_counter() + FAR))
            moves += 1
        else:
            state = state.apply(rng.choice(state.legal_actions()))
    assert state.returns()[0] == 1.0
    return moves


def test_discount_makes_a_far_ahead_agent_win_quickly():
    quick = [race_moves(MCTSAgent.gamma, seed) for seed in range(3)]
    assert max(quick) <= 6  # 5 moves of two steps is the quickest win
    aimless = [race_moves(1.0, seed) for seed in range(3)]
    assert statistics.mean(aimless) > statistics.mean(quick) + 1  # without it the agent wanders


# --- tree reuse ------------------------------------------------------------------------------
def test_reuse_keeps_the_subtree_of_the_state_reached():
    g = make_game("tictactoe")
    agent = MCTSAgent(game=g, jit=False, seed=3, max_sims=800)
    s0 = g.initial()
    a = agent.choose(s0, time.perf_counter() + FAR)
    tree = agent._tree
    reply = max(tree.children(tree.child(0, a)), key=lambda k: k["visits"])["action"]
    s2 = s0.apply(a).apply(reply)
    before = snapshot(tree, tree.child(tree.child(0, a), reply))
    assert before[2] > 1
    from agents.engine import mcts_kernels
    from core.game import bind

    kept = agent._prepare(s2, bind(g, mcts_kernels, jit=False), False)
    assert kept > 1 and snapshot(agent._tree) == (-1,) + before[1:]
    # Without a history the state is found among the tree's top nodes.
    agent.choose(s2, time.perf_counter() + FAR)
    s4 = s2.apply(agent.info()["pv"][0])
    s4 = s4.apply(s4.legal_actions()[0])
    agent._prepare(g.new_state(s4.words), bind(g, mcts_kernels, jit=False), False)
    assert agent._tree.node(0)["visits"] > 0


def test_agent_rejects_bad_parameters_with_clear_messages():
    g = make_game("tictactoe")
    with pytest.raises(ValueError, match="leaf"):
        MCTSAgent(game=g, leaf="magic")
    with pytest.raises(ValueError, match="gamma"):
        MCTSAgent(game=g, gamma=0.0)
    with pytest.raises(ValueError, match="no heuristics"):
        MCTSAgent(game=g, leaf="heuristic")


def test_heuristic_and_mixed_leaves_on_connectx_find_the_win():
    g = make_game("connectx")
    state = play_line(g, [3, 0, 3, 0, 3, 1])  # column 4 (index 3) wins at once
    for leaf in ("heuristic", "mixed"):
        action, info = search(g, state, jit=False, max_sims=200, leaf=leaf, heuristic="bitsquares", solver=False)
        assert action == 3, leaf


def test_registry_builds_the_agent_from_a_spec():
    from agents import registry

    agent = registry.make("mcts:c=0.5,gamma=1,open_loop=true,max_sims=50", make_game("tictactoe"))
    assert isinstance(agent, MCTSAgent) and agent.c == 0.5 and agent.gamma == 1.0 and agent.open_loop
    with pytest.raises(registry.SpecError, match="gamma"):
        registry.make("mcts:gamma=2", make_game("tictactoe"))


@needs_numba
@pytest.mark.slow
@pytest.mark.parametrize("open_loop", [False, True])
def test_compiled_and_plain_paths_agree_exactly_on_a_dice_game(open_loop):
    """Chance sampling, outcome probabilities and open-loop legality on both paths (slow: a
    second game to compile)."""
    g = DiceNim(pile=15)
    runs = [self_play_trace(g, jit, seed=4, max_sims=700, open_loop=open_loop) for jit in (False, True)]
    assert runs[0] == runs[1]
    assert any(t[1] for t in runs[0])


def test_run_batches_stops_at_the_limit_the_deadline_and_a_short_batch():
    from base.batches import run_batches

    assert run_batches(lambda n: n, time.perf_counter() + 10, limit=1000) == 1000
    assert run_batches(lambda n: min(n, 3), time.perf_counter() + 10) == 3  # nothing left to do
    assert run_batches(lambda n: n, time.perf_counter() - 1) == 0  # already late

    def slow(n):
        time.sleep(0.001 * n)
        return n

    start = time.perf_counter()
    assert run_batches(slow, start + 0.2) > 0
    assert time.perf_counter() - start < 0.2 + 0.1  # a batch lasts at most an eighth of the time left


@needs_numba
def test_the_plain_search_while_compiling_keeps_python_ints_on_connectx(monkeypatch):
    """While numba compiles in the background a move searches on the plain path, in the numpy
    arrays of the compiled path: the actions it reads back are numpy ints. ConnectX's ``play``
    mixed them into the state's words, and the threat heuristic then met a numpy word with a
    Python int over 63 bits (OverflowError in a built mcts file, intermittently: when its
    compile outlasted some moves)."""
    from base.jit import CompileGate

    monkeypatch.setattr(CompileGate, "admit", lambda *args, **kwargs: False)  # the compile never ends
    g = make_game("connectx")
    agent = MCTSAgent(game=g, max_sims=300, leaf="heuristic", heuristic="oddeven", seed=1)
    rng = random.Random(3)
    searched = 0
    while searched < 4:  # positions deep enough for threats
        state = g.initial()
        for _ in range(14):
            state = state.apply(rng.choice(state.legal_actions()))
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        assert agent.choose(state, time.perf_counter() + 30) in state.legal_actions()
        assert agent.info()["compiled"] is False and agent.info()["simulations"] > 0
        searched += 1
