"""A compiled planner in a second process, so a Kaggle submission plays compiled without ever
waiting on numba's compile (docs/reinforce-tactics-submission.md, "numba and the first turn").

Why a process and not a thread: numba's compiler holds the interpreter lock in long stretches,
and a compile thread beside the plain planner starved it (no action sent for 35 turns, measured
there). A process has its own interpreter: the main process plays plain Python from the first
turn and never imports numba; the worker compiles the planner at a lower priority
(:data:`NICE`: it takes the CPU the planner leaves idle, the opponent's turns, another core),
says ``ready``, and from then on plans each turn on request, compiled, while the main process
waits for the answer (no CPU used there). Nothing is written to disk: no cache folder is needed.

Failure is always the plain path: no numba (``CONNECTX_NUMBA=0``, not installed, or made
unimportable: :func:`numba_present`), a worker that cannot start, dies, answers garbage or not
before the turn's deadline (then it is killed), or a compile longer than ``compile_limit``
(killed). The worker exits when the main process closes its input (the main process ended) or
when its main process is gone (checked every second, also while compiling), or after
:data:`MAX_LIFETIME` seconds.

Protocol, one JSON object a line: the main process first sends the header (how to import the
project: the bundle's ``prefix`` and ``sources``, or a repo ``root``; the agent's ``module``,
``cls`` and ``params``); the worker answers ``{"ready": compile_seconds}`` or ``{"error": ...}``.
Then each request ``{"board", "steps", "words", "seconds", "new_game"}`` gets
``{"labels": [...], "seconds": planning_seconds}`` (the turn as :meth:`Game.action_label` labels,
each a list of ``[key, value]`` pairs) or ``{"error": ...}``.

Channels: requests go on the worker's stdin; its answers come back on a pipe of their own (the
write end passed to the child, its number in the environment variable :data:`FD_VAR`). The
worker's stdout and stderr (fd 1 and 2) are ``/dev/null`` from the start, at the OS level: what
the libraries it imports print or write there (kaggle-environments says ``Loading environment
open_spiel_env failed`` on stdout where OpenSpiel is not installed; numba warns on stderr; a
native library may write to fd 1) can never reach the answers. Only this module writes on the
answer pipe, so a line there that is not a JSON object still means a broken worker.
"""
from __future__ import annotations

import atexit
import importlib
import importlib.util
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Hashable
from typing import IO, Any

from agents.reinforce_tactics import worker_boot
from base import bundle_loader
from base.bundle_loader import rendered_source
from core.reinforce_tactics import kernels as RK
from core.reinforce_tactics.kaggle import action_to_dict
from core.reinforce_tactics.layout import A_END, NUM_ACTIONS

# Niceness the worker adds to itself (Linux; ignored where unsupported). 0: on a core the main
# process also wants, the two share it evenly until the compile is done (measured: the plain
# planner 1.13x slower beside it, docs/reinforce-tactics-submission.md). 19 and 10 starved the
# compile beside a busy planner on the loaded VM (1-2 s of CPU in 4-12 minutes; no compiled
# turn in 60): the compile buys far more than it costs, so it must not wait for idle time.
NICE = 0
COMPILE_LIMIT = 1200.0  # seconds: a worker not ready by then is killed (the game goes on plain)
GRACE = 0.2  # seconds past the turn's deadline the main process still waits for the worker's answer
IPC_MARGIN = 0.05  # seconds kept back from the worker's planning budget for the round trip
# Share of the turn's time left kept back from the worker for the main process's check of its
# plan on the plain rules (RTKaggleAdapter.checked: a plain legal per entry and line of dice).
# Without it, the full validation's slowest compiled turn took 6.13 s (tower_rush against
# aggressive, 2.0 s of the bank; load 16-18): the worker had planned up to the deadline.
CHECK_SHARE = 0.15
MAX_LIFETIME = 4 * 3600.0  # seconds a worker lives at most (a main process that hangs without closing the pipe)
MAX_BOARDS = 4  # games (boards) a worker keeps an agent for
WARM_SECONDS = 2.0  # the warm-up turn's budget before "ready" (a turn search plans until its deadline)
THREAD_VARS = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")  # set to 1 in the worker
FD_VAR = "RT_WORKER_FD"  # environment variable: the worker's end of its answer pipe (module docstring: "Channels")

# Run as ``python -c BOOT``: the bundle loader, then the boot (agents/reinforce_tactics/worker_boot.py:
# reads the header, makes the project importable, then serve()), both real modules rendered here.
BOOT = (rendered_source(bundle_loader.__name__) + "\n\n" + rendered_source(worker_boot.__name__)
        + "\n\nboot_worker()\n")


def numba_present() -> bool:
    """numba may be imported here (without importing it: the main process never does):
    ``CONNECTX_NUMBA`` is not ``0`` and ``numba`` is found (a ``sys.modules["numba"] = None``
    hides it, as the no-numba validation does)."""
    if os.environ.get("CONNECTX_NUMBA", "1") == "0":
        return False
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):
        return False


def labels_from_json(rows: Any) -> list[Hashable]:
    """A worker's labels back as :meth:`Game.action_label` tuples; ValueError for anything else."""
    if not isinstance(rows, list):
        raise ValueError("labels is not a list")
    out: list[Hashable] = []
    for row in rows:
        if not isinstance(row, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in row):
            raise ValueError(f"label {row!r} is not a list of [key, value] pairs")
        out.append(tuple((k, v) for k, v in row))
    return out


class CompiledWorker:
    """The main process's side: starts the worker, notices when it is ready, asks it for turns.
    Every failure marks it ``dead`` (killed) and answers None: the caller plans plain."""

    def __init__(self, header: dict, *, compile_limit: float = COMPILE_LIMIT, nice: int = NICE,
                 command: list[str] | None = None) -> None:
        """
        header: what the worker imports and plays (module docstring: "Protocol"); ``nice`` added to it.
        compile_limit: seconds the worker may take to get ready before it is killed.
        nice: niceness the worker adds to itself (0: none).
        command: the worker's command line (tests: a fake worker); default ``python -c BOOT``.
        """
        self.compile_limit = compile_limit
        self.started = time.perf_counter()
        self.ready_after: float | None = None  # seconds from start to "ready"
        self.compile_seconds: float | None = None  # the worker's own measure of its compile
        self.dead = ""  # why the worker is no longer used ("" while it may still serve)
        self.served = 0  # turns it planned
        self._lines: queue.Queue = queue.Queue()
        self._proc: subprocess.Popen | None = None
        try:
            answers = self._start(command or [sys.executable, "-c", BOOT])
        except Exception as exc:  # no fork allowed, no interpreter, no pipes: plain
            self.dead = f"could not start ({type(exc).__name__}: {exc})"
            return
        text = json.dumps({**header, "nice": nice}) + "\n"  # the argument wins over a header's own
        threading.Thread(target=self._feed, args=(text,), name="rt-worker-feed", daemon=True).start()
        threading.Thread(target=self._read, args=(answers,), name="rt-worker-read", daemon=True).start()

    def _start(self, command: list[str]) -> IO[str]:
        """Start the worker with its answer pipe (module docstring: "Channels"); the pipe's read end."""
        read_end, write_end = os.pipe()
        try:
            env = {**os.environ, **{k: "1" for k in THREAD_VARS}, FD_VAR: str(write_end)}
            self._proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          env=env, text=True, bufsize=1, pass_fds=(write_end,))
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)  # the child's copy only: its end (exit, kill) is the reader's end of file
        return os.fdopen(read_end, "r", encoding="utf-8")

    def _feed(self, text: str) -> None:
        try:
            assert self._proc is not None and self._proc.stdin is not None
            self._proc.stdin.write(text)
            self._proc.stdin.flush()
        except Exception:  # the worker died early: _read sees its end
            pass

    def _read(self, answers: IO[str]) -> None:
        try:
            with answers:
                for line in answers:
                    self._lines.put(line)
        except Exception:
            pass
        self._lines.put(None)  # end of the worker's answers

    def _next(self, timeout: float) -> dict | None:
        """The worker's next message within ``timeout`` seconds (0: only one already there), else None."""
        try:
            line = self._lines.get(timeout=timeout) if timeout > 0 else self._lines.get_nowait()
        except queue.Empty:
            return None
        if line is None:
            self.stop("it exited")
            return None
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            self.stop(f"it wrote {line[:60]!r}")
            return None
        return msg

    def ready(self) -> bool:
        """Whether the worker has compiled and may be asked; never waits."""
        if self.dead:
            return False
        if self.ready_after is not None:
            return True
        msg = self._next(0)
        if msg is not None:
            if isinstance(msg.get("ready"), (int, float)):
                self.ready_after = time.perf_counter() - self.started
                self.compile_seconds = float(msg["ready"])
                return True
            self.stop(f"it failed to get ready: {str(msg.get('error'))[:200]}")
        elif time.perf_counter() - self.started > self.compile_limit:
            self.stop(f"not ready within {self.compile_limit:g} s")
        return False

    def plan(self, board: str, steps: int, words: Any, deadline: float, new_game: bool) -> list[Hashable] | None:
        """The turn from the state ``words`` on ``board`` planned by the worker by ``deadline``
        (``time.perf_counter()``), or None (not ready, failed, or late: then killed)."""
        if not self.ready():
            return None
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        budget = (deadline - time.perf_counter()) * (1.0 - CHECK_SHARE) - IPC_MARGIN
        request = {"board": board, "steps": steps, "words": [int(w) for w in words], "seconds": max(0.0, budget),
                   "new_game": new_game}
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
        except Exception as exc:
            self.stop(f"its input is closed ({type(exc).__name__})")
            return None
        msg = self._next(deadline + GRACE - time.perf_counter())
        if msg is None:
            self.stop("no answer before the deadline")
            return None
        try:
            labels = labels_from_json(msg["labels"])
        except (KeyError, ValueError) as exc:
            self.stop(f"a bad answer ({str(msg.get('error', exc))[:200]})")
            return None
        self.served += 1
        return labels

    def stop(self, why: str = "stopped") -> None:
        """Kill the worker (idempotent); the caller plays plain from now on."""
        self.dead = self.dead or why
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.kill()
                proc.wait(timeout=5)
            except Exception:
                pass

    def info(self) -> dict:
        return {"ready_after": self.ready_after, "compile_seconds": self.compile_seconds, "served": self.served,
                "dead": self.dead}


def plan_labels_by(g: Any, s: Any, plan: list[int], legal: Any, play: Any, buf: Any) -> list[Hashable]:
    """The labels :meth:`agents.engine.turn_plan.TurnPlanAgent.plan_labels` gives for ``plan``
    from the state ``s`` (the same rule: along the likelier outcome of each Rogue's evasion, an
    action not legal where it stands left out, stopped at the end of the game, closed by the end
    of the turn), with the rules' ``legal`` and ``play`` given: the compiled ones in the worker
    (``g``, ``s``, ``buf``: int64 arrays, ``buf`` of :data:`NUM_ACTIONS`), so that serving a
    plan does not cost a plain ``legal`` per decision. The cheap rules (whose turn, the end, the
    dice) are the plain kernels'. Checked against ``plan_labels`` on both paths in
    tests/test_build_submission_rt.py."""
    labels: list[Hashable] = []

    def likeliest(t: Any) -> Any:
        while not RK.terminal(g, t) and RK.to_move(g, t) == RK.CHANCE:
            n = legal(g, t, buf, 0)
            best, p_best = -1, -1.0
            for i in range(n):
                p = float(RK.chance_prob(g, t, int(buf[i])))
                if p > p_best:
                    best, p_best = int(buf[i]), p
            t = play(g, t, best)
        return t

    def label(t: Any, a: int) -> Hashable:
        d = action_to_dict(g, t, a)
        return tuple(sorted((k, v if isinstance(v, str) else int(v)) for k, v in d.items()))

    for a in plan:
        s = likeliest(s)
        if RK.terminal(g, s):
            return labels
        n = legal(g, s, buf, 0)
        if a not in {int(x) for x in buf[:n]}:
            continue  # not legal on this line: Kaggle would skip it too
        labels.append(label(s, a))
        s = play(g, s, a)
        if a == A_END:
            return labels
    s = likeliest(s)
    if not RK.terminal(g, s):
        labels.append(label(s, A_END))
    return labels


_SHARED: dict[str, CompiledWorker] = {}  # header key -> the live worker of this process (shared_worker)


def shared_worker(header: dict, **kwargs: Any) -> CompiledWorker:
    """The worker of this process for ``header``, started on first use and again only after it
    died: one compile per process, as numba's compiled namespaces are one per process. Kaggle
    plays one game a process; a process that loads the submission once per game (validation, a
    local tournament) compiles once. Requests are served one at a time, as the adapters that
    share it are called (a worker is not thread-safe)."""
    key = json.dumps([header.get("prefix"), header.get("root"), header.get("module"), header.get("cls"),
                      header.get("params")], sort_keys=True, default=str)
    worker = _SHARED.get(key)
    if worker is None or worker.dead:
        worker = _SHARED[key] = CompiledWorker(header, **kwargs)
        atexit.register(worker.stop, "the process exits")
    return worker


# --- the worker process ----------------------------------------------------------------------
def _say(out: IO[str], msg: dict) -> None:
    out.write(json.dumps(msg) + "\n")
    out.flush()


def _watchdog(limit: float) -> None:
    """End the worker when its main process is gone (it may be compiling, not reading its
    input) or after ``limit`` seconds."""
    parent, end = os.getppid(), time.monotonic() + limit
    while time.monotonic() < end and os.getppid() == parent:
        time.sleep(1.0)
    os._exit(3)


def serve(head: dict, inp: IO[str], out: IO[str]) -> None:
    """The worker's loop (see the module docstring): compile, say ready, plan turns until the
    input ends."""
    threading.Thread(target=_watchdog, args=(MAX_LIFETIME,), daemon=True).start()
    try:
        if head.get("nice"):
            os.nice(int(head["nice"]))
    except (AttributeError, OSError):
        pass
    try:
        prefix = head.get("prefix", "")
        base = prefix + "." if prefix else ""
        games = importlib.import_module(base + "core.reinforce_tactics")
        cls = getattr(importlib.import_module(base + head["module"]), head["cls"])
        params = dict(head.get("params") or {})

        def make(game: Any) -> Any:
            return cls(game=game, **params)

        t0 = time.perf_counter()
        first = make(games.ReinforceTactics(map="beginner"))
        warm = getattr(first, "warm_up", None)
        if callable(warm):
            warm()
        serve_turn = _turn_server(first, base)
        _say(out, {"ready": time.perf_counter() - t0})
    except BaseException as exc:  # noqa: BLE001 (numba missing, a compile error: the main process plays plain)
        _say(out, {"error": f"{type(exc).__name__}: {exc}"})
        return
    agents: dict[tuple[str, int], Any] = {}
    for line in inp:
        try:
            t0 = time.perf_counter()
            req = json.loads(line)
            deadline = t0 + float(req["seconds"])
            key = (str(req["board"]), int(req["steps"]))
            if key not in agents:
                if len(agents) >= MAX_BOARDS:
                    agents.pop(next(iter(agents)))
                agents[key] = make(games.ReinforceTactics(board=key[0], episode_steps=key[1]))
            agent = agents[key]
            if req.get("new_game") and callable(getattr(agent, "reset", None)):
                agent.reset()
            state = agent.game.new_state(req["words"])
            labels = serve_turn(agent, state, deadline)
            _say(out, {"labels": [[list(p) for p in label] for label in labels], "seconds": time.perf_counter() - t0})
        except Exception as exc:
            _say(out, {"error": f"{type(exc).__name__}: {exc}"})


def _turn_server(agent: Any, base: str) -> Any:
    """``serve(agent, state, deadline) -> labels``: the agent's ``plan_turn`` labelled by the
    compiled rules (:func:`plan_labels_by`) when the agent plans compiled (``jit`` True) and
    numba is here; else its own ``plan_labels``."""
    if getattr(agent, "jit", None) is not True or not callable(getattr(agent, "plan_turn", None)):
        return lambda a, state, deadline: a.plan_labels(state, deadline)
    import numpy as np

    jit = importlib.import_module(base + "base.jit")
    k = jit.compiled(importlib.import_module(base + "core.reinforce_tactics.kernels"))
    buf = np.empty(NUM_ACTIONS, np.int64)

    def serve_turn(a: Any, state: Any, deadline: float) -> list[Hashable]:
        plan = [int(x) for x in a.plan_turn(state, deadline)]
        g = np.asarray(a.game.g, np.int64)
        return plan_labels_by(g, np.asarray(state.words, np.int64), plan, k.legal, k.play, buf)

    # compiles what the labels need before "ready"; a short deadline, since a turn search (naive_mcts)
    # searches until it (an hour here once kept naive_mcts's worker from being ready for 12 minutes)
    serve_turn(agent, agent.game.initial(), time.perf_counter() + WARM_SECONDS)
    return serve_turn
