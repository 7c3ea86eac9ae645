"""Build one agent into a single self-contained Kaggle submission file, then validate it.

    python build_submission.py                       # strongest available agent -> submissions/submission.py
    python build_submission.py --agent rules --output submissions/rules.py
    python build_submission.py --agent alphabeta --param max_depth=6 --params tuned.json --games 40
    python build_submission.py --agent mypkg.module:MyAgent --no-validate
    python build_submission.py --list                # agents and their parameters with defaults
    python build_submission.py --game reinforce_tactics   # Reinforce Tactics: --game reinforce_tactics --help

The file embeds every project module the agent imports (each in its own namespace, under a
private package name), the agent's data (``bundle_data()``, packed by :mod:`base.codec`), the
clock policy, and ends with ``def agent(observation, configuration)``. Validation loads it in a
fresh Python that cannot see this repo, exactly as kaggle-environments does, plays ``--games``
games against ``negamax`` and against ``random`` (seats alternating), plays one more game with
numba made unimportable, and fails (exit 1) on any error, invalid move or timeout, and when the
first move of a fresh process (every Kaggle game starts one) exceeds ``--max-first-move``.

The file is written beside ``--output`` under a temporary name, validated there, and only then
moved over ``--output`` (atomically): a failed build never replaces a good file; it is kept as
``NAME.failed.py`` beside it. Bad options, agents or parameters, an ``--output`` that cannot be
written and a missing or damaged data file (the book, an MCTS cache: ``--no-data`` builds
without) exit 2 with one line, before any work. Details: ``submissions/README.md``.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import statistics
from pathlib import Path
from typing import Any

from agents.connectx import registry
from agents.submission import BuildFailed, Prepared, Target, UsageError, agent_data, seconds, submission_defaults
from base.cli import int_in

# --- what the builder reads (agents.submission.SubmissionHooks) ------------------------------------
USAGE = __doc__ or ""
TITLE = "ConnectX"
ENVIRONMENT = "connectx"
DEFAULT_OUTPUT = "submissions/submission.py"
TAIL = "agents.connectx.file_tail"
VALIDATOR = "util/bundle_validate.py"
OPTIONS: dict[str, Any] = {"workers": 1, "timeout": 1800.0, "max_bank": 45.0}
LOADER_MODULES = ("agents.connectx.kaggle", "base.clock", "base.codec")  # what the file's tail imports
OPPONENTS = "negamax,random"  # kaggle-environments' built-ins each validation game plays against, in turn
MAX_GAMES = 100_000  # validation games against each opponent


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", type=int_in(None, None), default=20, help="validation games against each opponent (default 20)")
    p.add_argument("--max-first-move", type=seconds(0.0, None), default=None, metavar="SECONDS",
                   help="fail when the first move of a fresh validation process takes longer (default: actTimeout, 2 s)")
    p.add_argument("--no-data", action="store_true",
                   help="build without the agent's data file (book, MCTS opening cache); without it, a missing data file is an error")


def check_arguments(args: argparse.Namespace) -> None:
    if not 1 <= args.games <= MAX_GAMES:
        raise UsageError(f"--games must be at least 1 and at most {MAX_GAMES:,}")


# --- the agent ------------------------------------------------------------------------------------
def resolve_agent(text: str | None) -> tuple[Target, dict[str, str]]:
    """``rules``, ``alphabeta:max_depth=6`` (registry spec) or ``package.module:Class``."""
    if not text:
        available = registry.names()
        if not available:
            raise UsageError("no agent is available to build; see --list")
        text = available[0]
    name, _, rest = text.partition(":")
    if name in registry.AGENT_CLASSES or not rest or "=" in rest:
        name, spec_params = registry.parse_spec(text)
        cls = registry.agent_class(name)
        return Target(name, cls.__module__, cls), spec_params
    module_name, cls_name = name.strip(), rest.strip()
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import module {module_name!r} of --agent {text!r} ({exc}); valid agents: {', '.join(registry.names())}") from None
    found = getattr(module, cls_name, None)
    if not isinstance(found, type) or not dataclasses.is_dataclass(found):
        raise UsageError(f"{module_name} has no agent dataclass {cls_name!r}; an agent is a dataclass on "
                         "agents.connectx.base.PositionAgent with choose_position(position, deadline)")
    return Target(f"{module_name}:{cls_name}", module_name, found), {}


def make_agent(target: Target, params: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The agent built with ``params`` (strings converted to each field's type, as the
    registry does), and the converted parameters to embed."""
    kwargs = registry.convert_params(target.cls, target.label, params)
    try:
        return target.cls(**kwargs), kwargs
    except (TypeError, ValueError) as exc:
        raise registry.SpecError(f"agent {target.label!r}: {exc}") from None
    except Exception as exc:
        raise BuildFailed(f"creating agent {target.label!r} failed: {type(exc).__name__}: {exc}") from None


def list_agents() -> str:
    lines = []
    for name in registry.AGENT_CLASSES:
        try:
            params = registry.parameters(name)
        except registry.SpecError:
            lines.append(f"{name}: (not available yet)")
            continue
        shown = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(no parameters)"
        lines.append(f"{name}: {shown}")
    lines.append(f"default (no --agent): {(registry.names() or ['none'])[0]}")
    return "\n".join(lines)


def prepare(target: Target, params: dict[str, Any], args: argparse.Namespace) -> Prepared:
    """The agent built once with its submission defaults under ``params``, and its data to embed."""
    defaults = submission_defaults(target, params)
    agent, converted = make_agent(target, {**defaults, **params})
    data = agent_data(target, agent, args.no_data)
    return Prepared(defaults, converted, data, roots=list(LOADER_MODULES),
                    prefix_key=(target.module, target.cls.__name__, converted, data))


# --- validating ------------------------------------------------------------------------------------
def validation_jobs(args: argparse.Namespace, tmp: Path) -> list[tuple[list[str], Path]]:
    """``--games`` games against each opponent shared among ``--workers`` processes (seats
    alternating across them), then one game against random with numba made unimportable."""
    jobs = []
    per = [args.games // args.workers + (1 if w < args.games % args.workers else 0) for w in range(args.workers)]
    first = 0
    for w, n in enumerate(per):
        if n:
            jobs.append((["--games", str(n), "--opponents", OPPONENTS, "--first-seat", str(first % 2), "--seed", str(args.seed + w)],
                         tmp / f"w{w}.json"))
        first += n
    jobs.append((["--games", "1", "--opponents", "random", "--no-numba", "--seed", str(args.seed + 99)], tmp / "nonumba.json"))
    return jobs


def validation_games(args: argparse.Namespace) -> int:
    return len(OPPONENTS.split(",")) * args.games + 1


def validation_env(env: dict[str, str]) -> dict[str, str]:
    return env


def announce(args: argparse.Namespace) -> str:
    return (f"validating: {args.games} games against {' and against '.join(OPPONENTS.split(','))} (seats alternating), "
            "in a process without the repo ...")


def summarize(reports: list[dict], no_numba: dict, args: argparse.Namespace) -> tuple[list[str], list[str]]:
    return summary(reports, no_numba, args.max_bank, args.max_first_move)


def describe_game(g: dict, report: dict) -> str:
    """A validation game for its progress line."""
    result = {1: "won", -1: "lost", 0: "drawn"}.get(g["reward"], f"reward {g['reward']}") if g["status"] == "DONE" else g["status"]
    slowest = max(g["durations"], default=0.0)
    return (f"against {g['opponent']}{' (no numba)' if report.get('no_numba') else ''} in seat {g['seat']}: {result}, "
            f"{len(g['durations'])} moves, slowest {slowest:.2f} s")


def first_moves(reports: list[dict], no_numba: dict) -> list[tuple[str, float, float]]:
    """``(which process, first move's seconds, actTimeout)`` of each validation process: its
    first game's first move is a fresh process's, as every Kaggle game's is."""
    out = []
    for i, rep in enumerate(reports + [no_numba]):
        games = rep.get("games") or []
        if games and games[0]["durations"]:
            g = games[0]
            who = "without numba" if rep.get("no_numba") else f"process {i + 1}"
            out.append((f"{who}, as {'first' if g['seat'] == 0 else 'second'} player", g["durations"][0], g["act_timeout"]))
    return out


def summary(reports: list[dict], no_numba: dict, max_bank: float = 45.0, max_first_move: float | None = None) -> tuple[list[str], list[str]]:
    """Printable lines and the reasons validation fails (empty: passed). ``max_first_move``:
    the limit on the first move of a fresh process (None: the games' actTimeout)."""
    lines: list[str] = []
    failures: list[str] = []
    for rep in reports + [no_numba]:
        if "fatal" in rep:
            failures.append(("without numba: " if rep.get("no_numba") else "") + rep["fatal"])
    if failures:
        return lines, failures
    load = reports[0]["load"]
    if load["callable"] != "agent" or load["argcount"] != 2:
        failures.append(f"the last callable is {load['callable']} with {load['argcount']} arguments, not agent(observation, configuration)")
    if load["errors"]:
        failures.append("loading the file: " + "; ".join(load["errors"]))
    firsts = first_moves(reports, no_numba)
    lines.append(
        f"  load {load['load_s'] * 1000:.0f} ms; first move of each fresh process: "
        + ", ".join(f"{s:.2f} s ({who})" for who, s, _ in firsts)
        + " (agent creation, kernel compilation and the move; on Kaggle loading adds to it)"
    )
    for who, took, act in firsts:
        limit = act if max_first_move is None else max_first_move
        if took > limit:
            failures.append(f"the first move of a fresh process took {took:.2f} s ({who}), over "
                            f"{'actTimeout' if max_first_move is None else '--max-first-move'} {limit:g} s: every Kaggle game "
                            "starts a fresh process; load or compile less in the first move (or pass --max-first-move)")
    games = [g for rep in reports for g in rep["games"]]
    durations = []
    for opp in dict.fromkeys(g["opponent"] for g in games):
        mine = [g for g in games if g["opponent"] == opp]
        wins = sum(g["reward"] == 1 for g in mine)
        losses = sum(g["reward"] == -1 for g in mine)
        draws = sum(g["reward"] == 0 for g in mine)
        bad = {s: sum(g["status"] == s for g in mine) for s in ("INVALID", "ERROR", "TIMEOUT")}
        errors = sum(g["error_count"] for g in mine)
        late = sum(g["late"] for g in mine)
        lines.append(
            f"  vs {opp}: {len(mine)} games, {wins} won, {draws} drawn, {losses} lost; "
            f"invalid {bad['INVALID']}, errors {bad['ERROR']}, timeouts {bad['TIMEOUT']}; adapter errors {errors}, late moves {late}"
        )
        if any(bad.values()) or errors:
            failures.append(f"against {opp}: invalid {bad['INVALID']}, errors {bad['ERROR']}, timeouts {bad['TIMEOUT']}, adapter errors {errors}")
            failures += [f"  {e}" for g in mine for e in g["errors"]][:3]
        durations += [d for g in mine for d in g["durations"]]
    if durations:
        d, g, i = max(((d, g, i) for g in games for i, d in enumerate(g["durations"])), key=lambda t: t[0])
        where = f"our move {i + 1} as {'first' if g['seat'] == 0 else 'second'} player against {g['opponent']}"
        lines.append(
            f"  move time: median {statistics.median(durations) * 1000:.1f} ms, max {d * 1000:.0f} ms "
            f"over {len(durations)} moves (slowest: {where})"
        )
    if games:
        worst = max(games, key=lambda g: g["bank_used"])
        lines.append(
            f"  overage bank used: at most {worst['bank_used']:.2f} s of 60 in one game "
            f"(moves over actTimeout {worst['act_timeout']:g} s; later games reuse compiled kernels, Kaggle games do not)"
        )
        if worst["bank_used"] > max_bank:
            failures.append(f"one game used {worst['bank_used']:.1f} s of the 60 s overage bank (limit --max-bank {max_bank:g}): "
                            "a slower machine would time out; compile less, or earlier")
        elif worst["bank_used"] > 15:
            lines.append(f"  warning: {worst['bank_used']:.1f} s of the bank in one game leaves little for a slower machine")
    nn = no_numba["games"]
    status = ", ".join(f"{g['status']} (reward {g['reward']})" for g in nn)
    nn_first = nn[0]["durations"][0] if nn and nn[0]["durations"] else float("nan")
    lines.append(f"  without numba: {len(nn)} game vs random: {status}; first move {nn_first:.2f} s")
    if no_numba["numba_loaded"]:
        failures.append("the no-numba check still loaded numba")
    if any(g["status"] != "DONE" or g["error_count"] for g in nn) or no_numba["load"]["errors"]:
        failures.append("without numba: " + "; ".join([g["status"] for g in nn] + [e for g in nn for e in g["errors"]][:3]))
    for g in games:
        if g["status"] != "DONE" and not any(g["status"] == s for s in ("INVALID", "ERROR", "TIMEOUT")):
            failures.append(f"unexpected final status {g['status']!r} against {g['opponent']}")
    return lines, failures
