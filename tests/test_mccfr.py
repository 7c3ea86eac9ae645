"""MCCFR's kernels (``agents/engine/mccfr_kernels.py``): the compiled and plain paths give the
same regrets, average sums and random stream for a seed; a run in pieces is the run in one;
the draws follow their probabilities and never pick an action of probability 0; outcome
sampling cuts Leduc's exploitability. Kuhn's convergence figures: ``tests/test_cfr.py``."""
from __future__ import annotations

import numpy as np
import pytest

from agents.engine import mccfr_kernels as MK
from agents.engine.cfr import GameTree
from agents.engine.mccfr import ExternalSamplingMCCFR, OutcomeSamplingMCCFR
from base.jit import numba_available
from base.xorshift import seed_state
from core.games import make_game
from tests.cli_exit import exit_code

KUHN = GameTree.build(make_game("kuhn_poker"))
SOLVERS = [ExternalSamplingMCCFR, OutcomeSamplingMCCFR]


@pytest.fixture(scope="module")
def leduc():
    return GameTree.build(make_game("leduc_poker"))


@pytest.mark.skipif(not numba_available(), reason="numba not importable")
@pytest.mark.parametrize("cls", SOLVERS)
def test_compiled_and_plain_agree_exactly(cls, leduc):
    for tree, iterations in ((KUHN, 300), (leduc, 100)):
        plain, fast = cls(tree, seed=7, jit=False), cls(tree, seed=7, jit=True)
        assert plain.k is MK and fast.k is not MK
        plain.run(iterations)
        fast.run(iterations)
        assert plain.rng == fast.rng
        assert np.array_equal(plain.regret, fast.regret) and np.array_equal(plain.total, fast.total)
        assert np.abs(plain.regret).sum() > 0 and plain.total.sum() > 0  # it did something
        assert np.array_equal(plain.average_policy(), fast.average_policy())


@pytest.mark.parametrize("cls", SOLVERS)
def test_a_run_in_pieces_is_the_run_in_one_and_a_seed_its_own(cls):
    whole, pieces, other = cls(KUHN, seed=1, jit=False), cls(KUHN, seed=1, jit=False), cls(KUHN, seed=2, jit=False)
    whole.run(60)
    pieces.run(25)
    pieces.run(35)
    other.run(60)
    assert whole.iterations == pieces.iterations == 60
    assert np.array_equal(whole.total, pieces.total) and whole.rng == pieces.rng
    assert not np.array_equal(whole.total, other.total)


def test_draws_follow_their_probabilities_and_skip_impossible_actions():
    edges = np.zeros((4, 2))
    edges[1:, 0] = (0.5, 0.0, 0.5)
    regret = np.array([-1.0, 3.0, 0.0, 1.0])  # regret matching: 0, 3/4, 0, 1/4
    counts, picks, rng = np.zeros(3), np.zeros(4), seed_state(0)
    for _ in range(4000):
        j, rng = MK.draw_chance(edges, 1, 3, rng)
        counts[j] += 1
        a, rng = MK.draw(edges, regret, 0, 0, 4, 0.0, rng)
        picks[a] += 1
    assert counts[1] == 0 and abs(counts[0] / 4000 - 0.5) < 0.03
    assert picks[0] == picks[2] == 0 and abs(picks[1] / 4000 - 0.75) < 0.03
    mixed = np.zeros(4)
    for _ in range(4000):
        a, rng = MK.draw(edges, regret, 0, 0, 4, 0.6, rng)  # 0.15 each, + 0.4 of the policy
        mixed[a] += 1
    assert abs(mixed[0] / 4000 - 0.15) < 0.03 and abs(mixed[1] / 4000 - 0.45) < 0.03


def test_outcome_sampling_cuts_leducs_exploitability(leduc):
    """Seeds 0-5: 1.79-2.33 after 2,000 iterations, 1.056-1.225 after 10,000 (the uniform
    policy's 2.3736; OpenSpiel's solver in one run: 1.245 after 10,000)."""
    solver = OutcomeSamplingMCCFR(leduc, seed=3)
    solver.run(10)
    early = leduc.exploitability(solver.average_policy())
    solver.run(9990)
    late = leduc.exploitability(solver.average_policy())
    assert late < 1.3 < 2.0 < early


@pytest.mark.parametrize("argv", [["--baseline", "no-such-revision"], ["--rounds", "0"]])
def test_the_speed_bench_refuses_bad_input_in_one_line(argv, capsys):
    from bench.mccfr_speed import main

    code = exit_code(main, argv)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.skipif(not numba_available(), reason="numba not importable")
def test_the_speed_bench_runs_and_prints_its_figures(capsys):
    from bench.figures import parse
    from bench.mccfr_speed import main

    assert main(["--seconds", "0.05", "--rounds", "1"]) == 0
    figures = parse(capsys.readouterr().out)
    assert figures["leduc_poker outcome compiled its/s"] > 0 and "kuhn_poker external speed-up" in figures
