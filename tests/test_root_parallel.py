"""Root-parallel tree search (``agents/engine/root_parallel.py``): its trees are the search's own
(seeds apart, max_sims shared out), a search of fixed size is the same on every run, the summed
visits are the trees' visits, a proof decides, one thread is the search itself, and bad specs are
refused in one line. Its speed on two cores is a benchmark (``bench/engine_mcts_speed.py --threads``)."""
from __future__ import annotations

import math

import pytest

from agents import registry
from agents.engine.mcts import MCTSAgent
from agents.engine.root_parallel import SEED_STRIDE
from agents.engine.spec import SpecError
from core.games import make_game, parse_game

TTT = make_game("tictactoe")
C4 = parse_game("connectx:rows=5,columns=6")


def test_each_tree_is_the_search_with_its_own_seed_and_share_of_the_simulations():
    agent = registry.make("root_parallel:search=mcts:seed=3,max_sims=1001,threads=3", C4)
    assert [t.seed for t in agent._trees] == [3, 3 + SEED_STRIDE, 3 + 2 * SEED_STRIDE]
    assert [t.max_sims for t in agent._trees] == [math.ceil(1001 / 3)] * 3


def test_a_search_of_fixed_size_is_the_same_on_every_run_and_sums_its_trees():
    runs = []
    for _ in range(2):
        agent = registry.make("root_parallel:search=mcts:solver=false,max_sims=3000,threads=2", C4)
        state = C4.initial().apply(2)
        action = agent.choose(state, math.inf)
        info = agent.info()
        trees = info.extra["trees"]
        assert len(trees) == 2 and trees[0] != trees[1]  # other seeds, other trees
        assert info.extra["visits"] == {a: trees[0].get(a, 0) + trees[1].get(a, 0) for a in set(trees[0]) | set(trees[1])}
        assert info.simulations == 3000 and action in state.legal_actions()
        assert action == max(info.extra["visits"], key=lambda a: (info.extra["visits"][a], info.action_values[a]))
        runs.append((action, info.extra["visits"]))
    assert runs[0] == runs[1]


def test_one_thread_is_the_search_itself():
    state = C4.initial().apply(0).apply(3)
    alone = MCTSAgent(game=C4, max_sims=2000, seed=5)
    wrapped = registry.make("root_parallel:search=mcts:seed=5,max_sims=2000,threads=1", C4)
    assert wrapped.choose(state, math.inf) == alone.choose(state, math.inf)
    assert wrapped.info().extra["visits"] == alone.info().extra["visits"]


def test_a_tree_that_proves_the_value_decides():
    # X to move can win at once (cells 0..8 row by row): x x . / o o . / . . .
    s = TTT.initial()
    for a in (0, 3, 1, 4):
        s = s.apply(a)
    agent = registry.make("root_parallel:search=mcts:max_sims=400,threads=2", TTT)
    assert agent.choose(s, math.inf) == 2
    assert agent.info().exact and agent.info().value > 0


@pytest.mark.parametrize("spec,words", [
    ("root_parallel:threads=0", "threads of agent 'root_parallel' must be an integer from 1 to 64"),
    ("root_parallel:threads=65", "threads of agent 'root_parallel' must be an integer from 1 to 64"),
    ("root_parallel:max_sims=-1", "max_sims of agent 'root_parallel' must be an integer from 0"),
    ("root_parallel:search=root_parallel", "not root_parallel itself"),
    ("root_parallel:search=alphabeta", "is not a tree search with seed and max_sims"),
])
def test_bad_specs_are_refused_in_one_line(spec, words):
    with pytest.raises(SpecError, match=words):
        registry.make(spec, C4)


def test_a_server_counts_every_tree():
    from agents.engine.spec import table_bytes

    one = registry.make("mcts:capacity=100000", C4)
    four = registry.make("root_parallel:search=mcts:capacity=100000,threads=4", C4)
    assert table_bytes(one) > 0 and table_bytes(four) == 4 * table_bytes(one)
