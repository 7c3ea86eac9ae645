"""base.jit.CompileGate: the per-move compile decision the depth-first and tree-search agents share."""
from __future__ import annotations

import threading
import time

from base.jit import COMPILE_IN_MOVE, CompileGate


class Counter:
    """A warm-up that counts its calls and, if given an event, blocks until it is set."""

    def __init__(self, hold: threading.Event | None = None, fail: bool = False) -> None:
        self.calls, self.hold, self.fail = 0, hold, fail

    def __call__(self) -> None:
        self.calls += 1
        if self.hold is not None:
            self.hold.wait(30)
        if self.fail:
            raise RuntimeError("boom")


def soon(seconds: float = 0.2) -> float:
    return time.perf_counter() + seconds


def test_compiled_before_needs_no_warm_up():
    gate, warm = CompileGate("t"), Counter()
    assert gate.admit(soon(), warm, lambda: True) and gate.ready and warm.calls == 0 and gate.job is None


def test_far_deadline_or_no_background_compiles_in_place():
    for deadline, background in ((time.perf_counter() + COMPILE_IN_MOVE + 5, True), (soon(), False)):
        gate, warm = CompileGate("t"), Counter()
        assert gate.admit(deadline, warm, lambda: False, background=background)
        assert warm.calls == 1 and gate.job is None
        assert gate.admit(soon(), warm, lambda: False) and warm.calls == 1  # decided once


def test_background_compile_waits_its_share_then_admits():
    hold = threading.Event()
    gate, warm = CompileGate("t"), Counter(hold)
    t0 = time.perf_counter()
    assert not gate.admit(t0 + 0.4, warm, lambda: False, share=0.5)
    waited = time.perf_counter() - t0
    assert 0.15 < waited < 0.4  # about half the move, never the whole of it
    assert not gate.admit(soon(0.05), warm, lambda: False)  # still compiling: the plain path again
    hold.set()
    assert gate.job is not None and gate.job.wait(10)
    assert gate.admit(soon(), warm, lambda: False) and gate.ready
    assert warm.calls == 1  # one compile for all the moves


def test_a_failed_compile_leaves_the_plain_path():
    gate, warm = CompileGate("t"), Counter(fail=True)
    gate.admit(soon(0.5), warm, lambda: False)
    assert gate.job is not None
    gate.job.wait(10)
    t0 = time.perf_counter()
    assert not gate.admit(soon(0.5), warm, lambda: False)
    assert time.perf_counter() - t0 < 0.1  # a failed job answers at once
    assert warm.calls == 1
