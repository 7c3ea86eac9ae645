"""Game-pair (pentanomial) statistics and the sequential probability ratio test (SPRT).

Why pairs: every opening is played twice with the seats swapped (:mod:`util.arena.openings`), so the
two games of a pair are not independent (a won opening is often won by whoever sits on its
good side). Counting per pair the points the first agent took, 0, 0.5, 1, 1.5 or 2 (five
outcomes: the *pentanomial*), and treating pairs as the independent trials, gives honest (and
narrower) error bars than counting games; this is what chess engine testers (fastchess,
cutechess-cli, fishtest) do.

The SPRT tests H0: Elo = ``elo0`` against H1: Elo = ``elo1`` and stops as soon as the
log-likelihood ratio (LLR) leaves ``[ln(beta/(1-alpha)), ln((1-beta)/alpha)]`` (Wald's bounds):
above, H1 is accepted (the agent is at least ``elo1`` stronger, with error rate ``alpha``),
below, H0 (it is not better than ``elo0``, error rate ``beta``). The LLR is the *generalized*
one (GSPRT, M. Van den Bergh, "Comments on Normalized Elo"): the pentanomial probabilities
under each hypothesis are the maximum-likelihood distribution among those whose mean score is
the hypothesis' (``logistic`` model: Elo as in the ratings, score = 1/(1+10^(-elo/400))) or whose
``(mean - 1/2) / sd`` is (``normalized`` model: Elo per unit of the pair scores' spread). Both
reduce, for small differences, to the classic normal approximation
``N (s1-s0) (2 s - s0 - s1) / (2 var)``, :func:`llr_normal`, kept as a cross-check.

Every function here is pure and vectorized over leading axes of the counts, so that tests can
simulate thousands of sequential tests at once.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # points of a pair per game: 0, 0.5, 1, 1.5, 2 out of 2
MODELS = ("logistic", "normalized")
Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal
_EMPTY = 1e-3  # stands in for a zero count in the LLR, so the likelihoods stay finite (as fastchess does)
_NELO_UNIT = 800.0 / math.log(10.0)  # normalized Elo per unit of t, on game pairs with sqrt(2) (see normalized_t)


@dataclass(frozen=True)
class Sprt:
    elo0: float = 0.0  # Elo difference under H0 (the candidate is no better than this)
    elo1: float = 10.0  # Elo difference under H1 (the candidate is at least this much better)
    alpha: float = 0.05  # probability of accepting H1 when H0 holds
    beta: float = 0.05  # probability of accepting H0 when H1 holds
    model: str = "logistic"  # what elo0 and elo1 measure: "logistic" (as in the ratings) or "normalized"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got elo0={self.elo0:g}, elo1={self.elo1:g}")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {getattr(self, name):g}")
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {', '.join(MODELS)}, got {self.model!r}")

    @property
    def lower(self) -> float:
        """LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """LLR at or above which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, penta: np.ndarray) -> np.ndarray | float:
        return llr(penta, self.elo0, self.elo1, self.model)

    def decide(self, value: float) -> str | None:
        """"H1", "H0", or None to go on."""
        return "H1" if value >= self.upper else "H0" if value <= self.lower else None

    def text(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}" + \
            ("" if self.model == "logistic" else f",model={self.model}")


def parse(text: str) -> Sprt:
    """``elo0=0,elo1=10,alpha=0.05,beta=0.05[,model=normalized]`` -> :class:`Sprt` (omitted keys
    take the defaults); raises ValueError with a one-line message."""
    values: dict[str, object] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise ValueError(f"bad SPRT entry {item!r}: write elo0=0,elo1=10,alpha=0.05,beta=0.05 (model=logistic|normalized optional)")
        if key == "model":
            values[key] = value.strip()
            continue
        try:
            values[key] = float(value)
        except ValueError:
            raise ValueError(f"bad SPRT entry {item!r}: {key} must be a number") from None
        if not math.isfinite(values[key]):  # type: ignore[arg-type]
            raise ValueError(f"bad SPRT entry {item!r}: {key} must be finite")
    return Sprt(**values)  # type: ignore[arg-type]


def pair_outcome(points: float) -> int:
    """Index 0..4 of a pair in which the agent took ``points`` (0, 0.5, 1, 1.5 or 2)."""
    k = round(points * 2)
    if not 0 <= k <= 4 or abs(points * 2 - k) > 1e-9:
        raise ValueError(f"a pair's points are 0, 0.5, 1, 1.5 or 2, got {points}")
    return k


def pentanomial(pair_points: Iterable[float]) -> np.ndarray:
    """Counts of pairs with 0, 0.5, 1, 1.5 and 2 points (the agent's), from each pair's points."""
    counts = np.zeros(5, dtype=np.int64)
    for points in pair_points:
        counts[pair_outcome(points)] += 1
    return counts


def elo_to_score(elo: float | np.ndarray) -> float | np.ndarray:
    """Expected score per game at a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=float) / 400.0))


def score_to_elo(score: float) -> float:
    """Logistic Elo difference of a score per game (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def mean_var(penta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean pair score per game and the variance of one pair's score, from counts (..., 5)."""
    p = np.asarray(penta, dtype=float)
    p = p / p.sum(axis=-1, keepdims=True)
    mu = (p * PAIR_SCORES).sum(axis=-1)
    var = (p * (PAIR_SCORES - mu[..., None]) ** 2).sum(axis=-1)
    return mu, var


@dataclass(frozen=True)
class Summary:
    pairs: int  # game pairs counted
    penta: tuple[int, ...]  # pairs with 0, 0.5, 1, 1.5, 2 points for the agent
    score: float  # mean points per game
    elo: float  # logistic Elo difference of that score
    elo_low: float  # 95% interval of the Elo difference (pairs as the independent trials)
    elo_high: float
    los: float  # likelihood of superiority: P(the agent is stronger), normal approximation
    draw_ratio: float  # drawn games / games (of the pairs counted), or NaN if not given

    def text(self) -> str:
        """One line, as engine testers print it."""
        def e(x: float) -> str:
            return f"{x:+.1f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")
        dr = "" if math.isnan(self.draw_ratio) else f", draw ratio {100 * self.draw_ratio:.1f}%"
        return (f"Elo {e(self.elo)} [{e(self.elo_low)}, {e(self.elo_high)}] (95%), LOS {100 * self.los:.1f}%{dr}, "
                f"score {100 * self.score:.1f}% over {self.pairs} pairs, pentanomial [{', '.join(map(str, self.penta))}]")


def summarize(penta: Iterable[int], draws: int | None = None) -> Summary:
    """Elo with its 95% interval, LOS and draw ratio from pentanomial counts; ``draws``: drawn
    games among the ``2 * pairs`` games counted (the counts cannot tell a 1-point pair of two
    draws from one of a win and a loss)."""
    counts = np.asarray(list(penta), dtype=np.int64)
    n = int(counts.sum())
    draw_ratio = draws / (2 * n) if draws is not None and n else math.nan
    if n == 0:
        return Summary(0, tuple(int(c) for c in counts), math.nan, math.nan, -math.inf, math.inf, 0.5, draw_ratio)
    mu, var = (float(x) for x in mean_var(counts))
    se = math.sqrt(var / n)
    if se > 0:
        los = 0.5 * math.erfc(-(mu - 0.5) / (se * math.sqrt(2.0)))
    else:
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
    return Summary(n, tuple(int(c) for c in counts), mu, score_to_elo(mu), score_to_elo(mu - Z95 * se),
                   score_to_elo(mu + Z95 * se), los, draw_ratio)


def _solve_theta(phat: np.ndarray, phi: np.ndarray, iterations: int = 60) -> np.ndarray:
    """The root theta of ``f(theta) = sum(phat * phi / (1 + theta * phi)) = 0`` on the interval
    where every ``1 + theta * phi > 0``, by bisection: ``f`` decreases in theta and runs from
    +inf to -inf on that interval when ``phi`` has both signs and every ``phat > 0``. (Newton's
    method is faster where it works, but stalls near the interval's ends, where a rare outcome
    counted 0.001 puts the root; 60 halvings reach float precision everywhere.)"""
    lo = -1.0 / phi.max(axis=-1)
    hi = -1.0 / phi.min(axis=-1)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        up = (phat * phi / (1.0 + mid[..., None] * phi)).sum(axis=-1) > 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    return 0.5 * (lo + hi)


def _mle_logistic(phat: np.ndarray, s: float) -> np.ndarray:
    """Most likely pentanomial distribution (given the observed ``phat``) whose mean is ``s``:
    maximize sum(phat log p) subject to sum(p) = 1, sum(p a) = s. Lagrange gives
    p = phat / (1 + theta (a - s))."""
    phi = np.broadcast_to(PAIR_SCORES - s, phat.shape)
    theta = _solve_theta(phat, phi)
    return phat / (1.0 + theta[..., None] * phi)


def _mle_normalized(phat: np.ndarray, t: float, iterations: int = 100, tol: float = 1e-12) -> np.ndarray:
    """Most likely distribution whose ``(mean - 1/2) / sd`` is ``t``. Lagrange gives
    p = phat / (1 + theta phi) with phi = a - 1/2 - (t/2) sd (1 + ((a - mean) / sd)^2), where
    mean and sd are the solution's own: iterate from the uniform distribution to a fixed point."""
    p = np.full(phat.shape, 1.0 / phat.shape[-1])
    for _ in range(iterations):
        mu = (p * PAIR_SCORES).sum(axis=-1, keepdims=True)
        sd = np.sqrt((p * (PAIR_SCORES - mu) ** 2).sum(axis=-1, keepdims=True))
        phi = PAIR_SCORES - 0.5 - 0.5 * t * sd * (1.0 + ((PAIR_SCORES - mu) / sd) ** 2)
        theta = _solve_theta(phat, phi)
        new = phat / (1.0 + theta[..., None] * phi)
        done = np.max(np.abs(new - p)) < tol
        p = new
        if done:
            break
    return p


def normalized_t(nelo: float) -> float:
    """``(mean - 1/2) / sd`` of the pair scores at a normalized Elo (fastchess' convention on
    pairs: nElo = (mean - 1/2) / sqrt(2 var) * 800 / ln 10)."""
    return math.sqrt(2.0) * nelo / _NELO_UNIT


def llr(penta: np.ndarray, elo0: float, elo1: float, model: str = "logistic") -> np.ndarray | float:
    """Generalized log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``) after the
    pairs counted in ``penta`` (shape (..., 5)); zero counts count as 0.001."""
    counts = np.asarray(penta, dtype=float)
    counts = np.where(counts == 0, _EMPTY, counts)
    total = counts.sum(axis=-1)
    phat = counts / total[..., None]
    if model == "logistic":
        p0, p1 = _mle_logistic(phat, float(elo_to_score(elo0))), _mle_logistic(phat, float(elo_to_score(elo1)))
    elif model == "normalized":
        p0, p1 = _mle_normalized(phat, normalized_t(elo0)), _mle_normalized(phat, normalized_t(elo1))
    else:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    out = total * (phat * (np.log(p1) - np.log(p0))).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def llr_normal(penta: np.ndarray, elo0: float, elo1: float) -> np.ndarray | float:
    """The classic normal approximation of the logistic LLR (cutechess-cli, early fishtest):
    ``N (s1 - s0) (2 s - s0 - s1) / (2 var)`` with ``N`` pairs, ``s`` their mean score and
    ``var`` one pair's variance."""
    counts = np.asarray(penta, dtype=float)
    counts = np.where(counts == 0, _EMPTY, counts)
    n = counts.sum(axis=-1)
    mu, var = mean_var(counts)
    s0, s1 = float(elo_to_score(elo0)), float(elo_to_score(elo1))
    out = n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    return float(out) if np.ndim(out) == 0 else out


def pair_up(games: Iterable[tuple[object, bool, float]]) -> list[float]:
    """Points of agent A in each game pair, from games ``(opening, a_moved_first, a_points)``
    in the order played: a game is paired with the next unpaired game of the same opening with
    the seats the other way round (the two games util.arena.match schedules as 2k and 2k+1); games
    still waiting for their partner are left out."""
    waiting: dict[tuple[object, bool], list[float]] = {}
    pairs: list[float] = []
    for opening, a_first, points in games:
        partner = waiting.get((opening, not a_first))
        if partner:
            pairs.append(partner.pop(0) + points)
        else:
            waiting.setdefault((opening, a_first), []).append(points)
    return pairs
