"""Write hot code once: plain Python functions, compiled by numba when it helps.

A hot function is an ordinary Python function marked with :func:`hot`. Importing its module
gives the plain-Python version, which works on unbounded Python ints (any board size, no
numba needed). :func:`compiled` returns a namespace holding numba-compiled copies of every hot
function of a module, in which hot functions call each other's compiled copies. The two
versions share one source, so tests can check that they agree.

Rules for hot modules:
- import hot functions from other modules by name (``from core.connectx.bitboard import has_won``), so
  that :func:`compiled` can swap in their compiled copies;
- keep to numba's subset: ints (int64 when compiled), floats, numpy arrays, tuples;
- never rely on int overflow: compiled code uses int64, so a board must fit 63 bits
  (:func:`numba_enabled` says whether a shape may use the compiled path).

Compiled kernels are kept between processes in a cache of the project's own keying (see
:mod:`base.jitcache`): numba's ``cache=True`` keys a function by its file and name, while one hot
function here has a compiled variant per set of overrides and flags, and numba would not see a
change in a called function. A Kaggle submission (modules without a file of their own) compiles
as before, with no cache.
"""
from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any, TypeVar

from base import compile_checkpoint as checkpoint

F = TypeVar("F", bound=Callable[..., Any])

_HOT_MARK = "__connectx_hot__"
COMPILED_FLAG = "COMPILED"
"""A hot module's global of this name (False in the module) is True in its compiled copies: a
constant, so numba drops the branches it rules out. For work only compiled code gains from
(e.g. memory prefetches, which plain Python cannot issue and would pay the set-up of)."""
_INLINE_MARK = "__connectx_inline__"
_NRT_MARK = "__connectx_nrt__"
NO_NRT_FLAG = "NO_NRT"
"""A hot module whose global of this name is True is compiled without numba's reference
counting (``_nrt=False``): no atomic increment and decrement of an array's count each time a
function receives it (numba counts every array argument, inlined calls included, and its
pruning pass keeps most pairs in functions with loops and branches: 23-31% of the generic
MCTS's time on ConnectX with heuristic leaves). Such a module must not allocate (no arrays,
lists or dicts built in it: compiling then fails with "NRT required"). Every other module is
compiled with reference counting set explicitly, so that numba does not hand the setting of a
counting-free caller down to its callees (which may allocate)."""


def hot(fn: F | None = None, *, inline: bool = False, nrt: bool = False) -> Any:
    """Mark ``fn`` as a hot function (compiled by :func:`compiled`, plain otherwise).

    ``@hot(inline=True)``: compiled into each compiled caller (numba's IR inlining) instead of
    being called. For a game's hooks that a search calls at every node and that take the
    search's arrays: a call of a compiled function passes each array as a seven-word struct and
    keeps LLVM from optimising across it (ConnectX's ``expand`` and ``order``: 100 -> 78 ns a
    node measured alone, and the exact solver 0.87 -> 0.93x the old kernel's speed).

    ``@hot(nrt=True)``: compiled with reference counting even in a module that turns it off
    (:data:`NO_NRT_FLAG`), for a function there that allocates (a list, an array); its callees
    in that module keep theirs off."""
    def mark(f: F) -> F:
        setattr(f, _HOT_MARK, True)
        if inline:
            setattr(f, _INLINE_MARK, True)
        if nrt:
            setattr(f, _NRT_MARK, True)
        return f

    return mark(fn) if fn is not None else mark


def is_hot(obj: object) -> bool:
    return callable(obj) and getattr(obj, _HOT_MARK, False) is True


def is_inline(obj: object) -> bool:
    """Marked ``@hot(inline=True)``: the game says the hook is cheap (a search may call it twice)."""
    return is_hot(obj) and getattr(obj, _INLINE_MARK, False) is True


def numba_available() -> bool:
    """True when numba imports and ``CONNECTX_NUMBA`` is not ``0``."""
    if os.environ.get("CONNECTX_NUMBA", "1") == "0":
        return False
    try:
        import numba  # noqa: F401
    except Exception:  # ImportError, or a broken install
        return False
    return True


def numba_enabled(bits: int) -> bool:
    """True when a board of ``bits`` bits (sentinels included) may use compiled kernels."""
    return bits <= 63 and numba_available()


set_compile_checkpoint = checkpoint.set_compile_checkpoint  # re-exported: callers know them as base.jit's
compile_checkpoint = checkpoint.compile_checkpoint


# Compiled namespaces, one per module (and set of overrides). Each is built once and never
# changed afterwards, so sharing it between agents shares no mutable state. A namespace is
# published in _COMPILED only once complete: other threads wait on _LOCK while it is built (the
# build is cheap: numba compiles on first call, outside the lock), and the building thread finds
# its unfinished namespaces in _BUILDING (registered first: mutually importing modules terminate).
_COMPILED: dict[tuple, types.SimpleNamespace] = {}
_BUILDING: dict[tuple, types.SimpleNamespace] = {}
_LOCK = threading.RLock()
_VARIANT: dict[int, str] = {}  # id(dispatcher) -> its cache key (dispatchers live as long as _COMPILED)


def compiled(module: types.ModuleType | str, overrides: dict[str, Any] | None = None) -> types.SimpleNamespace:
    """Namespace with a numba-compiled copy of each hot function of ``module``.

    Non-hot globals are shared with the module. ``overrides`` replaces globals of the copies
    (name -> compiled function): a search compiled against a one-heuristic stand-in of a
    dispatcher compiles only that heuristic, since numba compiles everything a caller may
    reach. Compilation itself happens lazily, on each function's first call (numba's usual
    behaviour), and loads the machine code from the on-disk cache when an earlier process
    compiled the same variant (:mod:`base.jitcache`). Safe from many threads. Raises
    ImportError without numba.
    """
    if isinstance(module, str):
        module = sys.modules[module] if module in sys.modules else __import__(module, fromlist=["_"])
    extra = dict(overrides or {})
    # ``{NO_NRT_FLAG: False}`` among the overrides: reference counting on in a module that turns
    # it off (a game whose kernels allocate, core.game.bind); a flag, not a linked function.
    nrt_on = extra.pop(NO_NRT_FLAG, True) is False and bool(getattr(module, NO_NRT_FLAG, False))
    key = _override_key(module.__name__, extra) + (("nrt",) if nrt_on else ())
    ns = _COMPILED.get(key)
    if ns is not None:
        return ns
    import numba  # noqa: F401  (ImportError before anything is registered)

    with _LOCK:
        ns = _COMPILED.get(key) or _BUILDING.get(key)
        if ns is not None:
            return ns
        ns = _BUILDING[key] = types.SimpleNamespace()
        try:
            _fill(ns, module, extra, nrt_on)
        finally:
            del _BUILDING[key]
        _COMPILED[key] = ns
    return ns


def _fill(ns: types.SimpleNamespace, module: types.ModuleType, extra: dict[str, Any], nrt_on: bool = False) -> None:
    import numba

    from base import jitcache

    name = module.__name__
    glob = dict(module.__dict__)
    # compiled functions from elsewhere that the copies call (the other overrides are constants,
    # code switches: in the cache key through constants_key)
    linked = {k: v for k, v in extra.items() if callable(v)}
    # Hot functions imported from other modules: use their compiled copies.
    for k, value in list(glob.items()):
        if is_hot(value) and getattr(value, "__module__", name) != name:
            glob[k] = linked.setdefault(k, getattr(compiled(value.__module__), value.__name__))
    glob.update(extra)
    if COMPILED_FLAG in glob:
        glob[COMPILED_FLAG] = True
    if nrt_on:
        glob[NO_NRT_FLAG] = False  # also in the cache key: constants_key(glob)
    folder, stamp, base = _cache_keys(module, glob, linked)
    for k, value in list(module.__dict__.items()):
        if is_hot(value) and getattr(value, "__module__", None) == name:
            copy = types.FunctionType(value.__code__, glob, value.__name__, value.__defaults__, value.__closure__)
            copy.__module__ = name
            copy.__qualname__ = value.__qualname__
            copy.__doc__ = value.__doc__
            inline = "always" if getattr(value, _INLINE_MARK, False) else "never"
            nrt = not glob.get(NO_NRT_FLAG, False) or getattr(value, _NRT_MARK, False)
            dispatcher = numba.njit(nogil=True, inline=inline, _nrt=nrt)(copy)
            variant = None if base is None else jitcache.digest(base, value.__qualname__, inline, nrt)
            jitcache.attach(dispatcher, copy, folder, stamp, variant)
            if variant is not None:
                _VARIANT[id(dispatcher)] = variant
            glob[k] = dispatcher
            setattr(ns, k, dispatcher)
    for k, value in glob.items():
        if not hasattr(ns, k):
            setattr(ns, k, value)
    ns.jit = True  # which path this namespace runs (core.game.bind's callers read it)


def _cache_keys(module: types.ModuleType, glob: dict[str, Any], linked: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(folder, source stamp, namespace key) of ``module``'s compiled copies for the on-disk
    cache: the key holds the keys of the ``linked`` compiled functions (overrides and hot
    imports: their machine code is linked into the callers', constants included). A None where
    the namespace cannot be cached (no cache folder, a module without a file, a linked function
    that is not a cached compiled copy)."""
    from base import jitcache

    folder = jitcache.cache_dir()
    if folder is None:
        return None, None, None
    stamp = jitcache.source_stamp(module)
    bound = sorted((k, _VARIANT.get(id(v))) for k, v in linked.items())
    if stamp is None or any(v is None for _, v in bound):
        return folder, None, None
    return folder, stamp, jitcache.digest(module.__name__, bound, jitcache.constants_key(glob))


_PLAIN: dict[tuple, types.SimpleNamespace] = {}


def _override_key(name: str, extra: dict[str, Any]) -> tuple:
    return (name,) + tuple(sorted((k, f"{getattr(v, '__module__', '')}.{getattr(v, '__qualname__', getattr(v, '__name__', id(v)))}"
                                  if callable(v) else repr(v)) for k, v in extra.items()))


def plain(module: types.ModuleType | str, overrides: dict[str, Any] | None = None) -> types.SimpleNamespace:
    """The plain-Python twin of :func:`compiled`: copies of ``module``'s hot functions whose
    globals have ``overrides`` (name -> plain function) swapped in, so a game-generic search
    runs a game's plain kernels. Without overrides, the module's own functions."""
    if isinstance(module, str):
        module = sys.modules[module] if module in sys.modules else __import__(module, fromlist=["_"])
    extra = dict(overrides or {})
    key = _override_key(module.__name__, extra)
    if key in _PLAIN:
        return _PLAIN[key]
    glob = dict(module.__dict__)
    glob.update(extra)
    ns = types.SimpleNamespace()
    for k, value in list(module.__dict__.items()):
        if is_hot(value) and getattr(value, "__module__", None) == module.__name__ and extra:
            copy = types.FunctionType(value.__code__, glob, value.__name__, value.__defaults__, value.__closure__)
            copy.__module__ = module.__name__
            copy.__qualname__ = value.__qualname__
            copy.__doc__ = value.__doc__
            setattr(copy, _HOT_MARK, True)
            glob[k] = copy
    for k, value in glob.items():
        setattr(ns, k, value)
    ns.jit = False
    _PLAIN[key] = ns
    return ns


def bind(module: types.ModuleType | str, overrides: dict[str, Any] | None = None, jit: bool = True) -> types.SimpleNamespace:
    """``module``'s hot functions with ``overrides`` bound in: :func:`compiled` when ``jit``
    (overrides must then be compiled functions), else :func:`plain`."""
    return compiled(module, overrides) if jit else plain(module, overrides)


def kernels(module: types.ModuleType | str, bits: int) -> Any:
    """The compiled namespace of ``module`` when a ``bits``-bit board allows it, else the module."""
    if isinstance(module, str):
        module = __import__(module, fromlist=["_"])
    return compiled(module) if numba_enabled(bits) else module


COMPILE_IN_MOVE = 60.0  # seconds: a move with this much time compiles in place (tests, benches); less: in the background


class _NoColorShell:
    """An empty block in place of numba's ``errors.ColorShell`` (see :func:`keep_streams`)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def keep_streams() -> None:
    """Stop numba's compiles from reassigning ``sys.stdout`` and ``sys.stderr``: call it before
    a compile runs in a thread (idempotent; nothing to do without numba or colorama).

    With colorama installed, numba highlights each typing-error message inside ``ColorShell()``,
    which calls colorama's ``init()`` (the streams read and replaced by wrappers) and then
    ``deinit()`` (set back to what was read); a compile builds and drops such messages by the
    thousand (about 26,000 for ``perfect``'s). In a thread that read-and-set-back races the main
    thread: kaggle-environments swaps a StringIO in for each move and closes it after, and a set
    back landing after the move's restore leaves the closed capture as ``sys.stdout`` and
    ``sys.stderr`` for good (a game process then died at its last ``print``:
    ``ValueError: I/O operation on closed file``, ``lost sys.stderr``, exit code 1). The block
    writes nothing (``_markup`` only builds a string), so an empty one changes no message."""
    try:
        from numba.core import errors
    except Exception:  # no numba: nothing compiles
        return
    if hasattr(errors, "ColorShell"):
        errors.ColorShell = _NoColorShell


def log_from_thread(line: str) -> None:
    """``line`` to ``sys.stderr`` from a background thread, never raising: the stream may be a
    capture that its owner has just closed (the line is then lost, not the thread)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except Exception:  # ValueError on a closed capture, OSError, AttributeError on None
        pass


class BackgroundCompile:
    """``warm_up()`` run once in a daemon thread, for agents that must not spend a move on
    numba's compile (Kaggle starts every game in a fresh process). A move calls :meth:`wait`
    with the share of its time it can give; numba's compiler holds the GIL in long stretches,
    so waiting lets it run at full speed where a plain search beside it would halve both."""

    EXIT_WAIT = 60.0  # seconds the interpreter's exit waits for a compile in progress

    def __init__(self, warm_up: Callable[[], Any], label: str) -> None:
        self.failed = False  # the compile raised: the agent stays on the plain path
        self._done = threading.Event()
        keep_streams()
        thread = threading.Thread(target=self._run, args=(warm_up, label), name=f"{label}-compile", daemon=True)
        thread.start()
        # LLVM cut off mid-compile by the interpreter's exit can crash: let it finish, within a bound.
        atexit.register(thread.join, self.EXIT_WAIT)

    def _run(self, warm_up: Callable[[], Any], label: str) -> None:
        try:
            warm_up()
        except Exception as exc:  # never leave the agent waiting: the plain path still works
            self.failed = True
            log_from_thread(f"[connectx] ERROR {label}: compile failed ({type(exc).__name__}: {exc}); plain Python")
        finally:
            self._done.set()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the compile; True when it has finished without error."""
        return self._done.wait(max(0.0, seconds)) and not self.failed


class CompileGate:
    """One agent's per-move answer to "may this move run compiled kernels?".

    Kaggle starts every game in a fresh process, so an agent meets numba's compile (seconds) in
    its first searched move. The decision, shared by the depth-first and tree-search agents:
    already compiled in this process, yes; a move with :data:`COMPILE_IN_MOVE` seconds or more
    (tests, benches) or ``background=False``, compile in place, yes; otherwise start a
    :class:`BackgroundCompile` once and wait for it during ``share`` of each move's time, and
    answer whether it is done (the move runs the plain path if not).
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.ready = False  # compiled kernels may run; set by admit() or by the agent's warm-up
        self.job: BackgroundCompile | None = None  # the compile thread, once started

    def admit(self, deadline: float, warm_up: Callable[[], Any], compiled_before: Callable[[], bool],
              background: bool = True, share: float = 0.7) -> bool:
        """Whether the move ending at ``deadline`` (``time.perf_counter()`` seconds) may run
        compiled code; ``warm_up`` compiles, ``compiled_before`` says whether this process
        already did."""
        if self.ready:
            return True
        if self.job is None:
            if not compiled_before():
                if background and deadline - time.perf_counter() < COMPILE_IN_MOVE:
                    self.job = BackgroundCompile(warm_up, self.label)
                    return self._wait(deadline, share)
                warm_up()
            self.ready = True
            return True
        return self._wait(deadline, share)

    def _wait(self, deadline: float, share: float) -> bool:
        # Give the compile this move's first share of time; the plain path plays the rest.
        assert self.job is not None
        self.ready = self.job.wait((deadline - time.perf_counter()) * share)
        return self.ready
