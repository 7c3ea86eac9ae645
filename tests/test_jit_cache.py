"""Compiled kernels kept between processes (base.jitcache): the right variant, or a compile.

Each test writes a small package of hot modules into a temporary folder and runs a probe in fresh
processes against a cache folder of its own. A cached run must give the same answers as a
compile (never another variant's machine code), load what an earlier process compiled, and
recompile when a source, a constant or a bound function changes; a cache that is corrupt or
cannot be written costs only the compile.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

pytest.importorskip("numba")

from base import jit, jitcache  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

LEAVES = '''
from base.jit import hot

BONUS = 1


@hot
def leaf(x):
    return x + BONUS


@hot
def other(x):
    return x * 10
'''

SEARCH = '''
from base.jit import hot
from toypkg.leaves import leaf


@hot
def run(x):
    return leaf(x) + 1000
'''

# Two variants of toypkg.search.run: its own leaf, and `other` bound in; in the order argv says.
PROBE = '''
import json, sys
from base import jit
import toypkg.leaves as L, toypkg.search as S
if "patch" in sys.argv:
    L.BONUS = 5  # a constant changed before compiling: frozen into the machine code
out, stats = {}, {"hits": 0, "misses": 0}
order = ["own", "other"] if "reverse" not in sys.argv else ["other", "own"]
for name in order:
    ns = jit.compiled(S) if name == "own" else jit.compiled(S, {"leaf": jit.compiled(L).other})
    out[name] = int(ns.run(2))
    stats["hits"] += sum(ns.run.stats.cache_hits.values())
    stats["misses"] += sum(ns.run.stats.cache_misses.values())
print(json.dumps({"out": out, **stats}))
'''


@pytest.fixture()
def toy(tmp_path: Path) -> Path:
    pkg = tmp_path / "src" / "toypkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "leaves.py").write_text(LEAVES)
    (pkg / "search.py").write_text(SEARCH)
    (tmp_path / "probe.py").write_text(PROBE)
    return tmp_path


def probe(toy: Path, cache: Path | str, *argv: str, wait: bool = True, **env_extra: str) -> dict | subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(toy / "src"), str(ROOT)]), jitcache.ENV: str(cache), **env_extra}
    env.pop("CONNECTX_NUMBA", None)
    proc = subprocess.Popen([sys.executable, str(toy / "probe.py"), *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return proc
    return finish(proc)


def finish(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and "Traceback" not in err, err[-2000:]
    return json.loads(out)


RIGHT = {"own": 1003, "other": 1020}


def test_each_variant_loads_its_own_machine_code_in_a_later_process(toy, tmp_path):
    cache = tmp_path / "cache"
    first = probe(toy, cache)
    assert first["out"] == RIGHT and first["misses"] == 2 and first["hits"] == 0
    assert any(cache.glob("*/toypkg.search.run-*.nbc"))
    # The other order: a cache keyed by file and name alone would hand `own` the first one saved.
    again = probe(toy, cache, "reverse")
    assert again["out"] == RIGHT and again["hits"] == 2 and again["misses"] == 0


def test_a_changed_callee_module_or_constant_recompiles(toy, tmp_path):
    cache = tmp_path / "cache"
    assert probe(toy, cache)["out"] == RIGHT
    patched = probe(toy, cache, "patch")  # BONUS 5 in this process only
    assert patched["out"] == {"own": 1007, "other": 1020} and patched["misses"] >= 1
    leaves = toy / "src" / "toypkg" / "leaves.py"
    leaves.write_text(leaves.read_text().replace("return x * 10", "return x * 100"))  # not the caller's file
    edited = probe(toy, cache)
    assert edited["out"] == {"own": 1003, "other": 1200} and edited["misses"] >= 1
    leaves.write_text(leaves.read_text().replace("return x * 100", "return x * 10"))  # back: a second checkout's source
    back = probe(toy, cache)  # its kernels are still there: two sources share a folder without recompiling
    assert back["out"] == RIGHT and back["misses"] == 0 and back["hits"] == 2


@pytest.mark.slow
def test_a_corrupt_or_unwritable_cache_only_costs_the_compile(toy, tmp_path):
    cache = tmp_path / "cache"
    probe(toy, cache)
    files = [p for p in cache.glob("*/*") if p.suffix in (".nbi", ".nbc")]
    assert files
    for i, path in enumerate(files):  # torn files, and pickles of the wrong thing
        path.write_bytes(b"\x80\x04garbage" if i % 2 else b"")
    broken = probe(toy, cache)
    assert broken["out"] == RIGHT and broken["misses"] == 2
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    unwritable = probe(toy, blocker / "cache")  # no folder can be made there
    assert unwritable["out"] == RIGHT and unwritable["hits"] == 0


@pytest.mark.slow
def test_two_processes_compiling_at_once_leave_a_cache_both_can_read(toy, tmp_path):
    cache = tmp_path / "cache"
    procs = [probe(toy, cache, *(("reverse",) if i else ()), wait=False) for i in range(3)]
    for proc in procs:
        assert finish(proc)["out"] == RIGHT
    later = probe(toy, cache)
    assert later["out"] == RIGHT and later["hits"] == 2 and later["misses"] == 0
    assert not list(cache.glob("**/*.tmp.*"))  # every write renamed into place


@pytest.mark.slow
def test_caching_off_writes_nothing(toy, tmp_path):
    xdg = tmp_path / "xdg"
    off = probe(toy, "0", XDG_CACHE_HOME=str(xdg), NUMBA_CACHE_DIR="")
    assert off["out"] == RIGHT and off["hits"] == 0 and not xdg.exists()
    on = probe(toy, "", XDG_CACHE_HOME=str(xdg), NUMBA_CACHE_DIR="")  # the default folder
    assert on["out"] == RIGHT and any((xdg / "connectx-toolkit" / "numba").glob("*/toypkg.*.nbc"))


def test_a_module_without_its_own_file_is_never_cached(tmp_path):
    fake = types.ModuleType("_connectx_0123.core.thing")
    fake.__file__ = str(tmp_path / "submission.py")  # how a bundle's modules look
    (tmp_path / "submission.py").write_text("")
    assert jitcache.module_root(fake) is None and jitcache.source_stamp(fake) is None
    assert jitcache.module_root(jit) == ROOT


def test_many_threads_never_see_a_half_built_namespace():
    """Threads asking at once for a fresh key's namespace (a game's kernels, many hot functions)
    all get the one complete namespace. Before: the first thread published it empty and filled
    it after, and the others read no 'play' or 'key' (4 attempts in 5 failed, 7 threads in 8)."""
    import core.quantik.kernels as K

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # threads take turns often: inside the build, too
    try:
        for attempt in range(5):
            overrides = {f"unused_{attempt}": jit.compiled("base.hints").prefetch}  # a fresh key each time
            barrier, ids, errors = threading.Barrier(8), set(), []

            def grab(barrier=barrier, overrides=overrides, ids=ids, errors=errors) -> None:
                try:
                    barrier.wait()
                    for _ in range(200):
                        ns = jit.compiled(K, overrides)
                        assert ns.play and ns.legal and ns.to_move and ns.key and ns.jit is True
                        ids.add(id(ns))
                except BaseException as exc:  # noqa: BLE001  (reported below)
                    errors.append(exc)

            threads = [threading.Thread(target=grab) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            assert not errors, errors[0]
            assert len(ids) == 1
    finally:
        sys.setswitchinterval(old)


@pytest.mark.slow
def test_the_compiling_line_is_said_once_and_only_to_a_terminal(toy, tmp_path):
    import pty

    cache = tmp_path / "cache"
    lines = []
    for _ in range(2):
        master, slave = pty.openpty()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(toy / "src"), str(ROOT)]), jitcache.ENV: str(cache)}
        proc = subprocess.Popen([sys.executable, str(toy / "probe.py")], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        err = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            err += chunk
        proc.communicate(timeout=600)
        os.close(master)
        lines.append(err.decode().count("compiling numba kernels"))
    assert lines == [1, 0]
    piped = probe(toy, tmp_path / "cache2")  # a pipe (a log, a test's capture): nothing said
    assert piped["out"] == RIGHT


def test_keys_are_stable_and_cover_constants():
    g1 = {"A": 1, "T": (1, 2), "f": len, "__name__": "x"}
    assert jitcache.constants_key(g1) == jitcache.constants_key(dict(g1))
    assert jitcache.constants_key(g1) != jitcache.constants_key({**g1, "A": 2})
    assert jitcache.constants_key(g1) == jitcache.constants_key({**g1, "f": print})  # functions: by their variant keys
