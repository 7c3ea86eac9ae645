"""Bradley-Terry ratings with confidence intervals, fitted by Newton's method with numpy.

Model: agent ``i`` has strength ``theta_i`` and scores against ``j`` with probability
``sigmoid(theta_i - theta_j)``; a draw counts as half a win for each side (a game of score 0.5).
The fit maximises the log-likelihood plus a weak Gaussian prior ``-prior/2 * sum(theta^2)``:
without it an agent that won (or lost) every game has an infinite rating and the Hessian is
singular. The prior is weak (sd 10 in theta, about 1700 Elo) so it only matters in that case.

Intervals come from the inverse Hessian at the optimum (the Laplace approximation), for the
ratings centred to mean 0. Elo = theta * 400 / ln(10), so 100 Elo ~ 64% expected score.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

ELO_PER_THETA = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Rating:
    name: str  # the player's label
    elo: float  # centred: the mean of all players is 0
    low: float  # lower end of the confidence interval (Elo)
    high: float  # upper end (Elo)
    games: int  # games this player played
    score: float  # points scored (win 1, draw 0.5)


def tables(games: Iterable[tuple[int, int, float]], n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, s): games played and points scored by row against column, from ``(i, j, score_i)``."""
    n = np.zeros((n_players, n_players))
    s = np.zeros((n_players, n_players))
    for i, j, score in games:
        if i == j:
            continue
        n[i, j] += 1
        n[j, i] += 1
        s[i, j] += score
        s[j, i] += 1.0 - score
    return n, s


def fit(n: np.ndarray, s: np.ndarray, prior: float = 0.01, tol: float = 1e-10, max_iter: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Maximum a-posteriori strengths ``theta`` (mean 0) and their covariance matrix.

    ``n[i, j]``: games between i and j (symmetric); ``s[i, j]``: points i scored against j
    (``s + s.T == n``); ``prior``: precision of the Gaussian prior on each theta (> 0).
    """
    if prior <= 0:
        raise ValueError("prior must be positive (it keeps unbeaten players finite)")
    k = n.shape[0]
    theta = np.zeros(k)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
        grad = (s - n * p).sum(axis=1) - prior * theta
        w = n * p * (1.0 - p)
        hess = w - np.diag(w.sum(axis=1) + prior)  # negative definite
        step = np.linalg.solve(hess, grad)
        # Newton on a concave function; damp huge steps so early iterations cannot overflow.
        largest = np.max(np.abs(step)) if k else 0.0
        if largest > 5.0:
            step *= 5.0 / largest
        theta -= step
        if largest < tol:
            break
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    w = n * p * (1.0 - p)
    cov = np.linalg.inv(np.diag(w.sum(axis=1) + prior) - w)
    centre = np.eye(k) - 1.0 / k
    return centre @ theta, centre @ cov @ centre.T


def rate(names: Sequence[str], games: Iterable[tuple[int, int, float]], z: float = 1.96, prior: float = 0.01) -> list[Rating]:
    """Ratings of ``names`` from games ``(i, j, score_i)``, strongest first; ``z``: interval
    half-width in standard deviations (1.96 for 95%)."""
    n, s = tables(games, len(names))
    if not names:
        return []
    theta, cov = fit(n, s, prior)
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    out = [
        Rating(name, ELO_PER_THETA * theta[i], ELO_PER_THETA * (theta[i] - z * sd[i]), ELO_PER_THETA * (theta[i] + z * sd[i]),
               int(n[i].sum()), float(s[i].sum()))
        for i, name in enumerate(names)
    ]
    return sorted(out, key=lambda r: -r.elo)


Z95 = 1.959964  # two-sided 95% normal quantile


def wilson(score: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's interval of a share: ``score`` points (a draw counts half) in ``n`` games, at ``z``
    standard deviations (95% by default); ``(0, 1)`` for no games."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``values`` (a game's returns: chips), the interval the normal
    approximation's at ``z`` standard errors (95% by default) with the sample's standard deviation
    (n - 1); ``(mean, -inf, inf)`` below two values (nothing says how far the mean may be off), and
    ``(nan, -inf, inf)`` for none."""
    n = len(values)
    if n == 0:
        return math.nan, -math.inf, math.inf
    mean = math.fsum(values) / n
    if n < 2:
        return mean, -math.inf, math.inf
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return mean, mean - half, mean + half
