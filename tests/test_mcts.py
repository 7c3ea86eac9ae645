"""MCTS: the UCT formula and sign on hand-built trees, forced wins, solver proofs on Pons' end
set, tree reuse and compaction, the clock, and compiled vs plain kernels on the same seed.

The oracle for forced wins is a brute-force search written here on core.Position (itself
checked against kaggle-environments and tests/reference.py); the oracle for proofs is Pons'
exact scores.
"""
from __future__ import annotations

import math
import random
import threading
import time

import numpy as np
import pytest

import agents.mcts_tree as mt
import heuristics.connectx.params
from agents.mcts import MCTSAgent, Tree, TreeSearch, seed_state
from agents.random_agent import RandomAgent
from agents.registry import make
from core.connectx import Position, Shape
from util.arena.game import play_game
from util.jit import compiled, kernels, numba_available

from tests.pons import PONS
K = kernels(mt, 49)  # compiled when numba is present
PATHS = [pytest.param(mt, id="python"), pytest.param("numba", id="numba")]


def kernel_ns(which):
    if which == "numba":
        if not numba_available():
            pytest.skip("numba not installed")
        return compiled(mt)
    return which


def pons(name: str) -> list[tuple[str, int]]:
    out = []
    for line in (PONS / name).read_text().splitlines():
        moves, score = line.split()
        out.append((moves, int(score)))
    return out


def wins_within(pos: Position, plies: int) -> bool:
    """Brute force: the side to move can force a win within ``plies`` plies (odd)."""
    legal = pos.legal_columns()
    if plies < 1 or not legal:
        return False
    if any(pos.is_winning_move(c) for c in legal):
        return True
    if plies < 3:
        return False
    for c in legal:
        nxt = pos.play(c)
        replies = nxt.legal_columns()
        if replies and all(not nxt.is_winning_move(d) and wins_within(nxt.play(d), plies - 2) for d in replies):
            return True
    return False


def move_keeps_win(pos: Position, col: int, plies: int) -> bool:
    if pos.is_winning_move(col):
        return True
    nxt = pos.play(col)
    replies = nxt.legal_columns()
    return bool(replies) and all(not nxt.is_winning_move(d) and wins_within(nxt.play(d), plies - 2) for d in replies)


def keeps_a_win(pos: Position, col: int, plies: int, slack: int = 6) -> bool:
    """The move keeps a forced win within ``plies + slack`` plies. MCTS-solver proves *a* win,
    not the shortest, so a proven move may win a few plies later than the fastest one."""
    return any(move_keeps_win(pos, col, h) for h in range(plies, plies + slack + 1, 2))


def hand_tree(k, parent_visits: float, stats: list[tuple[float, float]]) -> Tree:
    """Root 0 with children 1..n at columns 0..n-1 holding (visits, value sum for the mover)."""
    tree = Tree(16, 7, False)
    tree.children[:] = mt.ILLEGAL
    tree.lo[:] = -1
    tree.hi[:] = 1
    tree.visits[0] = parent_visits
    for i, (v, w) in enumerate(stats):
        tree.children[0, i] = i + 1
        tree.visits[i + 1] = v
        tree.values[i + 1] = w
    tree.state[0] = len(stats) + 1
    return tree


# --- UCT formula and sign ----------------------------------------------------------------
@pytest.mark.parametrize("which", PATHS)
def test_uct_score_is_mean_plus_c_sqrt_log_ratio(which):
    k = kernel_ns(which)
    # 3 / 4 + 1.5 * sqrt(ln 20 / 4) = 0.75 + 1.5 * 0.8654092 (ln 20 = 2.9957323)
    assert k.uct_score(3.0, 4.0, math.log(20.0), 1.5) == pytest.approx(0.75 + 1.5 * 0.8654092, abs=1e-6)
    assert k.uct_score(-2.0, 4.0, math.log(20.0), 0.0) == -0.5
    assert k.uct_score(0.0, 0.0, 1.0, 1.0) == math.inf


@pytest.mark.parametrize("which", PATHS)
def test_uct_selection_on_hand_tree(which):
    k = kernel_ns(which)
    # Means for the mover: 0.6 (10 visits), 0.5 (18), -0.5 (2); parent 30 visits, ln 30 = 3.4012.
    tree = hand_tree(k, 30.0, [(10.0, 6.0), (18.0, 9.0), (2.0, -1.0)])
    args = (tree.children, tree.visits, tree.values, tree.lo, tree.hi, 0, 7)
    # c = 0: pure exploitation takes the best mean *for the mover* (a negated mean would take col 2).
    assert k.select_uct(*args, 0.0) == 0
    # c = 1: 0.6 + 0.5832 = 1.183 > 0.5 + 0.4347 = 0.935 > -0.5 + 1.3041 = 0.804.
    assert k.select_uct(*args, 1.0) == 0
    # c = 2: -0.5 + 2.6082 = 2.108 > 0.6 + 1.1664 = 1.766: the bonus is added to the rare child.
    assert k.select_uct(*args, 2.0) == 2
    # A child proven won for its side to move (a losing move for us) is never selected.
    tree.lo[3], tree.hi[3] = 1, 1
    assert k.select_uct(*args, 2.0) == 0
    # A child proven lost for its side to move (a win for us) is taken at once.
    tree.lo[2], tree.hi[2] = -1, -1
    assert k.select_uct(*args, 0.0) == 1


@pytest.mark.parametrize("which", PATHS)
def test_backup_gives_the_mover_its_own_reward(which):
    k = kernel_ns(which)
    # X played 0, 0, 1 and O 4, 5, 6 on the bottom row: O threatens column 3 only.
    pos = Position.from_moves([0, 4, 0, 5, 1, 6])
    assert not any(pos.is_winning_move(c) for c in pos.legal_columns())
    tree = Tree(64, 7, False)
    params = MCTSAgent(leaf="rollout", cache="").params_array()
    k.new_tree(*tree.arrays(), pos.current, pos.mask, pos.ply, 6, 7, 4, 0.0, seed_state(3))
    assert (tree.lo[0], tree.hi[0]) == (-1, 1)
    k.run(*tree.arrays(), np.zeros(44, np.int64), 0, pos.current, pos.mask, pos.ply, 6, 7, 4, params, np.zeros(1), 7)
    total = 0.0
    for col in range(7):
        ch = tree.children[0, col]
        assert ch > 0 and tree.visits[ch] == 1.0
        total += tree.values[ch]
        if col != 3:
            # X did not block: O wins at once there. The child is proven won for O (the side
            # to move there) and the mover into it, X, was credited -1.
            assert (tree.lo[ch], tree.hi[ch]) == (1, 1) and tree.values[ch] == -1.0
        else:
            assert (tree.lo[ch], tree.hi[ch]) == (-1, 1)  # the block: O must block X's threat at 2
    assert (tree.lo[0], tree.hi[0]) == (-1, 1) and tree.visits[0] == 7.0
    assert tree.values[0] == -total  # O, who moved into the root, got the opposite of X each time


@pytest.mark.parametrize("which", PATHS)
def test_double_threat_is_a_known_loss(which):
    k = kernel_ns(which)
    pos = Position.from_moves([0, 3, 0, 4, 1, 5])  # O threatens columns 2 and 6: X cannot block both
    assert k.known_bounds(pos.current, pos.mask, pos.ply, 6, 7, 4) == (-1, -1)
    pos = Position.from_moves([0, 4, 0, 5, 1, 6])  # one threat only
    assert k.known_bounds(pos.current, pos.mask, pos.ply, 6, 7, 4) == (-1, 1)
    pos = Position.from_moves([0, 4, 0, 5, 0, 6])  # O threatens 3, but X wins at once in column 0
    assert k.known_bounds(pos.current, pos.mask, pos.ply, 6, 7, 4) == (1, 1)


@pytest.mark.parametrize("which", PATHS)
def test_leaf_rewards_rollout_heuristic_and_mixed(which):
    k = kernel_ns(which)
    pos = Position.from_moves("4453")
    args = (pos.current, pos.mask, pos.ply, 6, 7, 4)
    rewards = {}
    for leaf in ("rollout", "heuristic", "mixed"):
        agent = MCTSAgent(leaf=leaf, heuristic="bitsquares", width=5.0, mix=0.25)
        low, high, rewards[leaf], rng = k.assess(*args, agent.params_array(), agent._hparams, 12345)
        assert (low, high) == (-1, 1)
    score = k.evaluate(heuristics.connectx.params.HEURISTIC_IDS["bitsquares"], *args[:2], 6, 7, 4, heuristics.connectx.params.params_array("bitsquares"))
    assert rewards["heuristic"] == pytest.approx(2.0 / (1.0 + math.exp(-score / 5.0)) - 1.0)
    assert rewards["rollout"] in (-1.0, 0.0, 1.0)
    assert rewards["mixed"] == pytest.approx(0.75 * rewards["rollout"] + 0.25 * rewards["heuristic"])


# --- forced wins -------------------------------------------------------------------------
def sample_by_distance(name: str, distance: int, n: int, seed: int) -> list[Position]:
    """Positions whose side to move wins with its ``distance + 1``-th next stone."""
    rows = [(m, s) for m, s in pons(name) if s > 0 and (43 - len(m)) // 2 - s == distance]
    return [Position.from_moves(m) for m, _ in random.Random(seed).sample(rows, n)]


def win_in_one_positions(n: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position.empty()
        while not pos.is_terminal():
            legal = pos.legal_columns()
            if pos.ply > 6 and any(pos.is_winning_move(c) for c in legal):
                out.append(pos)
                break
            pos = pos.play(rng.choice(legal))
    return out


def test_win_in_one_is_played():
    agent = MCTSAgent(leaf="rollout", cache="", max_sims=2000)
    for pos in win_in_one_positions(20, seed=1):
        col = agent.choose(pos, time.perf_counter() + 30)
        assert pos.is_winning_move(col)


def test_win_in_one_found_by_the_tree_alone():
    """Without the agent's shortcut: the kernel proves the root and best_column plays the win."""
    tree = Tree(4096, 7, False)
    params = MCTSAgent(leaf="rollout", cache="").params_array()
    for pos in win_in_one_positions(20, seed=2):
        K.new_tree(*tree.arrays(), pos.current, pos.mask, pos.ply, 6, 7, 4, 0.0, 1)
        assert (tree.lo[0], tree.hi[0]) == (1, 1)  # known at once
        tree.lo[0] = -1  # forget the root's proof: the search must find it through a child
        K.run(*tree.arrays(), np.zeros(44, np.int64), 0, pos.current, pos.mask, pos.ply, 6, 7, 4, params, np.zeros(1), 500)
        col = K.best_column(tree.children, tree.visits, tree.values, tree.lo, tree.hi, 0, 7)
        assert (tree.lo[0], tree.hi[0]) == (1, 1)
        assert pos.is_winning_move(col) or keeps_a_win(pos, col, 3, slack=0)  # a double threat also wins


@pytest.mark.parametrize("plies,distance", [(3, 1), (5, 2)])
@pytest.mark.parametrize("leaf", ["rollout", "heuristic"])
def test_forced_win_found(plies, distance, leaf):
    agent = MCTSAgent(leaf=leaf, cache="", max_sims=300_000, seed=5)
    for i, pos in enumerate(sample_by_distance("Test_L2_R1", distance, 12, seed=plies) + sample_by_distance("Test_L1_R1", distance, 6, seed=plies)):
        assert wins_within(pos, plies) and not wins_within(pos, plies - 2)  # the oracle agrees with Pons
        col = agent.choose(pos, time.perf_counter() + 60)
        assert keeps_a_win(pos, col, plies), f"position {i}: column {col} lets the win go"
        info = agent.info()
        assert info.get("proven") == "win" or info["reason"] == "forced block", info


def test_forced_block_is_played():
    pos = Position.from_moves([3, 0, 3, 0, 6, 0])  # O threatens column 0 (three stacked)
    agent = MCTSAgent(leaf="rollout", cache="", max_sims=100)
    assert agent.choose(pos, time.perf_counter() + 10) == 0
    assert agent.info()["reason"] == "forced block"
    lost = Position.from_moves([0, 3, 0, 4, 1, 5])  # O threatens columns 2 and 6: block one anyway
    assert agent.choose(lost, time.perf_counter() + 10) in (2, 6)


# --- MCTS-solver on Pons' end set ----------------------------------------------------------
def prove(k, tree: Tree, pos: Position, agent: TreeSearch, limit: int) -> tuple[int, int]:
    # The agent's own parameter arrays: compiled code does not check bounds, so a heuristic
    # parameter array shorter than its heuristic reads would evaluate garbage.
    params, hparams = agent.params_array(), heuristics.connectx.params.params_array(agent.heuristic)
    k.new_tree(*tree.arrays(), pos.current, pos.mask, pos.ply, 6, 7, 4, 1.0, seed_state(1))
    n = 0
    while tree.lo[0] != tree.hi[0] and n < limit:
        n += k.run(*tree.arrays(), np.zeros(44, np.int64), 0, pos.current, pos.mask, pos.ply, 6, 7, 4, params,
                   hparams, 20_000)
    return (int(tree.lo[0]) if tree.lo[0] == tree.hi[0] else 9), n


@pytest.mark.parametrize("leaf", ["rollout", "heuristic"])
def test_solver_proves_every_end_easy_position(leaf):
    """All 1000 of Test_L3_R1 (a few seconds compiled): the proven win/draw/loss is Pons' sign."""
    if K is mt:
        pytest.skip("numba not installed: the plain path would take minutes")
    agent = MCTSAgent(leaf=leaf, cache="")
    tree = Tree(1_000_000, 7, False)
    for moves, score in pons("Test_L3_R1"):
        value, n = prove(K, tree, Position.from_moves(moves), agent, 2_000_000)
        assert value == np.sign(score), f"{moves}: proved {value} after {n} simulations, Pons says {score}"


def test_solver_proves_end_positions_on_the_plain_path():
    agent, tree = MCTSAgent(leaf="rollout", cache=""), Tree(200_000, 7, False)
    for moves, score in random.Random(4).sample(pons("Test_L3_R1"), 15):
        value, n = prove(mt, tree, Position.from_moves(moves), agent, 100_000)
        assert value == np.sign(score), f"{moves}: proved {value} after {n} simulations, Pons says {score}"


# --- compiled and plain paths agree --------------------------------------------------------
@pytest.mark.parametrize("leaf", ["rollout", "heuristic", "mixed"])
def test_numba_and_python_agree_on_the_same_seed(leaf):
    if not numba_available():
        pytest.skip("numba not installed")
    pos = Position.from_moves("4453")
    runs = []
    # plain, the full compiled module, and the agent's kernels (compiled against its one leaf heuristic)
    for k in (mt, compiled(mt), MCTSAgent(leaf=leaf, cache="").kernels(49)):
        agent = MCTSAgent(leaf=leaf, cache="")
        tree = Tree(5000, 7, False)
        k.new_tree(*tree.arrays(), pos.current, pos.mask, pos.ply, 6, 7, 4, 0.0, seed_state(11))
        done = k.run(*tree.arrays(), np.zeros(44, np.int64), 0, pos.current, pos.mask, pos.ply, 6, 7, 4,
                     agent.params_array(), agent._hparams, 1500)
        col = k.best_column(tree.children, tree.visits, tree.values, tree.lo, tree.hi, 0, 7)
        runs.append((done, col, tree))
    assert runs[2][0] is not None and runs[2][1] == runs[0][1] and runs[2][2].used == runs[0][2].used
    assert np.array_equal(runs[2][2].visits[: runs[0][2].used], runs[0][2].visits[: runs[0][2].used])
    (d1, c1, t1), (d2, c2, t2) = runs[:2]
    assert d1 == d2 == 1500 and c1 == c2
    n = t1.used
    assert n == t2.used and int(t1.state[1]) == int(t2.state[1])
    assert np.array_equal(t1.children[:n], t2.children[:n])
    assert np.array_equal(t1.visits[:n], t2.visits[:n])
    assert np.array_equal(t1.lo[:n], t2.lo[:n]) and np.array_equal(t1.hi[:n], t2.hi[:n])
    assert np.allclose(t1.values[:n], t2.values[:n], rtol=0, atol=1e-9)


def test_agent_is_reproducible_with_its_seed():
    pos = Position.from_moves("44")
    cols, visits = [], []
    for _ in range(2):
        agent = MCTSAgent(leaf="rollout", cache="", max_sims=20_000, seed=7)
        cols.append(agent.choose(pos, time.perf_counter() + 60))
        visits.append(agent._tree.visits[: agent._tree.used].copy())
    assert cols[0] == cols[1] and np.array_equal(visits[0], visits[1])


# --- tree reuse and compaction -------------------------------------------------------------
def subtree_stats(tree: Tree, node: int) -> list:
    out, stack = [], [(node, ())]
    while stack:
        n, path = stack.pop()
        out.append((path, tree.visits[n], tree.values[n], tree.lo[n], tree.hi[n]))
        for col in range(tree.children.shape[1]):
            ch = int(tree.children[n, col])
            if ch >= 0:
                stack.append((ch, path + (col,)))
    return sorted(out)


def test_compact_keeps_exactly_the_subtree():
    agent = MCTSAgent(leaf="rollout", cache="", max_sims=30_000, capacity=100_000)
    pos = Position.empty()
    agent.choose(pos, time.perf_counter() + 60)
    tree = agent._tree
    grand = int(tree.children[int(tree.children[0, 3]), 2])
    before = subtree_stats(tree, grand)
    used = tree.used
    kept = K.compact(*tree.arrays(), grand, 0.0, np.empty(used, np.int64), np.empty(used, np.int64))
    assert kept == len(before) == tree.used
    assert subtree_stats(tree, 0) == before


def test_tree_is_reused_two_plies_later_and_reset_for_a_new_game():
    agent = MCTSAgent(leaf="rollout", cache="", max_sims=30_000)
    pos = Position.from_moves("44")
    col = agent.choose(pos, time.perf_counter() + 60)
    tree = agent._tree
    reply = 2
    node = int(tree.children[int(tree.children[0, col]), reply])
    expected = subtree_stats(tree, node)
    nxt = pos.play(col).play(reply)
    agent.choose(nxt, time.perf_counter() + 60)
    assert agent.info()["reused"] == len(expected) > 1
    root_visits = expected[0][1]
    assert agent._tree.visits[0] == root_visits + agent.info()["sims"]
    agent.choose(Position.empty(), time.perf_counter() + 60)  # a new game
    assert agent.info()["reused"] == 0


def test_stops_at_the_deadline():
    agent = MCTSAgent(leaf="heuristic", cache="")
    agent.warm_up()
    pos = Position.from_moves("4453")
    for budget in (0.05, 0.3):
        start = time.perf_counter()
        agent.choose(pos, start + budget)
        elapsed = time.perf_counter() - start
        assert elapsed < budget + 0.15, f"{elapsed:.3f} s for a {budget} s budget"
        assert agent.info()["sims"] > 0


# --- games, shapes, parameters -----------------------------------------------------------
def test_beats_random_every_game():
    agent, rnd = MCTSAgent(leaf="rollout", cache="", max_sims=3000, seed=1), RandomAgent(seed=2)
    for g in range(10):
        result = play_game(agent, rnd, time_per_move=30) if g % 2 == 0 else play_game(rnd, agent, time_per_move=30)
        assert result.winner == (1 if g % 2 == 0 else 2), result


def test_big_board_runs_on_the_plain_path():
    shape = Shape(8, 8, 4)  # 72 bits: Python ints
    assert not shape.fits_int64 and kernels(mt, shape.bits) is mt
    agent = MCTSAgent(leaf="heuristic", cache="", max_sims=300, capacity=5000)
    pos = Position.from_moves([0, 1, 0, 1, 0, 1], shape)  # X wins at column 0
    assert agent.choose(pos, time.perf_counter() + 60) == 0
    pos = Position.from_moves([3, 4, 3, 4, 0, 4], shape)  # O threatens column 4
    assert agent.choose(pos, time.perf_counter() + 60) == 4
    col = agent.choose(Position.from_moves([3, 4], shape), time.perf_counter() + 60)
    assert 0 <= col < 8 and agent.info()["sims"] == 300


def test_registry_builds_it_and_rejects_bad_parameters():
    agent = make("mcts", leaf="rollout", c="1.5", capacity="1000")
    assert isinstance(agent, MCTSAgent) and agent.c == 1.5 and agent.capacity == 1000
    for bad in ({"leaf": "magic"}, {"heuristic": "nope"}, {"width": "0"}, {"c": "-1"}, {"capacity": "3"}):
        with pytest.raises(ValueError):
            make("mcts", **bad)


# --- compile policy: a move never waits past its deadline for numba -----------------------
@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_plain_path_grafts_the_cache_top_then_the_whole_cache_once_compiled(monkeypatch):
    agent = MCTSAgent(leaf="rollout")  # with its opening cache from data/
    if agent._load_cache() is None:
        pytest.skip("no rollout cache in data/")
    release, real_warm_up = threading.Event(), agent.warm_up

    def held_warm_up(shape):  # the compile ends only after the first move
        release.wait(30)
        return real_warm_up(shape)

    monkeypatch.setattr(agent, "warm_up", held_warm_up)
    monkeypatch.setattr("agents.mcts.is_compiled", lambda kernels: False)
    t0 = time.perf_counter()
    col = agent.choose(Position.empty(), t0 + 0.5)
    # Grafting the whole cache in pure Python took 5 s: the first move stays in its time.
    assert time.perf_counter() - t0 < 0.5 + 0.3
    assert agent.info()["cache_nodes"] == MCTSAgent.PLAIN_GRAFT_NODES
    release.set()
    assert agent._gate.job.wait(120)
    pos = Position.empty().play(col).play(3)
    agent.choose(pos, time.perf_counter() + 0.3)  # compiled now: the whole cache below this position
    assert agent.info()["reused"] == 0 and agent.info()["cache_nodes"] > 10 * MCTSAgent.PLAIN_GRAFT_NODES
    pos = pos.play(agent.choose(pos, time.perf_counter() + 0.1)).play(3)
    agent.choose(pos, time.perf_counter() + 0.1)
    assert agent.info()["reused"] > 0  # and from then on the tree is kept


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_moves_search_on_the_plain_path_while_the_compile_runs(monkeypatch):
    agent = MCTSAgent(leaf="rollout", cache="")
    release = threading.Event()

    real_warm_up = agent.warm_up

    def held_warm_up(shape):  # a compile that outlasts the first moves, then completes
        release.wait(30)
        return real_warm_up(shape)

    monkeypatch.setattr(agent, "warm_up", held_warm_up)
    # As in a fresh process: nothing compiled yet.
    monkeypatch.setattr("agents.mcts.is_compiled", lambda kernels: False)
    pos = Position.from_moves("44")
    for budget in (0.2, 0.5):
        t0 = time.perf_counter()
        col = agent.choose(pos, time.perf_counter() + budget)
        assert time.perf_counter() - t0 < budget + 0.3 and pos.can_play(col)
        assert agent.info()["sims"] > 0
    release.set()
    assert agent._gate.job.wait(120)
    sims_plain = agent.info()["sims"]
    agent.choose(pos, time.perf_counter() + 0.5)
    assert agent.info()["sims"] > 5 * sims_plain  # the compiled kernels now run the move


def root_child_values(spec: str, pos: Position) -> dict[int, float]:
    """The root's child means after the spec's ``max_sims`` heuristic-leaf simulations."""
    from agents.registry import make_from_spec

    agent = make_from_spec(spec)
    agent.choose(pos, time.perf_counter() + 60)
    assert agent.info()["sims"] == agent.max_sims
    return agent.info()["action_values"]


@pytest.mark.parametrize("name,field", [("mcts", "power"), ("ant_colony", "leaf_power")])
def test_heuristic_parameters_from_the_spec_reach_the_leaves(name, field):
    """``power`` of oddeven set in the spec changes the leaf values, which equal those of the
    kernel run with an explicitly built parameter array (72-bit board: the plain path)."""
    shape = Shape(8, 8, 4)
    pos = Position.from_moves([3, 4, 2], shape)
    base = f"{name}:leaf=heuristic,heuristic=oddeven,cache=,capacity=2000,max_sims=200,seed=4"
    default = root_child_values(base, pos)
    tuned = root_child_values(f"{base},{field}=3.5", pos)
    assert default.keys() == tuned.keys() and default != tuned
    agent = make(name, leaf="heuristic", heuristic="oddeven", cache="", seed="4")
    tree = Tree(2000, shape.columns, agent._pheromone())
    tau0 = agent.params_array()[mt.P_TAU0]
    mt.new_tree(*tree.arrays(), pos.current, pos.mask, pos.ply, 8, 8, 4, tau0, seed_state(4))
    explicit = heuristics.connectx.params.params_array("oddeven", power=3.5)
    mt.run(*tree.arrays(), np.zeros(shape.cells + 2, np.int64), 0, pos.current, pos.mask, pos.ply, 8, 8, 4,
           agent.params_array(), explicit, 200)
    kids = {c: int(tree.children[0, c]) for c in range(8) if tree.children[0, c] >= 0}
    assert {c: float(tree.values[n] / tree.visits[n]) for c, n in kids.items()} == tuned


def test_heuristic_parameters_are_checked_against_the_heuristic():
    assert make("mcts", heuristic="bitsquares", power="2")._hparams.tolist() == [2.0]
    assert make("mcts", heuristic="liberties", threat="3")._hparams.tolist() == [3.0]
    ant = make("ant_colony", heuristic="bitsquares", power="1.5", leaf_power="2.5")
    assert ant.power == 1.5 and ant._hparams.tolist() == [2.5] and ant.params_array()[mt.P_POWER] == 1.5
    with pytest.raises(ValueError, match="takes no parameter power; its parameters: threat"):
        make("mcts", heuristic="liberties", power="2")
    with pytest.raises(ValueError, match="takes no parameter leaf_power"):
        make("ant_colony", heuristic="liberties", leaf_power="2")
