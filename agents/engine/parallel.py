"""Both cores for one exact solve: parallel null windows (issue 37 point 2).

:func:`agents.engine.exact.run` narrows ``[lo, hi]`` with one window ``(m, m + 1)`` after
another. Here ``len(searches)`` threads each search a different window at once (the kernel
is compiled ``nogil``), each in its own :class:`agents.engine.exact.ExactSearch`: counters
and move buffer its own, the table shared where the key is one word
(:func:`agents.engine.exact.share_table`: what one thread proves the others read; a racing
read sees an old entry or a new one, each a proven bound), else its own (a multi-word entry
could be torn). Every window's result is a proven bound (``<= m``: an upper bound, else a
lower bound), so the range narrows by whichever finishes first, and a window that falls
outside the narrowed range is stopped (its node limit set to 0, which the kernel reads at
every node) and its thread takes the next one. The value is the sequential value, whatever the
timing; only the nodes vary from run to run. The first thread probes the sequential order's
point (:func:`agents.engine.exact.probe_point`); the others the points that come next after
either outcome of the ones in flight, or the same window when none is left (a weak solve:
``m = 0`` and ``m = -1`` at once). ``windows`` bounds the distinct windows in flight: a thread
beyond it joins the sequential point's window (two threads on one window, meeting in the
shared table).

Compiled kernels only: plain Python holds the GIL, so threads would share one core.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from agents.engine.exact import E_LIMIT, ExactSearch, probe_point
from base.budget import NO_LIMIT

MAX_THREADS = 64
"""The most threads one solve takes."""


def next_points(lo: int, hi: int, busy: list[int], windows: int = MAX_THREADS) -> list[int]:
    """Window points in ``[lo, hi)`` in the order threads should take them, given the ``busy``
    ones: the sequential point, then the points after either outcome of each busy one; only the
    sequential point once ``windows`` distinct ones are busy."""
    if len(set(busy)) >= windows:
        return [probe_point(lo, hi)]
    out: list[int] = []
    todo = [(lo, hi)]
    while todo and len(out) < 2 * (len(busy) + 1):
        a, b = todo.pop(0)
        if a >= b:
            continue
        m = probe_point(a, b)
        if m not in out:
            out.append(m)
        if m in busy:
            todo += [(a, m), (m + 1, b)]
    return [m for m in out if m not in busy] or out[:1]


class ParallelSolve:
    """One solve of ``words`` in ``[lo, hi]`` by the threads of ``searches``, at most ``windows``
    distinct windows at once (see the module)."""

    def __init__(self, searches: list[ExactSearch], words: tuple, lo: int, hi: int,
                 node_limit: int | None, deadline_ns: int | None, windows: int = MAX_THREADS) -> None:
        self.searches, self.words = searches, words
        self.windows = max(1, int(windows))
        self.floor, self.ceiling, self.lo, self.hi = lo, hi, lo, hi
        self.limit = NO_LIMIT if node_limit is None else max(1, int(node_limit))
        self.deadline_ns = deadline_ns
        self.lock = threading.Lock()
        self.busy: dict[int, int] = {}  # thread -> its window's m
        self.cancelled = [False] * len(searches)
        self.stopped = False  # out of nodes or time, or an error: the value is None
        self.failed: list[BaseException] = []
        self.done_nodes = 0  # nodes of finished windows
        self.thread_nodes = [0] * len(searches)  # each thread's nodes (exact counts)
        self.probes = 0

    def nodes(self) -> int:
        """Nodes so far, the windows in flight included (read without the lock: a count)."""
        return self.done_nodes + sum(self.searches[i].nodes for i in list(self.busy))

    def stop(self) -> None:
        """Stop every window now (the kernels read their node limit at every node)."""
        self.stopped = True
        for s in self.searches:
            s.mem[E_LIMIT] = 0

    def _take(self, i: int) -> int | None:
        """Under the lock: thread ``i``'s next window, its search started; None when done."""
        if self.stopped or self.lo >= self.hi:
            return None
        m = next_points(self.lo, self.hi, list(self.busy.values()), self.windows)[0]
        self.busy[i] = m
        self.searches[i].start(max(1, self.limit - self.done_nodes), self.deadline_ns)
        self.probes += 1
        return m

    def _worker(self, i: int) -> None:
        s = self.searches[i]
        try:
            while True:
                with self.lock:
                    m = self._take(i)
                if m is None:
                    return
                r = s.probe(self.words, m, m + 1)
                with self.lock:
                    del self.busy[i]
                    self.done_nodes += s.nodes
                    self.thread_nodes[i] += s.nodes
                    cancelled, self.cancelled[i] = self.cancelled[i], False
                    if s.aborted:
                        if cancelled and not self.stopped and not (s.chance or s.cut):
                            continue  # a window no longer needed
                        self.stopped = True  # out of nodes or time, a chance node or the ply cap
                        for j in self.busy:
                            self.searches[j].mem[E_LIMIT] = 0
                        return
                    if r <= m:
                        self.hi = min(self.hi, r)
                    else:
                        self.lo = max(self.lo, r)
                    for j, mj in self.busy.items():
                        if not self.lo <= mj < self.hi:
                            self.cancelled[j] = True
                            self.searches[j].mem[E_LIMIT] = 0
        except BaseException as exc:  # handed to the caller
            with self.lock:
                self.failed.append(exc)
                self.stop()

    def run(self, every: float = 0.05, tick: Callable[[int], None] | None = None,
            deadline: float | None = None) -> int | None:
        """The value clamped to ``[lo, hi]``, or None when the node limit or the deadline came
        first. This thread waits in steps of ``every`` seconds: it runs the signal handlers,
        calls ``tick(nodes so far)`` and checks the node limit and ``deadline``
        (``time.perf_counter()`` seconds); whatever it raises stops every thread, waits for
        them and is re-raised."""
        threads = [threading.Thread(target=self._worker, args=(i,), name=f"exact-{i}", daemon=True)
                   for i in range(len(self.searches))]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(every)
                    if tick is not None:
                        tick(self.nodes())
                    if self.nodes() >= self.limit or (deadline is not None and time.perf_counter() >= deadline):
                        self.stop()
        except BaseException:
            self.stop()
            for t in threads:
                t.join()
            raise
        if self.failed:
            raise self.failed[0]
        if self.stopped:
            return None
        return min(max(self.lo, self.floor), self.ceiling)

