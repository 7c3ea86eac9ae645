"""Shared pieces of the command-line tools: bad input gets one line on stderr and exit code 2."""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from base.bounds import SECONDS_MAX, as_float, as_int


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (``prog: error: ...``), exit 2, no usage dump.

    Made by a command, it also makes the command's exit quick: Python's last garbage collection
    at shutdown walked numba's many objects (0.3-0.45 s of CPU a command, profiled on the
    solver's second run); objects alive at exit are frozen out of it instead."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _freeze_at_exit()

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


_FROZEN_AT_EXIT: list[bool] = []


def _freeze_at_exit() -> None:
    """Once a process: at exit, move every live object out of the collector's reach (gc.freeze),
    so that shutdown does not traverse them. Nothing else changes: exit handlers that run after
    it still have a working collector for what they make."""
    if not _FROZEN_AT_EXIT:
        import atexit
        import gc

        _FROZEN_AT_EXIT.append(True)
        atexit.register(gc.freeze)


def int_in(lo: int | None, hi: int | None) -> Callable[[str], int]:
    """argparse type for an integer from ``lo`` to ``hi`` (:func:`base.bounds.as_int`: ASCII
    digits only); argparse's one line then names the flag: ``argument --games: ...``."""
    def parse(text: str) -> int:
        try:
            return as_int(text, "value", lo, hi)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = "integer"
    return parse


def seconds_in(hi: float = SECONDS_MAX, lo: float = 0.0) -> Callable[[str], float]:
    """argparse type for a time in seconds: finite, more than ``lo``, at most ``hi`` (a day)."""
    def parse(text: str) -> float:
        try:
            return as_float(text, "value", lo, hi, open_lo=True)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{exc} (seconds)") from None
    parse.__name__ = "seconds"
    return parse


def float_in(lo: float | None, hi: float | None) -> Callable[[str], float]:
    """argparse type for a finite number from ``lo`` to ``hi``."""
    def parse(text: str) -> float:
        try:
            return as_float(text, "value", lo, hi)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = "number"
    return parse


MAX_ID = (1 << 63) - 1  # SQLite's largest integer: stores' ids are from 1 to this
SEED = int_in(0, MAX_ID)  # argparse type of a --seed


def positive_int(text: str) -> int:
    """argparse type for an integer of at least 1 (ASCII digits: :func:`base.bounds.as_int`)."""
    try:
        return as_int(text, "value", 1, None)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} must be a positive integer") from None


def unwritable(path: str | os.PathLike, folder: bool = False) -> str | None:
    """Why nothing can be written at ``path`` (a file to write; with ``folder``, a folder to
    write files into), or None when it can: the one check of every command's output path, made
    before long work, so that its output does not fail at the end and nothing that is not a
    regular file is replaced (as root, an atomic write over ``/dev/full`` would swap the device
    node for a file). Refused: an existing directory (a file is wanted) or non-directory (a
    folder is wanted), an existing device, pipe or socket, a folder above that is a file, and a
    place where no file can be made. Missing folders are made (a probe file is made and removed)."""
    import tempfile
    from pathlib import Path

    path = Path(path)
    if folder and path.exists() and not path.is_dir():
        return f"{path} is a file, not a directory" if path.is_file() else f"{path} exists and is not a directory"
    if not folder and path.is_dir():
        return f"{path} is a directory, not a file"
    if not folder and path.exists() and not path.is_file():
        return f"{path} exists and is not a regular file (a device, a pipe or a socket): nothing is written over it"
    where = path if folder else path.parent
    above = where
    while not above.exists() and above != above.parent:
        above = above.parent
    if not above.is_dir():
        return f"{path} cannot be written: {above} is a file, not a folder"
    try:
        where.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=where, prefix=".probe-"):
            pass
    except OSError as exc:
        return f"{path} cannot be written ({exc.strerror or exc})"
    if not folder and path.exists() and not os.access(path, os.W_OK):
        return f"{path} cannot be written (permission denied)"
    return None


def check_writable(parser: argparse.ArgumentParser, flag: str, path: str | os.PathLike | None, folder: bool = False) -> None:
    """:func:`unwritable` for a command's ``flag``: its reason as the parser's one-line error
    (exit 2); nothing when ``path`` is None or ""."""
    if path:
        why = unwritable(path, folder)
        if why:
            parser.error(f"{flag} {why}")


def read_text_file(path: str | os.PathLike, what: str) -> str:
    """The text of an input file (UTF-8), or ValueError in one line naming ``what`` (the flag;
    "": the path alone):
    missing, unreadable, not a regular file (a directory, a FIFO: opened without waiting for a
    writer), or not text (a binary file: no UnicodeDecodeError traceback)."""
    import stat

    label = f"{what} {path}" if what else str(path)
    try:
        with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NONBLOCK)) as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # a FIFO would hold the command for good
                raise ValueError(f"{label} is not a regular file")
            data = f.read()
    except OSError as exc:
        raise ValueError(f"cannot read {label}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{label} is not UTF-8 text (byte {exc.start}: a binary file?)") from None


# --- stopping long work on a signal ---------------------------------------------------------
class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or SIGTERM, raised in the main thread like KeyboardInterrupt (so every
    ``except KeyboardInterrupt`` that saves work still runs), carrying the shell's exit code
    for it: 128 + the signal number (130 for SIGINT, 143 for SIGTERM)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.code = 128 + int(signum)


def exit_code(exc: BaseException) -> int:
    """The conventional exit code of an interrupt: 128 + signal (a bare KeyboardInterrupt is SIGINT)."""
    return getattr(exc, "code", 128 + int(signal.SIGINT))


def signal_name(exc: BaseException) -> str:
    """``SIGINT`` or ``SIGTERM``: which signal an interrupt came from (for the one-line message)."""
    return signal.Signals(getattr(exc, "signum", signal.SIGINT)).name


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise :class:`Interrupted` in the main thread.

    SIGINT gets a handler even when it was ignored at start-up (a job started with ``&`` by a
    non-interactive shell inherits SIGINT ignored, and Python then leaves it so): a person's or
    a test's Ctrl-C must stop the command. Compiled (numba) code runs no Python handler, so a
    long kernel call runs in a watched thread while the main thread wakes to take signals and
    stops the kernel through its node limit (:mod:`base.watch`); a
    signal whose raise numba's compiler swallowed is raised again when that compile ends
    (:func:`base.jit.set_compile_checkpoint`). The previous handlers come back on exit; outside
    the main thread this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        _RECEIVED.append(signum)
        _STOPPING.append(signum)
        if not _AT_CHECKPOINTS:
            raise Interrupted(signum)

    from base import jit

    installed = sys.unraisablehook is not _quiet_when_stopping
    if installed:
        _PREVIOUS_UNRAISABLE[:] = [sys.unraisablehook]
        sys.unraisablehook = _quiet_when_stopping

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    _RECEIVED.clear()
    jit.set_compile_checkpoint(raise_if_signalled)  # numba's compiler may swallow the handler's raise
    try:
        yield
    finally:
        jit.set_compile_checkpoint(None)
        for s, h in old.items():
            signal.signal(s, h)
        _RECEIVED.clear()
        if installed and not _STOPPING:  # after a signal it stays: the interrupt's debris may be collected later
            sys.unraisablehook = _PREVIOUS_UNRAISABLE[0]


_STOPPING: list[int] = []  # signals received inside stop_on_signals, never cleared: the process is stopping
_PREVIOUS_UNRAISABLE: list[Any] = []


def _quiet_when_stopping(unraisable: Any) -> None:
    """``sys.unraisablehook`` once a stop signal came: an exception in a ``__del__`` is then the
    interrupt's aftermath and is dropped (the handler's raise inside llvmlite's
    ``PipelineTuningOptions()`` left half an object, whose ``__del__`` printed an AttributeError
    traceback after the one-line stop message); before any signal, the previous hook prints it."""
    if _STOPPING:
        return
    (_PREVIOUS_UNRAISABLE[0] if _PREVIOUS_UNRAISABLE else sys.__unraisablehook__)(unraisable)


_RECEIVED: list[int] = []
"""Signals received inside :func:`stop_on_signals` (process-wide, as signals are). A handler's
exception raised while Python runs a ``__del__`` or a weakref callback (numba's compiler runs
many) is printed and dropped; :func:`raise_if_signalled` at the next checkpoint raises it again."""


def raise_if_signalled() -> None:
    """Raise :class:`Interrupted` if a signal came inside :func:`stop_on_signals`: a checkpoint
    for long loops (each watch of a solver call, each batch of simulations)."""
    if _RECEIVED:
        raise Interrupted(_RECEIVED[0])


def signalled() -> int:
    """The first signal received inside :func:`stop_on_signals` (0: none)."""
    return _RECEIVED[0] if _RECEIVED else 0


_AT_CHECKPOINTS: list[bool] = []


@contextlib.contextmanager
def signals_at_checkpoints() -> Iterator[None]:
    """Within a :func:`stop_on_signals` block: a signal is only recorded (the work polls
    :func:`signalled` or calls :func:`raise_if_signalled` at its checkpoints), so work that must
    not stop half done (a tree in the middle of an update, its save) ends at a checkpoint. A
    signal received in the block stays recorded after it: check :func:`signalled` before the
    block ends."""
    _AT_CHECKPOINTS.append(True)
    try:
        yield
    finally:
        _AT_CHECKPOINTS.pop()
