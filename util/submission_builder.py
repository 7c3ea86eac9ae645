"""The one submission builder: ``python build_submission.py --game G`` builds and validates a
Kaggle file for any game whose agent table names submission hooks
(:func:`agents.registry.submission_hooks`, :class:`agents.submission.SubmissionHooks`), and
names no game itself. The game's hooks give its Kaggle environment, its file's tail and the
modules and literals it needs, its data to embed, its validation jobs (opponents, games) and
summary, and its own command-line options; here are the options every game shares, the bundle,
and one validation loop (processes in groups of their own, stopped with their children on any
end; progress lines; a time bound). The game is chosen first (``--game``, else the caller's
default), so that ``--help`` shows that game's options.
"""
from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

from agents.registry import SpecError, submission_games, submission_hooks
from agents.submission import BuildFailed, Prepared, SubmissionHooks, Target, UsageError, seconds
from base import codec
from base.bundle import PROJECT_PACKAGES, BundleError, bundle_prefix, dynamic_imports, import_graph
from base.bundle_file import render
from base.cli import SEED, int_in
from util.submission_build import (
    MAX_WORKERS,
    ROOT,
    Progress,
    check_output,
    clock_policy,
    exit_code,
    failed_path,
    git_output,
    load_params_file,
    parse_pairs,
    read_report,
    shown_path,
    start_validator,
    stop_validators,
    wait_for,
    write_validated,
)

SIZE_WARNING = 5 * 2**20  # bytes: submissions above 5 to 10 MB have been reported to fail
MAX_FAILURES = 12  # reasons of a failed validation shown


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def hooks_of(argv: list[str], default_game: str) -> tuple[str, SubmissionHooks]:
    """The game ``argv`` names with ``--game`` (else ``default_game``) and its submission hooks;
    UsageError naming the games that have them for one without."""
    pre = _Parser(add_help=False)
    pre.add_argument("--game", default=default_game)
    known, _ = pre.parse_known_args(argv)
    game = known.game.partition(":")[0].strip()
    try:
        return game, submission_hooks(game)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def parse_args(argv: list[str], default_game: str, prog: str = "build_submission.py") -> tuple[argparse.Namespace, SubmissionHooks]:
    game, hooks = hooks_of(argv, default_game)
    usage = hooks.USAGE.split("\n\n")
    p = _Parser(prog=prog + ("" if game == default_game else f" --game {game}"), description=usage[0],
                formatter_class=argparse.RawDescriptionHelpFormatter, epilog="\n\n".join(usage[1:]))
    options = hooks.OPTIONS
    out = ROOT / hooks.DEFAULT_OUTPUT
    p.add_argument("--game", default=default_game, help=f"the game (default {default_game}): one of {', '.join(submission_games())}, "
                                                       "the games whose agents name submission hooks (--game NAME --help: its options)")
    p.add_argument("--agent", help="registry name (see --list), a spec such as name:key=value, or package.module:Class; "
                                   "default: the strongest available (see --list)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="an agent parameter (repeatable); overrides --params")
    p.add_argument("--params", metavar="FILE.json", help='JSON object of parameters, or {"params": {...}}')
    p.add_argument("--clock", action="append", default=[], metavar="KEY=SECONDS",
                   help="clock policy (base.clock.ClockPolicy): margin, overage_per_move, reserve, min_budget")
    p.add_argument("--output", type=Path, default=out, help=f"where to write the file (default {hooks.DEFAULT_OUTPUT})")
    p.add_argument("--workers", type=int_in(None, None), default=options["workers"], help=f"validation processes (default {options['workers']})")
    p.add_argument("--seed", type=SEED, default=0, help="seed of the validation games (the opponents' randomness, the game's own)")
    p.add_argument("--timeout", type=seconds(0.0, None), default=options["timeout"],
                   help=f"seconds before validation gives up (default {options['timeout']:g})")
    p.add_argument("--max-bank", type=seconds(0.0, 60.0, zero_ok=True), default=options["max_bank"], metavar="SECONDS",
                   help=f"fail when one validation game uses more of the 60 s overage bank (default {options['max_bank']:g})")
    p.add_argument("--no-validate", action="store_true", help="only build")
    p.add_argument("--list", action="store_true", help="list the agents and their parameters with defaults, then exit")
    hooks.add_arguments(p)
    args = p.parse_args(argv)
    if not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be at least 1 and at most {MAX_WORKERS}")
    hooks.check_arguments(args)
    return args, hooks


# --- building ---------------------------------------------------------------------------------------
def build(hooks: SubmissionHooks, target: Target, prepared: Prepared, clock: dict[str, float], output: Path) -> dict[str, Any]:
    """The submission's text (compiled once to check it) and facts for the summary; ``output``
    is the name shown in tracebacks of the check."""
    folders = {name: ROOT for name in PROJECT_PACKAGES}
    top = target.module.split(".")[0]
    if top not in folders:  # an agent kept outside the repo: bundle its own package too
        origin = Path(getattr(sys.modules.get(top) or importlib.import_module(top), "__file__", "") or ".")
        folders[top] = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    own, own_params = prepared.stand_in or (target, prepared.params)  # the agent the file's own process builds
    try:
        modules, missing = import_graph(folders, [target.module, own.module, *prepared.roots], tuple(folders))
    except BundleError as exc:
        raise BuildFailed(str(exc)) from None
    warnings = [f"imported project module has no file (optional import?): {m}" for m in missing]
    for mod in modules.values():
        warnings += [f"a project module named in a string is not bundled: {where}" for where in dynamic_imports(mod, tuple(folders))]
    commit = git_output("rev-parse", "--short", "HEAD") or "?"
    paths = [m.path for m in modules.values() if Path(m.path).is_relative_to(ROOT)]
    if commit != "?" and git_output("status", "--porcelain", "--", *paths):
        commit += "+local changes"
    prefix = bundle_prefix(modules, repr((*prepared.prefix_key, clock)))
    meta = {"label": target.label, "built": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit, "title": hooks.TITLE}
    try:
        text = render(modules, prefix, own.module, own.cls.__name__, own_params, clock, prepared.data, meta,
                      tail=hooks.TAIL, literals=prepared.literals)
    except (ValueError, BundleError, ImportError) as exc:
        raise BuildFailed(str(exc)) from None
    compile(text, str(output), "exec")
    return {"text": text, "modules": list(modules), "size": len(text.encode()), "prefix": prefix, "warnings": warnings}


def run(argv: list[str], default_game: str, prog: str = "build_submission.py") -> int:
    args, hooks = parse_args(argv, default_game, prog)
    if args.list:
        print(hooks.list_agents())
        return 0
    output = args.output.resolve()
    check_output(output)
    target, params = hooks.resolve_agent(args.agent)
    if args.params:
        params = {**load_params_file(args.params), **params}
    params.update(parse_pairs(args.param, "--param"))
    clock = clock_policy(parse_pairs(args.clock, "--clock"))
    prepared = hooks.prepare(target, params, args)
    facts = build(hooks, target, prepared, clock, output)
    shown = shown_path(output)
    print(f"building {shown}: {hooks.TITLE} agent {target.label} ({target.module}:{target.cls.__name__}), "
          f"parameters {codec.brief(prepared.params) or '(defaults)'}")
    if prepared.defaults:
        print(f"  submission defaults of {target.cls.__name__}: {', '.join(f'{k}={v!r}' for k, v in prepared.defaults.items())} "
              "(--param overrides)")
    for line in prepared.lines:
        print(line)
    embedded = "none (--no-data)" if getattr(args, "no_data", False) else "none" if prepared.data is None else f"{len(prepared.data)} characters"
    print(f"  {facts['size'] / 1024:.1f} KB, {len(facts['modules'])} modules, embedded data {embedded}, package {facts['prefix']}")
    if facts["size"] > SIZE_WARNING:
        facts["warnings"].append(f"the file is {facts['size'] / 2**20:.1f} MB: submissions above 5 to 10 MB have been reported to fail")
    for w in facts["warnings"]:
        print(f"  warning: {w}")
    check = None if args.no_validate else lambda temp: validate(hooks, temp, output, args)
    return write_validated(output, shown, facts["text"], check)


# --- validating -------------------------------------------------------------------------------------
def run_validators(hooks: SubmissionHooks, path: Path, args: argparse.Namespace) -> tuple[list[dict], dict]:
    """The game's validation jobs (:meth:`SubmissionHooks.validation_jobs`), ``--workers`` at a
    time, each ``python -I VALIDATOR FILE`` in a process group of its own: the reports of the jobs
    with numba as Kaggle has it, and the no-numba one (the last job)."""
    tmp = Path(tempfile.mkdtemp(prefix=f"{hooks.ENVIRONMENT}-validate-"))
    env = hooks.validation_env({k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONNECTX_NUMBA")})  # as on Kaggle
    jobs = hooks.validation_jobs(args, tmp)
    pending = list(enumerate(jobs))
    progress = Progress(hooks.validation_games(args), hooks.describe_game, [out for _, out in jobs])
    running: list[tuple[int, subprocess.Popen, Path]] = []
    started: list[subprocess.Popen] = []
    results: dict[int, dict] = {}
    give_up = time.monotonic() + args.timeout
    validator = ROOT / hooks.VALIDATOR
    try:
        while pending or running:
            while pending and len(running) < args.workers:
                i, (extra, out) = pending.pop(0)
                cmd = [sys.executable, "-I", str(validator), str(path), "--repo", str(ROOT), "--out", str(out),
                       "--environment", hooks.ENVIRONMENT, *extra]
                running.append((i, start_validator(cmd, tmp, env, started), out))
            i, proc, out = running[0]
            wait_for(proc, give_up - time.monotonic(), args.timeout, progress)
            running.pop(0)
            report = read_report(out)
            if not report.get("finished"):  # written after each game: only a finished one counts
                tail = (proc.stderr.read() if proc.stderr else "").strip().splitlines()[-3:]
                raise BuildFailed(f"validation process failed (exit {proc.returncode}) after {len(report.get('games') or [])} games: "
                                  f"{' | '.join(tail)}")
            results[i] = report
    finally:  # a failure, Ctrl-C or SIGTERM leaves no validation process (nor its children) behind
        stop_validators(started, tmp)
    reports = [results[i] for i in sorted(results)]
    return reports[:-1], reports[-1]


def validate(hooks: SubmissionHooks, temp: Path, output: Path, args: argparse.Namespace) -> None:
    """Validate the build at ``temp``; on failure keep it as :func:`failed_path` and raise
    BuildFailed saying so (``output`` is left as it was)."""
    print(hooks.announce(args), flush=True)
    started = time.perf_counter()
    try:
        reports, no_numba = run_validators(hooks, temp, args)
        lines, failures = hooks.summarize(reports, no_numba, args)
        print("\n".join(lines))
        print(f"  validation took {time.perf_counter() - started:.0f} s")
        if failures:
            raise BuildFailed("validation failed: " + "\n  ".join(failures[:MAX_FAILURES]))
    except BuildFailed as exc:
        failed = failed_path(output)
        os.replace(temp, failed)
        kept = "was not there before" if not output.exists() else "is unchanged"
        raise BuildFailed(f"{exc}\n  the failed build is kept at {shown_path(failed)}; {shown_path(output)} {kept}") from None


def main(argv: list[str] | None, default_game: str, prog: str = "build_submission.py") -> int:
    """``build_submission.py``'s exit code: 0 built (and validated), 1 a failed build or
    validation, 2 bad input, 130/143 interrupted (:func:`util.submission_build.exit_code`).
    ``prog``: the command's name in --help (an alias's own)."""
    args = sys.argv[1:] if argv is None else list(argv)
    return exit_code(lambda a: run(a, default_game, prog), args, (SpecError,))
