"""The solve-first agent (``agents/engine/solve_first.py``): MCTS that plays the exact solver's
move when the solver proves the position won or drawn within its share, and leaves proven
losses and unsolved positions to MCTS. Game-generic: checked on Quantik and tic-tac-toe.

The plain path runs everywhere; the compiled path is one test (the solver's kernel, which
``tests/test_opening_book.py`` compiles too in the same process).
"""
from __future__ import annotations

import random
import time

import pytest

from agents import registry
from agents.engine.solve_first import SolveFirstAgent
from agents.engine.solver import Solver
from core.games import make_game


@pytest.fixture(scope="module")
def quantik():
    return make_game("quantik")


def positions(game, pieces: int, want_win: bool, count: int, seed: int = 0):
    """Seeded random non-terminal positions with ``pieces`` pieces, won (or lost) for the mover."""
    sv = Solver(game, tt_bits=16, jit=False)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = game.initial()
        for _ in range(pieces):
            if s.is_terminal():
                break
            s = s.apply(rng.choice(s.legal_actions()))
        if not s.is_terminal() and len(s.history) == pieces and (sv.value(s) > 0) == want_win:
            out.append(s)
    return out, sv


@pytest.mark.parametrize("jit", [False, True])
def test_plays_a_proven_win(quantik, jit):
    won, sv = positions(quantik, 6, True, 3)
    # compiled: the first move compiles the solver in place, within the solver's share
    agent = SolveFirstAgent(game=quantik, jit=jit, background_compile=False, max_sims=20, solve_share=0.95)
    for s in won:
        a = agent.choose(s, time.perf_counter() + 300.0)
        info = agent.info()
        assert info["reason"] == "solver" and info["exact"] and info["value"] > 0
        child = s.apply(a)
        assert child.is_terminal() or sv.value(child) < 0  # the opponent is lost after it
        assert agent._solver.jit == jit


def test_leaves_a_proven_loss_to_mcts(quantik):
    lost, _ = positions(quantik, 6, False, 2, seed=1)
    agent = SolveFirstAgent(game=quantik, jit=False, max_sims=50)
    for s in lost:
        a = agent.choose(s, time.perf_counter() + 30.0)
        assert a in s.legal_actions()
        assert agent.info()["reason"] in ("search", "only move")
        if agent.info()["reason"] == "search":
            assert agent.info()["solver_value"] < 0 and agent.info()["simulations"] > 0


def test_unsolved_in_its_share_falls_back_to_mcts(quantik):
    agent = SolveFirstAgent(game=quantik, jit=False, solve_share=0.01, max_sims=30)
    s = quantik.initial()  # the plain solver needs about a second here; its share is 2 ms
    a = agent.choose(s, time.perf_counter() + 0.2)
    assert a in s.legal_actions() and agent.info()["reason"] == "search"
    assert "solver_value" not in agent.info()


def test_any_game_a_proven_draw():
    ttt = make_game("tictactoe")
    agent = registry.make("solve_first:jit=false,max_sims=10", ttt)
    s = ttt.initial()
    a = agent.choose(s, time.perf_counter() + 30.0)
    assert agent.info()["reason"] == "solver" and agent.info()["value"] == 0
    assert Solver(ttt, jit=False).value(s.apply(a)) == 0  # the reply keeps the draw


def test_registry_and_parameters(quantik):
    assert "solve_first" in registry.names("quantik") and "solve_first" in registry.names("tictactoe")
    agent = registry.make("solve_first:solve_share=0.3,c=1.5", quantik)
    assert agent.solve_share == 0.3 and agent.c == 1.5
    for bad in ("solve_first:solve_share=0", "solve_first:solve_share=1", "solve_first:solver_tt_bits=2"):
        with pytest.raises(registry.SpecError):
            registry.make(bad, quantik)
