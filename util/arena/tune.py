"""Tune an agent's parameters with Optuna: the objective is its score against fixed opponents.

    python -m util.arena.tune --agent alphabeta --fixed max_depth=4 --space power=float:1:3 \\
        --opponents rules,kaggle:negamax --trials 20 --workers 2 --storage sqlite:///results/tune.sqlite \\
        --confirm 400 --confirm-sprt elo0=0,elo1=10,alpha=0.05,beta=0.05

Each trial plays ``--games`` games against every opponent from the fixed opening suite (seats
swapped, the same seeds in every trial, so trials differ only by their parameters). The study
lives in ``--storage``: rerunning the command resumes it (trials left running by an interrupt
are marked failed and replaced; the sampler's seed is the ``--seed`` plus the trials already in
the study, so a resumed study does not replay the parameters of its first trials). The best
tuned parameters are printed and written as a flat JSON object (``--out``), which
``build_submission.py --params FILE`` accepts; the ``--fixed`` ones (often settings that only
make tuning fast, such as ``max_sims``) stay out of it. ``--confirm N`` then plays the best
parameters against the defaults in a separate match with a different seed, over N games or,
with ``--confirm-sprt``, game pairs until the sequential test decides (N at most).

Any game (``--game NAME[:key=value,...]``, default connectx; ``python -m core --list``): on
games other than ConnectX the agent and its opponents are engine agents
(:mod:`agents.registry`), e.g. ``--game connect4_count:rows=4,columns=5 --agent mcts
--space exploration=float:0.5:2 --opponents random,alphabeta:max_depth=2``.

Space syntax, comma-separated: ``name=float:LOW:HIGH[:log]``, ``name=int:LOW:HIGH``,
``name=cat:A|B|C``. A name is an agent field or, for the engine's agents, a parameter of the
game's heuristics by its declared name (``--game quixo --agent alphabeta --space w3=float:1:32``;
:func:`spec_parameters`); a range beyond a parameter's declared bounds is refused. Exit codes:
0 done, 2 bad input (one line on stderr), 130 interrupted (143 on SIGTERM).
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import registry
from agents.engine.spec import SpecError, parse_spec
from base import backends
from base.atomic import write_text
from base.bounds import as_float, as_int
from base.cli import SEED, OneLineParser, exit_code, int_in, seconds_in, stop_on_signals, unwritable
from base.params import Param
from core.game import Game
from core.games import DEFAULT_GAME, add_game_arguments
from util.arena import match, players, sprt
from util.arena.players import HasGame
from util.arena.tournament import MAX_GAMES, MAX_WORKERS, UsageError, parse_game_args

# The example in the help text (tests resolve it): keep it valid.
EXAMPLE = {"agent": "alphabeta", "fixed": "max_depth=4", "space": "power=float:1:3", "opponents": "rules,kaggle:negamax"}


MAX_TRIALS = 100_000


@dataclass(frozen=True)
class Dim:
    name: str  # parameter name of the agent
    kind: str  # "float", "int" or "cat"
    low: float = 0.0  # lower bound (float, int)
    high: float = 0.0  # upper bound (float, int)
    log: bool = False  # sample on a log scale (float, int)
    choices: tuple[Any, ...] = ()  # values (cat), numbers and booleans converted as JSON holds them

    def suggest(self, trial: Any) -> Any:
        if self.kind == "float":
            return trial.suggest_float(self.name, self.low, self.high, log=self.log)
        if self.kind == "int":
            return trial.suggest_int(self.name, int(self.low), int(self.high), log=self.log)
        return trial.suggest_categorical(self.name, list(self.choices))


def agent_parameters(agent: str, game: Game | None = None) -> dict[str, Any]:
    """Parameter names of ``agent`` with their defaults: the agent of that name on ``game``
    (default ConnectX), as :mod:`agents.registry` resolves it, with the game's heuristic
    parameters by name when the agent takes them in its ``params`` (:func:`spec_parameters`)."""
    return {name: p.default for name, p in spec_parameters(agent, game).items()}


def spec_parameters(agent: str, game: Game | None = None) -> dict[str, Param]:
    """Every parameter a spec of ``agent`` may name on ``game`` (default ConnectX), declared
    (:class:`base.params.Param`: default and bounds): the agent class's fields
    (:func:`agents.engine.spec.agent_params`) and, for an agent whose ``params`` holds its
    heuristic's parameters, each of the game's heuristic parameters by name
    (:func:`agents.engine.params.agent_parameters`). The tuner's space and the web app read this
    one table."""
    import dataclasses

    from agents.engine.params import agent_parameters as heuristic_parameters
    from agents.engine.spec import agent_params

    game = players.as_game(game)
    cls = registry.agent_class(game.name, agent)
    out = agent_params(cls)
    named = {f.name: f for f in dataclasses.fields(cls)}.get("params")
    if named is not None and named.metadata.get("heuristic_params"):
        for name, p in heuristic_parameters(game).items():
            out.setdefault(name, p)
    return out


def parse_space(text: str, agent: str, game: Game | None = None) -> list[Dim]:
    """``power=float:1:3,depth=int:2:8,heuristic=cat:a|b`` -> dims; checks names against the
    agent (of ``game``, default ConnectX)."""
    valid = spec_parameters(agent, game)
    dims: list[Dim] = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, eq, rest = item.partition("=")
        if any(d.name == name for d in dims):
            raise UsageError(f"--space names {name!r} twice; give each parameter one range")
        kind, _, bounds = rest.partition(":")
        if not eq or kind not in ("float", "int", "cat"):
            raise UsageError(f"bad --space entry {item!r}: write name=float:LOW:HIGH[:log], name=int:LOW:HIGH or name=cat:A|B")
        if name not in valid:
            raise UsageError(f"agent {agent!r} has no parameter {name!r}; valid parameters: {', '.join(sorted(valid))}")
        if kind == "cat":
            choices = tuple(_plain(c) for c in bounds.split("|") if c)
            if not choices:
                raise UsageError(f"bad --space entry {item!r}: list the choices as A|B|C")
            dims.append(Dim(name, kind, choices=choices))
            continue
        parts = bounds.split(":")
        try:
            number = as_int if kind == "int" else as_float  # int:1.5:3 is no integer range
            low, high = float(number(parts[0], "LOW")), float(number(parts[1], "HIGH"))
            log = parts[2:] == ["log"]
            if len(parts) > 3 or (len(parts) == 3 and not log) or low >= high or (log and low <= 0):
                raise ValueError
        except (ValueError, IndexError):
            what = "integers" if kind == "int" else "finite numbers"
            raise UsageError(f"bad --space entry {item!r}: bounds are LOW:HIGH ({what}) with LOW < HIGH, then optionally "
                             ":log (LOW > 0)") from None
        p = valid[name]
        lo, hi = -math.inf if p.lo is None else p.lo, math.inf if p.hi is None else p.hi
        if not lo <= low < high <= hi:
            raise UsageError(f"--space {name}: {low:g}:{high:g} leaves the parameter's bounds {lo:g} to {hi:g}; "
                             "narrow the range")
        dims.append(Dim(name, kind, low, high, log))
    if not dims:
        raise UsageError("--space is empty: give at least one name=kind:... entry")
    return dims


def check_space(agent: str, fixed: dict[str, Any], dims: list[Dim], game: Game | None = None) -> None:
    """Build the agent at each end of every range and with every choice (the others at their
    fixed values or defaults), so that a value the agent rejects stops the command before the
    first trial instead of in the middle of the study."""
    for d in dims:
        values = d.choices if d.kind == "cat" else (int(d.low), int(d.high)) if d.kind == "int" else (d.low, d.high)
        for value in values:
            try:
                players.resolve(spec_text(agent, {**fixed, d.name: value}), game)
            except SpecError as exc:
                raise UsageError(f"--space {d.name}: {value!r} is in the space but the agent refuses it ({exc}); narrow the space") from None


def check_out(path: Path) -> None:
    """Fail now, not after the whole study, if the params file cannot be written there."""
    why = unwritable(path)
    if why:
        raise UsageError(f"--out {why}; give a writable file such as results/tune/best.json")


def check_storage(url: str) -> None:
    """Refuse an SQLite file that is not an Optuna storage (a tournament store, anything else)."""
    import sqlite3
    if not url.startswith("sqlite:///"):
        return
    path = Path(url[len("sqlite:///"):])
    why = unwritable(path)
    if why:  # a device, a directory, a read-only place
        raise UsageError(f"--storage {why}; give a writable file such as sqlite:///results/tune/studies.db")
    if not path.is_file():
        return
    try:
        con = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True)
        try:
            tables = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise UsageError(f"cannot open --storage {url}: {exc}") from None
    if "games" in tables and "players" in tables:
        raise UsageError(f"--storage {url} is a tournament store (util.arena.tournament's --db), not an Optuna study; give another file")
    if tables and "studies" not in tables:
        raise UsageError(f"--storage {url} holds other tables ({', '.join(sorted(tables)[:4])}), not Optuna studies; give another file")


def spec_text(agent: str, params: dict[str, Any]) -> str:
    return agent + (":" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) if params else "")


def variant_games(game: Game, variants: str) -> list[Game]:
    """``--variants KEY=V1|V2|...``: ``game`` with parameter KEY set to each value (its other
    parameters kept), e.g. ``map=beginner|crossroads`` for several Reinforce Tactics maps; empty
    text: ``[game]``. A UsageError names a bad key or value."""
    if not variants.strip():
        return [game]
    key, eq, values = variants.partition("=")
    key = key.strip()
    params = getattr(game, "params", None)
    if not eq or not isinstance(params, dict) or key not in params:
        known = ", ".join(params) if isinstance(params, dict) else "none"
        raise UsageError(f"--variants must be KEY=V1|V2|... with KEY a parameter of the game ({known}), got {variants!r}")
    out: list[Game] = []
    for value in filter(None, (v.strip() for v in values.split("|"))):
        spec = f"{game.name}:" + ",".join(f"{k}={value if k == key else v}" for k, v in params.items())
        try:
            out.append(match.game_of(spec))
        except ValueError as exc:
            raise UsageError(f"--variants {key}={value}: {exc}") from None
    if not out:
        raise UsageError(f"--variants {key}= lists no value; give V1|V2|...")
    return out


def score(candidate: players.PlayerSpec, opponents: list[players.PlayerSpec], games: int, shape: Game | HasGame | Sequence[Game | HasGame],
          time_per_move: float, seed: int, runner: backends.Runner) -> float:
    """The candidate's points per game against the opponents (a gauntlet of ``games`` each, on
    each game of ``shape`` when it is a list: :func:`variant_games`)."""
    games_of: list[Game | HasGame] = list(shape) if isinstance(shape, (list, tuple)) else [shape]  # type: ignore[list-item]
    jobs = [job for g in games_of
            for job in match.schedule([candidate, *opponents], games, "gauntlet", g, time_per_move, "direct", seed,
                                      seed_names=["candidate", *(o.text for o in opponents)])]
    points = 0.0
    for job, result in runner.run(jobs, match.run_job):
        if isinstance(result, BaseException):
            raise RuntimeError(f"a game failed in its worker: {type(result).__name__}: {result}")
        mark = 1 if job.first is candidate else 2
        points += 1.0 if result["winner"] == mark else 0.5 if result["winner"] == 0 else 0.0
    return points / len(jobs)


def sprt_confirm(tuned: players.PlayerSpec, baseline: players.PlayerSpec, games: int, shape: Game | HasGame, time_per_move: float,
                 seed: int, runner: backends.Runner, test: sprt.Sprt) -> str:
    """Tuned against baseline pair by pair (same opening, seats swapped) until ``test``
    decides or ``games`` are played; the verdict and the pentanomial summary as text."""
    jobs = match.schedule([tuned, baseline], games + games % 2, "gauntlet", shape, time_per_move, "direct", seed)
    points: dict[int, float] = {}
    llr = 0.0
    decision: str | None = None  # read by pending() as the games go on

    def counts() -> tuple[np.ndarray, int]:
        complete = [k for k in points if k % 2 == 0 and k + 1 in points]
        draws = sum((points[k] == 0.5) + (points[k + 1] == 0.5) for k in complete)
        return sprt.pentanomial(points[k] + points[k + 1] for k in complete), draws

    def pending():
        for job in jobs:
            if decision:
                return
            yield job

    for job, result in runner.run(pending(), match.run_job):
        if isinstance(result, BaseException):
            raise RuntimeError(f"a game failed in its worker: {type(result).__name__}: {result}")
        mark = 1 if job.first is tuned else 2
        points[job.index] = 1.0 if result["winner"] == mark else 0.5 if result["winner"] == 0 else 0.0
        penta, _ = counts()
        if penta.sum():
            llr = float(test.llr(penta))
            decision = test.decide(llr)
            print(f"confirmation pair {int(penta.sum())}: LLR {llr:+.2f} ({test.lower:.2f}, {test.upper:.2f})", file=sys.stderr)
        if decision:
            break
    penta, draws = counts()
    what = {"H1": "H1 accepted: the tuned parameters are better", "H0": "H0 accepted: not elo1 better than the defaults"}.get(
        decision or "", f"no decision within {games} games")
    return f"SPRT {test.text()}: {what}; LLR {llr:+.2f}\n  {sprt.summarize(penta, draws).text()}"


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m util.arena.tune", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agent", required=True, help="agent name to tune (see agents.registry)")
    p.add_argument("--space", required=True, help="search space, e.g. power=float:1:3 (syntax below)")
    p.add_argument("--fixed", default="", help="parameters held fixed, key=value comma-separated (e.g. max_depth=4)")
    p.add_argument("--variants", default="", metavar="KEY=V1|V2", help="play each trial on these variants of --game (e.g. map=beginner|crossroads): mean score")
    p.add_argument("--opponents", required=True, help="comma-separated agent specs, as in util.arena.tournament")
    p.add_argument("--trials", type=int_in(1, MAX_TRIALS), default=20, help="total completed trials the study should reach (default 20)")
    p.add_argument("--games", type=int_in(1, MAX_GAMES), default=20, help="games per opponent and trial (default 20)")
    p.add_argument("--time", type=seconds_in(), default=0.5, help="seconds per move, per turn in games whose turn is several decisions (default 0.5)")
    p.add_argument("--workers", type=int_in(1, MAX_WORKERS), default=1, help="parallel games within a trial (default 1)")
    p.add_argument("--backend", choices=backends.BACKENDS, default="process", help="process pool (default) or Ray")
    p.add_argument("--address", default=None, help="Ray cluster address (with --backend ray)")
    p.add_argument("--storage", default="sqlite:///results/tune.sqlite", help="Optuna storage URL (default sqlite:///results/tune.sqlite)")
    p.add_argument("--study", default=None, help="study name (default: built from agent, space, fixed, opponents, games, time)")
    add_game_arguments(p, default=DEFAULT_GAME)
    p.add_argument("--seed", type=SEED, default=0, help="seeds the sampler and the games (default 0)")
    p.add_argument("--out", default=None, help="best parameters JSON (default results/tune/<study>.json)")
    p.add_argument("--confirm", type=int_in(0, MAX_GAMES), default=0, metavar="GAMES", help="then play best vs defaults over GAMES games (default: skip)")
    p.add_argument("--confirm-sprt", metavar="elo0=0,elo1=10,alpha=0.05,beta=0.05", default=None,
                   help="make the confirmation a game-pair SPRT that stops when it decides (--confirm GAMES at most)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with stop_on_signals():  # SIGINT exits 130, SIGTERM 143, also mid-compile
        try:
            return _main(args)
        except KeyboardInterrupt as exc:  # before the study starts: nothing to save
            print("interrupted", file=sys.stderr)
            return exit_code(exc)


class _NoInterruptTraceback(logging.Filter):
    """Optuna logs a trial that an interrupt ended with the interrupt's traceback; the
    command's one line says it instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], KeyboardInterrupt))


def _main(args: argparse.Namespace) -> int:
    try:
        import optuna
    except ImportError:
        print("error: util.arena.tune needs optuna: pip install optuna", file=sys.stderr)
        return 2
    try:
        for name in ("trials", "games", "workers"):
            if getattr(args, name) < 1:
                raise UsageError(f"--{name} must be at least 1")
        if args.time <= 0:
            raise UsageError("--time must be positive (seconds per move)")
        if backends.missing(args.backend):
            raise UsageError(backends.missing(args.backend))
        shape = parse_game_args(args.game, args.shape)  # the game (ConnectX: on its board)
        fixed = parse_spec(f"{args.agent}:{args.fixed}")[1]
        players.resolve(spec_text(args.agent, fixed), shape)  # an agent that does not play the game: say so first
        dims = parse_space(args.space, args.agent, shape)
        clash = {d.name for d in dims} & set(fixed)
        if clash:
            raise UsageError(f"parameter {sorted(clash)[0]!r} is both fixed and in --space")
        check_space(args.agent, fixed, dims, shape)
        test = None
        if args.confirm_sprt:
            if args.confirm < 2:
                raise UsageError("--confirm-sprt needs --confirm GAMES (the most games the confirmation may play)")
            try:
                test = sprt.parse(args.confirm_sprt)
            except ValueError as exc:
                raise UsageError(f"--confirm-sprt: {exc}") from None
        baseline = players.resolve(spec_text(args.agent, fixed), shape)
        opponents = [players.resolve(s, shape) for s in players.split_specs(args.opponents)]
        if not opponents:
            raise UsageError("--opponents needs at least one agent spec")
        for spec in opponents:
            players.check_loads(spec, shape, args.time)
        where = shape.legacy_key() or shape.spec()
        shapes = variant_games(shape, args.variants)
        if args.variants and args.confirm_sprt:
            raise UsageError("--confirm-sprt plays one game variant: use --confirm GAMES with --variants")
        study_name = args.study or "|".join([args.agent, args.space, args.fixed, args.opponents, str(args.games), str(args.time), where]
                                            + ([args.variants] if args.variants else []))
        out = Path(args.out) if args.out else Path("results") / "tune" / (_slug(study_name) + ".json")
        check_out(out)
        check_storage(args.storage)  # its folder is made
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        for handler in logging.getLogger("optuna").handlers:
            handler.addFilter(_NoInterruptTraceback())
        try:
            study = optuna.create_study(storage=args.storage, study_name=study_name, direction="maximize", load_if_exists=True)
        except Exception as exc:  # bad URL, unreadable file: optuna raises many types
            raise UsageError(f"cannot open --storage {args.storage}: {str(exc).splitlines()[0]}") from None
        # A fresh stream for each (re)start: the same seed would replay the first trials' parameters.
        study.sampler = optuna.samplers.TPESampler(seed=args.seed + len(study.get_trials(deepcopy=False)))
    except (UsageError, SpecError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    from optuna.trial import TrialState
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(t.number, state=TrialState.FAIL)  # left by an interrupted run
    done = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
    print(f"study {study_name!r}: {done} trials done, {max(0, args.trials - done)} to run", file=sys.stderr)

    def objective(trial: Any) -> float:
        params = {**fixed, **{d.name: d.suggest(trial) for d in dims}}
        candidate = players.resolve(spec_text(args.agent, params), shape)
        value = score(candidate, opponents, args.games, shapes, args.time, args.seed, runner)
        print(f"trial {trial.number}: {candidate.text} scored {value:.3f}", file=sys.stderr)
        return value

    with backends.Runner(args.workers, args.backend, args.address) as runner:
        try:
            if done < args.trials:
                study.optimize(objective, n_trials=args.trials - done, catch=(RuntimeError,))
        except KeyboardInterrupt as exc:
            print("interrupted: finished trials are saved; rerun the same command to resume", file=sys.stderr)
            return exit_code(exc)
        try:
            return _finish(args, study, out, fixed, baseline, opponents, shape, runner, test, shapes)
        except KeyboardInterrupt as exc:
            print("interrupted during the confirmation: the study and the params file are saved", file=sys.stderr)
            return exit_code(exc)
        except OSError as exc:
            print(f"error: cannot write {out}: {exc.strerror or exc}; the study is saved, rerun to write it", file=sys.stderr)
            return 2


def _finish(args: argparse.Namespace, study: Any, out: Path, fixed: dict[str, str], baseline: players.PlayerSpec,
            opponents: list[players.PlayerSpec], shape: Game, runner: backends.Runner, test: sprt.Sprt | None,
            shapes: Sequence[Game | HasGame] = ()) -> int:
    """Write the best tuned parameters (not the fixed ones) and play the confirmation match."""
    from optuna.trial import TrialState
    if not study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        print("error: no trial finished (see the messages above); nothing to write", file=sys.stderr)
        return 1
    best = study.best_trial
    params = dict(best.params)
    write_text(out, json.dumps(params, indent=2, sort_keys=True) + "\n")
    print(f"best score {best.value:.3f} (trial {best.number}): {json.dumps(params, sort_keys=True)}")
    print(f"written to {out}" + (f" (held fixed while tuning, not written: {args.fixed})" if fixed else ""))
    if args.confirm:
        tuned = players.resolve(spec_text(args.agent, {**fixed, **params}), shape)
        if tuned.text == baseline.text:
            print("confirmation skipped: the best parameters are the defaults")
        elif test:
            print(f"confirmation, {tuned.text} against {baseline.text}: "
                  + sprt_confirm(tuned, baseline, args.confirm, shape, args.time, args.seed + 1, runner, test))
        else:
            value = score(tuned, [baseline], args.confirm, list(shapes) or shape, args.time, args.seed + 1, runner)
            print(f"confirmation: {tuned.text} scored {value:.3f} against {baseline.text} over {args.confirm} games")
    return 0


def _plain(value: str) -> Any:
    """A --fixed value as JSON would hold it (numbers as numbers)."""
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(value.lower(), value)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:120]


if __name__ == "__main__":
    sys.exit(main())
