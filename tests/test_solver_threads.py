"""The exact solver on threads (agents.engine.parallel): the sequential value on Pons' sets
with one shared table (one-word keys) or a table per thread (multi-word keys), what one
thread proves read by the others, stoppable, compiled only (refused in one line on the plain
path)."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agents.connectx.solver import Solver
from agents.engine.exact import E_TABLE, STATS, ExactSearch, probe_point, share_table
from agents.engine.parallel import next_points
from base.jit import numba_available
from core.connectx import Position
from tests.pons import PONS

ROOT = Path(__file__).resolve().parents[1]
compiled_only = pytest.mark.skipif(not numba_available(), reason="threads need numba")


def sample(name: str, k: int, seed: int = 37) -> list[tuple[str, int]]:
    lines = [ln.split() for ln in (PONS / name).read_text().split("\n") if ln.strip()]
    return [(m, int(s)) for m, s in random.Random(seed).sample(lines, k)]


def test_next_points_start_with_the_sequential_one_and_avoid_busy_ones():
    assert next_points(-18, 18, []) == [probe_point(-18, 18)]
    m = probe_point(-1, 1)
    assert next_points(-1, 1, [m]) == [probe_point(-1, m)]  # the weak solve's two windows at once
    assert next_points(0, 1, [0]) == [0]  # one window left: both threads on it
    for lo, hi in [(-18, 18), (-5, 9), (2, 3)]:
        first = next_points(lo, hi, [])[0]
        assert all(lo <= p < hi and p != first for p in next_points(lo, hi, [first])) or hi - lo == 1


@compiled_only
@pytest.mark.parametrize("name, k", [("Test_L3_R1", 100), ("Test_L2_R1", 100), ("Test_L1_R1", 60), ("Test_L1_R2", 4)])
def test_two_threads_give_the_sequential_scores(name, k):
    one, two = Solver(tt_size=1 << 18), Solver(tt_size=1 << 18, threads=2)
    wrong = []
    for moves, expected in sample(name, k):
        pos = Position.from_moves(moves)
        for weak in (False, True):
            want = one.solve(pos, weak)
            got = two.solve(pos, weak)
            if not want == got == (expected if not weak else (expected > 0) - (expected < 0)):
                wrong.append((moves, weak, expected, want, got))
    assert not wrong, wrong[:5]
    assert sum(two.thread_nodes) == two.nodes


def test_a_bound_on_windows_keeps_extra_threads_on_the_sequential_point():
    m = probe_point(-18, 18)
    assert next_points(-18, 18, [m], windows=1) == [m]  # the second thread joins the first's window
    assert next_points(-18, 18, [m], windows=2) == next_points(-18, 18, [m]) != [m]
    a, b = next_points(-18, 18, []), next_points(-18, 18, [m, next_points(-18, 18, [m])[0]], windows=2)
    assert a == [m] and b == [m]


@compiled_only
def test_one_window_at_a_time_gives_the_sequential_scores():
    two = Solver(tt_size=1 << 18, threads=2)
    two.windows = 1
    for moves, expected in sample("Test_L2_R1", 30, seed=5):
        assert two.solve(Position.from_moves(moves)) == expected, moves


@compiled_only
def test_what_one_thread_proves_the_other_reads():
    """A window one search proved is settled by the table's root entry in the other: one node
    (a table of its own would search the whole tree again)."""
    two = Solver(tt_size=1 << 18, threads=2)
    assert two.shared
    main, helper = two.search, two.helpers[0]
    assert helper.mem[E_TABLE] != STATS and main.mem[E_TABLE] == STATS
    for i, (moves, _) in enumerate(sample("Test_L1_R2", 4, seed=3)):
        pos = Position.from_moves(moves)
        words = (pos.current, pos.mask)
        first, second = (helper, main) if i % 2 else (main, helper)
        first.start(None)
        first.probe(words, 0, 1)
        assert first.nodes > 1000
        second.start(None)
        second.probe(words, 0, 1)
        assert second.nodes == 1, (moves, first is helper)
    two.reset()  # one table: a helper's clear empties it for every thread
    helper.start(None)
    helper.probe(words, 0, 1)
    assert helper.nodes > 1000
    two.search.clear()
    main.start(None)
    main.probe(words, 0, 1)
    assert main.nodes > 1000


@compiled_only
def test_sharing_keeps_the_main_tables_entries_and_refuses_multi_word_keys():
    from core.games import game_from_text

    one = Solver(tt_size=1 << 18)
    pos = Position.from_moves(sample("Test_L2_R1", 1)[0][0])
    one.solve(pos)
    before = one.search.mem[STATS:STATS + one.search.entries].copy()
    share_table(one.search, 2)
    assert (one.search.mem[STATS:STATS + one.search.entries] == before).all()
    with pytest.raises(ValueError, match="one-word keys"):
        share_table(ExactSearch(game_from_text("connect4_count:rows=4,columns=4"), tt_size=1 << 10), 1)


@compiled_only
def test_generic_solver_on_threads_matches_one_thread():
    """A two-word key (count-the-fours): a table per thread, the sequential values."""
    from agents.engine.solver import Solver as Generic
    from core.games import game_from_text

    game = game_from_text("connect4_count:rows=4,columns=4")
    one, two = Generic(game, tt_bits=16), Generic(game, tt_bits=16, threads=2)
    assert not two.shared and two.helpers[0].mem is not two.search.mem
    s = game.initial()
    for a in (0, 1, 2):
        s = s.apply(s.legal_actions()[a % len(s.legal_actions())])
        assert one.value(s) == two.value(s)


@compiled_only
def test_the_stop_flag_stops_every_thread():
    moves, _ = sample("Test_L1_R3", 1)[0]
    two = Solver(tt_size=1 << 18, threads=2)
    two.warm_up()
    assert two.solve(Position.from_moves(moves), node_limit=200_000) is None  # the node limit
    assert 200_000 <= two.nodes < 10_000_000
    calls = []

    def on_slice(nodes: int) -> None:  # the CLI's Ctrl-C: an exception from the watching thread
        calls.append(nodes)
        raise KeyboardInterrupt

    two.on_slice = on_slice
    with pytest.raises(KeyboardInterrupt):
        two.solve(Position.from_moves(moves))
    assert calls
    assert not any(t.name.startswith("exact-") for t in threading.enumerate())
    assert two.solve(Position.from_moves(sample("Test_L2_R1", 1)[0][0])) == sample("Test_L2_R1", 1)[0][1]


def test_threads_refused_on_the_plain_path():
    with pytest.raises(ValueError, match="compiled kernel"):
        Solver(tt_size=1 << 16, use_numba=False, threads=2)
    with pytest.raises(ValueError, match="1 to 64"):
        Solver(tt_size=1 << 16, use_numba=False, threads=0)
    env = {**os.environ, "CONNECTX_NUMBA": "0"}
    for cmd in (["agents.connectx.solver", "--threads", "2"], ["agents.engine.solve", "--game", "tictactoe", "--threads", "2"],
                ["agents.engine.opening_book", "--game", "tictactoe", "--threads", "2", "--plies", "1"]):
        res = subprocess.run([sys.executable, "-m", *cmd], input="", capture_output=True, text=True, cwd=ROOT, timeout=120, env=env)
        assert res.returncode == 2 and "compiled kernel" in res.stderr and len(res.stderr.strip().split("\n")) <= 2, (cmd, res.stderr)
        assert "Traceback" not in res.stderr
