"""Build a Reinforce Tactics agent into one self-contained Kaggle submission file, then validate
it in kaggle-environments on every built-in map (``build_submission.py --game reinforce_tactics``).

    python build_submission.py --game reinforce_tactics                   # strongest agent -> submissions/reinforce_tactics.py
    python build_submission.py --game reinforce_tactics --agent random_turn --act-timeout 0.5 --episode-steps 60
    python build_submission.py --game reinforce_tactics --maps beginner,starter --no-validate
    python build_submission.py --game reinforce_tactics --list

The file bundles ``core/reinforce_tactics``, the agent and the util pieces it imports (see
``base/bundle.py``); for an agent with a ``jit`` field it plays plain Python in its own process
and starts a second one that compiles the agent and plans each turn once ready
(``agents/reinforce_tactics/jit_worker.py``; ``--param jit=false``: none); it ends with ``agent(observation, configuration)`` returning a list of
action dicts: :class:`agents.reinforce_tactics.kaggle_agent.RTKaggleAdapter` around the agent,
and, should the bundle itself fail to load, ``[{"type": "end_turn"}]``.

Validation (``util/bundle_validate_rt.py``, processes that cannot see the repo) plays every map
of ``--maps`` against every opponent of ``--opponents`` in both seats, plus one game with numba
made unimportable, and fails (exit 1) on any error line, forfeit, timeout, game not DONE,
action the engine skipped as illegal, or a game that used more than ``--max-bank`` seconds of
the 60 s overage bank. Kaggle's real clock is ``--act-timeout 5 --episode-steps 200`` (the
defaults); shorter values make quick runs. Details: ``submissions/README.md``.
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

import util.submission_build as B  # noqa: E402  (what both builders share)
from agents import registry  # noqa: E402
from agents.registry import SpecError, convert_params, parse_spec  # noqa: E402
from agents.reinforce_tactics import jit_worker  # noqa: E402
from base.bundle import PROJECT_PACKAGES, BundleError, bundle_prefix, dynamic_imports, import_graph  # noqa: E402
from base.bundle_file import literal, render  # noqa: E402
from base.cli import SEED, int_in  # noqa: E402
from base.clock import RT_ACT_TIMEOUT  # noqa: E402
from core.reinforce_tactics import ReinforceTactics, maps  # noqa: E402

GAME = "reinforce_tactics"
DEFAULT_OUTPUT = ROOT / "submissions" / "reinforce_tactics.py"
VALIDATOR = ROOT / "util" / "bundle_validate_rt.py"
ADAPTER_MODULE = "agents.reinforce_tactics.kaggle_agent"
WORKER_MODULE = "agents.reinforce_tactics.jit_worker"
RANDOM_TURN = "agents.reinforce_tactics.random_turn:RandomTurnAgent"
# The default agent: the first of these that loads here, strongest first. Only agents measured
# stronger go before greedy (the macro-move searches, macro_mcts & co., are not yet: issue 27 point 4).
STRONGEST = ("greedy", RANDOM_TURN)
NO_NUMBA_MAP = "beginner"  # the map of the one game played without numba
# Where numba is present and the file names a compiled worker, validation fails on a game whose worker
# stopped before it was ready, or was not ready within our first --worker-ready-turns turns (default
# below) although it had had the time of as many turns at Kaggle's clock (that many times its 5 s
# actTimeout, times the machine's load per core where it is over 1: a small map's plain turns take
# milliseconds, a quick run's --act-timeout does not make the compile quicker, nor does a loaded
# machine), or planned under WORKER_SHARE of the turns once it was ready (the shipped file once played
# plain all game: issue 34).
WORKER_READY_TURNS = 10
WORKER_SHARE = 0.9
MAX_STEPS = 10_000  # --episode-steps

RT_ADAPTER = '''

def _make_adapter():
    import importlib

    _install_bundle(_PREFIX, _SOURCES)
    rt = importlib.import_module(_PREFIX + ".agents.reinforce_tactics.kaggle_agent")
    clock = importlib.import_module(_PREFIX + ".base.clock")

    def factory(game):
        cls = getattr(importlib.import_module(_PREFIX + "." + _AGENT_MODULE), _AGENT_CLASS)
        return cls(game=game, **_PARAMS)

    return rt.RTKaggleAdapter(factory, policy=clock.ClockPolicy(**_CLOCK), started_at=_LOAD_STARTED, worker=_start_worker())


def _start_worker():
    """The compiled planner in a second process (_WORKER: the agent with jit on), or None: no
    numba here, built without one, or it could not start (the factory's agent then plans plain)."""
    if _WORKER is None:
        return None
    import importlib

    try:
        jw = importlib.import_module(_PREFIX + ".agents.reinforce_tactics.jit_worker")
        if not jw.numba_present():
            return None
        return jw.shared_worker(dict(_WORKER, prefix=_PREFIX, sources=_SOURCES), nice=_WORKER.get("nice", jw.NICE))
    except Exception as exc:
        _sys.stderr.write("[rt] NOTE no compiled worker (%s: %s); planning plain\\n" % (type(exc).__name__, exc))
        return None


def _last_resort(observation, configuration):
    """Used only if the bundle itself cannot load: end the turn."""
    return [{"type": "end_turn"}]


try:
    _ADAPTER = _make_adapter()
except Exception as _exc:  # a broken bundle: still answer, and say so in Kaggle's logs
    _sys.stderr.write("[rt] ERROR the bundled modules failed to load (%s: %s)\\n" % (type(_exc).__name__, _exc))
    _ADAPTER = _last_resort


def agent(observation, configuration):
    """Kaggle's entry point: always a list of dicts (a non-dict entry forfeits), at least end_turn."""
    try:
        out = _ADAPTER(observation, configuration)
        if isinstance(out, list) and all(type(d) is dict for d in out):
            return out
        _sys.stderr.write("[rt] ERROR the adapter answered %r; ending the turn\\n" % (out,))
    except BaseException as exc:  # noqa: BLE001 (nothing may escape to Kaggle)
        _sys.stderr.write("[rt] ERROR %s: %s; ending the turn\\n" % (type(exc).__name__, exc))
    return [{"type": "end_turn"}]
'''


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise B.UsageError(message)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = _Parser(prog="build_submission.py --game reinforce_tactics", description=__doc__.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter, epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("--game", required=True, help="reinforce_tactics")
    p.add_argument("--agent", help="engine registry name, spec (name:key=value) or package.module:Class; "
                                   f"default: the first of {', '.join(STRONGEST)} that loads")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="an agent parameter (repeatable); overrides --params")
    p.add_argument("--params", metavar="FILE.json", help='JSON object of parameters, or {"params": {...}}')
    p.add_argument("--clock", action="append", default=[], metavar="KEY=SECONDS", help="clock policy (base.clock.ClockPolicy)")
    p.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help=f"where to write the file (default {DEFAULT_OUTPUT.relative_to(ROOT)})")
    p.add_argument("--maps", default="all", help="built-in maps to validate on, comma-separated (default all 19)")
    p.add_argument("--opponents", default="random,aggressive", help="Kaggle's built-in agents to validate against (default random,aggressive)")
    p.add_argument("--episode-steps", type=int_in(None, None), default=200, help="Kaggle's episodeSteps in validation (default 200; fewer: quicker)")
    p.add_argument("--act-timeout", type=B.seconds(0.0, 60.0), default=RT_ACT_TIMEOUT,
                   help="Kaggle's actTimeout in validation, seconds (default 5, Kaggle's; less: quicker)")
    p.add_argument("--max-bank", type=B.seconds(0.0, 60.0, zero_ok=True), default=30.0, metavar="SECONDS",
                   help="fail when one validation game uses more of the 60 s overage bank (default 30)")
    p.add_argument("--worker-nice", type=int_in(0, 19), default=jit_worker.NICE, metavar="N",
                   help=f"niceness of the compiled worker process the file starts (0-19, default {jit_worker.NICE})")
    p.add_argument("--worker-ready-turns", type=int_in(0, MAX_STEPS), default=WORKER_READY_TURNS, metavar="N",
                   help=f"fail when a game's compiled worker was not ready within our first N turns and N x Kaggle's "
                        f"{RT_ACT_TIMEOUT:g} s (default {WORKER_READY_TURNS}; more: a loaded machine, whose compile takes longer)")
    p.add_argument("--workers", type=int_in(None, None), default=2, help="validation processes (default 2)")
    p.add_argument("--seed", type=SEED, default=0, help="episode seed (terrain flips) and the opponents' randomness")
    p.add_argument("--timeout", type=B.seconds(0.0, None), default=7200, help="seconds before validation gives up (default 7200)")
    p.add_argument("--no-validate", action="store_true", help="only build")
    p.add_argument("--list", action="store_true", help="list the agents that play reinforce_tactics, then exit")
    args = p.parse_args(argv)
    if not 2 <= args.episode_steps <= MAX_STEPS or not 1 <= args.workers <= B.MAX_WORKERS:
        raise B.UsageError(f"--episode-steps must be in [2, {MAX_STEPS}] and --workers in [1, {B.MAX_WORKERS}]")
    names = maps.map_names()
    args.map_list = names if args.maps == "all" else [m.strip() for m in args.maps.split(",") if m.strip()]
    unknown = [m for m in args.map_list if m not in names]
    if unknown or not args.map_list:
        raise B.UsageError(f"unknown map {', '.join(unknown) or '(none given)'}; valid maps: all, {', '.join(names)}")
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    if not opponents or any(o not in ("random", "aggressive", "noop") for o in opponents):
        raise B.UsageError(f"--opponents {args.opponents!r}: write names of Kaggle's built-ins random, aggressive, noop, comma-separated")
    args.opponent_list = opponents
    return args


# --- the agent ---------------------------------------------------------------------------------
def resolve_agent(text: str | None) -> tuple[B.Target, dict[str, str]]:
    """An engine registry name or spec that plays reinforce_tactics, or ``package.module:Class``."""
    if not text:
        for candidate in STRONGEST:
            try:
                return resolve_agent(candidate)
            except (B.UsageError, SpecError):
                continue
        raise B.UsageError("no Reinforce Tactics agent is available to build")
    name, _, rest = text.partition(":")
    if name in registry.table(GAME) or registry.games_of(name):
        name, spec_params = parse_spec(text)
        try:
            cls = registry.agent_class(GAME, name)
        except SpecError as exc:
            raise B.UsageError(f"{exc}; agents that do: {', '.join(registry.names(GAME))}") from None
        return B.Target(name, cls.__module__, cls), spec_params
    if not rest or "=" in rest:
        raise B.UsageError(f"unknown agent {text!r}; agents that play {GAME}: {', '.join(registry.names(GAME))}, or package.module:Class")
    try:
        module = importlib.import_module(name.strip())
    except ImportError as exc:
        raise B.UsageError(f"cannot import module {name!r} of --agent {text!r} ({exc})") from None
    found = getattr(module, rest.strip(), None)
    if not isinstance(found, type):
        raise B.UsageError(f"{name} has no agent class {rest.strip()!r}")
    return B.Target(text, name.strip(), found), {}


def submission_defaults(target: B.Target, params: dict[str, Any]) -> dict[str, Any]:
    """What a Kaggle file should use that ``params`` leave unset: the class's
    ``SUBMISSION_DEFAULTS``, and ``jit=False`` for an agent with a ``jit`` field (the file's
    own process plays plain; :func:`worker_spec` adds the compiled worker). Measured
    (``python -m bench.rt_first_turns``, docs/reinforce-tactics-submission.md): while numba
    compiles greedy's planner in a thread, the plain planner it falls back on starves for
    the interpreter lock and sends no action for tens of turns. ``--param jit=true`` builds
    that in-process compiling variant, ``--param jit=false`` the plain one without a worker."""
    out = B.submission_defaults(target, params)
    if has_jit(target) and "jit" not in params:
        out.setdefault("jit", False)
    return out


def has_jit(target: B.Target) -> bool:
    fields = {f.name for f in dataclasses.fields(target.cls)} if dataclasses.is_dataclass(target.cls) else set()
    return "jit" in fields


def worker_spec(target: B.Target, params: dict[str, Any], converted: dict[str, Any], nice: int = jit_worker.NICE) -> dict[str, Any] | None:
    """The compiled worker the file starts (agents/reinforce_tactics/jit_worker.py): the same
    agent and parameters with ``jit=True``, for an agent with a ``jit`` field when ``--param``
    left ``jit`` unset; else None."""
    if not has_jit(target) or "jit" in params:
        return None
    return {"module": target.module, "cls": target.cls.__name__, "params": {**converted, "jit": True}, "nice": nice}


def make_agent(target: B.Target, params: dict[str, Any]) -> dict[str, Any]:
    """The converted parameters, after building the agent once on a small map to check them."""
    kwargs = convert_params(target.cls, target.label, params, game=ReinforceTactics(map="beginner"))
    try:
        target.cls(game=ReinforceTactics(map="beginner"), **kwargs)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"agent {target.label!r}: {exc}") from None
    except Exception as exc:
        raise B.BuildFailed(f"creating agent {target.label!r} failed: {type(exc).__name__}: {exc}") from None
    return kwargs


def list_agents() -> str:
    lines = [f"{name}" for name in registry.names(GAME)]
    lines.append(f"{RANDOM_TURN} (a random turn that seizes and attacks first)")
    try:
        default = resolve_agent(None)[0].label
    except B.UsageError:
        default = "none"
    lines.append(f"default (no --agent): {default}")
    return "\n".join(lines)


# --- building ------------------------------------------------------------------------------------
def game_modules() -> list[str]:
    """The game's modules named by string (its kernels and heuristics: ``Game.import_module``
    loads them by name, so no import statement of a generic agent carries them into the bundle;
    ``naive_mcts``'s file once failed validation with "No module named ...heuristics")."""
    return [path for path in (ReinforceTactics.kernels, ReinforceTactics.heuristics) if path]


def build(target: B.Target, params: dict[str, Any], clock: dict[str, float], output: Path,
          worker: dict[str, Any] | None = None) -> dict[str, Any]:
    folders = {name: ROOT for name in PROJECT_PACKAGES}
    top = target.module.split(".")[0]
    if top not in folders:  # an agent kept outside the repo: bundle its own package too
        origin = Path(getattr(sys.modules.get(top) or importlib.import_module(top), "__file__", "") or ".")
        folders[top] = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    try:
        roots = [target.module, ADAPTER_MODULE, WORKER_MODULE, "base.clock", *game_modules(),
                 *registry.spec_modules(ReinforceTactics(), target.cls, params)]
        modules, missing = import_graph(folders, roots, tuple(folders))
    except BundleError as exc:
        raise B.BuildFailed(str(exc)) from None
    commit = B.git_output("rev-parse", "--short", "HEAD") or "?"
    paths = [m.path for m in modules.values() if Path(m.path).is_relative_to(ROOT)]
    if commit != "?" and B.git_output("status", "--porcelain", "--", *paths):
        commit += "+local changes"
    prefix = bundle_prefix(modules, repr((GAME, target.module, target.cls.__name__, params, clock, worker)))
    meta = {"label": target.label, "built": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit,
            "title": "Reinforce Tactics"}
    try:
        tail = f"\n_WORKER = {literal(worker, 'worker spec')}  # the compiled worker's agent (None: none)\n" + RT_ADAPTER
        text = render(modules, prefix, target.module, target.cls.__name__, params, clock, None, meta, adapter=tail)
    except (ValueError, BundleError) as exc:
        raise B.BuildFailed(str(exc)) from None
    compile(text, str(output), "exec")
    warnings = [f"imported project module has no file (optional import?): {m}" for m in missing]
    for mod in modules.values():
        warnings += [f"a project module named in a string is not bundled: {where}" for where in dynamic_imports(mod, tuple(folders))]
    return {"text": text, "modules": list(modules), "size": len(text.encode()), "prefix": prefix, "warnings": warnings}


# --- validating ------------------------------------------------------------------------------------
def _jobs(args: argparse.Namespace, tmp: Path) -> list[tuple[list[str], Path]]:
    common = ["--opponents", ",".join(args.opponent_list), "--episode-steps", str(args.episode_steps),
              "--act-timeout", str(args.act_timeout), "--seed", str(args.seed)]
    shares = [args.map_list[w::args.workers] for w in range(args.workers)]
    jobs = [(["--maps", ",".join(share), *common], tmp / f"w{w}.json") for w, share in enumerate(shares) if share]
    nn = ["--maps", NO_NUMBA_MAP, "--opponents", "random", "--seats", "0", "--no-numba",
          "--episode-steps", str(args.episode_steps), "--act-timeout", str(args.act_timeout), "--seed", str(args.seed)]
    return jobs + [(nn, tmp / "nonumba.json")]


def run_validators(path: Path, args: argparse.Namespace) -> tuple[list[dict], dict]:
    """Reports of the worker processes (numba as Kaggle has it) and of the no-numba one."""
    tmp = Path(tempfile.mkdtemp(prefix="rt-validate-"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONNECTX_NUMBA")}
    env["NUMBA_CACHE_DIR"] = "/proc/rt-validate-no-cache"  # no writable cache, as on a read-only system
    jobs = _jobs(args, tmp)
    pending = list(enumerate(jobs))
    progress = B.Progress(len(args.map_list) * len(args.opponent_list) * 2 + 1, describe_game, [out for _, out in jobs])
    running: list[tuple[int, subprocess.Popen, Path]] = []
    started: list[subprocess.Popen] = []
    results: dict[int, dict] = {}
    give_up = time.monotonic() + args.timeout
    try:
        while pending or running:
            while pending and len(running) < args.workers:
                i, (extra, out) = pending.pop(0)
                cmd = [sys.executable, "-I", str(VALIDATOR), str(path), "--repo", str(ROOT), "--out", str(out), *extra]
                running.append((i, B.start_validator(cmd, tmp, env, started), out))
            i, proc, out = running[0]
            B.wait_for(proc, give_up - time.monotonic(), args.timeout, progress)
            running.pop(0)
            report = B.read_report(out)
            if not report.get("finished"):  # written after each game: only a finished one counts
                tail = (proc.stderr.read() if proc.stderr else "").strip().splitlines()[-3:]
                raise B.BuildFailed(f"validation process failed (exit {proc.returncode}) after {len(report.get('games', []))} games: "
                                    f"{' | '.join(tail)}")
            results[i] = report
    finally:  # a failure, Ctrl-C or SIGTERM leaves no validation process (nor its children) behind
        B.stop_validators(started, tmp)
    reports = [results[i] for i in sorted(results)]
    return reports[:-1], reports[-1]


def describe_game(g: dict, report: dict) -> str:
    """A validation game for its progress line."""
    where = f"{g['map']}{' (no numba)' if report.get('no_numba') else ''} against {g['opponent']} in seat {g['seat']}"
    return f"{where}: {_result(g)} in {g['steps']} steps, {g.get('worker_turns', 0)} of {g['turns']} turns compiled, {g.get('wall_s', 0):.0f} s"


def _result(g: dict) -> str:
    return {1: "won", -1: "lost", 0: "drawn"}.get(g["reward"], f"reward {g['reward']}") if g["status"] == "DONE" else g["status"]


def worker_failure(g: dict, ready_turns: int = WORKER_READY_TURNS) -> str:
    """Why game ``g``'s compiled worker failed validation ('' : it did not, or none was expected
    there): not ready within our first ``ready_turns`` turns although it had had ``ready_turns``
    times Kaggle's actTimeout, or it planned under :data:`WORKER_SHARE` of the turns from its first
    ready one on."""
    if not g.get("worker_expected"):
        return ""
    served, after = g.get("worker_turns", 0), g.get("worker_turns", 0) + g.get("fallback_turns", 0)
    waited = g.get("worker_wait_s", 0.0)
    if g.get("worker_stopped") and not after:
        return f"the compiled worker stopped before it was ready ({g['worker_stopped']})"
    # A machine loaded past its cores compiles slower than Kaggle's: the allowance grows with the load.
    allowance = ready_turns * RT_ACT_TIMEOUT * max(1.0, g.get("load_per_core", 0.0))
    if g.get("plain_turns", 0) > ready_turns and waited > allowance:
        then = f"then it planned {served} of {after}" if after else "it was never ready"
        return (f"the compiled worker was not ready within our first {ready_turns} turns ({g['plain_turns']} plain turns, "
                f"the last {waited:.0f} s after it started, over {ready_turns} x Kaggle's {RT_ACT_TIMEOUT:g} s x the "
                f"load per core ({g.get('load_per_core', 0.0):.1f}); {then}; --worker-ready-turns)")
    if after and served < WORKER_SHARE * after:
        return f"the compiled worker planned {served} of the {after} turns once it was ready (under {WORKER_SHARE:.0%})"
    return ""


def summarize(reports: list[dict], no_numba: dict, max_bank: float,
              ready_turns: int = WORKER_READY_TURNS) -> tuple[list[str], list[str]]:
    """The per-game table and the reasons validation fails (empty: passed)."""
    failures = [("without numba: " if r.get("no_numba") else "") + r["fatal"] for r in [*reports, no_numba] if "fatal" in r]
    lines = [f"  {'map':<18} {'opponent':<10} seat {'result':<7} {'steps':>5} {'slowest':>8} {'bank':>6} {'skipped':>7} {'errors':>6}"
             f" {'compiled':>8} {'wall':>6}"]
    games = [g for r in reports for g in r["games"]] + [dict(g, map=g["map"] + " (no numba)") for g in no_numba.get("games", [])]
    for g in games:
        slowest = max(g["durations"], default=0.0)
        lines.append(f"  {g['map']:<18} {g['opponent']:<10} {g['seat']:>4} {_result(g):<7} {g['steps']:>5} {slowest:>7.2f}s "
                     f"{g['bank_used']:>5.1f}s {g['skipped']:>7} {g['error_count'] + g['forfeits']:>6} "
                     f"{g.get('worker_turns', 0):>8} {g.get('wall_s', 0):>5.0f}s")
        where = f"{g['map']} against {g['opponent']} in seat {g['seat']}"
        if g["status"] != "DONE":
            failures.append(f"{where}: status {g['status']}")
        if g["skipped"]:
            failures.append(f"{where}: the engine skipped {g['skipped']} of our actions, e.g. {g['skipped_examples'][:1]}")
        if g["forfeits"] or g["error_count"]:
            failures.append(f"{where}: {g['forfeits']} non-dict answers, {g['error_count']} error lines: {g['errors'][:2]}")
        if g["bank_used"] > max_bank:
            failures.append(f"{where}: {g['bank_used']:.1f} s of the overage bank used (limit --max-bank {max_bank:g})")
        if worker_failure(g, ready_turns):
            failures.append(f"{where}: {worker_failure(g, ready_turns)}")
    if no_numba.get("numba_loaded"):
        failures.append("the no-numba check still loaded numba")
    durations = [d for g in games for d in g["durations"]]
    if durations:
        firsts = [g["durations"][0] for g in games if g["durations"]]
        lines.append(f"  {len(games)} games, {len(durations)} turns: median turn {statistics.median(durations) * 1000:.0f} ms, "
                     f"slowest {max(durations):.2f} s, slowest first turn {max(firsts):.2f} s (actTimeout {games[0]['act_timeout']:g} s)")
        lines.append("  " + ", ".join(f"{sum(_result(g) == r for g in games)} {r}" for r in ("won", "drawn", "lost"))
                     + f"; {sum(g.get('worker_turns', 0) for g in games)} of {sum(g['turns'] for g in games)} turns planned by the compiled worker")
        lines.append("  " + worker_line(games))
    return lines, failures


def worker_line(games: list[dict]) -> str:
    """The compiled worker's part of the summary: who planned the turns of the games that expected it."""
    expected = [g for g in games if g.get("worker_expected")]
    if not expected:
        return "compiled worker: none expected (no numba here, or the file names none)"
    served = sum(g.get("worker_turns", 0) for g in expected)
    after = served + sum(g.get("fallback_turns", 0) for g in expected)
    before = [g.get("plain_turns", 0) for g in expected]
    waited = max(g.get("worker_wait_s", 0.0) for g in expected)
    return (f"compiled worker: {served} of the {after} turns once it was ready in {len(expected)} games "
            f"(at least {WORKER_SHARE:.0%} needed); plain turns before it was ready: {sum(before)}, at most {max(before)} "
            f"in a game, the last {waited:.0f} s after its start")


def validate(temp: Path, output: Path, args: argparse.Namespace) -> None:
    n = len(args.map_list) * len(args.opponent_list) * 2
    print(f"validating: {n} games ({len(args.map_list)} maps x {', '.join(args.opponent_list)} x both seats) + 1 without numba, "
          f"episodeSteps {args.episode_steps}, actTimeout {args.act_timeout:g} s, {args.workers} processes without the repo ...", flush=True)
    started = time.perf_counter()
    try:
        reports, no_numba = run_validators(temp, args)
        lines, failures = summarize(reports, no_numba, args.max_bank, args.worker_ready_turns)
        print("\n".join(lines))
        print(f"  validation took {time.perf_counter() - started:.0f} s")
        if failures:
            raise B.BuildFailed("validation failed: " + "\n  ".join(failures[:12]))
    except B.BuildFailed as exc:
        failed = B.failed_path(output)
        os.replace(temp, failed)
        kept = "was not there before" if not output.exists() else "is unchanged"
        raise B.BuildFailed(f"{exc}\n  the failed build is kept at {B.shown_path(failed)}; {B.shown_path(output)} {kept}") from None


def run(argv: list[str] | None) -> int:
    args = parse_args(argv)
    if args.list:
        print(list_agents())
        return 0
    output = args.output.resolve()
    B.check_output(output)
    target, params = resolve_agent(args.agent)
    if args.params:
        params = {**B.load_params_file(args.params), **params}
    params.update(B.parse_pairs(args.param, "--param"))
    clock = B.clock_policy(B.parse_pairs(args.clock, "--clock"))
    defaults = submission_defaults(target, params)
    converted = make_agent(target, {**defaults, **params})
    worker = worker_spec(target, params, converted, args.worker_nice)
    facts = build(target, converted, clock, output, worker)
    shown = B.shown_path(output)
    print(f"building {shown}: Reinforce Tactics agent {target.label} ({target.module}:{target.cls.__name__}), parameters {converted or '(defaults)'}")
    if defaults:
        print(f"  submission defaults: {', '.join(f'{k}={v!r}' for k, v in defaults.items())} (--param overrides; see submission_defaults)")
    if worker:
        print("  compiled worker: a second process compiles the planner (jit=True) and plans each turn once ready; "
              "plain until then (--param jit=false: no worker)")
    print(f"  {facts['size'] / 1024:.1f} KB, {len(facts['modules'])} modules, package {facts['prefix']}")
    for w in facts["warnings"]:
        print(f"  warning: {w}")
    return B.write_validated(output, shown, facts["text"], None if args.no_validate else lambda temp: validate(temp, output, args))


def main(argv: list[str] | None = None) -> int:
    """``build_submission.py --game reinforce_tactics ...``: exit codes as build_submission.py's."""
    return B.exit_code(run, argv, (SpecError,))

if __name__ == "__main__":
    sys.exit(main())
