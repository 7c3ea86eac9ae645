"""The exact solver against Pons' scored positions and a brute-force oracle on small boards;
strong/weak and compiled/plain agreement; node limits; the CLI."""
from __future__ import annotations

import os
import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from agents.connectx.solver import Solver
from base.jit import numba_available
from core.connectx import Position, Shape
from tests.reference import RefBoard

ROOT = Path(__file__).resolve().parents[1]
from tests.pons import PONS


def pons(name: str, every: int = 1) -> list[tuple[str, int]]:
    lines = [ln.split() for ln in (PONS / name).read_text().split("\n") if ln.strip()]
    assert len(lines) == 1000
    return [(m, int(s)) for m, s in lines[::every]]


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


def check_set(solver: Solver, cases: list[tuple[str, int]]) -> None:
    wrong = []
    for moves, expected in cases:
        got = solver.solve(Position.from_moves(moves))
        if got != expected:
            wrong.append((moves, expected, got))
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:5]}"


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L1_R1"])
def test_fast_pons_sets_exact(solver, name):
    check_set(solver, pons(name))


@pytest.mark.parametrize("name, every", [("Test_L2_R2", 20), ("Test_L1_R2", 100)])
def test_medium_pons_sets_sample_exact(solver, name, every):
    check_set(solver, pons(name, every))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Test_L2_R2", "Test_L1_R2"])
def test_medium_pons_sets_all_exact(solver, name):
    check_set(solver, pons(name))


@pytest.mark.parametrize("name, every", [("Test_L3_R1", 10), ("Test_L2_R1", 10), ("Test_L1_R1", 10), ("Test_L2_R2", 50)])
def test_weak_agrees_in_sign(name, every):
    weak = Solver(tt_size=1 << 20)
    for moves, expected in pons(name, every):
        sign = (expected > 0) - (expected < 0)
        assert weak.solve(Position.from_moves(moves), weak=True) == sign, moves


def test_plain_python_agrees_with_compiled():
    if not numba_available():
        pytest.skip("numba not installed")
    plain = Solver(tt_size=1 << 16, use_numba=False)
    fast = Solver(tt_size=1 << 16, use_numba=True)
    assert not plain.jit and fast.jit
    cases = pons("Test_L3_R1", 50) + pons("Test_L2_R1", 100)
    for moves, expected in cases:
        pos = Position.from_moves(moves)
        assert plain.solve(pos) == fast.solve(pos) == expected, moves
        assert plain.nodes == fast.nodes, moves  # same search, node for node
        assert plain.solve(pos, weak=True) == fast.solve(pos, weak=True)


def test_tiny_table_stays_exact():
    """Partial keys: a table far too small for the search only costs time, never accuracy."""
    small = Solver(tt_size=1024)
    check_set(small, pons("Test_L2_R1", 25) + pons("Test_L1_R1", 50))


def test_best_move_is_optimal_and_child_scores_match(solver):
    for moves, expected in pons("Test_L1_R1", 100) + pons("Test_L2_R2", 200):
        pos = Position.from_moves(moves)
        scores = solver.child_scores(pos)
        assert max(s for s in scores if s is not None) == expected, moves
        col, score = solver.best_move(pos)
        assert score == expected and scores[col] == expected, moves


def test_node_limit_aborts_and_table_stays_sound(solver):
    moves, expected = pons("Test_L1_R2", 1)[7]
    pos = Position.from_moves(moves)
    fresh = Solver(tt_size=1 << 20)
    assert fresh.solve(pos, node_limit=50) is None
    assert fresh.nodes == 51
    assert fresh.best_move(pos, node_limit=200) is None
    assert fresh.solve(pos) == expected  # entries written before the abort are true bounds


# --- other shapes: a brute-force oracle -----------------------------------------------------
def oracle_score(shape: Shape, moves: list[int]) -> int:
    """Exact score by plain minimax on the 2-D reference board (no pruning, memo on the grid)."""
    board = RefBoard(shape.rows, shape.columns, shape.inarow)
    for col in moves:
        board.play(col)
    cells = shape.rows * shape.columns

    @cache
    def value(grid: tuple) -> int:
        best = None
        ply = len(board.moves)
        for col in board.legal():
            if board.wins_if_played(col):
                return (cells + 1 - ply) // 2
        for col in board.legal():
            board.play(col)
            s = 0 if board.is_draw() else -value(tuple(board.flat()))
            board.undo()
            best = s if best is None else max(best, s)
        return 0 if best is None else best

    return value(tuple(board.flat()))


@pytest.mark.parametrize(
    "shape, min_ply, games",
    [(Shape(4, 4, 3), 0, 3), (Shape(3, 5, 3), 0, 3), (Shape(5, 6, 4), 16, 6), (Shape(4, 9, 4), 20, 6), (Shape(8, 8, 4), 50, 4)],
    ids=str,
)
def test_other_shapes_match_brute_force(shape, min_ply, games):
    rng = random.Random(f"solver-{shape}")
    solver = Solver(shape, tt_size=1 << 16)
    assert solver.jit == (shape.fits_int64 and numba_available())
    checked = 0
    while checked < games:
        pos, moves = Position.empty(shape), []
        while pos.ply < min_ply and not pos.is_terminal():
            col = rng.choice(pos.legal_columns())
            pos, moves = pos.play(col), moves + [col]
        if pos.is_terminal():
            continue
        expected = oracle_score(shape, moves)
        assert solver.solve(pos) == expected, (str(shape), moves)
        assert solver.solve(pos, weak=True) == (expected > 0) - (expected < 0)
        col, score = solver.best_move(pos)
        assert score == expected
        child = pos.play(col)
        if not child.is_terminal():
            assert -oracle_score(shape, moves + [col]) == expected
        checked += 1


# --- CLI ------------------------------------------------------------------------------------
def run_cli(*args: str, stdin: str) -> subprocess.CompletedProcess:
    """The CLI on easy positions, on the plain path (no compile: these tests stay quick)."""
    env = {**os.environ, "CONNECTX_NUMBA": "0"}
    return subprocess.run(
        [sys.executable, "-m", "agents.connectx.solver", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=300, env=env
    )


def test_cli_answers_good_lines_and_reports_bad_ones():
    good = pons("Test_L3_R1", 1)[:3]
    stdin = f"{good[0][0]} {good[0][1]}\n4x5\n{good[1][0]}\n\n1111111\n{good[2][0]} 99\n"
    res = run_cli(stdin=stdin)
    assert res.returncode == 2
    assert res.stdout.split("\n")[:3] == [f"{m} {s}" for m, s in good]
    errors = res.stderr.strip().split("\n")
    assert len(errors) == 2 and "line 2" in errors[0] and "line 5" in errors[1], res.stderr
    assert "Traceback" not in res.stderr


def test_cli_all_moves_and_weak():
    moves, _ = pons("Test_L3_R1", 1)[0]
    pos = Position.from_moves(moves)
    expected = Solver(tt_size=1 << 16).child_scores(pos)
    res = run_cli("--all-moves", stdin=moves + "\n")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [moves] + ["-" if s is None else str(s) for s in expected]
    res = run_cli("--weak", stdin="\n".join(m for m, _ in pons("Test_L2_R1", 100)) + "\n")
    signs = [str((s > 0) - (s < 0)) for _, s in pons("Test_L2_R1", 100)]
    assert [ln.split()[1] for ln in res.stdout.strip().split("\n")] == signs


def test_cli_help_and_bad_option():
    assert run_cli("--help", stdin="").returncode == 0
    res = run_cli("--shape", "6x7", stdin="")
    assert res.returncode == 2 and "ROWSxCOLUMNSxINAROW" in res.stderr and "Traceback" not in res.stderr


def test_nodes_reset_on_an_immediate_win(solver):
    """A move that wins at once is found without search: nodes must say 0, not the last call's."""
    moves, _ = pons("Test_L2_R2", 1)[0]
    solver.best_move(Position.from_moves(moves))
    assert solver.nodes > 0
    assert solver.best_move(Position.from_moves("112233")) == (3, (43 - 6) // 2)
    assert solver.nodes == 0


@pytest.mark.parametrize("use_numba", [True, False])
def test_a_solve_stops_at_its_deadline_without_a_node_limit(use_numba):
    if use_numba and not numba_available():
        pytest.skip("numba not installed")
    import time

    solver = Solver(tt_size=1 << 16, use_numba=use_numba)
    solver.warm_up()
    pos = Position.from_moves("44")  # minutes to solve
    for budget in (0.05, 0.3):
        t0 = time.perf_counter()
        assert solver.solve(pos, deadline=t0 + budget) is None
        assert solver.best_move(pos, deadline=time.perf_counter() + budget) is None
        assert time.perf_counter() - t0 < 2 * budget + 0.5  # two calls; generous on a loaded machine
    late = Position.from_moves("2252576253462244111563365343671351441")  # Pons L3_R1: -1
    assert solver.solve(late, deadline=time.perf_counter() + 30) == -1  # a deadline that holds changes nothing


def test_the_connectx_solver_is_the_generic_solver_with_connectx_notation(solver):
    """One solver front: ConnectX's Solver is the game-generic one on PonsConnectX, so the generic
    methods (position values, optimal actions) agree with ConnectX's Pons-score notation on the
    same table."""
    from agents.engine import solver as engine_solver

    assert isinstance(solver, engine_solver.Solver)
    game = solver.game
    for moves, expected in pons("Test_L3_R1", every=50) + pons("Test_L2_R1", every=100):
        position = Position.from_moves(moves)
        state = game.state_of(position)
        assert solver.value(state) == expected, moves
        assert solver.solve(position) == expected, moves
        action, value = solver.optimal(state)
        col, score = solver.best_move(position)
        assert value == score == expected, moves
        if not position.is_winning_move(action):  # the generic choice keeps the value
            assert solver.solve(position.play(action)) == -expected, (moves, action)
