"""ConnectX's MCTS agents on the generic MCTS: forced wins, solver proofs on Pons' end set (the
``expand`` hook's decided positions), tree reuse, the clock, compiled vs plain on the same seed,
the leaf heuristic's parameters from the spec.

The oracle for forced wins is a brute-force search written here on core.Position (itself
checked against kaggle-environments and tests/reference.py); the oracle for proofs is Pons'
exact scores. The kernels' own rules (UCT, backup signs, bounds) are tested on every game in
tests/test_engine_mcts.py.
"""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

import heuristics.connectx.params
from agents.mcts import MCTSAgent, TreeSearch
from agents.random_agent import RandomAgent
from agents.registry import make
from core.connectx import Position, Shape
from core.game import State
from util.arena.game import play_game
from util.jit import numba_available

from tests.pons import PONS


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


def engine_search(agent: TreeSearch, pos: Position, sims: int, jit: bool | None = None):
    """The agent's generic search (no shortcut before it) run on ``pos``: (column, info)."""
    search = agent.search(pos.shape)
    if jit is not None:
        search.jit = jit
    search.max_sims = sims
    search.reset()
    col = search.choose(State(search.game, (pos.current, pos.mask)), time.perf_counter() + 600)
    return col, search.info()


def test_win_in_one_found_by_the_tree_alone():
    """Without the agent's shortcut: the search proves the root won and plays a win."""
    agent = MCTSAgent(leaf="rollout", cache="")
    for pos in win_in_one_positions(20, seed=2):
        col, info = engine_search(agent, pos, 500)
        assert info["exact"] and info["value"] == 1.0
        assert pos.is_winning_move(col) or keeps_a_win(pos, col, 3, slack=0)  # a double threat also wins


def test_double_threat_is_proven_lost_by_the_expand_hook():
    pos = Position.from_moves([0, 3, 0, 4, 1, 5])  # O threatens columns 2 and 6: X cannot block both
    _, info = engine_search(MCTSAgent(leaf="rollout", cache=""), pos, 2000)
    assert info["exact"] and info["value"] == -1.0
    pos = Position.from_moves([0, 4, 0, 5, 1, 6])  # one threat only: not lost at once
    _, info = engine_search(MCTSAgent(leaf="rollout", cache=""), pos, 50)
    assert not info["exact"]


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
def prove(agent: TreeSearch, pos: Position, limit: int, jit: bool | None = None) -> tuple[int, int]:
    """(the proven value for the side to move, or 9; simulations). A single legal move is
    played without search: its value is the next position's, negated."""
    legal = pos.legal_columns()
    if len(legal) == 1:
        if pos.is_winning_move(legal[0]):
            return 1, 0
        nxt = pos.play(legal[0])
        if nxt.is_terminal():
            return 0, 0
        value, n = prove(agent, nxt, limit, jit)
        return (9 if value == 9 else -value), n
    col, info = engine_search(agent, pos, limit, jit)
    return (int(info["value"]) if info["exact"] else 9), info["simulations"]


@pytest.mark.parametrize("leaf", ["rollout", "heuristic"])
def test_solver_proves_every_end_easy_position(leaf):
    """All 1000 of Test_L3_R1 (seconds compiled): the proven win/draw/loss is Pons' sign."""
    if not numba_available():
        pytest.skip("numba not installed: the plain path would take minutes")
    agent = MCTSAgent(leaf=leaf, cache="", capacity=1_000_000)
    for moves, score in pons("Test_L3_R1"):
        value, n = prove(agent, Position.from_moves(moves), 2_000_000)
        assert value == np.sign(score), f"{moves}: proved {value} after {n} simulations, Pons says {score}"


def test_solver_proves_end_positions_on_the_plain_path():
    agent = MCTSAgent(leaf="rollout", cache="", capacity=200_000)
    for moves, score in random.Random(4).sample(pons("Test_L3_R1"), 15):
        value, n = prove(agent, Position.from_moves(moves), 100_000, jit=False)
        assert value == np.sign(score), f"{moves}: proved {value} after {n} simulations, Pons says {score}"


# --- compiled and plain paths agree --------------------------------------------------------
@pytest.mark.parametrize("leaf", ["rollout", "heuristic", "mixed"])
def test_numba_and_python_agree_on_the_same_seed(leaf):
    if not numba_available():
        pytest.skip("numba not installed")
    pos = Position.from_moves("4453")
    runs = []
    for jit in (False, True):
        agent = MCTSAgent(leaf=leaf, cache="", capacity=5000, seed=11)
        col, info = engine_search(agent, pos, 1500, jit)
        runs.append((col, info["simulations"], info["nodes"], info["visits"], info["action_values"], info["compiled"]))
    (c1, d1, n1, v1, a1, j1), (c2, d2, n2, v2, a2, j2) = runs
    assert (j1, j2) == (False, True)
    assert d1 == d2 == 1500 and c1 == c2 and n1 == n2 and v1 == v2
    assert a1.keys() == a2.keys() and all(abs(a1[k] - a2[k]) < 1e-9 for k in a1)


def test_agent_is_reproducible_with_its_seed():
    pos = Position.from_moves("44")
    cols, visits = [], []
    for _ in range(2):
        agent = MCTSAgent(leaf="rollout", cache="", max_sims=20_000, seed=7)
        cols.append(agent.choose(pos, time.perf_counter() + 60))
        visits.append(agent.info()["visits"])
    assert cols[0] == cols[1] and visits[0] == visits[1]


# --- tree reuse ------------------------------------------------------------------------------
def subtree_size(tree, node: int) -> int:
    return 1 + sum(subtree_size(tree, k["id"]) for k in tree.children(node))


def test_tree_is_reused_two_plies_later_and_reset_for_a_new_game():
    agent = MCTSAgent(leaf="rollout", cache="", max_sims=30_000)
    pos = Position.from_moves("44")
    col = agent.choose(pos, time.perf_counter() + 60)
    tree = agent._search._tree
    reply = 2
    node = tree.child(tree.child(0, col), reply)
    assert node > 0
    size, visits = subtree_size(tree, node), tree.node(node)["visits"]
    agent.choose(pos.play(col).play(reply), time.perf_counter() + 60)
    assert agent.info()["reused"] == size > 1
    assert agent._search._tree.node(0)["visits"] == visits + agent.info()["sims"]
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
    assert not shape.fits_int64
    agent = MCTSAgent(leaf="heuristic", cache="", max_sims=300, capacity=5000)
    pos = Position.from_moves([0, 1, 0, 1, 0, 1], shape)  # X wins at column 0
    assert agent.choose(pos, time.perf_counter() + 60) == 0
    pos = Position.from_moves([3, 4, 3, 4, 0, 4], shape)  # O threatens column 4
    assert agent.choose(pos, time.perf_counter() + 60) == 4
    col = agent.choose(Position.from_moves([3, 4], shape), time.perf_counter() + 60)
    assert 0 <= col < 8 and agent.info()["sims"] == 300 and agent.info()["compiled"] is False


def test_registry_builds_it_and_rejects_bad_parameters():
    agent = make("mcts", leaf="rollout", c="1.5", capacity="1000")
    assert isinstance(agent, MCTSAgent) and agent.c == 1.5 and agent.capacity == 1000
    for bad in ({"leaf": "magic"}, {"heuristic": "nope"}, {"width": "0"}, {"c": "-1"}, {"capacity": "3"}):
        with pytest.raises(ValueError):
            make("mcts", **bad)


# --- compile policy: a move never waits past its deadline for numba -----------------------
def fresh_process(monkeypatch, agent: TreeSearch, release) -> None:
    """As in a fresh process: nothing compiled yet, and a compile that ends only on ``release``."""
    search = agent.search(Shape())
    real = search.warm_up

    def held_warm_up():
        release.wait(30)
        return real()

    monkeypatch.setattr(search, "warm_up", held_warm_up)
    monkeypatch.setattr(search, "_kernels", _fresh_kernels(search))


def _fresh_kernels(search):
    """The search's ``_kernels`` with "compiled before" answered no until the gate is ready."""
    from agents.engine import mcts_kernels as K
    from core.game import bind

    def kernels(deadline):
        plain = bind(search.game, K, search._hfn, jit=False)
        ready = search._gate.admit(deadline, search.warm_up, lambda: False, search.background_compile,
                                   search.compile_share)
        return (bind(search.game, K, search._hfn, jit=True), True) if ready else (plain, False)

    return kernels


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_plain_path_grafts_the_cache_top_then_the_whole_cache_once_compiled(monkeypatch):
    import threading

    agent = MCTSAgent(leaf="rollout")  # with its opening cache from data/
    if agent._load_cache() is None:
        pytest.skip("no rollout cache in data/")
    release = threading.Event()
    fresh_process(monkeypatch, agent, release)
    t0 = time.perf_counter()
    col = agent.choose(Position.empty(), t0 + 0.5)
    # Grafting the whole cache in pure Python took 5 s: the first move stays in its time.
    assert time.perf_counter() - t0 < 0.5 + 0.3
    assert agent.info()["cache_nodes"] == MCTSAgent.PLAIN_GRAFT_NODES
    release.set()
    assert agent._search._gate.job.wait(120)
    pos = Position.empty().play(col).play(3)
    agent.choose(pos, time.perf_counter() + 0.3)  # compiled now: the whole cache below this position
    assert agent.info()["reused"] == 0 and agent.info()["cache_nodes"] > 10 * MCTSAgent.PLAIN_GRAFT_NODES
    pos = pos.play(agent.choose(pos, time.perf_counter() + 0.1)).play(3)
    agent.choose(pos, time.perf_counter() + 0.1)
    assert agent.info()["reused"] > 0  # and from then on the tree is kept


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_moves_search_on_the_plain_path_while_the_compile_runs(monkeypatch):
    import threading

    agent = MCTSAgent(leaf="rollout", cache="")
    release = threading.Event()
    fresh_process(monkeypatch, agent, release)
    pos = Position.from_moves("44")
    for budget in (0.2, 0.5):
        t0 = time.perf_counter()
        col = agent.choose(pos, time.perf_counter() + budget)
        assert time.perf_counter() - t0 < budget + 0.3 and pos.can_play(col)
        assert agent.info()["sims"] > 0 and agent.info()["compiled"] is False
    release.set()
    assert agent._search._gate.job.wait(120)
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
    # The generic search given the parameter array explicitly gives the same values.
    explicit = heuristics.connectx.params.params_array("oddeven", power=3.5)
    agent = make(name, leaf="heuristic", heuristic="oddeven", cache="", seed="4", capacity="2000")
    search = agent.search(shape)
    search.hparams = ";".join(repr(float(x)) for x in explicit)
    search._resolve_heuristic()
    _, info = engine_search(agent, pos, 200)
    assert info["action_values"] == tuned


def test_heuristic_parameters_are_checked_against_the_heuristic():
    assert make("mcts", heuristic="bitsquares", power="2")._hparams.tolist() == [2.0]
    assert make("mcts", heuristic="liberties", threat="3")._hparams.tolist() == [3.0]
    ant = make("ant_colony", heuristic="bitsquares", power="1.5", leaf_power="2.5")
    assert ant.power == 1.5 and ant._hparams.tolist() == [2.5] and ant.search(Shape()).power == 1.5
    leafy = make("ant_colony", leaf="heuristic", heuristic="bitsquares", leaf_power="2.5")
    assert leafy.search(Shape())._hp == [2.5]  # the leaves' parameters reach the generic search
    with pytest.raises(ValueError, match="takes no parameter power; its parameters: threat"):
        make("mcts", heuristic="liberties", power="2")
    with pytest.raises(ValueError, match="takes no parameter leaf_power"):
        make("ant_colony", heuristic="liberties", leaf_power="2")
