"""Our CFR, CFR+ and best response against OpenSpiel's (``open_spiel.python.algorithms.cfr``
and ``exploitability``) on Kuhn poker and Leduc hold'em: the exploitability of the average
policies after the same iterations, and those policies' probabilities information state by
information state. Skipped when pyspiel is not importable (an optional test extra)."""
from __future__ import annotations

import pytest

from agents.engine.cfr import CFR, GameTree
from core.games import make_game

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import cfr as os_cfr  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402


@pytest.mark.parametrize("name,iterations", [("kuhn_poker", (1, 5, 40)), ("leduc_poker", (1, 2))])
@pytest.mark.parametrize("plus", [False, True])
def test_cfr_matches_openspiel(name, iterations, plus):
    theirs = pyspiel.load_game(name)
    tree = GameTree.build(make_game(name))
    assert tree.exploitability(tree.uniform_policy(), jit=False) == pytest.approx(
        os_exploitability.exploitability(theirs, os_cfr.CFRSolver(theirs).average_policy()), abs=1e-12)
    solver_them = os_cfr.CFRPlusSolver(theirs) if plus else os_cfr.CFRSolver(theirs)
    solver_us = CFR(tree, plus=plus, jit=False)
    done = 0
    for n in iterations:
        for _ in range(n - done):
            solver_them.evaluate_and_update_policy()
        solver_us.run(n - done)
        done = n
        avg_them, avg_us = solver_them.average_policy(), solver_us.average_policy()
        assert tree.exploitability(avg_us, jit=False) == pytest.approx(
            os_exploitability.exploitability(theirs, avg_them), abs=1e-9)
        for i in range(0, len(tree.states), max(1, len(tree.states) // 60)):
            s, (slot, k) = tree.states[i], tree.infosets[i][:2]
            probs = avg_them.action_probabilities(_their_state(theirs, s.history))
            assert list(avg_us[slot:slot + k]) == pytest.approx([probs[a] for a in s.legal_actions()], abs=1e-9)

def _their_state(game, history):
    t = game.new_initial_state()
    for a in history:
        t.apply_action(a)
    return t
