"""Where jobs run: in this process, a local process pool, or Ray tasks on a cluster.

All backends take picklable jobs and a module-level function, and yield ``(job, result)`` as
results arrive, in any order; the caller (the driver) alone writes them to the store. A job
that raises inside a worker is yielded with the exception as its result, so one bad job never
stops the others.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

J = TypeVar("J")
BACKENDS = ("process", "ray")
ROOT = Path(__file__).resolve().parent.parent


def run(jobs: Iterable[J], fn: Callable[[J], Any], workers: int = 1, backend: str = "process",
        address: str | None = None) -> Iterator[tuple[J, Any]]:
    """Run ``fn(job)`` for each job. ``workers``: processes (``process``; 1 runs in this
    process) or CPUs to request (``ray`` without ``address``); ``address``: a Ray cluster's
    address (``auto`` for the local cluster started with ``ray start``), None for a fresh local
    instance."""
    if backend == "process":
        yield from _process(list(jobs), fn, workers)
    elif backend == "ray":
        yield from _ray(list(jobs), fn, workers, address)
    else:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")


def _process(jobs: list[J], fn: Callable[[J], Any], workers: int) -> Iterator[tuple[J, Any]]:
    if workers <= 1:
        for job in jobs:
            yield job, _call(fn, job)
        return
    # spawn: workers start clean (no inherited SQLite handle, no threads forked mid-flight).
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_sigint)
    try:
        # At most 2 jobs per worker in flight: an interrupt then loses only games in progress.
        todo = iter(jobs)
        pending: dict[Future, J] = {}
        for job in todo:
            pending[pool.submit(_call, fn, job)] = job
            if len(pending) >= 2 * workers:
                break
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                job = pending.pop(future)
                yield job, future.result()
                nxt = next(todo, None)
                if nxt is not None:
                    pending[pool.submit(_call, fn, nxt)] = nxt
    finally:
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        if pending:  # interrupted or failed: stop the games in progress at once
            for proc in procs:
                proc.kill()


def _ignore_sigint() -> None:
    """Workers ignore Ctrl-C: the driver alone handles it (and kills them), so an interrupt
    can never turn into a game result."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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


def _ray(jobs: list[J], fn: Callable[[J], Any], workers: int, address: str | None) -> Iterator[tuple[J, Any]]:
    import ray

    started = not ray.is_initialized()
    if started:
        kwargs: dict[str, Any] = {"runtime_env": ray_runtime_env(address), "include_dashboard": False,
                                  "log_to_driver": False, "configure_logging": False}
        if address is None:
            kwargs["num_cpus"] = max(1, workers)
        else:
            kwargs["address"] = address
        ray.init(**kwargs)
    try:
        task = ray.remote(num_cpus=1)(_call)
        pending = {task.remote(fn, job): job for job in jobs}
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
        if started:
            ray.shutdown()
