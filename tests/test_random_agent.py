"""RandomAgent: legal, reproducible per seed, uniform among legal columns."""
from __future__ import annotations

from collections import Counter

import pytest

from agents.connectx import registry
from agents.connectx.random_agent import RandomAgent
from core.connectx import Position, Shape
from util.arena.game import play_game


@pytest.mark.parametrize("shape", [Shape(6, 7, 4), Shape(5, 4, 3), Shape(10, 10, 5)], ids=str)
def test_always_legal(shape):
    for seed in range(30):
        r = play_game(RandomAgent(seed=seed), RandomAgent(seed=seed + 1), shape=shape)
        assert r.termination in ("win", "draw") and r.errors == {}


def test_same_seed_same_game_and_reset_replays():
    a = play_game(RandomAgent(seed=7), RandomAgent(seed=8)).moves
    b = play_game(RandomAgent(seed=7), RandomAgent(seed=8)).moves
    assert a == b
    agent = RandomAgent(seed=3)
    pos = Position.from_moves("4455")
    first = [agent.choose_position(pos, 0.0) for _ in range(20)]
    agent.reset()
    assert [agent.choose_position(pos, 0.0) for _ in range(20)] == first


def test_different_seeds_differ():
    games = {tuple(play_game(RandomAgent(seed=s), RandomAgent(seed=s + 100)).moves) for s in range(20)}
    assert len(games) == 20


def test_unseeded_agents_differ():
    pos = Position.empty()
    runs = {tuple(RandomAgent().choose_position(pos, 0.0) for _ in range(30)) for _ in range(5)}
    assert len(runs) > 1


def test_uniform_over_legal_columns_only():
    """Column 4 (1-based) full: the other six each come up about 1/6 of the time (chi-square,
    seeded, threshold at p ~ 0.001 for 5 degrees of freedom)."""
    pos = Position.from_moves("444444")
    agent = RandomAgent(seed=11)
    n = 6000
    counts = Counter(agent.choose_position(pos, 0.0) for _ in range(n))
    assert set(counts) == {0, 1, 2, 4, 5, 6}
    expected = n / 6
    chi2 = sum((counts[c] - expected) ** 2 / expected for c in counts)
    assert chi2 < 20.5


def test_game_over_raises():
    with pytest.raises(ValueError):
        RandomAgent(seed=0).choose_position(Position.from_moves("4343434"), 0.0)


def test_registry_builds_it():
    agent = registry.make("random", seed="5")
    assert isinstance(agent, RandomAgent) and agent.seed == 5
    assert registry.parameters("random") == {"seed": None}


def test_a_spec_parameter_named_server_is_refused_not_taken_for_the_flag():
    with pytest.raises(registry.SpecError, match="has no parameter 'server'"):
        registry.make_from_spec("random:server=1")
