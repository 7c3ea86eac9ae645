"""The move budget: Kaggle's clock turned into one absolute ``time.perf_counter()`` deadline.

Kaggle's rules (kaggle-environments 1.33.2, ``Agent.act`` and ``Environment``): each move may
take ``configuration.actTimeout`` seconds (2 by default); time beyond that is taken from a
bank, ``observation.remainingOverageTime`` (60 s for the whole game); the agent times out when
a move overruns what is left of the bank. The obsolete ``configuration.timeout`` and
``agentTimeout`` are never read. The timer runs around the whole call of the agent, and for the
first move it also covers loading the submission file.

Agents never see these numbers: :meth:`ClockPolicy.deadline` gives them an absolute deadline.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

KAGGLE_ACT_TIMEOUT = 2.0  # seconds; Kaggle's default for ConnectX, used when the configuration has no valid actTimeout
RT_ACT_TIMEOUT = 5.0  # seconds; Kaggle's default actTimeout for reinforce_tactics (design.md section 9)


@dataclass(frozen=True)
class ClockPolicy:
    """How much of Kaggle's clock one move may use.

    ``margin`` default (0.25 s): kept back from ``actTimeout`` for what Kaggle's timer sees but
    the agent's search does not. Measured with ``python -m bench.kaggle_overhead``: Kaggle's
    in-process wrapper (argument handling, stdout/stderr capture) about 0.01 ms a move; this
    adapter (reading the observation, building the Position, checks) about 0.1 ms, a few ms at
    worst. But when Kaggle runs an agent behind its HTTP agent server
    (``kaggle_environments.main``), every move also rebuilds the environment with
    ``make("connectx")`` inside the caller's timer: 85 ms median, 120 ms worst here, plus the
    HTTP round trip. 0.25 s covers that twice, plus an agent's granularity in checking its
    deadline and scheduler noise. An overrun of actTimeout is not a loss by itself (it comes
    out of the bank), so the margin covers the usual case, not the worst one.

    ``overage_per_move`` (default 0): seconds of the bank a move may add on top of
    ``actTimeout - margin``, for agents that profit from thinking longer in the opening or
    middle game. It is capped so that ``reserve`` seconds of the bank are never planned for:
    the reserve absorbs overruns (a slow first move that loads data or compiles kernels, a
    pause of the machine). With the defaults, a game never plans to touch the bank.

    ``bank_margin`` (default 0.5 s): what :meth:`latest` keeps back from the bank. An agent
    that overruns its deadline on purpose (``perfect`` waiting for numba's compile) must stop
    by :meth:`latest`, never later: a move that overruns what is left of the bank is a timeout,
    a lost game. The margin covers what Kaggle's timer sees beyond the agent's clock, like
    ``margin`` does for ``actTimeout``.
    """

    margin: float = 0.25  # seconds kept back from actTimeout (see above)
    overage_per_move: float = 0.0  # seconds of the bank a move may plan to use
    reserve: float = 15.0  # seconds of the bank never planned for
    min_budget: float = 0.02  # floor of a budget, so a move with no time left still gets to the fallback rule
    bank_margin: float = 0.5  # seconds of the bank no move may use, even on purpose (see latest())

    def __post_init__(self) -> None:
        for name in ("margin", "overage_per_move", "reserve", "min_budget", "bank_margin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"ClockPolicy.{name} must be a finite number >= 0, got {value!r}")

    def budget(self, act_timeout: float, remaining_overage: float) -> float:
        """Seconds this move may take, counted from when Kaggle's timer started."""
        base = max(0.0, act_timeout - self.margin)
        extra = min(self.overage_per_move, max(0.0, remaining_overage - self.reserve))
        return max(self.min_budget, base + extra)

    def deadline(self, started: float, act_timeout: float, remaining_overage: float) -> float:
        """Absolute ``perf_counter()`` deadline for a move whose timer started at ``started``."""
        return started + self.budget(act_timeout, remaining_overage)

    def latest(self, started: float, act_timeout: float, remaining_overage: float) -> float:
        """The latest ``perf_counter()`` time a move whose timer started at ``started`` may end
        when it overruns its deadline on purpose: ``actTimeout - margin`` plus the bank less
        ``bank_margin``; never before :meth:`deadline`. Every wait past a deadline stops here."""
        hard = max(0.0, act_timeout - self.margin) + max(0.0, remaining_overage - self.bank_margin)
        return started + max(self.budget(act_timeout, remaining_overage), hard)


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None when it is not a real number."""
    if isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return x if math.isfinite(x) else None


def read_field(obj: Any, key: str) -> Any:
    """``obj[key]`` or ``obj.key`` (Kaggle passes dict-like Structs; users pass either), or
    None. Never raises, whatever ``obj`` is."""
    try:
        if isinstance(obj, dict):
            return obj.get(key)
    except Exception:
        return None
    try:
        return getattr(obj, key, None)
    except Exception:
        return None


def kaggle_times(observation: Any, configuration: Any, default_act: float = KAGGLE_ACT_TIMEOUT) -> tuple[float, float]:
    """``(actTimeout, remainingOverageTime)`` in seconds, read defensively.

    A missing or invalid ``actTimeout`` counts as the game's Kaggle default ``default_act``
    (ConnectX 2 s, :data:`KAGGLE_ACT_TIMEOUT`; Reinforce Tactics 5 s, :data:`RT_ACT_TIMEOUT`); a missing or invalid
    bank counts as empty (0 s), so that a bad observation never makes us plan on time we may not
    have. Negative values count as 0.
    """
    act = _number(read_field(configuration, "actTimeout"))
    bank = _number(read_field(observation, "remainingOverageTime"))
    return (default_act if act is None else max(0.0, act), 0.0 if bank is None else max(0.0, bank))
