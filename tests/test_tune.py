"""util.tune: space parsing, bad input, a small resumable study, the params file it writes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

optuna = pytest.importorskip("optuna")

from util.tournament import UsageError
from util.tune import Dim, main, parse_space

ROOT = Path(__file__).resolve().parent.parent


def test_parse_space_kinds() -> None:
    dims = parse_space("power=float:1:3:log,max_depth=int:2:8,heuristic=cat:bitsquares|gameovers", "alphabeta")
    assert dims == [Dim("power", "float", 1.0, 3.0, True), Dim("max_depth", "int", 2.0, 8.0, False),
                    Dim("heuristic", "cat", choices=("bitsquares", "gameovers"))]
    assert parse_space("threats=cat:true|false", "rules")[0].choices == (True, False)


@pytest.mark.parametrize("space, words", [
    ("colour=float:1:2", "no parameter 'colour'"),
    ("seed=float:3:1", "LOW < HIGH"),
    ("seed=float:1", "LOW < HIGH"),
    ("seed=normal:0:1", "name=float:LOW:HIGH"),
    ("seed=cat:", "choices"),
    ("", "empty"),
])
def test_bad_space(space: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        parse_space(space, "random")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "util.tune", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_cli_bad_inputs_exit_2_with_one_line(tmp_path: Path) -> None:
    storage = f"sqlite:///{tmp_path / 't.sqlite'}"
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database" * 50)
    cases = [
        (["--agent", "nosuch", "--space", "seed=int:0:9", "--opponents", "random", "--storage", storage], "unknown agent"),
        (["--agent", "random", "--space", "seed=int:9", "--opponents", "random", "--storage", storage], "--space"),
        (["--agent", "random", "--space", "seed=int:0:9", "--opponents", "nosuch", "--storage", storage], "unknown agent"),
        (["--agent", "random", "--space", "seed=int:0:9", "--opponents", "random", "--storage", f"sqlite:///{junk}"], "cannot open --storage"),
        (["--agent", "random", "--space", "seed=int:0:9", "--fixed", "seed=1", "--opponents", "random", "--storage", storage], "both fixed"),
    ]
    for args, words in cases:
        proc = run_cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "Traceback" not in proc.stderr, (args, proc.stderr)


def test_study_resumes_and_writes_flat_params(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    storage = f"sqlite:///{tmp_path / 'study.sqlite'}"
    out = tmp_path / "best.json"
    args = ["--agent", "random", "--space", "seed=int:0:1000", "--opponents", "kaggle:random,random:seed=5",
            "--games", "4", "--time", "1", "--storage", storage, "--study", "s", "--out", str(out), "--seed", "2"]
    # An interrupted run leaves a trial RUNNING: the rerun must fail it and not count it.
    study = optuna.create_study(storage=storage, study_name="s", direction="maximize")
    stale = study.ask()
    assert main([*args, "--trials", "2"]) == 0
    study = optuna.load_study(storage=storage, study_name="s")
    states = [t.state for t in study.trials]
    assert states.count(optuna.trial.TrialState.COMPLETE) == 2
    assert study.trials[stale.number].state == optuna.trial.TrialState.FAIL
    assert main([*args, "--trials", "3"]) == 0  # resumes: one more trial, not three
    study = optuna.load_study(storage=storage, study_name="s")
    assert [t.state for t in study.trials].count(optuna.trial.TrialState.COMPLETE) == 3
    params = json.loads(out.read_text())
    assert params == {"seed": study.best_trial.params["seed"]} and isinstance(params["seed"], int)
    try:
        import build_submission
    except ImportError:  # written by another engineer; checked when present
        build_submission = None
    if build_submission is not None:
        assert build_submission.load_params_file(str(out)) == params
    assert 0.0 <= study.best_value <= 1.0
    printed = capsys.readouterr().out
    assert "best score" in printed and str(out) in printed
