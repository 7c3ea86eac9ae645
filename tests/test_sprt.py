"""util.arena.sprt: pentanomial statistics against hand-computed values, the GSPRT's likelihood ratio
against an independent constrained optimiser (scipy), and the sequential test simulated over
many seeds on game pairs of known Elo difference: it accepts a clearly stronger agent, rejects
an equal one, with error rates near the nominal ones and in about Wald's expected number of pairs."""
from __future__ import annotations

import math

import numpy as np
import pytest

from util.arena import sprt

A = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
# A match of balanced openings: most pairs split (each agent wins its good seat) or draw twice.
BASE = np.array([0.04, 0.16, 0.60, 0.16, 0.04])


# --- summaries --------------------------------------------------------------------------------
def test_summary_matches_hand_computation() -> None:
    counts = [5, 10, 40, 30, 15]  # 100 pairs
    s = sprt.summarize(counts, draws=50)
    mean = (5 * 0 + 10 * 0.25 + 40 * 0.5 + 30 * 0.75 + 15 * 1.0) / 100  # 0.6
    var = (5 * 0.36 + 10 * 0.1225 + 40 * 0.01 + 30 * 0.0225 + 15 * 0.16) / 100  # 0.065
    se = math.sqrt(var / 100)
    assert s.pairs == 100 and s.penta == (5, 10, 40, 30, 15)
    assert s.score == pytest.approx(0.6) and mean == pytest.approx(0.6)
    assert s.elo == pytest.approx(70.437, abs=1e-3)  # -400 log10(1/0.6 - 1)
    assert s.elo_low == pytest.approx(-400 * math.log10(1 / (0.6 - 1.959964 * se) - 1), abs=1e-3)
    assert s.elo_high == pytest.approx(-400 * math.log10(1 / (0.6 + 1.959964 * se) - 1), abs=1e-3)
    assert 34.8 < s.elo_low < 35.0 and 107.4 < s.elo_high < 107.7
    assert s.los == pytest.approx(0.5 * (1 + math.erf(0.1 / se / math.sqrt(2))))
    assert s.draw_ratio == pytest.approx(0.25)
    assert "pentanomial [5, 10, 40, 30, 15]" in s.text() and "LOS" in s.text()


def test_summary_of_even_and_one_sided_matches() -> None:
    even = sprt.summarize([3, 5, 10, 5, 3])
    assert even.elo == pytest.approx(0.0) and even.los == pytest.approx(0.5)
    assert even.elo_low == pytest.approx(-even.elo_high)
    sweep = sprt.summarize([0, 0, 0, 0, 12], draws=0)
    assert sweep.elo == math.inf and sweep.los == 1.0 and sweep.draw_ratio == 0.0
    assert "+inf" in sweep.text()
    assert sprt.summarize([0] * 5).pairs == 0


def test_pentanomial_counts_pairs_by_points() -> None:
    assert list(sprt.pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2])) == [1, 1, 2, 1, 3]
    with pytest.raises(ValueError):
        sprt.pair_outcome(2.5)


def test_elo_score_round_trip() -> None:
    for elo in (-300.0, -10.0, 0.0, 10.0, 191.0):
        assert sprt.score_to_elo(float(sprt.elo_to_score(elo))) == pytest.approx(elo)
    assert float(sprt.elo_to_score(400)) == pytest.approx(10 / 11)


# --- bounds and parsing -------------------------------------------------------------------------
def test_wald_bounds_and_parse() -> None:
    test = sprt.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    assert test == sprt.Sprt(0.0, 10.0, 0.05, 0.05)
    assert test.lower == pytest.approx(math.log(0.05 / 0.95)) and test.upper == pytest.approx(math.log(0.95 / 0.05))
    assert test.upper == pytest.approx(2.944, abs=1e-3)
    assert test.decide(3.0) == "H1" and test.decide(-3.0) == "H0" and test.decide(0.0) is None
    assert sprt.parse("elo1=5").elo1 == 5.0 and sprt.parse("model=normalized").model == "normalized"


@pytest.mark.parametrize("text, words", [
    ("elo0=10,elo1=0", "elo0 must be below elo1"),
    ("alpha=0", "alpha must be between"),
    ("beta=0.7", "beta must be between"),
    ("elo1=ten", "elo1 must be a number"),
    ("gamma=1", "bad SPRT entry"),
    ("elo1", "bad SPRT entry"),
    ("model=bayes", "model must be one of"),
])
def test_bad_sprt_text(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        sprt.parse(text)


# --- the likelihood ratio -----------------------------------------------------------------------
def constrained_mle(phat: np.ndarray, constraint) -> np.ndarray:
    minimize = pytest.importorskip("scipy.optimize").minimize
    r = minimize(lambda p: -np.sum(phat * np.log(p)), np.full(5, 0.2), method="SLSQP", bounds=[(1e-12, 1.0)] * 5,
                 constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1}, {"type": "eq", "fun": constraint}],
                 options={"ftol": 1e-15, "maxiter": 1000})
    assert r.success, r.message
    return r.x


@pytest.mark.parametrize("counts", [[5, 10, 40, 30, 15], [30, 120, 700, 130, 20], [1, 0, 3, 2, 0], [0, 2, 9, 1, 0]])
def test_llr_is_the_constrained_maximum_likelihood_ratio(counts: list[int]) -> None:
    """Against scipy maximizing the likelihood under each hypothesis' constraint directly."""
    c = np.where(np.array(counts) == 0, 1e-3, counts).astype(float)  # zero counts as 0.001, as documented
    n, phat = c.sum(), c / c.sum()
    s0, s1 = float(sprt.elo_to_score(0)), float(sprt.elo_to_score(10))
    p0 = constrained_mle(phat, lambda p: p @ A - s0)
    p1 = constrained_mle(phat, lambda p: p @ A - s1)
    assert sprt.llr(counts, 0, 10) == pytest.approx(n * np.sum(phat * np.log(p1 / p0)), rel=1e-5, abs=1e-7)

    def ratio(t: float):
        return lambda p: (p @ A - 0.5) - t * math.sqrt(p @ (A - p @ A) ** 2)
    q0 = constrained_mle(phat, ratio(sprt.normalized_t(0)))
    q1 = constrained_mle(phat, ratio(sprt.normalized_t(10)))
    assert sprt.llr(counts, 0, 10, "normalized") == pytest.approx(n * np.sum(phat * np.log(q1 / q0)), rel=1e-5, abs=1e-7)


def test_llr_of_a_clean_sweep_is_n_log_2_s1() -> None:
    """Every pair won twice: the likeliest distribution with mean s puts s on 2 points and the
    rest on 0, so the ratio is n log(s1 / s0) = n log(2 s1) for elo0 = 0 (by hand)."""
    s1 = 1 / (1 + 10 ** (-10 / 400))
    assert sprt.llr([0, 0, 0, 0, 100], 0, 10) == pytest.approx(100 * math.log(2 * s1), rel=1e-3)
    assert sprt.llr([100, 0, 0, 0, 0], 0, 10) == pytest.approx(100 * math.log(2 * (1 - s1)), rel=1e-3)


def test_llr_agrees_with_the_normal_approximation_near_the_hypotheses() -> None:
    counts = np.array([300, 1200, 7000, 1300, 200])  # mean near 0.5: where the approximation holds
    exact, approx = sprt.llr(counts, 0, 10), sprt.llr_normal(counts, 0, 10)
    assert exact == pytest.approx(approx, rel=0.02)
    # By hand: N (s1 - s0) (2 s - s0 - s1) / (2 var).
    mean = (1200 * 0.25 + 7000 * 0.5 + 1300 * 0.75 + 200) / 10000
    var = (300 * mean**2 + 1200 * (0.25 - mean) ** 2 + 7000 * (0.5 - mean) ** 2 + 1300 * (0.75 - mean) ** 2 + 200 * (1 - mean) ** 2) / 10000
    s1 = 1 / (1 + 10 ** (-10 / 400))
    assert approx == pytest.approx(10000 * (s1 - 0.5) * (2 * mean - 0.5 - s1) / (2 * var), rel=1e-6)


def test_llr_is_vectorized() -> None:
    batch = np.array([[5, 10, 40, 30, 15], [1, 0, 3, 2, 0]])
    assert list(sprt.llr(batch, 0, 10)) == pytest.approx([sprt.llr(batch[0], 0, 10), sprt.llr(batch[1], 0, 10)])


# --- the sequential test, simulated -------------------------------------------------------------
def at_elo(elo: float) -> np.ndarray:
    """The pentanomial distribution of BASE tilted (p ~ BASE exp(lambda a)) to mean score at ``elo``."""
    target = float(sprt.elo_to_score(elo))
    lo, hi = -50.0, 50.0
    for _ in range(100):
        lam = 0.5 * (lo + hi)
        p = BASE * np.exp(lam * A)
        lo, hi = (lam, hi) if (p / p.sum()) @ A < target else (lo, lam)
    return p / p.sum()


def simulate(test: sprt.Sprt, probs: np.ndarray, seeds: int, max_pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Run ``seeds`` sequential tests on pairs drawn from ``probs``, checking after every pair as
    util.arena.tournament does: (decision per run: +1 H1, -1 H0, 0 none by max_pairs; pairs used)."""
    rng = np.random.default_rng(seed)
    outcomes = rng.choice(5, size=(seeds, max_pairs), p=probs)
    counts = np.cumsum(np.eye(5, dtype=np.int64)[outcomes], axis=1)  # (seeds, pairs, 5)
    decision = np.zeros(seeds, dtype=int)
    length = np.full(seeds, max_pairs)
    open_ = np.ones(seeds, dtype=bool)
    for start in range(0, max_pairs, 250):  # in chunks: stop computing once every run has decided
        rows = np.flatnonzero(open_)
        if rows.size == 0:
            break
        llr = sprt.llr(counts[rows, start:start + 250], test.elo0, test.elo1, test.model)
        for r, values in zip(rows, llr):
            hit = np.flatnonzero((values >= test.upper) | (values <= test.lower))
            if hit.size:
                k = hit[0]
                decision[r], length[r], open_[r] = (1 if values[k] >= test.upper else -1), start + k + 1, False
    return decision, length


def wald_pairs(test: sprt.Sprt, probs: np.ndarray, accept_h1: float) -> float:
    """Wald's approximation of the expected number of pairs: the bound reached, weighted by how
    often, over the expected LLR increment per pair (the LLR of a very long match / its pairs)."""
    drift = sprt.llr(probs * 1e7, test.elo0, test.elo1, test.model) / 1e7
    return (accept_h1 * test.upper + (1 - accept_h1) * test.lower) / drift


def test_sprt_accepts_a_clearly_stronger_agent() -> None:
    test = sprt.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    probs = at_elo(30.0)
    decision, length = simulate(test, probs, seeds=200, max_pairs=3000, seed=1)
    assert np.mean(decision == 1) >= 0.97, np.bincount(decision + 1)
    expected = wald_pairs(test, probs, np.mean(decision == 1))
    assert 0.6 * expected < length.mean() < 1.5 * expected, (length.mean(), expected)


def test_sprt_rejects_an_equal_agent_within_the_expected_pairs() -> None:
    test = sprt.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    probs = at_elo(0.0)
    decision, length = simulate(test, probs, seeds=120, max_pairs=6000, seed=2)
    assert np.mean(decision == -1) >= 0.88, np.bincount(decision + 1)  # nominal: at least 1 - alpha = 95%
    assert np.mean(decision == 1) <= 0.10
    expected = wald_pairs(test, probs, np.mean(decision == 1))
    assert 0.6 * expected < length.mean() < 1.5 * expected, (length.mean(), expected)


def test_sprt_at_elo1_accepts_h1_about_1_minus_beta() -> None:
    test = sprt.parse("elo0=0,elo1=40,alpha=0.05,beta=0.05")  # wide hypotheses: short runs
    decision, _ = simulate(test, at_elo(40.0), seeds=200, max_pairs=2000, seed=3)
    assert np.mean(decision == 1) >= 0.88, np.bincount(decision + 1)


def test_normalized_model_accepts_stronger_and_rejects_equal() -> None:
    test = sprt.parse("elo0=0,elo1=20,model=normalized")
    strong, _ = simulate(test, at_elo(40.0), seeds=40, max_pairs=1000, seed=4)
    equal, _ = simulate(test, at_elo(0.0), seeds=40, max_pairs=3000, seed=5)
    assert np.mean(strong == 1) >= 0.9 and np.mean(equal == -1) >= 0.85, (np.bincount(strong + 1), np.bincount(equal + 1))


def test_pair_up_joins_the_two_seats_of_an_opening() -> None:
    games = [("44", True, 1.0), ("35", True, 0.5), ("44", False, 0.0), ("44", True, 1.0), ("35", True, 1.0),
             ("35", False, 1.0), ("44", False, 1.0)]
    # 44: (1 + 0), then (1 + 1); 35: the first seat-A-first game waits for the seat-B-first one.
    assert sorted(sprt.pair_up(games)) == [1.0, 1.5, 2.0]
