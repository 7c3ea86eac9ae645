"""Build a Reinforce Tactics agent into one self-contained Kaggle submission file, then validate
it in kaggle-environments on every built-in map (``build_submission.py --game reinforce_tactics``:
these are the game's submission hooks, :class:`agents.submission.SubmissionHooks`).

    python build_submission.py --game reinforce_tactics                   # strongest agent -> submissions/reinforce_tactics.py
    python build_submission.py --game reinforce_tactics --agent random_turn --act-timeout 0.5 --episode-steps 60
    python build_submission.py --game reinforce_tactics --maps beginner,starter --no-validate
    python build_submission.py --game reinforce_tactics --list

The file bundles ``core/reinforce_tactics``, the agent and the util pieces it imports (see
``base/bundle.py``); for an agent with a ``jit`` field it plays plain Python in its own process
and starts a second one that compiles the agent and plans each turn once ready
(``agents/reinforce_tactics/jit_worker.py``; ``--param jit=false``: none); it ends with ``agent(observation, configuration)`` returning a list of
action dicts: :class:`agents.reinforce_tactics.kaggle_agent.RTKaggleAdapter` around the agent,
and, should the bundle itself fail to load, ``[{"type": "end_turn"}]``
(``agents/reinforce_tactics/file_tail.py``).

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
import statistics
from pathlib import Path
from typing import Any

from agents import registry
from agents.engine.params import file_heuristics
from agents.registry import SpecError, convert_params, parse_spec
from agents.reinforce_tactics import jit_worker
from agents.submission import BuildFailed, Prepared, Target, UsageError, embed_files, seconds
from agents.submission import submission_defaults as class_defaults
from base import codec
from base.cli import int_in
from base.clock import RT_ACT_TIMEOUT
from core.reinforce_tactics import ReinforceTactics, maps

GAME = "reinforce_tactics"

# --- what the builder reads (agents.submission.SubmissionHooks) ------------------------------------
USAGE = __doc__ or ""
TITLE = "Reinforce Tactics"
ENVIRONMENT = GAME
DEFAULT_OUTPUT = "submissions/reinforce_tactics.py"
TAIL = "agents.reinforce_tactics.file_tail"
VALIDATOR = "util/bundle_validate_rt.py"
# One validation game at a time: two games on two cores (each with its worker compiling beside a plain
# stand-in) doubled the worker's compile, 77-92 s against 35-38 s alone, and failed the readiness rule
# below in 1-3 of 77 games; one at a time, all 77 passed (905 s; docs/learned-evaluation.md).
OPTIONS: dict[str, Any] = {"workers": 1, "timeout": 7200.0, "max_bank": 30.0}
ADAPTER_MODULE = "agents.reinforce_tactics.kaggle_agent"
WORKER_MODULE = "agents.reinforce_tactics.jit_worker"
RANDOM_TURN = "agents.reinforce_tactics.random_turn:RandomTurnAgent"
# The default agent: the first of these that loads here, strongest first. naive_mcts with the learned
# evaluation took 0.671 of the points from itself with the hand one over 114 games (pooled SPRT H1),
# and hand naive_mcts's file beat greedy's 76 of 76 (docs/learned-evaluation.md, "The shipped default").
LEARNED = Path(__file__).resolve().parents[2] / "data" / "rt_learned_gen2A.npz"  # generation 2 (data/README.md)
STRONGEST = (f"naive_mcts:plan_share=0.2,heuristic=learned,weights={LEARNED}", "greedy", RANDOM_TURN)
PLAIN_AGENT = "greedy"  # --plain-agent: the file's own process's agent beside a compiled worker (plain_stand_in)
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
OPPONENTS = ("random", "aggressive", "noop")  # Kaggle's built-in Reinforce Tactics agents


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--maps", default="all", help="built-in maps to validate on, comma-separated (default all 19)")
    p.add_argument("--opponents", default="random,aggressive", help="Kaggle's built-in agents to validate against (default random,aggressive)")
    p.add_argument("--episode-steps", type=int_in(None, None), default=200, help="Kaggle's episodeSteps in validation (default 200; fewer: quicker)")
    p.add_argument("--act-timeout", type=seconds(0.0, 60.0), default=RT_ACT_TIMEOUT,
                   help="Kaggle's actTimeout in validation, seconds (default 5, Kaggle's; less: quicker)")
    p.add_argument("--plain-agent", default=PLAIN_AGENT, metavar="SPEC",
                   help=f"the agent the file's own process plays plain while the compiled worker is not ready, and "
                        f"without numba (default {PLAIN_AGENT}: its plain turn takes well under a second; same: --agent itself)")
    p.add_argument("--worker-nice", type=int_in(0, 19), default=jit_worker.NICE, metavar="N",
                   help=f"niceness of the compiled worker process the file starts (0-19, default {jit_worker.NICE})")
    p.add_argument("--worker-ready-turns", type=int_in(0, MAX_STEPS), default=WORKER_READY_TURNS, metavar="N",
                   help=f"fail when a game's compiled worker was not ready within our first N turns and N x Kaggle's "
                        f"{RT_ACT_TIMEOUT:g} s (default {WORKER_READY_TURNS}; more: a loaded machine, whose compile takes longer)")


def check_arguments(args: argparse.Namespace) -> None:
    if not 2 <= args.episode_steps <= MAX_STEPS:
        raise UsageError(f"--episode-steps must be in [2, {MAX_STEPS}]")
    names = maps.map_names()
    args.map_list = names if args.maps == "all" else [m.strip() for m in args.maps.split(",") if m.strip()]
    unknown = [m for m in args.map_list if m not in names]
    if unknown or not args.map_list:
        raise UsageError(f"unknown map {', '.join(unknown) or '(none given)'}; valid maps: all, {', '.join(names)}")
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    if not opponents or any(o not in OPPONENTS for o in opponents):
        raise UsageError(f"--opponents {args.opponents!r}: write names of Kaggle's built-ins {', '.join(OPPONENTS)}, comma-separated")
    args.opponent_list = opponents


# --- the agent ---------------------------------------------------------------------------------
def resolve_agent(text: str | None) -> tuple[Target, dict[str, str]]:
    """An engine registry name or spec that plays reinforce_tactics, or ``package.module:Class``."""
    if not text:
        for candidate in STRONGEST:
            try:
                return resolve_agent(candidate)
            except (UsageError, SpecError):
                continue
        raise UsageError("no Reinforce Tactics agent is available to build")
    name, _, rest = text.partition(":")
    if name in registry.table(GAME) or registry.games_of(name):
        name, spec_params = parse_spec(text)
        try:
            cls = registry.agent_class(GAME, name)
        except SpecError as exc:
            raise UsageError(f"{exc}; agents that do: {', '.join(registry.names(GAME))}") from None
        return Target(name, cls.__module__, cls), spec_params
    if not rest or "=" in rest:
        raise UsageError(f"unknown agent {text!r}; agents that play {GAME}: {', '.join(registry.names(GAME))}, or package.module:Class")
    try:
        module = importlib.import_module(name.strip())
    except ImportError as exc:
        raise UsageError(f"cannot import module {name!r} of --agent {text!r} ({exc})") from None
    found = getattr(module, rest.strip(), None)
    if not isinstance(found, type):
        raise UsageError(f"{name} has no agent class {rest.strip()!r}")
    return Target(text, name.strip(), found), {}


def submission_defaults(target: Target, params: dict[str, Any]) -> dict[str, Any]:
    """What a Kaggle file should use that ``params`` leave unset: the class's
    ``SUBMISSION_DEFAULTS``, and ``jit=False`` for an agent with a ``jit`` field (the file's
    own process plays plain; :func:`worker_spec` adds the compiled worker). Measured
    (``python -m bench.rt_first_turns``, docs/reinforce-tactics-submission.md): while numba
    compiles greedy's planner in a thread, the plain planner it falls back on starves for
    the interpreter lock and sends no action for tens of turns. ``--param jit=true`` builds
    that in-process compiling variant, ``--param jit=false`` the plain one without a worker."""
    out = class_defaults(target, params)
    if has_jit(target) and "jit" not in params:
        out.setdefault("jit", False)
    return out


def has_jit(target: Target) -> bool:
    fields = {f.name for f in dataclasses.fields(target.cls)} if dataclasses.is_dataclass(target.cls) else set()
    return "jit" in fields


def worker_spec(target: Target, params: dict[str, Any], converted: dict[str, Any], nice: int = jit_worker.NICE) -> dict[str, Any] | None:
    """The compiled worker the file starts (agents/reinforce_tactics/jit_worker.py): the same
    agent and parameters with ``jit=True``, for an agent with a ``jit`` field when ``--param``
    left ``jit`` unset; else None."""
    if not has_jit(target) or "jit" in params:
        return None
    return {"module": target.module, "cls": target.cls.__name__, "params": {**converted, "jit": True}, "nice": nice}


def make_agent(target: Target, params: dict[str, Any]) -> dict[str, Any]:
    """The converted parameters, after building the agent once on a small map to check them."""
    kwargs = convert_params(target.cls, target.label, params, game=ReinforceTactics(map="beginner"))
    _build_once(target, kwargs)
    return kwargs


def file_params(target: Target, params: dict[str, Any]) -> dict[str, Any]:
    """The converted parameters the file builds ``target`` with: :func:`make_agent`'s, a weights
    file inline (:func:`agents.submission.embed_files`; the agent then built from them once more)."""
    converted = make_agent(target, params)
    embedded = embed_files(converted, target.label)
    if embedded != converted:
        _build_once(target, embedded)
    return embedded


def _build_once(target: Target, kwargs: dict[str, Any]) -> None:
    """Build the agent from converted ``kwargs`` on a small map, as the file will."""
    try:
        target.cls(game=ReinforceTactics(map="beginner"), **kwargs)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"agent {target.label!r}: {exc}") from None
    except Exception as exc:
        raise BuildFailed(f"creating agent {target.label!r} failed: {type(exc).__name__}: {exc}") from None


def list_agents() -> str:
    lines = [f"{name}" for name in registry.names(GAME)]
    lines.append(f"{RANDOM_TURN} (a random turn that seizes and attacks first)")
    default = "none"
    for candidate in STRONGEST:
        try:
            resolve_agent(candidate)
        except (UsageError, SpecError):
            continue
        default = candidate
        break
    lines.append(f"default (no --agent): {default}")
    return "\n".join(lines)


def game_modules() -> list[str]:
    """The game's modules named by string (its kernels and heuristics: ``Game.import_module``
    loads them by name, so no import statement of a generic agent carries them into the bundle;
    ``naive_mcts``'s file once failed validation with "No module named ...heuristics")."""
    return [path for path in (ReinforceTactics.kernels, ReinforceTactics.heuristics) if path]


def file_heuristic_modules(params: dict[str, Any]) -> list[str]:
    """The module of a heuristic read from a file (``heuristic=learned``), named by string like
    :func:`game_modules`: the file once failed to create its agent without it."""
    module = file_heuristics(ReinforceTactics()).get(str(params.get("heuristic") or ""))
    return [module] if module else []


def prepare(target: Target, params: dict[str, Any], args: argparse.Namespace) -> Prepared:
    """The converted parameters (the agent built once on a small map), the compiled worker the
    file starts (``_WORKER``, a literal its tail reads) and what the file bundles beside the agent."""
    defaults = submission_defaults(target, params)
    converted = file_params(target, {**defaults, **params})
    worker = worker_spec(target, params, converted, args.worker_nice)
    roots = [ADAPTER_MODULE, WORKER_MODULE, "base.clock", *game_modules(), *file_heuristic_modules(converted),
             *registry.spec_modules(ReinforceTactics(), target.cls, converted)]
    lines = ["  compiled worker: a second process compiles the planner (jit=True) and plans each turn once ready; "
             "plain until then (--param jit=false: no worker)"] if worker else []
    stand_in = plain_stand_in(target, worker, args.plain_agent)
    if stand_in is not None:
        own, own_params = stand_in
        roots += [own.module, *file_heuristic_modules(own_params)]
        lines.append(f"  plain stand-in: {own.label} {codec.brief(own_params)} plays in the file's own process until the "
                     f"worker is ready, and without numba (--plain-agent; same: {target.label} itself)")
    return Prepared(defaults, converted, None, roots=roots, literals={"_WORKER": worker},
                    prefix_key=(GAME, target.module, target.cls.__name__, converted, worker,
                                stand_in and (stand_in[0].module, stand_in[0].cls.__name__, stand_in[1])),
                    lines=lines, stand_in=stand_in)


def plain_stand_in(target: Target, worker: dict[str, Any] | None, spec: str) -> tuple[Target, dict[str, Any]] | None:
    """The agent (and converted parameters) the file's own process plays plain while the compiled
    worker is not ready, and all game without numba: ``spec`` (``--plain-agent``) with ``jit``
    off; None (the target itself) without a worker, for ``same``, or when ``spec`` is the
    target's own class. Why: a macro-move search's plain turn samples whole turns in Python
    and overran a 2 s turn by 9 s on tower_rush (the built naive_mcts file, docs/learned-evaluation.md),
    where greedy's plain planner takes well under a second."""
    if worker is None or spec.strip() == "same":
        return None
    own, spec_params = resolve_agent(spec)
    if own.cls is target.cls:
        return None
    params: dict[str, Any] = {**submission_defaults(own, spec_params), **spec_params}
    if has_jit(own):
        params["jit"] = False
    return own, file_params(own, params)


# --- validating ------------------------------------------------------------------------------------
def validation_jobs(args: argparse.Namespace, tmp: Path) -> list[tuple[list[str], Path]]:
    """The maps shared among ``--workers`` processes (every opponent, both seats), then one game
    on :data:`NO_NUMBA_MAP` against random with numba made unimportable."""
    common = ["--opponents", ",".join(args.opponent_list), "--episode-steps", str(args.episode_steps),
              "--act-timeout", str(args.act_timeout), "--seed", str(args.seed)]
    shares = [args.map_list[w::args.workers] for w in range(args.workers)]
    jobs = [(["--maps", ",".join(share), *common], tmp / f"w{w}.json") for w, share in enumerate(shares) if share]
    nn = ["--maps", NO_NUMBA_MAP, "--opponents", "random", "--seats", "0", "--no-numba",
          "--episode-steps", str(args.episode_steps), "--act-timeout", str(args.act_timeout), "--seed", str(args.seed)]
    return jobs + [(nn, tmp / "nonumba.json")]


def validation_games(args: argparse.Namespace) -> int:
    return len(args.map_list) * len(args.opponent_list) * 2 + 1


def validation_env(env: dict[str, str]) -> dict[str, str]:
    return {**env, "NUMBA_CACHE_DIR": "/proc/rt-validate-no-cache"}  # no writable cache, as on a read-only system


def announce(args: argparse.Namespace) -> str:
    n = len(args.map_list) * len(args.opponent_list) * 2
    return (f"validating: {n} games ({len(args.map_list)} maps x {', '.join(args.opponent_list)} x both seats) + 1 without numba, "
            f"episodeSteps {args.episode_steps}, actTimeout {args.act_timeout:g} s, {args.workers} processes without the repo ...")


def summarize(reports: list[dict], no_numba: dict, args: argparse.Namespace) -> tuple[list[str], list[str]]:
    return summary(reports, no_numba, args.max_bank, args.worker_ready_turns)


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


def summary(reports: list[dict], no_numba: dict, max_bank: float,
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
