"""Anytime work in batches sized from its measured speed: the clock is read between batches
of about ``slice_s`` seconds, so a search stops near its deadline without reading the clock
inside hot code, and a slow start (the plain path, a loaded machine) is corrected at once."""
from __future__ import annotations

import time
from collections.abc import Callable

from base.budget import Speed


def run_batches(step: Callable[[int], int], end: float, limit: int = 0, first: int = 8,
                slice_s: float = 0.02, floor: int = 1) -> int:
    """Call ``step(n)`` (runs up to ``n`` units of work, returns how many it ran; fewer means
    there is nothing left to do, e.g. a proven root) until ``end`` (``time.perf_counter()``
    seconds), ``limit`` units in all (0: no limit), or a short batch. Returns the units run.
    ``first``: the first batch, before any speed is known; later batches last ``slice_s``
    seconds or an eighth of the time left, whichever is shorter, and at least ``floor`` units."""
    total, batch = 0, first
    speed = Speed(0.0, min_seconds=1e-6)
    while True:
        left = end - time.perf_counter()
        if left <= 0:
            break
        if limit:
            batch = min(batch, limit - total)
            if batch <= 0:
                break
        t = time.perf_counter()
        done = step(batch)
        dt = time.perf_counter() - t
        total += done
        if done < batch:
            break
        speed.measure(done, max(dt, 1e-6))
        batch = min(speed.units(min(slice_s, left / 8), floor=floor), 1_000_000)
    return total
