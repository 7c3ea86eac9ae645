"""A compile in a background thread leaves ``sys.stdout`` and ``sys.stderr`` alone.

kaggle-environments swaps a StringIO in for each move's output and closes it after the move.
numba, with colorama installed, wraps each typing-error message it builds (about 26,000 in
``perfect``'s compile) in colorama's ``init()``, which reads the two streams and puts wrappers
in their place, and ``deinit()``, which sets back what it read. From a thread that is a
read-and-set-back racing the main thread's captures:

- a move ends inside it: the closed capture is set back as the process's streams for good
  (the slow ``test_damaged_data`` game died at its last ``print``: ``ValueError: I/O operation
  on closed file``, ``lost sys.stderr``, exit code 1, about once in a few dozen games);
- a move starts inside it: the real streams are set back over the capture, and the move's
  ``[connectx]`` lines miss Kaggle's log.

Each test holds the compile thread inside colorama's ``init()`` (just after it read the
streams) while the main thread ends or starts a capture, so each fails every time without
:func:`base.jit.keep_streams`, for both ways agents start a compile thread:
:class:`base.jit.BackgroundCompile` (``mcts``, ``alphabeta``) and ``perfect``'s own.
"""
from __future__ import annotations

import contextlib
import io
import sys
import threading

import pytest

pytest.importorskip("numba")
colorama_init = pytest.importorskip("colorama.initialise")  # without colorama numba touches no stream

from numba.core import errors  # noqa: E402

from base.jit import BackgroundCompile  # noqa: E402
from core.connectx.shape import Shape  # noqa: E402

MESSAGE = "No implementation of function Function(<built-in function getitem>) found for signature"


@contextlib.contextmanager
def capture():
    """One move's capture, as kaggle-environments makes it (closed at the end)."""
    with io.StringIO() as out, io.StringIO() as err, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


class Compile:
    """A compile that builds one highlighted message (what numba's typing does, thousands of
    times) and can be held inside colorama's ``init()`` just after it read the streams."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held_or_done = threading.Event()  # the thread is held in init(), or finished
        self.release = threading.Event()
        self.done = threading.Event()
        wrap_stream = colorama_init.wrap_stream

        def holding(stream, *args):  # init() calls it once it has read sys.stdout and sys.stderr
            if threading.current_thread() is not threading.main_thread() and not self.release.is_set():
                self.held_or_done.set()
                self.release.wait(10)
            return wrap_stream(stream, *args)

        monkeypatch.setattr(colorama_init, "wrap_stream", holding)

    def warm_up(self) -> None:
        try:
            errors.termcolor().errmsg(MESSAGE)
        finally:
            self.done.set()
            self.held_or_done.set()

    def finish(self) -> None:
        self.release.set()
        assert self.done.wait(10)


def start_background_compile(job: Compile, monkeypatch: pytest.MonkeyPatch) -> None:
    BackgroundCompile(job.warm_up, "streams-test")


def start_perfect_compile(job: Compile, monkeypatch: pytest.MonkeyPatch) -> None:
    import agents.connectx.perfect as perfect

    class Solver:  # the solver's compile, as far as the streams see it
        jit = True

        def __init__(self, shape, tt_size, use_numba=True):
            self.shape = shape

        def warm_up(self):
            job.warm_up()

    monkeypatch.setattr(perfect, "Solver", Solver)
    perfect.PerfectAgent(book="none", fallback="rule")._prepare(Shape())


STARTS = [start_background_compile, start_perfect_compile]


@pytest.fixture
def streams():
    real = sys.stdout, sys.stderr
    yield real
    sys.stdout, sys.stderr = real  # whatever the test left


@pytest.mark.parametrize("start", STARTS, ids=["BackgroundCompile", "perfect"])
def test_a_move_ending_during_a_compile_leaves_the_real_streams(start, monkeypatch, streams):
    job = Compile(monkeypatch)
    with capture():
        start(job, monkeypatch)
        assert job.held_or_done.wait(10)
    job.finish()
    assert (sys.stdout, sys.stderr) == streams, "the compile thread set a closed capture back"
    assert not sys.stdout.closed and not sys.stderr.closed


@pytest.mark.parametrize("start", STARTS, ids=["BackgroundCompile", "perfect"])
def test_a_move_starting_during_a_compile_keeps_its_capture(start, monkeypatch, streams):
    job = Compile(monkeypatch)
    start(job, monkeypatch)
    assert job.held_or_done.wait(10)
    with capture() as (out, err):
        job.finish()
        assert sys.stdout is out and sys.stderr is err, "the compile thread set the real streams back over the capture"
    assert (sys.stdout, sys.stderr) == streams
