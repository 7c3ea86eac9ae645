"""Tune an agent's parameters with Optuna: the objective is its score against fixed opponents.

    python -m util.tune --agent alphabeta --fixed max_depth=4 --space power=float:1:3 \\
        --opponents rules,kaggle:negamax --trials 20 --workers 2 --storage sqlite:///results/tune.sqlite

Each trial plays ``--games`` games against every opponent from the fixed opening suite (seats
swapped, the same seeds in every trial, so trials differ only by their parameters). The study
lives in ``--storage``: rerunning the command resumes it (trials left running by an interrupt
are marked failed and replaced). The best parameters are printed and written as a flat JSON
object (``--out``), which ``build_submission.py --params FILE`` accepts. ``--confirm N`` then
plays the best parameters against the defaults in a separate match with a different seed.

Space syntax, comma-separated: ``name=float:LOW:HIGH[:log]``, ``name=int:LOW:HIGH``,
``name=cat:A|B|C``. Exit codes: 0 done, 2 bad input (one line on stderr), 130 interrupted.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import registry
from agents.registry import SpecError
from core.shape import Shape
from util import backends, match, players
from util.atomic import write_text
from util.tournament import UsageError, parse_shape


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


def parse_space(text: str, agent: str) -> list[Dim]:
    """``power=float:1:3,depth=int:2:8,heuristic=cat:a|b`` -> dims; checks names against the agent."""
    valid = registry.parameters(agent)
    dims = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, eq, rest = item.partition("=")
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
            low, high = float(parts[0]), float(parts[1])
            log = parts[2:] == ["log"]
            if len(parts) > 3 or (len(parts) == 3 and not log) or low >= high:
                raise ValueError
        except (ValueError, IndexError):
            raise UsageError(f"bad --space entry {item!r}: bounds are LOW:HIGH with LOW < HIGH, then optionally :log") from None
        dims.append(Dim(name, kind, low, high, log))
    if not dims:
        raise UsageError("--space is empty: give at least one name=kind:... entry")
    return dims


def spec_text(agent: str, params: dict[str, Any]) -> str:
    return agent + (":" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) if params else "")


def score(candidate: players.PlayerSpec, opponents: list[players.PlayerSpec], games: int, shape: Shape,
          time_per_move: float, seed: int, runner: backends.Runner) -> float:
    """The candidate's points per game against the opponents (a gauntlet of ``games`` each)."""
    jobs = match.schedule([candidate, *opponents], games, "gauntlet", shape, time_per_move, "direct", seed,
                          seed_names=["candidate", *(o.text for o in opponents)])
    points = 0.0
    for job, result in runner.run(jobs, match.run_job):
        if isinstance(result, BaseException):
            raise RuntimeError(f"a game failed in its worker: {type(result).__name__}: {result}")
        mark = 1 if job.first is candidate else 2
        points += 1.0 if result["winner"] == mark else 0.5 if result["winner"] == 0 else 0.0
    return points / len(jobs)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m util.tune", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agent", required=True, help="agent name to tune (see agents.registry)")
    p.add_argument("--space", required=True, help="search space, e.g. power=float:1:3 (syntax below)")
    p.add_argument("--fixed", default="", help="parameters held fixed, key=value comma-separated (e.g. max_depth=4)")
    p.add_argument("--opponents", required=True, help="comma-separated agent specs, as in util.tournament")
    p.add_argument("--trials", type=int, default=20, help="total completed trials the study should reach (default 20)")
    p.add_argument("--games", type=int, default=20, help="games per opponent and trial (default 20)")
    p.add_argument("--time", type=float, default=0.5, help="seconds per move (default 0.5)")
    p.add_argument("--workers", type=int, default=1, help="parallel games within a trial (default 1)")
    p.add_argument("--backend", choices=backends.BACKENDS, default="process", help="process pool (default) or Ray")
    p.add_argument("--address", default=None, help="Ray cluster address (with --backend ray)")
    p.add_argument("--storage", default="sqlite:///results/tune.sqlite", help="Optuna storage URL (default sqlite:///results/tune.sqlite)")
    p.add_argument("--study", default=None, help="study name (default: built from agent, space, fixed, opponents, games, time)")
    p.add_argument("--shape", default="6x7x4", help="board as ROWSxCOLUMNSxINAROW (default 6x7x4)")
    p.add_argument("--seed", type=int, default=0, help="seeds the sampler and the games (default 0)")
    p.add_argument("--out", default=None, help="best parameters JSON (default results/tune/<study>.json)")
    p.add_argument("--confirm", type=int, default=0, metavar="GAMES", help="then play best vs defaults over GAMES games (default: skip)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    backends.interrupt_on_sigterm()
    try:
        import optuna
    except ImportError:
        print("error: util.tune needs optuna: pip install optuna", file=sys.stderr)
        return 2
    try:
        for name in ("trials", "games", "workers"):
            if getattr(args, name) < 1:
                raise UsageError(f"--{name} must be at least 1")
        if args.time <= 0:
            raise UsageError("--time must be positive (seconds per move)")
        shape = parse_shape(args.shape)
        fixed = registry.parse_spec(f"{args.agent}:{args.fixed}")[1]
        dims = parse_space(args.space, args.agent)
        clash = {d.name for d in dims} & set(fixed)
        if clash:
            raise UsageError(f"parameter {sorted(clash)[0]!r} is both fixed and in --space")
        baseline = players.resolve(spec_text(args.agent, fixed))
        opponents = [players.resolve(s) for s in players.split_specs(args.opponents)]
        if not opponents:
            raise UsageError("--opponents needs at least one agent spec")
        for spec in opponents:
            players.check_loads(spec, shape, args.time)
        study_name = args.study or "|".join([args.agent, args.space, args.fixed, args.opponents, str(args.games), str(args.time), args.shape])
        if args.storage.startswith("sqlite:///"):
            Path(args.storage[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        try:
            study = optuna.create_study(storage=args.storage, study_name=study_name, direction="maximize",
                                        sampler=optuna.samplers.TPESampler(seed=args.seed), load_if_exists=True)
        except Exception as exc:  # bad URL, unreadable file: optuna raises many types
            raise UsageError(f"cannot open --storage {args.storage}: {str(exc).splitlines()[0]}") from None
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
        candidate = players.resolve(spec_text(args.agent, params))
        value = score(candidate, opponents, args.games, shape, args.time, args.seed, runner)
        print(f"trial {trial.number}: {candidate.text} scored {value:.3f}", file=sys.stderr)
        return value

    with backends.Runner(args.workers, args.backend, args.address) as runner:
        try:
            if done < args.trials:
                study.optimize(objective, n_trials=args.trials - done, catch=(RuntimeError,))
        except KeyboardInterrupt:
            print("interrupted: finished trials are saved; rerun the same command to resume", file=sys.stderr)
            return 130
        return _finish(args, study, study_name, fixed, baseline, opponents, shape, runner)


def _finish(args: argparse.Namespace, study: Any, study_name: str, fixed: dict[str, str], baseline: players.PlayerSpec,
            opponents: list[players.PlayerSpec], shape: Shape, runner: backends.Runner) -> int:
    """Write the best parameters and play the confirmation match."""
    from optuna.trial import TrialState
    if not study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        print("error: no trial finished (see the messages above); nothing to write", file=sys.stderr)
        return 1
    best = study.best_trial
    params = {**{k: _plain(v) for k, v in fixed.items()}, **best.params}
    out = Path(args.out) if args.out else Path("results") / "tune" / (_slug(study_name) + ".json")
    write_text(out, json.dumps(params, indent=2, sort_keys=True) + "\n")
    print(f"best score {best.value:.3f} (trial {best.number}): {json.dumps(params, sort_keys=True)}")
    print(f"written to {out}")
    if args.confirm:
        tuned = players.resolve(spec_text(args.agent, params))
        if tuned.text == baseline.text:
            print("confirmation skipped: the best parameters are the defaults")
        else:
            value = score(tuned, [baseline], args.confirm, shape, args.time, args.seed + 1, runner)
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
