"""Long commands stop on Ctrl-C (SIGINT) or SIGTERM within a second or so, with one line and the
shell's exit code (130 / 143), their stores intact (a grow keeps what it grew); ``--seconds`` holds.

Each test starts the real command in a subprocess, waits until it is inside its long work (a
progress line seen on stderr, so the signal lands in compiled code, not in numba's compile),
sends the signal and times the stop. The bounds are generous: a loaded 2-core machine.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agents.connectx import book, mcts_cache
from agents.connectx.solver import Solver
from base.cli import Interrupted, exit_code
from base.jit import numba_available
from base.watch import call_watched
from core.connectx import Position, Shape
from core.connectx.pons_data import pons_lines

ROOT = Path(__file__).resolve().parents[1]
STOP_S = 2.0  # signal -> the one-line message (work stopped)
EXIT_S = 5.0  # signal -> the process gone (interpreter teardown included)


class Running:
    """A command in a subprocess whose stderr is read as it comes, with arrival times."""

    def __init__(self, args: list[str], stdin: str = "", env: dict | None = None) -> None:
        self.proc = subprocess.Popen([sys.executable, "-X", "faulthandler", *args], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
        self.err = b""
        self.seen: dict[str, float] = {}
        threading.Thread(target=self._read, daemon=True).start()
        self.proc.stdin.write(stdin.encode())
        self.proc.stdin.close()

    def _read(self) -> None:
        while chunk := self.proc.stderr.read1(4096):
            self.err += chunk

    def wait_for(self, text: str, timeout: float = 240.0) -> None:
        end = time.monotonic() + timeout
        while text.encode() not in self.err:
            if self.proc.poll() is not None or time.monotonic() > end:
                self.proc.kill()
                pytest.fail(f"never saw {text!r} on stderr: {self.err[-500:]!r}")
            time.sleep(0.05)

    def stop(self, signum: int, message: str) -> tuple[int, float, float]:
        """Send ``signum``; returns (exit code, seconds to ``message`` on stderr, seconds to exit)."""
        t0 = time.monotonic()
        self.proc.send_signal(signum)
        to_message = None
        while time.monotonic() - t0 < 60:
            if to_message is None and message.encode() in self.err:
                to_message = time.monotonic() - t0
            if self.proc.poll() is not None:
                break
            time.sleep(0.01)
        else:
            self.proc.send_signal(signal.SIGABRT)  # faulthandler prints where it was
            time.sleep(2)
            self.proc.kill()
            pytest.fail(f"did not stop within 60 s: {self.err[-3000:].decode(errors='replace')}")
        to_exit = time.monotonic() - t0
        time.sleep(0.1)  # the reader thread drains the pipe
        if to_message is None and message.encode() in self.err:
            to_message = to_exit
        assert to_message is not None, self.err[-500:]
        return self.proc.returncode, to_message, to_exit


def last_lines(err: bytes) -> list[str]:
    """stderr's lines with the progress bar's carriage-return redraws dropped."""
    return [ln.split("\r")[-1] for ln in err.decode().splitlines() if ln.split("\r")[-1].strip()]


# --- in-process: slices change nothing but when Python runs -----------------------------------
def test_sliced_solves_give_the_same_answers_and_call_back():
    """Slices of 5 ms on the plain path (several a solve): scores, moves and node counts
    (within 5%: a call longer than a few ms starts again once) agree with one uninterrupted call."""
    lines = [ln.split() for ln in (ROOT / "data" / "pons" / "Test_L2_R2").read_text().splitlines() if ln.strip()]
    calls: list[int] = []
    plain = Solver(tt_size=1 << 20, use_numba=False)
    sliced = Solver(tt_size=1 << 20, use_numba=False, slice_seconds=0.005, on_slice=calls.append)
    for moves, score in (lines[5], lines[10]):  # 26 K and 5 K nodes
        pos = Position.from_moves(moves)
        plain.reset(), sliced.reset()
        assert sliced.solve(pos) == plain.solve(pos) == int(score)
        assert abs(sliced.nodes - plain.nodes) <= 0.05 * plain.nodes, (sliced.nodes, plain.nodes)
        assert sliced.best_move(pos) == plain.best_move(pos)
    assert len(calls) > 3 and all(n > 0 for n in calls)


def test_sliced_solve_does_the_search_of_one_call_even_when_the_table_forgets():
    """A solve that outlasts many slices (about 80 of 5 ms) in a table far too small to keep
    the proofs of its early subtrees: the watched call does the same search as one
    uninterrupted call (it starts again once, after its first milliseconds). Slices that
    restarted the window from the table (before) lost the stack of every slice and never
    finished here: the node limit of twice the plain count makes that a failure, not a hang."""
    moves, score = pons_lines("L2_R2")[5]
    pos = Position.from_moves(moves)
    calls: list[int] = []
    plain = Solver(tt_size=1 << 10, use_numba=False)
    sliced = Solver(tt_size=1 << 10, use_numba=False, slice_seconds=0.005, on_slice=calls.append)
    assert plain.solve(pos) == score
    assert sliced.solve(pos, node_limit=2 * plain.nodes) == score
    # The one restart repeats at most the first try's nodes (0.1 s of them: a load-dependent count).
    assert 0 < sliced.restart_nodes < plain.nodes
    assert sliced.nodes <= plain.nodes + sliced.restart_nodes, (sliced.nodes, plain.nodes, sliced.restart_nodes)
    assert len(calls) > 10 and calls == sorted(calls)


def test_watched_call_returns_raises_and_stops_on_the_watchers_exception():
    assert call_watched(lambda: 7, lambda: None, 0.01) == 7
    with pytest.raises(ZeroDivisionError):
        call_watched(lambda: 1 // 0, lambda: None, 0.01)
    flag = threading.Event()
    ticks: list[float] = []

    def tick() -> None:
        ticks.append(time.perf_counter())
        if len(ticks) == 3:
            raise Interrupted(signal.SIGINT)

    with pytest.raises(Interrupted):
        call_watched(lambda: flag.wait(60), flag.set, 0.01, tick)
    assert len(ticks) == 3 and flag.is_set()
    assert not [t for t in threading.enumerate() if t.name == "watched-call"]  # joined, not left running


def test_sliced_solve_keeps_node_limit_and_deadline():
    solver = Solver(tt_size=1 << 16, use_numba=False, slice_seconds=0.01)
    pos = Position.from_moves("44")  # minutes to solve
    assert solver.solve(pos, node_limit=20_000) is None and 20_000 <= solver.nodes <= 20_100
    t0 = time.perf_counter()
    assert solver.solve(pos, deadline=t0 + 0.2) is None
    assert time.perf_counter() - t0 < 1.0


def test_interrupted_carries_the_shell_exit_code():
    assert exit_code(Interrupted(signal.SIGINT)) == 130
    assert exit_code(Interrupted(signal.SIGTERM)) == 143
    assert exit_code(KeyboardInterrupt()) == 130
    assert isinstance(Interrupted(signal.SIGTERM), KeyboardInterrupt)


# --- the real commands ------------------------------------------------------------------------
@pytest.mark.skipif(not numba_available(), reason="the point is compiled code; the plain path is interruptible anyway")
def test_solver_cli_stops_on_sigint_inside_a_long_solve():
    run = Running(["-m", "agents.connectx.solver", "--tt-size", str(1 << 20), "--progress", "on"], stdin="44\n")
    run.wait_for("nodes")  # a slice of the solve finished: we are in compiled code
    time.sleep(0.5)
    code, to_message, to_exit = run.stop(signal.SIGINT, "interrupted (SIGINT)")
    assert code == 130
    assert to_message < STOP_S and to_exit < EXIT_S, (to_message, to_exit)
    assert sum("interrupted" in ln for ln in last_lines(run.err)) == 1 and b"Traceback" not in run.err


@pytest.mark.skipif(not numba_available(), reason="the point is compiled code; the plain path is interruptible anyway")
def test_book_build_stops_on_sigterm_and_keeps_its_store(tmp_path):
    """In this process (``--workers 1``): a ply-2 position takes hours to solve."""
    store = tmp_path / "b.store"
    run = Running(["-m", "agents.connectx.book", "build", "--max-ply", "2", "--given-root", "--expand-all-to", "2",
                   "--store", str(store), "--book", str(tmp_path / "b.npz"), "--tt-size", str(1 << 20), "--progress", "on"])
    run.wait_for("ply 2:")  # the bar of ply 2: its first solve (and the compile before it) has started
    run.wait_for("positions")
    time.sleep(4)  # past the compile (3.6 s on an idle core) most often; during it the stop must hold too
    code, to_message, to_exit = run.stop(signal.SIGTERM, "interrupted (SIGTERM)")
    assert code == 143
    assert to_message < STOP_S and to_exit < EXIT_S, (to_message, to_exit)
    kept = book.Store(store, Shape())
    assert kept.bad_lines == 0 and len(kept.records) == 1  # the given root, nothing half written
    again = Running(["-m", "agents.connectx.book", "info", "--store", str(store), "--book", str(tmp_path / "b.npz")])
    assert again.proc.wait(timeout=120) == 0


def test_grow_stops_on_sigint_and_keeps_what_was_grown(tmp_path):
    """Plain path (no compile): the growth so far is saved, whole, before the exit."""
    out = tmp_path / "c.npz"
    out.write_bytes(b"the old cache")
    run = Running(["-m", "agents.connectx.mcts_cache", "grow", "--seconds", "60", "--agent", "mcts:leaf=rollout", "--min-visits", "3",
                   "--out", str(out), "--progress", "on"], env={"CONNECTX_NUMBA": "0"})
    run.wait_for("sims")
    code, to_message, to_exit = run.stop(signal.SIGINT, "interrupted (SIGINT)")
    assert code == 130 and to_message < STOP_S and to_exit < EXIT_S, (code, to_message, to_exit)
    assert sum("interrupted" in ln for ln in last_lines(run.err)) == 1 and b"Traceback" not in run.err
    kept = mcts_cache.load(out)
    meta = json.loads(kept["meta"])
    assert meta["sims"] > 0 and len(kept["keys"]) > 0 and 0 < meta["seconds"] < 60
    assert f"kept {len(kept['keys'])} positions from {meta['sims']} simulations".encode() in run.err


def test_grow_saves_as_it_grows(tmp_path):
    """``--save-every``: a grow killed outright (SIGKILL: no handler runs) still leaves the last
    save, a whole cache marked partial."""
    out = tmp_path / "c.npz"
    out.write_bytes(b"the old cache")
    run = Running(["-m", "agents.connectx.mcts_cache", "grow", "--seconds", "600", "--agent", "mcts:leaf=rollout", "--min-visits", "3",
                   "--save-every", "0.3", "--out", str(out), "--progress", "on"], env={"CONNECTX_NUMBA": "0"})
    end = time.monotonic() + 240
    while out.read_bytes() == b"the old cache" and run.proc.poll() is None and time.monotonic() < end:
        time.sleep(0.05)
    run.proc.kill()
    run.proc.wait(30)
    kept = mcts_cache.load(out)
    meta = json.loads(kept["meta"])
    assert meta["partial"] and meta["sims"] > 0 and len(kept["keys"]) > 0


def test_grow_seconds_holds(tmp_path):
    """Plain path: ``--seconds 2`` stops at the first batch boundary after 2 s of growth: the
    last batch started before 2 s and ended at or after it (the meta's growing clock, so a
    busy machine cannot break it; a grow that ignored --seconds would run on)."""
    out = tmp_path / "c.npz"
    res = subprocess.run([sys.executable, "-m", "agents.connectx.mcts_cache", "grow", "--seconds", "2", "--agent", "mcts:leaf=rollout",
                          "--min-visits", "3", "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "CONNECTX_NUMBA": "0"})
    assert res.returncode == 0, res.stderr
    meta = json.loads(mcts_cache.load(out)["meta"])
    assert meta["last_batch_start"] < 2.0 <= meta["last_batch_end"] == pytest.approx(meta["seconds"], abs=1e-3)
    assert meta["sims"] > 0 and "partial" not in meta


@pytest.mark.slow
@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_grow_seconds_holds_compiled(tmp_path):
    """Compiled: the growing time holds within a batch; the compile is reported apart."""
    out = tmp_path / "c.npz"
    res = subprocess.run([sys.executable, "-m", "agents.connectx.mcts_cache", "grow", "--seconds", "2", "--agent", "mcts:leaf=rollout",
                          "--min-visits", "20", "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    meta = json.loads(mcts_cache.load(out)["meta"])
    assert meta["last_batch_start"] < 2.0 <= meta["last_batch_end"] == pytest.approx(meta["seconds"], abs=1e-3)


HALF_BUILT = r'''
import os, signal, sys
from base.cli import Interrupted, stop_on_signals


class HalfBuilt:  # llvmlite's PipelineTuningOptions when the stop signal lands inside its __init__
    def __del__(self):
        self._ptr.close()


with stop_on_signals():
    if sys.argv[1] == "signal":
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        except Interrupted:
            pass
    h = HalfBuilt()
    del h
print("done", flush=True)
'''


@pytest.mark.parametrize("signalled", [True, False])
def test_a_failing_destructor_after_the_stop_signal_prints_nothing(signalled):
    """Once a stop signal came, an exception in a ``__del__`` (a half-built object the
    interrupt left) prints no traceback after the one-line message (CI's
    test_tournament_stops_mid_compile[15] once saw llvmlite's); before any signal it still does."""
    res = subprocess.run([sys.executable, "-c", HALF_BUILT, "signal" if signalled else "none"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "done" in res.stdout, res.stderr
    assert ("Traceback" in res.stderr) is not signalled, res.stderr
    assert ("AttributeError" in res.stderr) is not signalled, res.stderr


# --- no child left: builders, tournaments, tuning, the engine's solver ----------------------------
def _stat(pid: int) -> tuple[str, int] | None:
    """(state, start time) of a process from /proc, None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """Every living descendant of ``pid`` (a /proc scan of parents): pid -> start time, so that a
    pid reused later is not taken for one left behind."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found: dict[int, int] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            st = _stat(child)
            if st is not None and st[0] != "Z":
                found[child] = st[1]
                todo.append(child)
    return found


def left_behind(seen: dict[int, int], grace: float = 10.0) -> list[str]:
    """The command lines of processes of ``seen`` still running after ``grace`` seconds (a
    zombie is dead: PID 1 reaps it)."""
    end = time.monotonic() + grace
    while True:
        alive = [pid for pid, start in seen.items() if (st := _stat(pid)) is not None and st[0] != "Z" and st[1] == start]
        if not alive or time.monotonic() > end:
            break
        time.sleep(0.1)
    return [Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120] for pid in alive
            if _stat(pid) is not None]


def watch_until(run: Running, seen: dict[int, int], ready: Callable[[dict[int, int]], bool], timeout: float = 300.0) -> None:
    """Collect ``run``'s descendants into ``seen`` until ``ready(seen)``."""
    end = time.monotonic() + timeout
    while True:
        seen.update(descendants(run.proc.pid))
        if ready(seen):
            return
        if run.proc.poll() is not None or time.monotonic() > end:
            run.proc.kill()
            pytest.fail(f"never ready: {len(seen)} descendants seen; {run.err[-800:]!r}")
        time.sleep(0.05)


def cmdlines(seen: dict[int, int]) -> list[str]:
    out = []
    for pid in seen:
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"))
        except OSError:
            pass
    return out


def stop_and_check(run: Running, seen: dict[int, int], signum: int) -> None:
    """Send ``signum``: exit 128 + signum, one line saying so on stderr, no traceback, and no
    descendant seen (validators, workers, compiled planners) left running."""
    seen.update(descendants(run.proc.pid))
    code, _, to_exit = run.stop(signum, "interrupted")
    assert code == 128 + signum, (code, run.err[-1500:])
    assert to_exit < 60, to_exit
    lines = last_lines(run.err)
    assert b"Traceback" not in run.err and sum("interrupted" in ln for ln in lines) == 1, run.err[-1500:]
    assert left_behind(seen) == []


def _worker_started(seen: dict[int, int]) -> bool:
    """Whether a validator has a child of its own (the file's compiled worker)."""
    validators = {pid for pid in seen if any("bundle_validate" in c for c in cmdlines({pid: 0}))}
    for pid in seen:
        try:
            if int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) in validators:
                return True
        except (OSError, IndexError, ValueError):
            pass
    return False


def _builder(tmp_path: Path, *args: str) -> tuple[Running, Path, Path]:
    tmp, out = tmp_path / "tmp", tmp_path / "out"
    tmp.mkdir()
    out.mkdir()
    run = Running(["build_submission.py", *args, "--output", str(out / "s.py")], env={"TMPDIR": str(tmp)})
    return run, tmp, out


def _nothing_left(tmp: Path, out: Path) -> None:
    assert list(tmp.iterdir()) == [], list(tmp.iterdir())  # the validation folder is removed
    assert list(out.iterdir()) == [], list(out.iterdir())  # no .s.building-*.py, no s.py


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_connectx_builder_stops_while_validating_and_leaves_nothing(tmp_path, signum):
    """SIGTERM was ignored (exit -15, no line): both validators went on playing under PID 1, and
    the validation folder and the file being validated stayed."""
    run, tmp, out = _builder(tmp_path, "--agent", "alphabeta", "--games", "40", "--workers", "2")
    seen: dict[int, int] = {}
    watch_until(run, seen, lambda s: sum("bundle_validate" in c for c in cmdlines(s)) >= 2)
    time.sleep(1.0)  # inside the validators' games
    stop_and_check(run, seen, signum)
    assert f"interrupted ({signal.Signals(signum).name})" in run.err.decode()
    _nothing_left(tmp, out)


def _rt_builder(tmp_path: Path) -> tuple[Running, Path, Path]:
    return _builder(tmp_path, "--game", "reinforce_tactics", "--agent", "greedy", "--maps", "beginner,starter",
                    "--episode-steps", "60", "--act-timeout", "1", "--workers", "2")


@pytest.mark.skipif(not numba_available(), reason="the compiled worker is the child to stop")
@pytest.mark.parametrize("signum", [signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.slow)])
def test_rt_builder_stops_while_validating_and_leaves_no_worker(tmp_path, signum):
    """A validator's game starts the file's compiled worker (a grandchild of the builder): it
    goes with its validator's process group."""
    run, tmp, out = _rt_builder(tmp_path)
    seen: dict[int, int] = {}
    watch_until(run, seen, _worker_started)
    time.sleep(1.0)
    stop_and_check(run, seen, signum)
    assert f"interrupted ({signal.Signals(signum).name})" in run.err.decode()
    _nothing_left(tmp, out)


@pytest.mark.parametrize("signum", [signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.slow)])
def test_rt_builder_stopped_at_five_seconds_leaves_nothing(tmp_path, signum):
    """Wherever it is at 5 s (bundling, or the validators starting): the same clean stop (an
    interrupt at 5 s once left 2 children)."""
    run, tmp, out = _rt_builder(tmp_path)
    seen: dict[int, int] = {}
    t0 = time.monotonic()
    watch_until(run, seen, lambda s: time.monotonic() - t0 > 5.0)
    stop_and_check(run, seen, signum)
    assert f"interrupted ({signal.Signals(signum).name})" in run.err.decode()
    _nothing_left(tmp, out)


def test_tournament_with_workers_stops_on_sigterm_and_leaves_no_worker(tmp_path):
    run = Running(["-m", "util.arena.tournament", "--agents", "alphabeta:max_depth=3,random", "--games", "40", "--workers", "2",
                   "--time", "0.05", "--db", str(tmp_path / "t.sqlite"), "--quiet"], env={"CONNECTX_NUMBA": "0"})
    seen: dict[int, int] = {}
    watch_until(run, seen, lambda s: len(s) >= 2)  # the pool's workers
    time.sleep(1.0)
    stop_and_check(run, seen, signal.SIGTERM)


def test_tune_with_workers_stops_on_sigterm_and_leaves_no_worker(tmp_path):
    pytest.importorskip("optuna")
    run = Running(["-m", "util.arena.tune", "--agent", "mcts", "--space", "c=float:0.5:2",
                   "--opponents", "random", "--trials", "50", "--games", "20", "--time", "0.05", "--workers", "2",
                   "--storage", f"sqlite:///{tmp_path / 's.db'}", "--out", str(tmp_path / "p.json")], env={"CONNECTX_NUMBA": "0"})
    seen: dict[int, int] = {}
    watch_until(run, seen, lambda s: len(s) >= 2)
    time.sleep(1.0)
    stop_and_check(run, seen, signal.SIGTERM)
    assert not (tmp_path / "p.json").exists()


def test_engine_solve_stops_on_sigterm(tmp_path):
    """Plain Python (no compile): a 4x4 Quixo solve takes far longer than the test."""
    run = Running(["-m", "agents.engine.solve", "--game", "quixo:size=4", "--no-jit", "--no-progress",
                   "--tree", str(tmp_path / "t.json")], stdin="\n")
    time.sleep(3.0)
    assert run.proc.poll() is None, run.err[-800:]
    seen = descendants(run.proc.pid)
    stop_and_check(run, seen, signal.SIGTERM)
    assert not (tmp_path / "t.json").exists()


def test_play_stops_on_sigterm_at_the_prompt(tmp_path):
    """The interactive game waits for the human's move: SIGTERM there ends it like Ctrl-C (it
    was the default action: exit -15, no line, an agent file's process left to notice alone)."""
    proc = subprocess.Popen([sys.executable, "-m", "util.arena.play", "--agent", "random", "--game", "tictactoe",
                             "--db", str(tmp_path / "t.sqlite")], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        prompt = b""
        while b"your move" not in prompt and proc.poll() is None:  # the prompt for the human's move
            prompt += proc.stdout.read1(4096)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143, (proc.returncode, err)
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "interrupted (SIGTERM)" in lines[0] and b"Traceback" not in err, err


def test_opening_book_stops_on_sigterm_and_writes_nothing(tmp_path):
    """Plain Python: the first plies of Quantik take far longer than the test."""
    out = tmp_path / "book.npz"
    run = Running(["-m", "agents.engine.opening_book", "--game", "quantik", "--plies", "4", "--no-jit", "--out", str(out)])
    time.sleep(3.0)
    assert run.proc.poll() is None, run.err[-800:]
    stop_and_check(run, descendants(run.proc.pid), signal.SIGTERM)
    assert "interrupted (SIGTERM)" in run.err.decode() and not out.exists()
