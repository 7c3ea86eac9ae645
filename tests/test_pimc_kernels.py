"""PIMC's kernels over the flat tree (``pimc:tree_states=N``, ``agents/engine/pimc_kernels.py``):
every node's solved value is an independent expectiminimax's over ``State`` (Kuhn, Leduc), each
pick is its mover's best, compiled and plain kernels give the same values and votes, the votes
follow the determinizations' chance weights, the policy agrees with the plain PIMC's where no
sample has a tie, and the agent refuses what it cannot do in one line."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from agents.engine import pimc_kernels as PK
from agents.engine.cfr import GameTree
from agents.engine.pimc import FlatPIMC, PIMCAgent
from base.jit import numba_available
from core.games import make_game

KUHN = make_game("kuhn_poker")
LEDUC = make_game("leduc_poker")


def bfs_states(game):
    """The game's states in :meth:`GameTree.build`'s order (breadth first, legal actions in order)."""
    out, queue = [], deque([game.initial()])
    while queue:
        s = queue.popleft()
        out.append(s)
        queue.extend(s.apply(a) for a in s.legal_actions())
    return out


def oracle(game):
    """Player 0's perfect-information value of a state: a plain recursion over ``State``,
    memoized by the state's words, written apart from the kernel."""
    memo: dict = {}

    def v(s) -> float:
        key = tuple(int(w) for w in s.words)
        if key not in memo:
            if s.is_terminal():
                memo[key] = float(s.returns()[0])
            elif s.is_chance_node():
                memo[key] = sum(p * v(s.apply(a)) for a, p in s.chance_outcomes())
            else:
                kids = [v(s.apply(a)) for a in s.legal_actions()]
                memo[key] = max(kids) if s.current_player() == 0 else min(kids)
        return memo[key]

    return v


@pytest.mark.parametrize("game", [KUHN, LEDUC], ids=lambda g: g.name)
def test_every_nodes_value_is_the_expectiminimax_of_its_state_and_each_pick_its_movers_best(game):
    tree, states, v = GameTree.build(game), bfs_states(game), oracle(game)
    assert len(states) == len(tree.nodes)
    value, pick = np.zeros(len(states)), np.zeros(len(states), dtype=np.int64)
    PK.solve(tree.nodes, tree.edges, value, pick)
    exact = np.array([v(s) for s in states])
    assert np.allclose(value, exact, atol=1e-9)
    decisions = 0
    for n, s in enumerate(states):
        if s.is_terminal() or s.is_chance_node():
            assert pick[n] == -1
            continue
        kids = [v(s.apply(a)) for a in s.legal_actions()]
        best = max(kids) if s.current_player() == 0 else min(kids)
        assert abs(kids[pick[n]] - best) < 1e-9 and all(abs(k - best) > 1e-12 for k in kids[:pick[n]])
        decisions += 1
    assert decisions == sum(len(m) for m in tree.members)


@pytest.mark.skipif(not numba_available(), reason="numba not importable")
def test_compiled_and_plain_kernels_solve_and_vote_alike():
    tree = GameTree.build(LEDUC)
    fast, plain = FlatPIMC(tree, jit=True), FlatPIMC(tree, jit=False)
    assert fast.k is not plain.k
    assert np.array_equal(fast.value, plain.value) and np.array_equal(fast.pick, plain.pick)
    for key in tree.keys[::37]:
        assert fast.votes(key, 200, 9) == plain.votes(key, 200, 9)


def test_the_votes_follow_the_chance_weights_of_the_sets_members():
    """Leduc's members of a set are equally likely (six distinct cards): the weights are redrawn
    unequal here, so that a draw ignoring them fails."""
    tree = GameTree.build(LEDUC)
    flat = FlatPIMC(tree, jit=False)
    assert np.allclose(flat.chance[tree.members[40]], flat.chance[tree.members[40]][0])
    flat.chance = np.random.default_rng(5).uniform(0.05, 1.0, len(flat.chance))
    split = 0
    for i in range(0, len(tree.keys), 29):
        members = tree.members[i]
        w = flat.chance[members]
        exact = {a: float(w[flat.pick[members] == j].sum() / w.sum()) for j, a in enumerate(tree.actions[i])}
        votes = flat.votes(tree.keys[i], 4000, i)
        assert sum(votes.values()) == 4000
        for a, share in exact.items():
            assert abs(votes.get(a, 0) / 4000 - share) < 0.03, (tree.keys[i], votes, exact)
        split += 0.1 < max(exact.values()) < 0.9
    assert split >= 3  # sets whose samples disagree: the draw is tested, not only a unanimous pick


def test_the_policy_is_the_plain_pimcs_where_no_sample_ties():
    tree, states = GameTree.build(KUHN), bfs_states(KUHN)
    v = oracle(KUHN)
    flat = FlatPIMC(tree, jit=False)
    compared = 0
    for i, members in enumerate(tree.members):
        kids = [[v(states[n].apply(a)) for a in tree.actions[i]] for n in members]
        if any(abs(k[0] - k[1]) < 1e-9 for k in kids):
            continue  # a sample with two best actions: its pick is the search's tie rule
        w = flat.chance[members]
        share = w[flat.pick[members] == 0].sum() / w.sum()
        if abs(share - 0.5) < 0.2:
            continue  # too close to call with a few samples
        s = tree.states[i]
        plain = PIMCAgent(game=KUHN, samples=30, seed=i, seconds=30, search="expectimax:max_depth=12")
        fast = PIMCAgent(game=KUHN, samples=30, seed=i, tree_states=100)
        assert plain.choose(s, float("inf")) == fast.choose(s, float("inf")) == tree.actions[i][0 if share > 0.5 else 1]
        compared += 1
    assert compared >= 4


def test_the_agent_through_the_registry_and_its_refusals():
    from agents import registry
    from agents.engine.spec import SpecError

    tree = GameTree.build(KUHN)
    a = registry.make("pimc:tree_states=100,samples=7", KUHN)
    assert isinstance(a, PIMCAgent) and a.warm_up() >= 0.0 and a._flat is not None
    assert a.choose(tree.states[4], float("inf")) in (0, 1)
    assert a.info().extra["proven"] == 7 and sum(a.info().action_values.values()) == pytest.approx(1.0)
    with pytest.raises(SpecError, match="view='seen'"):
        registry.make("pimc:tree_states=100,view=seen", KUHN)
    with pytest.raises(SpecError, match="tree_states must be"):
        registry.make("pimc:tree_states=-1", KUHN)
    with pytest.raises(ValueError, match="more than 100 states"):
        PIMCAgent(game=LEDUC, tree_states=100).choose(LEDUC.initial(), float("inf"))


def test_the_bench_measures_it(capsys):
    from bench.figures import parse
    from bench.hidden_exploitability import main

    assert main(["--game", "kuhn_poker", "--sims", "10", "--seeds", "2", "--flat", "--no-plain", "--samples", "10"]) == 0
    figures = parse(capsys.readouterr().out)
    assert "pimc_expectimax_10" not in figures and 0.1 < figures["pimc_flat_10"] < 0.3  # uniform: 0.4583
