"""IS-MCTS's kernels over the flat tree (``ismcts:tree_states=N``, ``agents/engine/ismcts_kernels.py``):
compiled and plain give the same tree for a seed; Kuhn's exploitability at 1,000 simulations is
the plain search's and OpenSpiel's (0.1586-0.1591 over seeds 0-2; plain 0.1571-0.1594, OpenSpiel's
ISMCTSBot 0.1579); a game bigger than ``tree_states`` is refused."""
from __future__ import annotations

import numpy as np
import pytest

from agents.engine.cfr import GameTree
from agents.engine.ismcts import ISMCTSAgent
from base.jit import numba_available
from core.games import make_game

GAME = make_game("kuhn_poker")
KUHN = GameTree.build(GAME)


def agent(seed: int, jit: bool = True, sims: int = 1000) -> ISMCTSAgent:
    return ISMCTSAgent(game=GAME, c=2.0 / GAME.win_value, max_sims=sims, seed=seed, tree_states=100, jit=jit)


@pytest.mark.skipif(not numba_available(), reason="numba not importable")
def test_compiled_and_plain_kernels_grow_the_same_tree():
    state = KUHN.states[5]
    plain, fast = agent(4, jit=False), agent(4)
    a, b = plain.search(state), fast.search(state)
    assert fast._flat.k is not plain._flat.k
    assert a == b and sum(a[plain._key(state)].visits.values()) > 900
    assert np.array_equal(plain._flat.stats, fast._flat.stats)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kuhn_exploitability_at_1000_simulations_is_the_plain_searchs(seed):
    x = KUHN.exploitability(KUHN.tabulate(agent(seed).action_probabilities))
    assert 0.15 < x < 0.17  # uniform play: 0.4583; OpenSpiel's ISMCTSBot: 0.1579


def test_the_search_counts_its_simulations_and_refuses_a_bigger_game():
    a = agent(0, sims=100)
    a.search(KUHN.states[0])
    assert a.info().simulations == 100
    with pytest.raises(ValueError, match="more than 100 states"):
        ISMCTSAgent(game=make_game("leduc_poker"), tree_states=100).search(make_game("leduc_poker").initial())


def test_the_registry_builds_it_and_the_bench_measures_it(capsys):
    from agents import registry
    from bench.figures import parse
    from bench.hidden_exploitability import main

    a = registry.make("ismcts:tree_states=100,max_sims=50", GAME)
    assert isinstance(a, ISMCTSAgent) and a.tree_states == 100 and a.choose(KUHN.states[3], float("inf")) in (0, 1)
    assert main(["--game", "kuhn_poker", "--sims", "200", "--seeds", "1", "--flat", "--no-plain", "--no-pimc"]) == 0
    figures = parse(capsys.readouterr().out)
    assert "ismcts_200" not in figures and 0.1 < figures["ismcts_flat_200"] < 0.2
