"""A toy game's agent table and Kaggle submission hooks (agents.submission.SubmissionHooks), for
tests/test_build_submission_hooks.py: whatever the one builder does for this game must come from
here (the builder names no game). Its tail (tests/toy_game/file_tail.py) and validator
(tests/toy_game/validator.py) are as small as a tail and a validator can be."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from agents.submission import Prepared, Target, UsageError

AGENTS: dict[str, str] = {}
SUBMISSION = "tests.toy_game"

USAGE = "Build a toy file.\n\nThe toy game's epilog."
TITLE = "Toy"
ENVIRONMENT = "toy_environment"
DEFAULT_OUTPUT = "submissions/toy.py"
TAIL = "tests.toy_game.file_tail"
VALIDATOR = "tests/toy_game/validator.py"
OPTIONS: dict[str, Any] = {"workers": 2, "timeout": 60.0, "max_bank": 10.0}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--toy-games", type=int, default=3, help="the toy's own option: its validation jobs")


def check_arguments(args: argparse.Namespace) -> None:
    if args.toy_games < 1:
        raise UsageError("--toy-games must be at least 1 (the toy's own check)")


def resolve_agent(text: str | None) -> tuple[Target, dict[str, str]]:
    from agents.engine.random_agent import RandomAgent

    return Target(text or "toy_random", RandomAgent.__module__, RandomAgent), {}


def list_agents() -> str:
    return "toy_random (the toy's list)"


def prepare(target: Target, params: dict[str, Any], args: argparse.Namespace) -> Prepared:
    return Prepared({}, dict(params), "TOYDATA", roots=["base.clock"], literals={"_TOY": {"games": args.toy_games}},
                    prefix_key=("toy",), lines=["  the toy's own line"])


def validation_jobs(args: argparse.Namespace, tmp: Path) -> list[tuple[list[str], Path]]:
    return [(["--job", str(k)], tmp / f"toy{k}.json") for k in range(args.toy_games)] + [(["--job", "nonumba"], tmp / "nn.json")]


def validation_games(args: argparse.Namespace) -> int:
    return args.toy_games + 1


def validation_env(env: dict[str, str]) -> dict[str, str]:
    return {**env, "TOY_VALIDATION": "1"}


def announce(args: argparse.Namespace) -> str:
    return f"validating the toy: {args.toy_games} jobs"


def describe_game(game: dict, report: dict) -> str:
    return f"toy job {game['job']}"


def summarize(reports: list[dict], no_numba: dict, args: argparse.Namespace) -> tuple[list[str], list[str]]:
    jobs = [r["games"][0]["job"] for r in reports]
    lines = [f"  toy summary: jobs {','.join(jobs)}; no-numba job {no_numba['games'][0]['job']}; env {no_numba['env']}; "
             f"environment {no_numba['environment']}"]
    return lines, [] if args.toy_games != 2 else ["the toy fails with 2 jobs"]
