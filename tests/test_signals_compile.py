"""SIGINT and SIGTERM stop a tournament, a tuning run and the web server, also while numba
compiles: exit 130 / 143, one line, no traceback.

numba's compiler runs llvmlite callbacks; a ``KeyboardInterrupt`` a signal handler raises inside
one is printed and dropped, and the compile (then the games) went on: a tournament sent SIGINT
4-7 s after its start played on for 217-309 s and exited 0. Each test here starts the command
with an empty kernel cache of its own and sends the signal once the first kernel is written
there, i.e. in the middle of the compile. Bounds are generous (a loaded 2-core machine): the
stop comes at the end of the kernel being compiled.
"""
from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest

from base.jit import numba_available
from tests.test_signals import Running, last_lines

STOP_BOUND_S = 60.0  # signal -> process gone, at load 4 on 2 cores (an idle machine: 1-4 s)

needs_numba = pytest.mark.skipif(not numba_available(), reason="the point is numba's compile")


def wait_for_first_kernel(run: Running, cache: Path, timeout: float = 300.0) -> None:
    """Until a compiled kernel is saved in ``cache``: the compile has begun and goes on."""
    end = time.monotonic() + timeout
    while not any(cache.glob("*/*.nbc")):
        if run.proc.poll() is not None or time.monotonic() > end:
            run.proc.kill()
            pytest.fail(f"no kernel compiled: {run.err[-800:]!r}")
        time.sleep(0.05)


def stop_mid_compile(args: list[str], tmp_path: Path, signum: int, message: str) -> Running:
    cache = tmp_path / "kernels"
    run = Running(args, env={"CONNECTX_JIT_CACHE": str(cache)})
    wait_for_first_kernel(run, cache)
    code, _, to_exit = run.stop(signum, message)
    assert code == 128 + signum, run.err[-1500:]
    assert to_exit < STOP_BOUND_S, to_exit
    assert b"Traceback" not in run.err, run.err[-3000:]
    return run


@needs_numba
def test_a_swallowed_interrupt_is_raised_again_by_the_next_compile():
    """The mechanism, deterministically: the handler's raise dropped as llvmlite's callback
    drops it; the next compile (of a fresh variant) raises it again, with its signal's code."""
    import tests.hints_kernels as H
    from base import jit
    from base.cli import Interrupted, stop_on_signals

    fresh = jit.compiled(H, {"unused_swallowed": jit.compiled("base.hints").prefetch})
    with stop_on_signals():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs (and raises) here
        except KeyboardInterrupt:
            pass  # what numba's compiler does with it inside a callback
        with pytest.raises(Interrupted) as caught:
            fresh.which()
    assert caught.value.code == 143
    assert int(fresh.which()) == 1  # outside: compiles and runs


@needs_numba
@pytest.mark.parametrize("signum", [pytest.param(signal.SIGINT, marks=pytest.mark.slow), signal.SIGTERM])
def test_tournament_stops_mid_compile(tmp_path, signum):
    db = tmp_path / "t.sqlite"
    run = stop_mid_compile(["-m", "util.arena.tournament", "--agents", "mcts,alphabeta", "--games", "2", "--workers", "1",
                            "--db", str(db), "--quiet"], tmp_path, signum, "interrupted")
    assert sum("interrupted" in ln for ln in last_lines(run.err)) == 1


@needs_numba
@pytest.mark.slow
def test_tune_stops_mid_compile_without_optunas_traceback(tmp_path):
    pytest.importorskip("optuna")
    stop_mid_compile(["-m", "util.arena.tune", "--agent", "mcts", "--space", "c=float:0.5:2", "--opponents", "alphabeta",
                      "--trials", "2", "--games", "2", "--workers", "1", "--storage", f"sqlite:///{tmp_path / 's.db'}",
                      "--out", str(tmp_path / "p.json")], tmp_path, signal.SIGTERM, "interrupted")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_web_server_started_in_the_background_stops(signum):
    """``python -m util.arena.web &`` from a script inherits SIGINT ignored; it must stop anyway."""
    pytest.importorskip("waitress")
    pytest.importorskip("flask")
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # what `&` does to the child (inherited through exec)
    try:
        run = Running(["-m", "util.arena.web", "--port", str(free_port())])
    finally:
        signal.signal(signal.SIGINT, old)
    run.wait_for("serving on", timeout=120)
    time.sleep(0.5)  # inside waitress' loop
    code, _, to_exit = run.stop(signum, "stopped")
    assert code == 128 + signum and to_exit < STOP_BOUND_S
    assert b"Traceback" not in run.err
