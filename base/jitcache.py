"""Compiled kernels kept on disk between processes, keyed by everything that changes them.

:func:`base.jit.compiled` makes copies of a module's hot functions with new globals, so one
source function has several compiled variants (one per set of overrides: a game's kernels bound
into a generic search, a heuristic, ``NO_NRT``, ``inline``). numba's own ``cache=True`` keys a
function by its file, qualified name and signature only, and checks the stamp of that one file:
it would load one variant for another and miss a change in a called function. This module plugs
a cache of our own keying into numba's documented extension point (``numba.core.caching``: a
``Cache`` with its ``CacheImpl`` and ``_CacheLocator``):

- the file name of a variant holds its **variant key**: the module, the function, its flags,
  the keys of every compiled function bound in as an override (recursively), and the module's
  constants (ints, strings, tuples, small arrays: numba freezes them into the machine code, and a
  test may patch them);
- the **source stamp** is a hash of every ``.py`` file of the project's packages that the process
  has imported from the module's folder tree (a kernel can only depend on code that is loaded),
  with the Python, numba, llvmlite and numpy versions; numba adds the CPU and its features;
- a data file is named after the hash of its index entry and written before the index, both by
  atomic rename: two processes compiling the same kernel at once write the same bytes, and an
  index never points at a file that is not whole;
- a cache that cannot be read (corrupt, another version) or written (read-only folder, full disk)
  is skipped silently: the kernel compiles as it would without a cache.

Where: ``CONNECTX_JIT_CACHE`` (a folder, or ``0`` for no cache), else ``$NUMBA_CACHE_DIR/connectx``,
else ``$XDG_CACHE_HOME/connectx-toolkit/numba`` (``~/.cache/...``). A module without a file of its
own (a Kaggle submission serves them from embedded source) is never cached.

Every dispatcher also calls :func:`base.compile_checkpoint.compile_checkpoint` before and after each compile: a
command that stops on signals raises there the interrupt that numba's compiler swallowed.
"""
from __future__ import annotations

import hashlib
import os
import sys
import threading
import types
from pathlib import Path
from typing import Any

from numba.core import caching

from base.compile_checkpoint import compile_checkpoint

ENV = "CONNECTX_JIT_CACHE"
_KEY_MARK = "__connectx_cache_key__"  # on a compiled copy: (folder, source stamp, variant key)

_said = threading.Event()  # "compiling" said once per process
_stamps: dict[Path, str] = {}  # package folder -> hash of its .py files (read once: what was imported)
_sources: dict[tuple, str] = {}  # (root, imported top packages) -> source stamp
_writable: dict[str, bool] = {}


def cache_dir() -> Path | None:
    """The folder kernels are kept in, or None when caching is off."""
    own = os.environ.get(ENV, "")
    if own == "0":
        return None
    if own:
        return Path(own)
    numba_dir = os.environ.get("NUMBA_CACHE_DIR", "")
    if numba_dir:
        return Path(numba_dir) / "connectx"
    base = os.environ.get("XDG_CACHE_HOME", "") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "connectx-toolkit" / "numba"


def digest(*parts: Any) -> str:
    """A short hash of ``parts`` (their repr: plain data only)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:20]


def module_root(module: types.ModuleType) -> Path | None:
    """The folder holding ``module``'s top package, when its file is where its name says (a
    module served from a bundle's embedded source is not)."""
    file = getattr(module, "__file__", None)
    if not file:
        return None
    path = Path(os.path.abspath(file))
    parts = module.__name__.split(".")
    is_pkg = path.name == "__init__.py"
    tail = parts + (["__init__.py"] if is_pkg else [])
    tail[-1] = tail[-1] if is_pkg else parts[-1] + ".py"
    if not path.is_file() or list(path.parts[-len(tail):]) != tail:
        return None
    return path.parents[len(tail) - 1]


def _package_stamp(folder: Path) -> str:
    stamp = _stamps.get(folder)
    if stamp is None:
        h = hashlib.sha256()
        for path in sorted(folder.rglob("*.py")):
            h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
        stamp = _stamps[folder] = h.hexdigest()[:20]
    return stamp


def source_stamp(module: types.ModuleType) -> str | None:
    """Hash of the sources ``module``'s kernels may depend on (the imported packages of its
    folder tree) and of the compiler's versions; None when the module cannot be cached."""
    root = module_root(module)
    if root is None:
        return None
    import llvmlite
    import numba
    import numpy

    tops = tuple(sorted(name for name, m in list(sys.modules.items())
                        if "." not in name and getattr(m, "__file__", None) == os.path.join(root, name, "__init__.py")))
    stamp = _sources.get((root, tops))
    if stamp is None:
        try:
            packages = [(top, _package_stamp(root / top)) for top in tops]
        except OSError:
            return None
        stamp = _sources[root, tops] = digest(packages, sys.version, numba.__version__, llvmlite.__version__,
                                              numpy.__version__)
    return stamp


def _constant(value: Any) -> Any:
    """A hashable picture of a global numba may freeze into code, or None for the rest."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    if isinstance(value, tuple):
        return tuple(_constant(v) for v in value)
    if type(value).__name__ == "ndarray" and getattr(value, "size", 1 << 30) <= 1 << 20:
        return ("ndarray", str(value.dtype), value.shape, hashlib.sha256(value.tobytes()).hexdigest())
    return None


def constants_key(glob: dict[str, Any]) -> str:
    """Hash of a namespace's simple constants (names starting with ``__`` left out)."""
    return digest(sorted((k, _constant(v)) for k, v in glob.items()
                          if not k.startswith("__") and _constant(v) is not None))


class _Locator(caching._CacheLocator):
    """Our folder, a subfolder per source stamp (two checkouts of different sources, or two
    commits timed side by side, keep their kernels apart instead of overwriting each other's
    index); the variant key as the disambiguator in the file name."""

    def __init__(self, folder: str, stamp: str, variant: str, py_file: str) -> None:
        self._folder, self._stamp, self._variant, self._py_file = folder, stamp, variant, py_file

    def ensure_cache_path(self) -> None:
        ok = _writable.get(self._folder)
        if ok is None:
            try:
                super().ensure_cache_path()
                ok = True
            except OSError:
                ok = False
            _writable[self._folder] = ok
        if not ok:
            raise OSError(f"cache folder {self._folder} is not writable")

    def get_cache_path(self) -> str:
        return os.path.join(self._folder, self._stamp[:16])

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return self._variant

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _Locator:
        folder, stamp, variant = getattr(py_func, _KEY_MARK)
        return cls(folder, stamp, variant, py_file)


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes = [_Locator]

    def __init__(self, py_func: Any) -> None:
        # Not numba's locator search (NUMBA_CACHE_LOCATOR_CLASSES could pick one keyed by file).
        self._lineno = py_func.__code__.co_firstlineno
        self._locator = _Locator.from_function(py_func, py_func.__code__.co_filename)
        fullname = f"{py_func.__module__}.{py_func.__qualname__}"
        self._filename_base = self.get_filename_base(fullname, getattr(sys, "abiflags", ""))

    def check_cachable(self, cres: Any) -> bool:
        # numba's own warns; a kernel with a large global array simply compiles every time.
        return not cres.library.has_dynamic_globals and all(x.can_cache for x in cres.lifted)


class _Files(caching.IndexDataCacheFile):
    """One data file per index entry, named after the entry's hash, written before the index."""

    def save(self, key: Any, data: Any) -> None:
        name = f"{self._index_name[:-len('.nbi')]}.{digest(key)[:16]}.nbc"
        self._save_data(name, data)
        overloads = self._load_index()
        overloads[key] = name
        self._save_index(overloads)

    def _load_index(self) -> dict:
        try:
            return super()._load_index()
        except Exception:  # torn or foreign: start afresh
            return {}


class KernelCache(caching.Cache):
    """numba's per-function cache with our key and folder, silent on any failure."""

    _impl_class = _Impl

    def __init__(self, py_func: Any) -> None:
        super().__init__(py_func)
        self._cache_file = _Files(self._cache_path, self._impl.filename_base, self._impl.locator.get_source_stamp())

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        compile_checkpoint()
        try:
            data = super().load_overload(sig, target_context)
        except Exception:  # a corrupt or unreadable entry: compile instead
            data = None
        if data is None and not _said.is_set():
            _said.set()
            _say(f"[connectx] compiling numba kernels (once: later runs load them from {self._cache_path})")
        return data

    def save_overload(self, sig: Any, data: Any) -> None:
        try:
            self._impl.locator.ensure_cache_path()
            super().save_overload(sig, data)
        except Exception:  # read-only or full: the next run compiles again
            pass
        compile_checkpoint()


class CheckpointOnly(caching.NullCache):
    """No cache (a module without a file, or caching off), only the signal checkpoint."""

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        compile_checkpoint()
        return None

    def save_overload(self, sig: Any, data: Any) -> None:
        compile_checkpoint()


def _say(line: str) -> None:
    """``line`` on stderr when a person watches it (a terminal): not into a log, a test's
    capture, a tournament worker's or a Kaggle agent's output."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            print(line, file=sys.stderr, flush=True)
    except Exception:  # a closed capture: the line is lost, not the compile
        pass


def attach(dispatcher: Any, py_func: Any, folder: Path | None, stamp: str | None, variant: str | None) -> None:
    """Give ``dispatcher`` (of the compiled copy ``py_func``) its cache: on disk under
    ``folder`` when all three keys are known and the folder is writable, else checkpoints only."""
    cache: Any = None
    if folder is not None and stamp is not None and variant is not None:
        setattr(py_func, _KEY_MARK, (str(folder), stamp, variant))
        try:
            _Locator.from_function(py_func, "").ensure_cache_path()
            cache = KernelCache(py_func)
        except Exception:  # no folder we may write: compile every time, as without a cache
            cache = None
    # What numba's own Dispatcher.enable_caching() does with its FunctionCache (cache=True).
    dispatcher._cache = cache if cache is not None else CheckpointOnly()
