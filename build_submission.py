"""Build one agent into a single self-contained Kaggle submission file, then validate it.

    python build_submission.py                       # strongest available agent -> submissions/submission.py
    python build_submission.py --agent rules --output submissions/rules.py
    python build_submission.py --agent alphabeta --param max_depth=6 --params tuned.json --games 40
    python build_submission.py --agent mypkg.module:MyAgent --no-validate
    python build_submission.py --list                # agents and their parameters with defaults
    python build_submission.py --game reinforce_tactics   # Reinforce Tactics: build_submission_rt.py

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
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.connectx import registry  # noqa: E402
from base import codec  # noqa: E402
from base.bundle import LOADER_MODULES, PROJECT_PACKAGES, BundleError, bundle_prefix, dynamic_imports, import_graph  # noqa: E402
from base.bundle_file import render  # noqa: E402
from base.cli import SEED, int_in  # noqa: E402
from util.submission_build import (  # noqa: E402  (the builders' shared parts, re-exported here)
    MAX_GAMES,
    MAX_WORKERS,
    BuildFailed,
    Progress,
    Target,
    UsageError,
    check_output,
    clock_policy,
    exit_code,
    failed_path,
    git_output,
    load_params_file,
    parse_pairs,
    read_report,
    seconds,
    shown_path,
    start_validator,
    stop_validators,
    submission_defaults,
    wait_for,
    write_validated,
)

DEFAULT_OUTPUT = ROOT / "submissions" / "submission.py"
VALIDATOR = ROOT / "util" / "bundle_validate.py"
SIZE_WARNING = 5 * 2**20  # bytes








# --- choosing the agent and its parameters --------------------------------------------------
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


# --- building ---------------------------------------------------------------------------------


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


def build(target: Target, agent: Any, params: dict[str, Any], clock: dict[str, float], data: str | None, output: Path) -> dict[str, Any]:
    """The submission's text (compiled once to check it) and facts for the summary; ``output``
    is the name shown in tracebacks of the check."""
    top = target.module.split(".")[0]
    folders = {name: ROOT for name in PROJECT_PACKAGES}
    if top not in folders:  # an agent kept outside the repo: bundle its own package too
        top_module = sys.modules.get(top) or importlib.import_module(top)
        origin = Path(getattr(top_module, "__file__", "") or ".")
        folders[top] = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    packages = tuple(folders)
    try:
        modules, missing = import_graph(folders, [target.module, *LOADER_MODULES], packages)
    except BundleError as exc:
        raise BuildFailed(str(exc)) from None
    warnings = [f"imported project module has no file (optional import?): {m}" for m in missing]
    for mod in modules.values():
        warnings += [f"a project module named in a string is not bundled: {where}" for where in dynamic_imports(mod, packages)]
    commit = git_output("rev-parse", "--short", "HEAD") or "?"
    paths = [m.path for m in modules.values() if Path(m.path).is_relative_to(ROOT)]
    if commit != "?" and git_output("status", "--porcelain", "--", *paths):
        commit += "+local changes"
    prefix = bundle_prefix(modules, repr((target.module, target.cls.__name__, params, clock, data)))
    meta = {"label": target.label, "built": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit}
    try:
        text = render(modules, prefix, target.module, target.cls.__name__, params, clock, data, meta)
    except (ValueError, BundleError) as exc:
        raise BuildFailed(str(exc)) from None
    compile(text, str(output), "exec")
    return {"text": text, "modules": list(modules), "size": len(text.encode()), "data": len(data or ""), "prefix": prefix, "warnings": warnings}


# --- the output file ----------------------------------------------------------------------------






# --- validating -------------------------------------------------------------------------------
def _run_validators(path: Path, games: int, workers: int, seed: int, timeout: float) -> tuple[list[dict], dict]:
    """Worker reports with numba as Kaggle has it, and one no-numba report."""
    tmp = Path(tempfile.mkdtemp(prefix="connectx-validate-"))
    jobs = []
    per = [games // workers + (1 if w < games % workers else 0) for w in range(workers)]
    first = 0
    for w, n in enumerate(per):
        if n:
            jobs.append((["--games", str(n), "--first-seat", str(first % 2), "--seed", str(seed + w)], tmp / f"w{w}.json"))
        first += n
    jobs.append((["--games", "1", "--opponents", "random", "--no-numba", "--seed", str(seed + 99)], tmp / "nonumba.json"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONNECTX_NUMBA")}  # as on Kaggle
    pending = list(enumerate(jobs))
    progress = Progress(2 * games + 1, describe_game, [out for _, out in jobs])  # each game against negamax and random; no numba
    running: list[tuple[int, subprocess.Popen, Path]] = []
    started: list[subprocess.Popen] = []
    results: dict[int, dict] = {}
    give_up = time.monotonic() + timeout
    try:
        while pending or running:
            while pending and len(running) < workers:
                i, (extra, out) = pending.pop(0)
                cmd = [sys.executable, "-I", str(VALIDATOR), str(path), "--repo", str(ROOT), "--out", str(out), *extra]
                running.append((i, start_validator(cmd, tmp, env, started), out))
            i, proc, out = running[0]
            wait_for(proc, give_up - time.monotonic(), timeout, progress)
            running.pop(0)
            results[i] = read_report(out)
            if not results[i].get("finished"):  # written after each game: only a finished one counts
                tail = (proc.stderr.read() if proc.stderr else "").strip().splitlines()[-3:]
                raise BuildFailed(f"validation process failed (exit {proc.returncode}): {' | '.join(tail)}")
    finally:  # a failure, Ctrl-C or SIGTERM leaves no validation process (nor its children) behind
        stop_validators(started, tmp)
    reports = [results[i] for i in sorted(results)]
    return reports[:-1], reports[-1]




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


def summarize(reports: list[dict], no_numba: dict, max_bank: float = 45.0, max_first_move: float | None = None) -> tuple[list[str], list[str]]:
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


# --- command line -----------------------------------------------------------------------------




class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = _Parser(prog="build_submission.py", description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("--agent", help="registry name (see --list), a spec such as alphabeta:max_depth=6, or package.module:Class; "
                                   "default: the strongest available")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="an agent parameter (repeatable); overrides --params")
    p.add_argument("--params", metavar="FILE.json", help='JSON object of parameters, or {"params": {...}}')
    p.add_argument("--clock", action="append", default=[], metavar="KEY=SECONDS",
                   help="clock policy (base.clock.ClockPolicy): margin, overage_per_move, reserve, min_budget")
    p.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help=f"where to write the file (default {DEFAULT_OUTPUT.relative_to(ROOT)})")
    p.add_argument("--games", type=int_in(None, None), default=20, help="validation games against each opponent (default 20)")
    p.add_argument("--workers", type=int_in(None, None), default=1, help="validation processes (default 1)")
    p.add_argument("--seed", type=SEED, default=0, help="seed for the opponents' randomness during validation")
    p.add_argument("--timeout", type=seconds(0.0, None), default=1800, help="seconds before validation gives up (default 1800)")
    p.add_argument("--max-bank", type=seconds(0.0, 60.0, zero_ok=True), default=45.0, metavar="SECONDS",
                   help="fail when one validation game uses more of the 60 s overage bank (default 45)")
    p.add_argument("--max-first-move", type=seconds(0.0, None), default=None, metavar="SECONDS",
                   help="fail when the first move of a fresh validation process takes longer (default: actTimeout, 2 s)")
    p.add_argument("--no-data", action="store_true",
                   help="build without the agent's data file (book, MCTS opening cache); without it, a missing data file is an error")
    p.add_argument("--no-validate", action="store_true", help="only build")
    p.add_argument("--list", action="store_true", help="list agents and their parameters with defaults, then exit")
    p.add_argument("--game", default="connectx", help="the game: connectx (the board comes from Kaggle's configuration) "
                                                    "or reinforce_tactics (build_submission_rt.py; --game reinforce_tactics --help)")
    args = p.parse_args(argv)
    if args.game.partition(":")[0].strip() != "connectx":
        raise UsageError(f"Kaggle submissions exist for connectx and reinforce_tactics, not {args.game!r} "
                         "(other games: python -m util.arena.tournament/util.arena.play --game NAME)")
    if not 1 <= args.games <= MAX_GAMES or not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--games must be at least 1 and at most {MAX_GAMES:,}, --workers at least 1 and at most {MAX_WORKERS}")
    return args


def run(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        print(list_agents())
        return 0
    output = args.output.resolve()
    check_output(output)
    target, params = resolve_agent(args.agent)
    if args.params:
        params = {**load_params_file(args.params), **params}
    params.update(parse_pairs(args.param, "--param"))
    defaults = submission_defaults(target, params)
    clock = clock_policy(parse_pairs(args.clock, "--clock"))
    agent, converted = make_agent(target, {**defaults, **params})
    data = agent_data(target, agent, args.no_data)
    facts = build(target, agent, converted, clock, data, output)
    shown = shown_path(output)
    print(f"building {shown}: agent {target.label} ({target.module}:{target.cls.__name__}), parameters {converted or '(defaults)'}")
    if defaults:
        print(f"  submission defaults of {target.cls.__name__}: {', '.join(f'{k}={v!r}' for k, v in defaults.items())} (--param overrides)")
    embedded = "none (--no-data)" if args.no_data else f"{facts['data']} characters"
    print(f"  {facts['size'] / 1024:.1f} KB, {len(facts['modules'])} modules, embedded data {embedded}, package {facts['prefix']}")
    if facts["size"] > SIZE_WARNING:
        facts["warnings"].append(f"the file is {facts['size'] / 2**20:.1f} MB: submissions above 5 to 10 MB have been reported to fail")
    for w in facts["warnings"]:
        print(f"  warning: {w}")
    return write_validated(output, shown, facts["text"], None if args.no_validate else lambda temp: validate(temp, output, args))






def validate(temp: Path, output: Path, args: argparse.Namespace) -> None:
    """Validate the build at ``temp``; on failure keep it as :func:`failed_path` and raise
    BuildFailed saying so (``output`` is left as it was)."""
    print(f"validating: {args.games} games against negamax and against random (seats alternating), in a process without the repo ...", flush=True)
    started = time.perf_counter()
    try:
        reports, no_numba = _run_validators(temp, args.games, args.workers, args.seed, args.timeout)
        lines, failures = summarize(reports, no_numba, args.max_bank, args.max_first_move)
        print("\n".join(lines))
        print(f"  validation took {time.perf_counter() - started:.0f} s")
        if failures:
            raise BuildFailed("validation failed: " + "\n  ".join(failures))
    except BuildFailed as exc:
        failed = failed_path(output)
        os.replace(temp, failed)
        kept = "was not there before" if not output.exists() else "is unchanged"
        raise BuildFailed(f"{exc}\n  the failed build is kept at {shown_path(failed)}; {shown_path(output)} {kept}") from None


def _game_of(argv: list[str]) -> str:
    """The value of ``--game`` in ``argv`` ("" when absent)."""
    for i, item in enumerate(argv):
        if item == "--game" and i + 1 < len(argv):
            return argv[i + 1].strip()
        if item.startswith("--game="):
            return item.split("=", 1)[1].strip()
    return ""


def main(argv: list[str] | None = None) -> int:
    if _game_of(sys.argv[1:] if argv is None else argv) == "reinforce_tactics":  # its own builder
        import build_submission_rt

        return build_submission_rt.main(argv)
    return exit_code(run, argv, (registry.SpecError,))




if __name__ == "__main__":
    sys.exit(main())
