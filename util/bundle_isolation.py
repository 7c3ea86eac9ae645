"""What both validators (``util/bundle_validate.py``, ``util/bundle_validate_rt.py``) share:
the check that the repo is hidden from the validation process, the report's writing, the
command line's parser and the run that fills the report (:func:`run`).

The validators run as ``python -I util/bundle_validate*.py`` and must not see the repo, so they
cannot import this module as ``util.bundle_isolation``: each loads this file by its path
(:func:`runpy.run_path`), which makes no package of the repo importable. Standard library only.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from collections.abc import Callable

PACKAGES = ("base", "core", "util", "agents", "heuristics")  # the repo's top packages (base.bundle.PROJECT_PACKAGES)


def repo_visible(repo: str) -> str:
    """'' when no project package resolves to the repo, else the reason."""
    repo = os.path.realpath(repo)
    for name in PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        origin = getattr(spec, "origin", None) or ""
        locations = list(getattr(spec, "submodule_search_locations", None) or [])
        if any(os.path.realpath(p).startswith(repo) for p in [origin, *locations] if p):
            return f"the repo's package {name!r} is importable in the validation process"
    return ""


def write_report(path: str, report: dict) -> None:
    """The report, replaced whole (a reader never sees half of it; only a ``finished`` one is the end)."""
    with open(path + ".part", "w", encoding="utf-8") as f:
        json.dump(report, f, default=str)
    os.replace(path + ".part", path)


class Parser(argparse.ArgumentParser):
    """A validator's parser (``prog`` ``python -I util/NAME.py``, its description the first paragraph
    of ``doc``), with the arguments every validator takes first (the submission, ``--repo``, ``--out``,
    ``--environment``, its default ``environment``); :meth:`parse` adds ``--no-numba`` last. A usage
    error exits 2 with ``NAME: error: ...``."""

    def __init__(self, name: str, doc: str, environment: str):
        super().__init__(prog=f"python -I util/{name}.py", description=" ".join(doc.split("\n\n")[0].split()))
        self.name = name
        self.add_argument("submission", help="the built .py file")
        self.add_argument("--repo", required=True, help="the repo root, which must not be importable here")
        self.add_argument("--out", required=True, help="where to write the JSON report")
        self.add_argument("--environment", default=environment, help="kaggle-environments' name of the game (the builder's hook)")

    def parse(self, argv: list[str] | None) -> argparse.Namespace:
        self.add_argument("--no-numba", action="store_true", help="make numba unimportable first")
        return self.parse_args(argv)

    def error(self, message: str):
        self.exit(2, f"{self.name}: error: {message}\n")


def run(args: argparse.Namespace, report: dict, games: Callable[[], None]) -> int:
    """The validator's run: with ``--no-numba`` numba is made unimportable first; ``games()`` (which
    fills ``report`` and writes it after each game) runs only where the repo is hidden; what broke
    goes to the report's ``fatal``; the report is written ``finished``."""
    if args.no_numba:
        sys.modules["numba"] = None  # type: ignore[assignment]  # "import numba" now raises ImportError
    hidden = repo_visible(args.repo)
    if hidden:
        report["fatal"] = hidden
    else:
        try:
            games()
        except Exception as exc:  # the report says what broke; the builder fails on it
            report["fatal"] = f"{type(exc).__name__}: {exc}"
    report["numba_loaded"] = sys.modules.get("numba") is not None
    report["finished"] = True
    write_report(args.out, report)
    return 0
