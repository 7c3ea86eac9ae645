"""What both validators (``util/bundle_validate.py``, ``util/bundle_validate_rt.py``) share:
the check that the repo is hidden from the validation process, and the report's writing.

The validators run as ``python -I util/bundle_validate*.py`` and must not see the repo, so they
cannot import this module as ``util.bundle_isolation``: each loads this file by its path
(:func:`runpy.run_path`), which makes no package of the repo importable. Standard library only.
"""
from __future__ import annotations

import importlib.util
import json
import os

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
