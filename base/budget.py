"""One owner for time inside a move: what a ``time.perf_counter()`` deadline becomes for hot
code, and how fast an agent's search goes.

Why one place: compiled kernels cannot read Python's clock, so every search turns its deadline
into two things the kernel can check: a ``time.perf_counter_ns()`` value read through
:func:`base.hotclock.clock_ns` (where that clock is readable from compiled code), and a budget
of work units (nodes, simulations) planned from a measured speed. The Kaggle side of time
(act timeout, bank, safety margins) stays in :mod:`base.clock`; this module starts where an
agent holds one absolute deadline.
"""
from __future__ import annotations

import time

from base.hotclock import COMPILED_CLOCK

NO_DEADLINE_NS = 1 << 62  # "never" in the kernels' ``perf_counter_ns`` units
NO_LIMIT = 1 << 62  # "no limit" for a unit budget


def deadline_ns(deadline: float | None, early: float = 0.0) -> int:
    """``deadline`` (``time.perf_counter()`` seconds; None: none) as a ``perf_counter_ns`` value,
    ``early`` seconds before it (a kernel checks the clock every few hundred microseconds)."""
    if deadline is None:
        return NO_DEADLINE_NS
    left = min(deadline - time.perf_counter() - early, 1.0e9)
    return time.perf_counter_ns() + int(max(0.0, left) * 1e9)


def clock_share(compiled: bool, share: float) -> float:
    """How much of the time left a unit budget may plan for. Where compiled code reads the clock
    (or on the plain path, which reads Python's), the deadline stops the kernel and the budget is
    only a backstop (3x); elsewhere the budget is the only stop and gets ``share``."""
    return 3.0 if (COMPILED_CLOCK or not compiled) else share


class Speed:
    """Work units per second of one agent's search (each agent owns one: two agents never share
    a measurement). ``guess`` serves until the first measurement; a measurement counts when it
    covers at least ``min_seconds`` (shorter ones are mostly call overhead). ``smoothing`` is the
    weight of a new measurement: 1 (the default) replaces the rate, as a search that measures
    itself every move wants; less keeps a moving average, for searches whose speed varies from
    one position to the next (the exact solver's nodes per second do: the perfect agent uses 0.5;
    its guess is set low on purpose, so averaging the first measurement with it errs on the safe
    side)."""

    def __init__(self, guess: float, min_seconds: float = 0.01, smoothing: float = 1.0) -> None:
        if not 0.0 < smoothing <= 1.0:
            raise ValueError(f"smoothing must be in (0, 1], got {smoothing}")
        self.guess = float(guess)  # units per second before any measurement (and after reset)
        self.rate = float(guess)  # the current estimate, units per second
        self.min_seconds = float(min_seconds)  # shorter measurements are ignored
        self.smoothing = float(smoothing)  # weight of a new measurement in the moving average

    def reset(self, guess: float | None = None) -> None:
        """Forget the measurements; ``guess`` (if given) replaces the first guess too (e.g. the
        search changed: another board, the plain path instead of the compiled one)."""
        if guess is not None:
            self.guess = float(guess)
        self.rate = self.guess

    def measure(self, units: float, seconds: float) -> None:
        """Record that ``units`` of work took ``seconds`` (cumulated by the caller as it likes)."""
        if seconds >= self.min_seconds and units > 0:
            self.rate = (1.0 - self.smoothing) * self.rate + self.smoothing * (units / seconds)

    def units(self, seconds: float, share: float = 1.0, floor: int = 1) -> int:
        """Units that fit in ``seconds`` at this speed, times ``share``, at least ``floor``."""
        return max(int(floor), int(self.rate * max(0.0, seconds) * share))

    def until(self, deadline: float, share: float = 1.0, floor: int = 1) -> int:
        """Units that fit before ``deadline`` (``time.perf_counter()`` seconds)."""
        return self.units(deadline - time.perf_counter(), share, floor)


__all__ = ["Speed", "deadline_ns", "clock_share", "NO_DEADLINE_NS", "NO_LIMIT", "COMPILED_CLOCK"]
