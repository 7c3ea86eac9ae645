"""The compile checkpoint: a function run in the main thread around every numba compile.

Its own module so that :mod:`base.jit` (which sets it) and :mod:`base.jitcache` (whose
dispatchers run it) both import it without importing each other.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

_checkpoint: Callable[[], None] | None = None


def set_compile_checkpoint(fn: Callable[[], None] | None) -> None:
    """``fn`` runs in the main thread before and after every compile of a hot function (and
    every load from the cache); an exception it raises ends the compile. For commands that stop
    on signals (:func:`base.cli.stop_on_signals`): numba's compiler swallows a
    ``KeyboardInterrupt`` raised inside one of llvmlite's callbacks and goes on compiling, and
    the caller then plays on; the checkpoint raises it again. None removes it."""
    global _checkpoint
    _checkpoint = fn


def compile_checkpoint() -> None:
    """Run the checkpoint of :func:`set_compile_checkpoint`, if any (main thread only)."""
    fn = _checkpoint
    if fn is not None and threading.current_thread() is threading.main_thread():
        fn()
