"""A clock that numba-compiled code can read: ``clock_ns()`` is ``time.perf_counter_ns()`` in
plain Python; compiled, it reads ``clock_gettime(CLOCK_MONOTONIC)`` through ctypes, where that is
the same clock as ``perf_counter`` (Linux, checked at import). Elsewhere compiled code reads 0,
``COMPILED_CLOCK`` is False, and callers bound their searches by node limits alone.

Hot searches check it every thousand nodes or so (a call costs about 50 ns), so that a deadline
holds even when the machine slows down and a node limit planned from an earlier speed would
overrun.
"""
from __future__ import annotations

import ctypes
import time


def clock_ns() -> int:
    """``time.perf_counter_ns()``; compiled, the same clock read through ctypes (see below)."""
    return time.perf_counter_ns()


def _monotonic_clock():
    """ctypes ``clock_gettime`` bound to CLOCK_MONOTONIC (taking the timespec address as an
    int64, which numba can pass) if it agrees with ``perf_counter_ns`` here, else None."""
    try:
        libc = ctypes.CDLL(None)
        address = ctypes.cast(libc.clock_gettime, ctypes.c_void_p).value
        if address is None:
            return None
        fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int64)(address)
        buf = (ctypes.c_int64 * 2)()
        before = time.perf_counter_ns()
        if fn(1, ctypes.addressof(buf)) != 0:
            return None
        now = buf[0] * 1_000_000_000 + buf[1]
        return fn if abs(now - before) < 1_000_000 else None
    except Exception:  # no libc symbol (not Linux): the node limit alone bounds the search
        return None


_SYMBOL = "connectx_clock_gettime"
"""The name compiled code calls ``clock_gettime`` by: registered with LLVM in each process
(``llvmlite.binding.add_symbol``), so that machine code kept in the on-disk cache
(:mod:`base.jitcache`) holds a name, not this process's address of the function."""


def _register_clock() -> None:
    try:
        import numpy as np
        from llvmlite import binding
        from numba import types
        from numba.extending import overload
    except Exception:
        return
    fn = _monotonic_clock()
    if fn is not None:
        binding.add_symbol(_SYMBOL, ctypes.cast(fn, ctypes.c_void_p).value)
    gettime = types.ExternalFunction(_SYMBOL, types.int32(types.int32, types.int64))

    @overload(clock_ns)
    def _clock_ns_impl():
        if fn is None:
            return lambda: 0

        def impl():
            buf = np.empty(2, np.int64)
            gettime(1, buf.ctypes.data)
            return buf[0] * 1000000000 + buf[1]

        return impl


_register_clock()
COMPILED_CLOCK = _monotonic_clock() is not None  # compiled code can read the clock here
