"""bench.instructions without valgrind: its arguments, the parsing of callgrind's and the
workloads' output, and the refusal of a ratio between trees that did different work; one slow
end-to-end count of a cold compile when valgrind is installed."""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

import pytest

from base.cli import OneLineParser
from bench import instructions

CALLGRIND_STDERR = """==123== Callgrind, a call-graph generating cache profiler
==123== Events    : Ir
==123== Collected : 27334912345
==123==
==123== I   refs:      27,334,912,345
"""


def test_collected_reads_callgrinds_total():
    assert instructions.collected(CALLGRIND_STDERR) == 27334912345
    assert instructions.collected("==1== I   refs: 12\n") is None


def test_work_and_compiled_names_are_read_from_the_workloads_lines():
    out = "noise\ncompiled a.f a.g b.h\nwork 3\n"
    assert instructions.work_of(out) == 3
    assert instructions.compiled_names(out) == ["a.f", "a.g", "b.h"]
    assert instructions.work_of("network 3\n") is None
    assert instructions.compiled_names("work 0\n") == []


def test_equal_work_gives_the_ratio(capsys):
    got = instructions.report("compile einstein expectimax", "abc",
                              {"before": (200, 36, ["a.f"]), "after": (190, 36, ["a.f"])})
    assert got == {"instructions_ratio": 0.95, "work_ratio": 1.0}
    assert "after/before 0.9500" in capsys.readouterr().out


def test_different_work_is_refused_with_the_functions_named(capsys):
    got = instructions.report("compile einstein expectimax", "abc",
                              {"before": (200, 2, ["a.f", "a.g"]), "after": (100, 1, ["a.f"])})
    assert got is None
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "different work (2 against 1" in err[0] and "before only: a.g" in err[0]


def test_compile_cases_one_per_agent():
    cases = instructions.cases_of(argparse.Namespace(workload="compile"), OneLineParser(),
                                  [["einstein", "expectimax"], ["connect4_count", "mcts"]])
    assert cases == [("compile einstein expectimax", ["einstein", "expectimax"]),
                     ("compile connect4_count mcts", ["connect4_count", "mcts"])]


def one_line_exit_2(argv: list[str]) -> str:
    out = subprocess.run([sys.executable, "-m", "bench.instructions", *argv], capture_output=True, text=True)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


def test_bad_agent_is_one_line_exit_2():
    assert "GAME SPEC" in one_line_exit_2(["--before", "HEAD", "--workload", "compile", "--agent", "einstein"])


def test_unknown_workload_is_one_line_exit_2():
    assert "workload" in one_line_exit_2(["--before", "HEAD", "--workload", "nope"])


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_cold_compile_counted_against_this_commit():
    """End to end: a tiny game's solver compiled cold under callgrind in HEAD and this tree;
    the same functions compiled, so a ratio near 1 (minutes under valgrind)."""
    out = subprocess.run([sys.executable, "-m", "bench.instructions", "--before", "HEAD", "--workload", "compile",
                          "--agent", "tictactoe solver"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "FIGURES" in out.stdout and "compile tictactoe solver_work_ratio" in out.stdout
    ratio = float(out.stdout.split("after/before ")[1].split()[0])
    assert 0.9 < ratio < 1.1
