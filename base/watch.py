"""Run a long compiled call where Ctrl-C still reaches it: the call in a thread, this thread
watching.

Compiled (numba) code runs no Python signal handler, so a search that must stop on Ctrl-C or
SIGTERM used to return to Python every fraction of a second and start again, resuming from its
table. That loses the search's stack: every subtree finished before the slice's end must be
found in the table again, and in a long proof the table has long since overwritten the early
ones (a position the kernel proves in 27 s ran for minutes in 0.2 s slices). Here the call runs
once, to its end, in a thread (hot kernels are compiled ``nogil``, see :mod:`base.jit`), while
the calling thread waits in steps: it runs the signal handlers, calls ``tick`` for progress, and
on an exception asks the call to stop (``stop``, e.g. a node limit set to zero in the kernel's
memory), waits for it and re-raises.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

INLINE_SECONDS = 0.1
"""How long a driver runs a call in its own thread before it starts it again watched: most
calls take less and never pay for the thread (its start and the two wake-ups: 0.1 ms idle, tens
of ms on a machine loaded 5x over); a longer one searches its first 0.1 s again, mostly from
its table (``python -m bench.solver_command``: +0.0-0.6% nodes on Pons' sets)."""


def call_watched(fn: Callable[[], Any], stop: Callable[[], None], every: float,
                 tick: Callable[[], None] | None = None) -> Any:
    """``fn()`` run in a thread to its end; returns its result or raises its exception.

    Meanwhile this thread wakes every ``every`` seconds and calls ``tick()`` (progress, or a
    checkpoint that raises on a signal). Whatever this thread raises (``tick``'s exception, a
    signal handler's KeyboardInterrupt) calls ``stop()``, which must make ``fn`` return soon,
    waits for ``fn`` and is re-raised: nothing keeps running behind the caller's back."""
    out: list[Any] = []
    failed: list[BaseException] = []

    def body() -> None:
        try:
            out.append(fn())
        except BaseException as exc:  # handed to the caller's thread
            failed.append(exc)

    worker = threading.Thread(target=body, name="watched-call", daemon=True)
    worker.start()
    try:
        while True:
            worker.join(every)
            if not worker.is_alive():
                break
            if tick is not None:
                tick()
    except BaseException:
        stop()
        worker.join()
        raise
    if failed:
        raise failed[0]
    return out[0]
