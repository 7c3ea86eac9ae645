"""The one builder (util/submission_builder.py) asks the game's submission hooks and names no
game: a toy game's hooks (tests/toy_game) are what it uses, options, file, validation jobs and
summary; and the pieces of a file that are real modules (the bundle loader, the tails, the
compiled worker's boot) are rendered into it unchanged."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import build_submission
from agents import registry
from agents.reinforce_tactics import submission as rt_hooks
from base.bundle_file import rendered
from base.bundle_loader import MARK, rendered_source
from core.games import GAME_CLASSES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy(monkeypatch):
    """The toy game in the agents registry, its table naming its hooks (tests/toy_game)."""
    monkeypatch.setitem(registry.GAME_TABLES, "toy", "tests.toy_game")
    import tests.toy_game as hooks

    return hooks


def test_the_builder_builds_and_validates_a_third_game_through_its_hooks(toy, tmp_path, capsys):
    out = tmp_path / "toy.py"
    assert build_submission.main(["--game", "toy", "--output", str(out), "--toy-games", "3", "--workers", "2"]) == 0
    printed = capsys.readouterr().out
    assert "building " in printed and ": Toy agent toy_random (agents.engine.random_agent:RandomAgent)" in printed, printed
    assert "  the toy's own line" in printed and "validating the toy: 3 jobs" in printed, printed
    progress = [line.split(";")[0].split(": toy job ") for line in printed.splitlines() if line.startswith("  game ")]
    assert [count for count, _ in progress] == [f"  game {k}/4" for k in (1, 2, 3, 4)], printed  # the toy's game count
    assert sorted(job for _, job in progress) == ["0", "1", "2", "nonumba"], printed  # its jobs, ending in any order
    assert "  toy summary: jobs 0,1,2; no-numba job nonumba; env 1; environment toy_environment" in printed, printed
    assert "OK: ready to submit" in printed
    text = out.read_text()
    assert text.startswith('"""Toy submission for Kaggle') and "_TOY = {'games': 3}\n" in text and "_DATA = 'TOYDATA'\n" in text
    assert text.endswith(rendered_source(toy.TAIL))
    played: dict = {}
    exec(compile(text, str(out), "exec"), played)
    assert played["agent"](None, None) == {"toy": {"games": 3}, "data": "TOYDATA"}
    assert build_submission.main(["--game", "toy", "--list"]) == 0
    assert capsys.readouterr().out.strip() == "toy_random (the toy's list)"


def test_the_toys_failed_validation_bad_option_and_help_are_its_own(toy, tmp_path, capsys):
    out = tmp_path / "toy.py"
    assert build_submission.main(["--game", "toy", "--output", str(out), "--toy-games", "2"]) == 1
    err = capsys.readouterr().err
    assert "validation failed: the toy fails with 2 jobs" in err and not out.exists() and (tmp_path / "toy.failed.py").is_file(), err
    assert build_submission.main(["--game", "toy", "--output", str(out), "--toy-games", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the toy's own check" in err, err
    with pytest.raises(SystemExit):
        build_submission.main(["--game", "toy", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert "--toy-games" in helped and "The toy game's epilog." in helped and "submissions/toy.py" in helped, helped


def test_a_game_without_hooks_is_one_line(capsys):
    assert build_submission.main(["--game", "tictactoe", "--no-validate"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"exist for {' and '.join(registry.submission_games())}, not 'tictactoe'" in err, err


GENERIC = ("util/submission_builder.py", "util/submission_build.py", "base/bundle_file.py", "base/bundle_loader.py",
           "agents/submission.py", "build_submission_rt.py")


@pytest.mark.parametrize("path", GENERIC)
def test_the_builder_names_no_game(path):
    """No import of a game's package and no game's name in a string (build_submission.py names
    its default game, build_submission_rt.py is Reinforce Tactics' alias)."""
    tree = ast.parse((ROOT / path).read_text())
    games = set(GAME_CLASSES)
    named = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in games]
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    games_imported = [m for m in imported if len(m.split(".")) > 1 and m.split(".")[1] in games]
    if path == "build_submission_rt.py":
        assert named == ["reinforce_tactics"] and not games_imported
        return
    assert named == [] and games_imported == [], (named, games_imported)


def below_mark(module: str) -> str:
    """The lines of ``module``'s file after its mark line, read from disk (not through the loader)."""
    lines = (ROOT / (module.replace(".", "/") + ".py")).read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(MARK))
    return "".join(lines[at + 1:]).strip("\n") + "\n"


@pytest.mark.parametrize("game, agent", [("connectx", "random"), ("reinforce_tactics", rt_hooks.RANDOM_TURN)])
def test_the_rendered_modules_in_the_file_equal_their_sources(tmp_path, game, agent):
    out = tmp_path / "s.py"
    assert build_submission.main(["--game", game, "--agent", agent, "--output", str(out), "--no-validate"]) == 0
    text = out.read_text()
    tail = registry.submission_hooks(game).TAIL
    for module in ("base.bundle_loader", tail):
        assert rendered_source(module) == below_mark(module) and rendered(module) in text, module
    assert text.endswith(below_mark(tail))
    assert text.count("\ndef install_bundle(") == 1  # one bundle loader in the file's code (RT's _SOURCES hold its source too)


def test_the_workers_boot_is_the_loader_and_the_boot_module_also_inside_a_bundle(tmp_path):
    """jit_worker.BOOT, in the repo and as the bundled jit_worker computes it inside a file
    loaded without the repo (the loader's get_source): the rendered bundle loader, then the
    rendered worker_boot, then its call."""
    from agents.reinforce_tactics.jit_worker import BOOT

    assert BOOT == below_mark("base.bundle_loader") + "\n\n" + below_mark("agents.reinforce_tactics.worker_boot") + "\n\nboot_worker()\n"
    out = tmp_path / "rt.py"
    assert build_submission.main(["--game", "reinforce_tactics", "--agent", rt_hooks.RANDOM_TURN, "--output", str(out), "--no-validate"]) == 0
    code = ("import importlib, json, sys\ng = {}\nexec(compile(open(sys.argv[1]).read(), sys.argv[1], 'exec'), g)\n"
            "jw = importlib.import_module(g['_PREFIX'] + '.agents.reinforce_tactics.jit_worker')\n"
            "print(json.dumps([jw.BOOT, jw.__file__]))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONNECTX_NUMBA")}
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(out)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    boot, where = json.loads(proc.stdout.strip().splitlines()[-1])
    assert boot == BOOT and where.startswith("<connectx-bundle>/"), where
