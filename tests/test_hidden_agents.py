"""The information-set searches (``agents/engine/ismcts.py``, ``agents/engine/pimc.py``): their
policies measured exactly on Kuhn poker (exploitability well below the uniform policy's 0.4583,
and IS-MCTS's near OpenSpiel's ISMCTSBot's, ``bench/hidden_exploitability.py``), neither reads
what the player cannot see (two states a player cannot tell apart get one policy for a seed),
both play perfect-information games as the plain searches do, and the registry builds them."""
from __future__ import annotations

import random
import time

import pytest

from agents import registry
from agents.engine.cfr import GameTree
from agents.engine.ismcts import ISMCTSAgent
from agents.engine.pimc import PIMCAgent
from agents.engine.spec import SpecError
from core.games import make_game
from tests.games_nim import Nim

KUHN = make_game("kuhn_poker")
KUHN_TREE = GameTree.build(KUHN)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ismcts_policy_on_kuhn_is_far_less_exploitable_than_uniform(seed):
    """300 simulations an information state: 0.144 to 0.150 over seeds 0-3 (OpenSpiel's bot: 0.12-0.16)."""
    agent = ISMCTSAgent(game=KUHN, c=1.0, max_sims=300, seed=seed)
    value = KUHN_TREE.exploitability(KUHN_TREE.tabulate(agent.action_probabilities), jit=False)
    assert 0.10 < value < 0.20


def test_pimc_policy_on_kuhn_is_a_pure_strategy_exploitable_but_below_uniform(monkeypatch):
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    agent = PIMCAgent(game=KUHN, samples=8, search="expectimax:max_depth=8")
    policy = KUHN_TREE.tabulate(agent.action_probabilities)
    assert set(policy) <= {0.0, 1.0}
    assert 0.05 < KUHN_TREE.exploitability(policy, jit=False) < 0.4583


def _pairs_alike(name: str, count: int, seed: int):
    """``count`` pairs of different states with one information state for their mover."""
    game = make_game(name)
    tree = GameTree.build(game)
    rng = random.Random(seed)
    by_key: dict = {}
    for s in _states(game):
        if not s.is_terminal() and not s.is_chance_node():
            p = s.current_player()
            by_key.setdefault((p,) + game.information_state(s, p), []).append(s)
    groups = [g for g in by_key.values() if len(g) > 1]
    assert groups and tree is not None
    return game, [tuple(rng.sample(g, 2)) for g in rng.sample(groups, count)]


def _states(game):
    stack = [game.initial()]
    while stack:
        s = stack.pop()
        yield s
        stack.extend(s.apply(a) for a in s.legal_actions())


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_neither_search_reads_what_the_player_cannot_see(name, monkeypatch):
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    game, pairs = _pairs_alike(name, 4, seed=len(name))
    for a, b in pairs:
        assert a.words != b.words
        ours = [ISMCTSAgent(game=game, max_sims=200, seed=7).action_probabilities(s) for s in (a, b)]
        assert ours[0] == ours[1]
        # seconds=30: each sample's search ends on its proof, not on the clock (a clock would make two runs differ)
        votes = []
        for s in (a, b):
            pimc = PIMCAgent(game=game, samples=4, seed=7, seconds=30, search="expectimax:max_depth=12")
            votes.append(pimc.votes(s))
            assert pimc.info().extra["proven"] == 4
        assert votes[0] == votes[1]


def test_a_search_that_peeks_is_caught_by_that_test(monkeypatch):
    """The check can fail: a determinizer returning the true state makes the policies differ."""
    from core.kuhn_poker import kernels as K

    game, pairs = _pairs_alike("kuhn_poker", 4, seed=3)
    monkeypatch.setattr(K, "determinize", lambda g, s, p, seed: tuple(s))
    differ = 0
    for a, b in pairs:
        ours = [ISMCTSAgent(game=game, max_sims=200, seed=7).action_probabilities(s) for s in (a, b)]
        differ += ours[0] != ours[1]
    assert differ > 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_on_a_perfect_information_game_both_find_the_winning_take(seed, monkeypatch):
    """Nim of 5: take 1 (action 0), leaving 4, is the one winning move."""
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    game = Nim(pile=5)
    state = game.initial()
    assert ISMCTSAgent(game=game, max_sims=3000, seed=seed, final="max").choose(state, time.perf_counter() + 60) == 0
    assert PIMCAgent(game=game, samples=3, seed=seed, search="expectimax:max_depth=10").choose(state, time.perf_counter() + 60) == 0


def test_the_registry_builds_them_and_refuses_bad_parameters():
    assert isinstance(registry.make("ismcts:max_sims=50,c=0.5", KUHN), ISMCTSAgent)
    assert isinstance(registry.make("pimc:samples=3", KUHN), PIMCAgent)
    with pytest.raises(SpecError, match="final must be 'visits' or 'max'"):
        registry.make("ismcts:final=best", KUHN)
    with pytest.raises(SpecError, match="not pimc itself"):
        registry.make("pimc:search=pimc", KUHN)
    with pytest.raises(SpecError, match="samples must be at least 1"):
        registry.make("pimc:samples=0", KUHN)


def test_a_move_respects_the_deadline_and_reports_its_search(monkeypatch):
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    game = make_game("leduc_poker")
    state = game.initial().apply(0).apply(3)
    agent = ISMCTSAgent(game=game, max_sims=0, seed=1)
    start = time.perf_counter()
    action = agent.choose(state, start + 0.3)
    assert time.perf_counter() - start < 2.0 and action in state.legal_actions()
    info = agent.info()
    assert info.simulations and info.simulations > 10 and set(info.action_values) <= set(state.legal_actions())
    with pytest.raises(ValueError, match="max_sims=0 searches until the deadline"):
        agent.action_probabilities(state)  # no deadline and no count: refused, not an endless search


def test_the_cfr_agent_plays_its_equilibrium_and_only_where_something_is_hidden():
    from agents.engine.cfr_agent import CFRAgent

    agent = registry.make("cfr:iterations=200,seed=2", KUHN)
    assert isinstance(agent, CFRAgent)
    assert KUHN_TREE.exploitability(KUHN_TREE.tabulate(agent.action_probabilities), jit=False) <= 0.001
    rng = random.Random(1)
    for _ in range(20):
        s = KUHN.initial()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.apply(rng.choice(s.legal_actions()))
                continue
            a = agent.choose(s, time.perf_counter() + 1)
            assert a in s.legal_actions() and sum(agent.info().action_values.values()) == pytest.approx(1.0)
            s = s.apply(a)
    assert "cfr" in registry.names("leduc_poker") and "cfr" not in registry.names("tictactoe")
    with pytest.raises(SpecError, match="plays games of hidden information, and this one has none"):
        registry.make("cfr", make_game("tictactoe"))
    with pytest.raises(SpecError, match="iterations must be at least 1"):
        registry.make("cfr:iterations=0", KUHN)


def test_the_cfr_agent_solves_within_its_moves_time(monkeypatch):
    """Plain path, Leduc, 0.3 s a move: it plays at once a policy of the iterations it had time
    for, and goes on at the next move."""
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    game = make_game("leduc_poker")
    agent = registry.make("cfr:iterations=100000", game)
    state = game.initial().apply(0).apply(3)
    start = time.perf_counter()
    assert agent.choose(state, start + 0.3) in state.legal_actions()
    first = agent.info().extra["iterations"]
    assert time.perf_counter() - start < 5.0 and 1 <= first < 100000
    agent.choose(state, time.perf_counter() + 0.3)
    assert agent.info().extra["iterations"] > first
