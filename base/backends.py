"""Where jobs run: in this process, a local process pool, or Ray tasks on a cluster.

All backends take picklable jobs and a module-level function, and yield ``(job, result)`` as
results arrive, in any order (this process and the pool draw jobs lazily, at most two per
worker ahead; Ray takes them all at once); the caller (the driver) alone writes them to the store. A job
that raises inside a worker is yielded with the exception as its result, so one bad job never
stops the others.
"""
from __future__ import annotations

import ctypes
import importlib.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, TypeVar

J = TypeVar("J")
BACKENDS = ("process", "ray")
ROOT = Path(__file__).resolve().parent.parent


def missing(backend: str) -> str | None:
    """Why ``backend`` cannot run here, in one line naming what to install (Ray is optional:
    ``requirements-optional.txt``), or None when it can: a command checks this before any work."""
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        return "--backend ray needs Ray, which is not installed: pip install -r requirements-optional.txt"
    return None


def run(jobs: Iterable[J], fn: Callable[[J], Any], workers: int = 1, backend: str = "process",
        address: str | None = None) -> Iterator[tuple[J, Any]]:
    """Run ``fn(job)`` for each job on a :class:`Runner` made for this call."""
    with Runner(workers, backend, address) as runner:
        yield from runner.run(jobs, fn)


class Runner:
    """Workers kept across several batches of jobs (tuning runs one batch per trial, and should
    not pay process start-up and numba compilation each time).

    ``workers``: processes (``process``; 1 runs jobs in this process) or CPUs to request
    (``ray`` without ``address``); ``address``: a Ray cluster's address (``auto`` for the
    cluster started with ``ray start``), None for a fresh local instance."""

    def __init__(self, workers: int = 1, backend: str = "process", address: str | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        why = missing(backend)
        if why is not None:
            raise ValueError(why)
        self.workers, self.backend, self.address = workers, backend, address
        self._pool: ProcessPoolExecutor | None = None
        self._ray_started = False

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, jobs: Iterable[J], fn: Callable[[J], Any]) -> Iterator[tuple[J, Any]]:
        """Yield ``(job, fn(job))`` as results arrive (a raised exception is the result)."""
        if self.backend == "ray":
            yield from self._ray(list(jobs), fn)
        elif self.workers <= 1:
            for job in jobs:
                yield job, _call(fn, job)
        else:
            yield from self._process(jobs, fn)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._ray_started:
            import ray
            ray.shutdown()
            self._ray_started = False

    def _process(self, jobs: Iterable[J], fn: Callable[[J], Any]) -> Iterator[tuple[J, Any]]:
        """Jobs are drawn from ``jobs`` only as workers free up, so a lazy iterable can decide
        late (claim a game in a shared store, stop when a test has decided)."""
        if self._pool is None:
            # spawn: workers start clean (no inherited SQLite handle, no threads forked mid-flight).
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_worker_start,
                                             initargs=(os.getpid(), threading.current_thread() is threading.main_thread()))
        pool = self._pool
        todo = iter(jobs)
        pending: dict[Future, J] = {}
        finished = False
        try:
            # At most 2 jobs per worker in flight: an interrupt then loses only games in progress.
            for job in todo:
                pending[pool.submit(_call, fn, job)] = job
                if len(pending) >= 2 * self.workers:
                    break
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    job = pending.pop(future)
                    yield job, future.result()
                    nxt = next(todo, None)
                    if nxt is not None:
                        pending[pool.submit(_call, fn, nxt)] = nxt
            finished = True
        finally:
            if not finished:  # interrupted or abandoned: stop the games in progress at once
                procs = list((getattr(pool, "_processes", None) or {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for proc in procs:
                    proc.kill()
                self._pool = None

    def _ray(self, jobs: list[J], fn: Callable[[J], Any]) -> Iterator[tuple[J, Any]]:
        import ray

        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"runtime_env": ray_runtime_env(self.address), "include_dashboard": False,
                                      "log_to_driver": False, "configure_logging": False}
            if self.address is None:
                kwargs["num_cpus"] = max(1, self.workers)
            else:
                kwargs["address"] = self.address
            ray.init(**kwargs)
            self._ray_started = True
        task: Any = ray.remote(num_cpus=1)(_call)
        pending = {task.remote(fn, job): job for job in jobs}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    job = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except Exception as exc:  # a lost worker or node: recorded like a failing job
                        result = exc
                    yield job, result
        finally:
            for ref in pending:  # interrupted: do not leave tasks running on the cluster
                ray.cancel(ref, force=True)


def _worker_start(driver: int, from_main_thread: bool) -> None:
    """A pool worker ignores Ctrl-C: the driver alone handles it (and kills them), so an
    interrupt can never turn into a game result. And it dies with the driver: a driver killed
    outright (``kill -9``, out of memory) kills no one, and its workers would play on as
    orphans. Linux: the kernel kills the worker when the thread that started it ends
    (PR_SET_PDEATHSIG; asked only when that is the driver's main thread, which ends with the
    process); everywhere: a thread that exits when the parent is no longer ``driver`` (within
    a second, or once compiled code in progress returns)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if from_main_thread and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != driver:  # the driver died before the line above
        os._exit(1)
    threading.Thread(target=_exit_with, args=(driver,), name="exit-with-driver", daemon=True).start()


def _exit_with(driver: int) -> None:
    while os.getppid() == driver:
        time.sleep(0.5)
    os._exit(1)


def _call(fn: Callable[[J], Any], job: J) -> Any:
    try:
        return fn(job)
    except Exception as exc:  # returned, not raised: the driver records it and goes on
        return exc


def ray_runtime_env(address: str | None) -> dict[str, Any]:
    """A local instance sees this checkout through PYTHONPATH; a remote cluster gets it
    uploaded as the working directory (results and git data left out)."""
    if address is None:
        return {"env_vars": {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}}
    return {"working_dir": str(ROOT), "excludes": [".git", "results", "*.sqlite", "*.db", "submissions"]}
