"""The parts of the one submission builder (:mod:`util.submission_builder`) that know no game's
hooks: its errors and exit codes (the errors and the agent target are :mod:`agents.submission`'s,
re-exported here), parameters from the command line and from a file, the clock policy option,
the output file (checked before any work, written beside, validated, then moved over
atomically), the validation processes (started in process groups, stopped with their children)
and their time bound and progress lines. Imports no game and no agent.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.submission import BuildFailed, UsageError
from base.bounds import SECONDS_MAX, as_float
from base.cli import exit_code as interrupt_code
from base.cli import raise_if_signalled, read_text_file, signal_name, signals_at_checkpoints, stop_on_signals, unwritable
from base.clock import ClockPolicy

ROOT = Path(__file__).resolve().parent.parent


def load_params_file(path: str) -> dict[str, Any]:
    """A JSON object of parameters, or ``{"params": {...}}`` (e.g. a tuning result)."""
    try:
        data = json.loads(read_text_file(path, "--params file"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"--params file {path} is not valid JSON: {exc}") from None
    except ValueError as exc:  # missing, unreadable, not a regular file, not text
        raise UsageError(str(exc)) from None
    except RecursionError:
        raise UsageError(f"--params file {path} is nested too deeply") from None
    if isinstance(data, dict) and isinstance(data.get("params"), dict):
        data = data["params"]
    if not isinstance(data, dict):
        raise UsageError(f"--params file {path} must hold a JSON object of parameters")
    return data


def parse_pairs(items: list[str], option: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"bad {option} {item!r}: write {option} key=value")
        out[key.strip()] = value.strip()
    return out


def clock_policy(pairs: dict[str, str]) -> dict[str, float]:
    valid = [f.name for f in dataclasses.fields(ClockPolicy)]
    out = {}
    for key, value in pairs.items():
        if key not in valid:
            raise UsageError(f"unknown --clock setting {key!r}; valid settings: {', '.join(valid)}")
        try:
            out[key] = as_float(value, f"--clock {key}", 0.0, SECONDS_MAX)
        except ValueError as exc:
            raise UsageError(f"{exc} (seconds)") from None
    try:
        ClockPolicy(**out)
    except ValueError as exc:
        raise UsageError(f"--clock: {exc}") from None
    return out


def git_output(*args: str) -> str:
    """``git ARGS`` run in the repository: its output, or "" when git fails or is absent."""
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def check_output(output: Path) -> None:
    """UsageError unless ``output`` can be written (:func:`base.cli.unwritable`: the one check of
    every command's output path), before any work."""
    why = unwritable(output)
    if why:
        hint = f"give a file name such as {output / 'submission.py'}" if output.is_dir() else "choose another --output"
        raise UsageError(f"--output {why}; {hint}")


def failed_path(output: Path) -> Path:
    """Where a build that failed validation is kept: ``good.py`` -> ``good.failed.py``."""
    return output.with_name(f"{output.stem}.failed{output.suffix or '.py'}")


def write_beside(output: Path, text: str) -> Path:
    """``text`` in a new temporary ``.py`` file in ``output``'s folder (the same file system,
    so that os.replace moves it over ``output`` atomically), with ordinary permissions."""
    output.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=output.parent, prefix=f".{output.stem}.building-", suffix=".py")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(name, 0o666 & ~umask)  # mkstemp makes 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def start_validator(cmd: list[str], cwd: Path, env: dict[str, str], started: list[subprocess.Popen]) -> subprocess.Popen:
    """A validation process, appended to ``started`` before any signal can interrupt (one that
    comes meanwhile is raised after), in a process group of its own: :func:`stop_validators`
    then stops it with everything it started (the submission's compiled worker), and a
    terminal's Ctrl-C reaches the builder alone, which stops them."""
    with signals_at_checkpoints():
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        started.append(proc)
    raise_if_signalled()
    return proc


def stop_validators(started: list[subprocess.Popen], tmp: Path) -> None:
    """Kill every validation process of ``started`` with its process group (its children, the
    compiled workers, included) and remove the validation folder ``tmp``: the end of validation,
    passed, failed or interrupted (a second signal meanwhile is only recorded)."""
    with signals_at_checkpoints():
        for proc in started:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the group outlives its leader: also after it exited
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
            if proc.stderr:
                proc.stderr.close()
        shutil.rmtree(tmp, ignore_errors=True)


def wait_for(proc: subprocess.Popen, left: float, timeout: float, tick: Callable[[], None] | None = None) -> None:
    """Wait ``left`` seconds for a validation process; BuildFailed naming ``--timeout`` after that.
    ``tick``: called every :data:`TICK` seconds meanwhile and once at the end (progress)."""
    end = time.monotonic() + max(0.0, left)
    while True:
        try:
            proc.wait(timeout=max(0.0, min(end - time.monotonic(), TICK if tick else math.inf)))
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() >= end:
                raise BuildFailed(f"validation took longer than {timeout:g} s (--timeout); use fewer --games") from None
        finally:
            if tick is not None:
                tick()


TICK = 1.0  # seconds between wait_for's calls of its tick


def read_report(path: Path) -> dict:
    """A validation process's JSON report as it stands ({} while there is none): the validators
    replace it whole after each game, with ``finished`` set at their end."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return report if isinstance(report, dict) else {}


class Progress:
    """One line per validation game as it ends, read from the validators' reports: the running
    count (k/N), the game's result (``describe(game, report)``) and an estimate of the time left
    (the time so far over the games so far, for the games left; the processes play in parallel)."""

    def __init__(self, total: int, describe: Callable[[dict, dict], str], reports: list[Path]) -> None:
        self.total, self.describe, self.reports = total, describe, reports
        self.started = time.monotonic()
        self.shown: dict[Path, int] = {}  # report -> its games already printed
        self.done = 0

    def __call__(self) -> None:
        """Print the games that ended since the last call."""
        for path in self.reports:
            report = read_report(path)
            games = report.get("games") or []
            for game in games[self.shown.get(path, 0):]:
                self.done += 1
                print(self.line(game, report), flush=True)
            self.shown[path] = max(self.shown.get(path, 0), len(games))

    def line(self, game: dict, report: dict) -> str:
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * max(0, self.total - self.done)
        return (f"  game {self.done}/{self.total}: {self.describe(game, report)}; "
                f"{duration(elapsed)} so far, about {duration(left)} left")


def duration(seconds: float) -> str:
    """``seconds`` for a progress line: ``42 s``, ``7.5 min``, ``1.3 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


MAX_WORKERS = 256  # validation processes


def write_validated(output: Path, shown: Any, text: str, check: Any) -> int:
    """``text`` written beside ``output``, checked by ``check(temp)`` (None: no validation;
    it raises BuildFailed to refuse), then moved over ``output`` atomically: the end of the
    builder's ``run``."""
    with signals_at_checkpoints():  # a signal while the file is made is raised where the file is removed
        temp = write_beside(output, text)
    try:
        raise_if_signalled()
        if check is not None:
            check(temp)
        os.replace(temp, output)
    finally:
        temp.unlink(missing_ok=True)
    print(f"wrote {shown}" + ("" if check is None else "\nOK: ready to submit"))
    return 0


def shown_path(path: Path) -> Path:
    """``path`` relative to the working folder when it is inside it (for messages)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def exit_code(run_: Any, argv: list[str] | None, usage_errors: tuple[type[Exception], ...] = ()) -> int:
    """``run_(argv)``'s exit code, a builder's errors as one line each (usage 2, a failed build
    1, a write error 2, Ctrl-C 130, SIGTERM 143): the builder's one error policy. ``usage_errors``:
    more exceptions that mean bad input (the registry's SpecError: this layer imports no agent)."""
    bad_input: tuple[type[Exception], ...] = (UsageError, *usage_errors)
    try:
        with stop_on_signals():  # SIGTERM like Ctrl-C: validators stopped, temporary files removed
            return run_(argv)
    except bad_input as exc:
        print(f"build_submission.py: error: {exc}", file=sys.stderr)
        return 2
    except BuildFailed as exc:
        print(f"build_submission.py: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a full disk, a folder gone while building
        print(f"build_submission.py: error: cannot write {exc.filename or 'the submission'}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(f"build_submission.py: interrupted ({signal_name(exc)})", file=sys.stderr)
        return interrupt_code(exc)
