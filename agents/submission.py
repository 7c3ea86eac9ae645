"""The contract between the one submission builder (:mod:`util.submission_builder`, run as
``python build_submission.py --game G``) and a game that has a Kaggle adapter: the game's
*submission hooks*, a module of its agents package named by ``SUBMISSION`` in the game's agent
table (:func:`agents.registry.submission_hooks`). :class:`SubmissionHooks` lists what such a
module defines; the builder asks it and names no game. Also here: what hooks and builder share
(the agent target, the errors, a class's submission defaults, the data an agent embeds).
"""
from __future__ import annotations

import argparse
import dataclasses
import math
from pathlib import Path
from typing import Any, Protocol

from base import codec


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit 2."""


class BuildFailed(Exception):
    """The build or its validation failed: printed with the reason, exit 1."""


@dataclasses.dataclass
class Target:
    label: str  # registry name or module:Class, for messages
    module: str  # e.g. "agents.connectx.rules"
    cls: type  # the agent class


@dataclasses.dataclass
class Prepared:
    """What a game's hooks make of the agent and its parameters, for the builder to bundle."""

    defaults: dict[str, Any]  # the class's submission defaults that the parameters left unset (printed)
    params: dict[str, Any]  # the converted parameters the file builds the agent with
    data: str | None = None  # the agent's data packed by base.codec (None: nothing embedded)
    roots: list[str] = dataclasses.field(default_factory=list)  # more modules to bundle than the agent's (the adapter, ...)
    literals: dict[str, Any] = dataclasses.field(default_factory=dict)  # more names the file's tail reads
    prefix_key: tuple = ()  # what, beside the modules, makes the bundle's private package name
    lines: list[str] = dataclasses.field(default_factory=list)  # printed after the build's first lines
    # The agent and converted parameters the file's own process builds, when not the target's: a plain
    # stand-in while the target plays in a compiled worker (Reinforce Tactics' --plain-agent); None: the target.
    stand_in: tuple[Target, dict[str, Any]] | None = None


class SubmissionHooks(Protocol):
    """A game's submission hooks (``agents/<game>/submission.py``), asked by the one builder."""

    TITLE: str  # the game's name in the file's docstring and messages
    ENVIRONMENT: str  # kaggle-environments' name of the game (the validators make it)
    DEFAULT_OUTPUT: str  # the file written without --output, relative to the repo
    TAIL: str  # the module whose rendered part ends the file (base.bundle_file.render)
    VALIDATOR: str  # the validation script, relative to the repo, run as ``python -I VALIDATOR FILE ...``
    OPTIONS: dict[str, Any]  # the shared options' defaults here: workers, timeout, max_bank
    USAGE: str  # --help's text: its first paragraph the description, the rest the epilog

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...
    def check_arguments(self, args: argparse.Namespace) -> None: ...  # UsageError for bad values
    def resolve_agent(self, text: str | None) -> tuple[Target, dict[str, str]]: ...
    def list_agents(self) -> str: ...
    def prepare(self, target: Target, params: dict[str, Any], args: argparse.Namespace) -> Prepared: ...
    def validation_jobs(self, args: argparse.Namespace, tmp: Path) -> list[tuple[list[str], Path]]: ...  # the no-numba job last
    def validation_games(self, args: argparse.Namespace) -> int: ...  # games of all jobs (progress)
    def validation_env(self, env: dict[str, str]) -> dict[str, str]: ...  # the validators' environment
    def announce(self, args: argparse.Namespace) -> str: ...  # the "validating: ..." line
    def describe_game(self, game: dict, report: dict) -> str: ...  # one game for its progress line
    def summarize(self, reports: list[dict], no_numba: dict, args: argparse.Namespace) -> tuple[list[str], list[str]]: ...


def submission_defaults(target: Target, params: dict[str, Any]) -> dict[str, Any]:
    """The agent class's ``SUBMISSION_DEFAULTS`` that ``params`` leave unset: what a Kaggle
    file should use where a long-lived process would not (``rules`` runs in plain Python: its
    numba compile cost more than a whole game saves)."""
    defaults = getattr(target.cls, "SUBMISSION_DEFAULTS", None) or {}
    return {k: v for k, v in defaults.items() if k not in params}


def data_source(agent: Any) -> str | None:
    """The file the agent's ``bundle_data()`` reads, when it says (``data_source()``, or
    ``cache_path()`` of the tree searches); None or "" when it is configured without one."""
    for name in ("data_source", "cache_path"):
        method = getattr(agent, name, None)
        if callable(method):
            try:
                return method() or None
            except Exception:
                return None
    return None


def _data_error(exc: BaseException) -> str:
    """A data file's refusal in words fit for a damaged file: numpy's message for a file that
    is not plain arrays suggests ``allow_pickle``, which would unpickle whatever is in it."""
    text = str(exc) or type(exc).__name__
    if "pickle" in text.lower():
        return "it is not an .npz of plain arrays (damaged, or not this agent's data file)"
    return text if isinstance(exc, ValueError) else f"{type(exc).__name__}: {text}"


def agent_data(target: Target, agent: Any, no_data: bool) -> str | None:
    """The agent's data packed for the file (None: nothing to embed). A data file the agent is
    configured to read but cannot (missing, damaged) is a UsageError naming it; ``no_data``
    (``--no-data``) builds without any data, on purpose."""
    bundle_data = getattr(agent, "bundle_data", None)
    if no_data or not callable(bundle_data):
        return None
    source = data_source(agent)
    try:
        value = bundle_data()
    except Exception as exc:
        reason = _data_error(exc)
        where = "" if source is None or source in reason else f" {source}"
        fix = "" if "rebuild" in reason else "rebuild the file (data/README.md) or "
        raise UsageError(f"cannot embed the data file{where} of agent {target.label}: {reason}; "
                         f"{fix}pass --no-data to build without it") from None
    if value is None:
        if source is not None:
            raise UsageError(f"data file {source} of agent {target.label} is missing; build it (data/README.md) "
                             "or pass --no-data for a build without it")
        return None
    try:
        return codec.roundtrip(value)
    except codec.CodecError as exc:
        raise BuildFailed(f"{target.label}.bundle_data() cannot be embedded: {exc}") from None


EMBEDDED_FILES = ("weights",)
"""Agent parameters whose file a submission carries inline (a learned evaluation's weights):
the file's bytes packed by :mod:`base.codec` replace its path (:func:`embed_files`)."""
MAX_EMBEDDED_BYTES = 16 << 20  # one embedded file, at most (a model of MAX_HIDDEN units is far smaller)


def embed_files(params: dict[str, Any], label: str) -> dict[str, Any]:
    """``params`` with the file each of :data:`EMBEDDED_FILES` names replaced by its bytes
    packed by :mod:`base.codec` (what the agent reads where the file is not: Kaggle). UsageError
    in one line when the file cannot be read, is not a regular file or is too large."""
    out = dict(params)
    for key in EMBEDDED_FILES:
        value = str(out.get(key) or "").strip()
        if not value or codec.is_packed(value):
            continue
        path = Path(value).expanduser()
        try:
            if not path.is_file():
                raise UsageError(f"cannot embed {key}={value} of agent {label}: not a regular file")
            if path.stat().st_size > MAX_EMBEDDED_BYTES:
                raise UsageError(f"cannot embed {key}={value} of agent {label}: over {MAX_EMBEDDED_BYTES >> 20} MiB")
            raw = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot embed {key}={value} of agent {label}: {exc.strerror or exc}") from None
        out[key] = codec.pack(raw)
    return out


def seconds(low: float, high: float | None, zero_ok: bool = False) -> Any:
    """argparse type: a finite number of seconds above ``low`` (or equal, when ``zero_ok``), at
    most ``high``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        ok = math.isfinite(value) and (value >= low if zero_ok else value > low) and (high is None or value <= high)
        if not ok:
            bound = f"{'at least' if zero_ok else 'more than'} {low:g}" + ("" if high is None else f" and at most {high:g}")
            raise argparse.ArgumentTypeError(f"{text!r} must be a number of seconds {bound}")
        return value
    return parse
