"""Bradley-Terry fit: known strengths recovered, an independent optimiser agrees, intervals cover."""
from __future__ import annotations

import numpy as np
import pytest

from util.arena.ratings import ELO_PER_THETA, fit, rate, tables


def simulate(theta: np.ndarray, games_per_pair: int, draw_rate: float, rng: np.random.Generator) -> list[tuple[int, int, float]]:
    """Games whose expected score follows the model: a draw with probability ``draw_rate``
    (score 0.5), otherwise a win with probability chosen so the mean score is sigmoid(diff)."""
    out = []
    k = len(theta)
    for i in range(k):
        for j in range(i + 1, k):
            p = 1.0 / (1.0 + np.exp(theta[j] - theta[i]))
            win = (p - 0.5 * draw_rate) / (1.0 - draw_rate)
            assert 0.0 <= win <= 1.0
            for g in range(games_per_pair):
                a, b = (i, j) if g % 2 == 0 else (j, i)
                if rng.random() < draw_rate:
                    score = 0.5
                else:
                    score = 1.0 if rng.random() < win else 0.0
                out.append((i, j, score) if a == i else (j, i, 1.0 - score))
    return out


TRUE = np.array([-1.0, -0.2, 0.3, 0.9])


def test_fit_recovers_known_strengths() -> None:
    rng = np.random.default_rng(1)
    games = simulate(TRUE, 600, draw_rate=0.2, rng=rng)
    n, s = tables(games, len(TRUE))
    theta, cov = fit(n, s)
    truth = TRUE - TRUE.mean()
    sd = np.sqrt(np.diag(cov))
    assert list(np.argsort(theta)) == [0, 1, 2, 3]
    assert np.all(np.abs(theta - truth) < 4 * sd), (theta, truth, sd)
    assert np.all(np.abs(theta - truth) < 0.15)


def test_fit_matches_scipy_optimum() -> None:
    # scipy is an independent oracle, not a dependency: installed with the optional extras.
    minimize = pytest.importorskip("scipy.optimize").minimize
    rng = np.random.default_rng(2)
    games = simulate(TRUE, 40, draw_rate=0.2, rng=rng)
    n, s = tables(games, len(TRUE))
    prior = 0.01
    theta, _ = fit(n, s, prior)

    def negloglik(t: np.ndarray) -> float:
        d = t[:, None] - t[None, :]
        # s * log sigmoid(d) summed over ordered pairs counts each game once from each side
        return float(np.sum(s * np.logaddexp(0.0, -d)) + prior / 2 * np.sum(t * t))

    best = minimize(negloglik, np.zeros(len(TRUE)), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(theta, best - best.mean(), atol=1e-4)


def test_intervals_cover_the_truth_about_95_percent() -> None:
    rng = np.random.default_rng(3)
    truth = TRUE - TRUE.mean()
    hits = total = 0
    for _ in range(150):
        games = simulate(TRUE, 30, draw_rate=0.2, rng=rng)
        ratings = {r.name: r for r in rate(["a", "b", "c", "d"], games)}
        for name, t in zip("abcd", truth):
            total += 1
            hits += ratings[name].low <= t * ELO_PER_THETA <= ratings[name].high
    assert 0.90 <= hits / total <= 0.99, hits / total


def test_unbeaten_player_is_finite_and_first() -> None:
    games = [(0, 1, 1.0)] * 10 + [(1, 2, 0.5)] * 10
    ratings = rate(["champ", "mid", "low"], games)
    assert ratings[0].name == "champ"
    assert all(np.isfinite([r.elo, r.low, r.high]).all() for r in ratings)


def test_all_draws_give_equal_ratings() -> None:
    ratings = rate(["a", "b", "c"], [(0, 1, 0.5), (1, 2, 0.5), (0, 2, 0.5)] * 5)
    assert all(abs(r.elo) < 1e-6 for r in ratings)


def test_rate_counts_games_and_points() -> None:
    ratings = {r.name: r for r in rate(["a", "b"], [(0, 1, 1.0), (1, 0, 0.5), (0, 1, 0.0)])}
    assert (ratings["a"].games, ratings["a"].score) == (3, 1.5)
    assert (ratings["b"].games, ratings["b"].score) == (3, 1.5)


def test_prior_must_be_positive() -> None:
    with pytest.raises(ValueError):
        fit(np.zeros((2, 2)), np.zeros((2, 2)), prior=0.0)


def test_wilson_interval_matches_the_formula_and_its_edges() -> None:
    from util.arena.ratings import wilson

    lo, hi = wilson(8, 10)  # the textbook case: 8 of 10, 95%: [0.490, 0.943]
    assert abs(lo - 0.4902) < 1e-3 and abs(hi - 0.9433) < 1e-3
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(10, 10)
    assert abs(hi - 1.0) < 1e-12 and 0.70 < lo < 0.74  # all won: the lower bound is below 1
    lo, hi = wilson(5, 10)
    assert abs((lo + hi) / 2 - 0.5) < 1e-12  # symmetric at one half
    narrow, wide = wilson(50, 100), wilson(5, 10)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
