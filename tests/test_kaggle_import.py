"""kaggle-environments prints to stdout on import (an environment that fails to load, e.g.
OpenSpiel's without pyspiel in the README's plain install): our imports of it send that to
stderr, so a command whose stdout is data prints only its data."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _stdout(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Loading environment" not in proc.stderr, proc.stderr  # nor a second line beside a usage error
    return proc.stdout


def test_the_maps_catalog_prints_nothing_but_its_caller_s_output():
    assert _stdout("from core.reinforce_tactics import maps; print(len(maps.map_names()))") == "19\n"


def test_kaggle_builtins_of_the_arena_print_nothing():
    out = _stdout("from util.arena.kaggle_turns import builtins_of; print(sorted(builtins_of('reinforce_tactics'))[:1])")
    assert out.count("\n") == 1 and out.startswith("["), out


def test_the_helper_returns_the_package_once_imported():
    from base.kaggle_import import kaggle_environments

    first = kaggle_environments()
    assert first is kaggle_environments() and first is sys.modules["kaggle_environments"]
