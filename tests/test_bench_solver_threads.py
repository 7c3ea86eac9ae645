"""bench/solver_threads.py: one line and exit 2 on bad input; a small run checks its values."""
from __future__ import annotations

import pytest

from base.jit import numba_available
from bench import solver_threads


@pytest.mark.parametrize("argv", [["--set", "L9_R9"], ["--threads", "1"], ["--positions", "0"]])
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        solver_threads.main(argv)
    assert exc.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.skipif(not numba_available(), reason="threads need numba")
def test_a_small_run_prints_both_sides_and_the_speedup(capsys):
    assert solver_threads.main(["--set", "L2_R1", "--positions", "3", "--repeats", "1", "--tt-bits", "16"]) == 0
    out = capsys.readouterr().out
    assert "shared=True" in out and "nodes 2 threads / 1" in out and out.count("\n") >= 8
