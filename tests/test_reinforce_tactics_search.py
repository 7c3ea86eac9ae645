"""The game-generic searches on Reinforce Tactics, an array-state game (core.game's module
docstring): the hashed table key, the searches' compiled and plain paths agreeing move for move
(same seed: same visits, same values, same nodes), open-loop MCTS within its bounded pool, and
the exact solver refused with a clear message."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from agents import registry
from agents.engine import expectimax as EX
from agents.engine import negamax as NM
from agents.engine.exact import ExactSearch
from agents.engine.mcts import MCTSAgent
from agents.registry import SpecError
from base.jit import NO_NRT_FLAG, compiled, numba_available
from core.game import State, kernel_state, key_function
from core.games import parse_game
from core.kernel_defaults import HASH_WORDS, hashed_key

SPEC = "reinforce_tactics:map=beginner,episode_steps=8"


def positions(game, count: int, seed: int) -> list[State]:
    """Decision states of random games (chance outcomes drawn at random), spread over them."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = game.initial()
        plies = rng.randrange(0, 40)
        for _ in range(plies):
            if s.is_terminal():
                break
            outcomes = s.chance_outcomes()
            s = s.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0] if outcomes
                        else rng.choice(s.legal_actions()))
        if not s.is_terminal() and not s.is_chance_node() and len(s.legal_actions()) > 1:
            out.append(s)
    return out


def visited_states(game, games: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        s = game.initial()
        while not s.is_terminal():
            outcomes = s.chance_outcomes()
            s = s.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0] if outcomes
                        else rng.choice(s.legal_actions()))
            out.append(s)
    return out


def test_array_state_contract():
    game = parse_game(SPEC)
    assert game.array_state and key_function(game) is hashed_key
    s = game.initial()
    k = kernel_state(game, s.words, True)
    assert isinstance(k, np.ndarray) and k.dtype == np.int64 and tuple(k.tolist()) == s.words
    assert kernel_state(game, s.words, False) == s.words
    assert kernel_state(parse_game("tictactoe"), (1, 2), True) == (1, 2)  # tuple games keep tuples
    assert len(s.key()) == HASH_WORDS


def test_hashed_keys_tell_states_apart():
    """Over every state of random games: equal keys only for equal states."""
    game = parse_game(SPEC)
    seen: dict[tuple, tuple] = {}
    for s in visited_states(game, 6, seed=1):
        assert seen.setdefault(s.key(), s.words) == s.words
    assert len(seen) > 100


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_hashed_key_same_on_both_paths():
    game = parse_game(SPEC)
    fast = compiled("core.kernel_defaults").hashed_key
    g = np.asarray(game.g, np.int64)
    for s in visited_states(game, 2, seed=2)[::7]:
        assert tuple(fast(g, np.asarray(s.words, np.int64))) == hashed_key(game.g, s.words)


def test_searches_of_array_games_compile_with_reference_counting():
    """MCTS compiles without numba's reference counting; bound to an array-state game (whose
    play allocates) it gets its own variant with it (base.jit.compiled's NO_NRT_FLAG)."""
    from agents.engine import mcts_kernels

    assert getattr(mcts_kernels, NO_NRT_FLAG)
    if not numba_available():
        pytest.skip("numba not installed")
    plain_variant = compiled(mcts_kernels)
    nrt_variant = compiled(mcts_kernels, {NO_NRT_FLAG: False})
    assert nrt_variant is not plain_variant and getattr(nrt_variant, NO_NRT_FLAG) is False
    assert getattr(plain_variant, NO_NRT_FLAG) is True


def test_exact_solver_refused_with_one_line():
    game = parse_game(SPEC)
    for name in ("solver", "perfect", "solve_first"):
        with pytest.raises((SpecError, ValueError), match="too big to solve exactly"):
            registry.make(name, game)
        assert name not in registry.names(game.name)  # not offered (the builder, the arena, the web app's list)
    with pytest.raises(ValueError, match="too big to solve exactly"):
        ExactSearch(game)  # python -m agents.connectx.solver --game reinforce_tactics: that line, exit 2


def mcts_choice(game, state: State, jit: bool, open_loop: bool, seed: int) -> tuple[int, dict, int]:
    """The action, root visits and simulations of 40 simulations at most (closed loop's solver
    may prove the root sooner: the short games end in draws within reach)."""
    agent = MCTSAgent(game=game, max_sims=40, seed=seed, jit=jit, open_loop=open_loop, max_rollout=60,
                      background_compile=False, reuse=False)
    if jit:
        agent.warm_up()
    a = agent.choose(state, time.perf_counter() + 3600)
    info = agent.info()
    assert info["compiled"] is jit and 0 < info["simulations"] <= 40
    return a, info["visits"], info["simulations"]


def test_mcts_plain_path_plays_reinforce_tactics():
    game = parse_game(SPEC)
    for i, s in enumerate(positions(game, 2, seed=3)):
        a, visits, sims = mcts_choice(game, s, False, False, seed=i)
        assert a in s.legal_actions() and sum(visits.values()) == sims


@pytest.mark.slow
@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("open_loop", [False, True])
def test_mcts_paths_agree_on_reinforce_tactics(open_loop):
    game = parse_game(SPEC)
    for i, s in enumerate(positions(game, 3, seed=4)):
        assert mcts_choice(game, s, True, open_loop, i) == mcts_choice(game, s, False, open_loop, i)


@pytest.mark.slow
@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("module", [NM, EX])
def test_depth_first_paths_agree_on_reinforce_tactics(module):
    """Alpha-beta (negamax.Search) and expectimax to depth 2 from the same positions: the same
    value, best action and node count compiled and plain."""
    game = parse_game(SPEC)
    for s in positions(game, 3, seed=5):
        results = []
        for jit in (True, False):
            search = module.Search(game, "none", None, tt_bits=10, jit=jit)
            r = search.run(s, 2)
            results.append((r.value, r.best, r.nodes, r.aborted))
        assert results[0] == results[1]
        assert results[0][1] in s.legal_actions() and not results[0][3]
