"""Play a built submission file in kaggle-environments, in a process that cannot see the repo.

Run by ``build_submission.py`` as ``python -I util/bundle_validate.py ...`` (``-I``: neither
the repo, the current folder nor PYTHONPATH is on ``sys.path``), so it imports nothing from the
project: a submission that still needs the repo fails here, as it would on Kaggle. It loads the
file exactly as kaggle-environments does (``get_last_callable``; then ``env.run`` with the file
path, which loads it again for each game) and writes a JSON report for the builder to print.
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import runpy
import sys
import time

# The validators' shared part (util/bundle_isolation.py), loaded by its path: the repo stays hidden.
_SHARED = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundle_isolation.py"))
write_report, _Parser, _run = _SHARED["write_report"], _SHARED["Parser"], _SHARED["run"]



def _errors(text: str) -> list[str]:
    return [line for line in (text or "").splitlines() if line.startswith("[connectx] ERROR")]


def _late(text: str) -> int:
    return sum(line.startswith("[connectx] LATE") for line in (text or "").splitlines())


def first_load(path: str) -> dict:
    """Load the file once as Kaggle does (``get_last_callable``) and time it. The agent is not
    called here, so the first game's first move still pays for creating the agent and compiling
    its kernels, as on Kaggle."""
    from kaggle_environments.agent import get_last_callable

    with open(path, encoding="utf-8") as f:
        raw = f.read()
    start = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()) as err:
        fn = get_last_callable(raw, path=path)
    loaded = time.perf_counter()
    return {
        "callable": getattr(fn, "__name__", repr(fn)),
        "argcount": getattr(getattr(fn, "__code__", None), "co_argcount", None),
        "load_s": loaded - start,
        "errors": _errors(err.getvalue())[:5],
    }


def play(path: str, opponent: str, seat: int, seed: int, environment: str = "connectx") -> dict:
    """One game; ``seat`` 0 moves first. Our moves' durations as Kaggle logged them."""
    from kaggle_environments import make

    random.seed(seed)
    env = make(environment, debug=False)
    players = [path, opponent] if seat == 0 else [opponent, path]
    steps = env.run(players)
    last = steps[-1][seat]
    durations, errors, late = [], [], 0
    act_timeout = float(env.configuration.actTimeout)
    for step_logs in env.logs:
        if len(step_logs) > seat and isinstance(step_logs[seat], dict) and "duration" in step_logs[seat]:
            durations.append(step_logs[seat]["duration"])
            errors += _errors(step_logs[seat].get("stderr", ""))
            late += _late(step_logs[seat].get("stderr", ""))
    return {
        "opponent": opponent,
        "seat": seat,
        "status": last["status"],
        "reward": last["reward"],
        "durations": durations,
        "errors": errors[:5],
        "error_count": len(errors),
        "late": late,
        "bank_used": sum(max(0.0, d - act_timeout) for d in durations),
        "act_timeout": act_timeout,
    }


def main(argv: list[str] | None = None) -> int:
    parser = _Parser("bundle_validate", __doc__, "connectx")
    parser.add_argument("--opponents", default="negamax,random", help="kaggle-environments built-in agents, comma-separated")
    parser.add_argument("--games", type=int, default=2, help="games per opponent")
    parser.add_argument("--first-seat", type=int, default=0, help="seat of this worker's first game (seats then alternate)")
    parser.add_argument("--seed", type=int, default=0, help="seed of Python's random (the built-in agents use it)")
    args = parser.parse(argv)
    report: dict = {"python": sys.version.split()[0], "no_numba": args.no_numba}

    def games() -> None:
        report["load"] = first_load(args.submission)
        report["games"] = []
        for g in range(args.games):
            for i, opp in enumerate(filter(None, args.opponents.split(","))):
                report["games"].append(play(args.submission, opp, (args.first_seat + g) % 2, args.seed * 1000 + g * 10 + i, args.environment))
                write_report(args.out, report)  # after each game: the builder shows its progress

    return _run(args, report, games)



if __name__ == "__main__":
    sys.exit(main())
