"""ConnectX's depth-first agents (the generic kernel with ConnectX's hooks): named puzzles for
both agents and every heuristic; fixed-depth values against a tiny plain minimax written from
the rules (no threat shortcuts); compiled against plain path; exact Pons scores; time limits."""
from __future__ import annotations

import random
import threading
import time

import pytest

import agents.connectx.alphabeta as alphabeta
import agents.engine.negamax as kernel
from agents.connectx import registry
from agents.connectx.alphabeta import AlphaBetaAgent, NegamaxAgent
from agents.engine.negamax import DECISIVE, WIN_SCALE
from base.jit import kernels, numba_available
from core.connectx import Position, Shape
from heuristics.connectx.params import HEURISTIC_IDS, params_array
from tests.pons import PONS
from tests.test_heuristics import evaluate

AGENTS = [AlphaBetaAgent, NegamaxAgent]
HEURISTICS = list(HEURISTIC_IDS)
FAR = 1e9  # a deadline that never comes: fixed-depth searches are deterministic


def solve(agent, pos: Position, timeout: float = FAR) -> int:
    return agent.choose_position(pos, time.perf_counter() + timeout)


# --- the oracle: plain minimax of the model in agents/engine/negamax.py ----------------------
def minimax(pos: Position, depth: int, name: str, params, ply: int = 0) -> float:
    """Value for the side to move, ``ply`` plies below the search's root: a win by the stone
    at ply ``p`` from the root is worth ``WIN_SCALE - p`` (a loss minus that)."""
    cols = pos.legal_columns()
    if any(pos.is_winning_move(c) for c in cols):
        return WIN_SCALE - (ply + 1)
    if not cols:
        return 0.0
    if depth == 0:
        return evaluate(pos, name, params)
    return max(-minimax(pos.play(c), depth - 1, name, params, ply + 1) for c in cols)


def pons(pos: Position, value: float) -> int:
    """Pons' score of a proven value at ``pos`` (a win ``WIN_SCALE - p``: won by stone ply + p)."""
    if abs(value) < DECISIVE:
        return 0
    score = (pos.shape.cells + 2 - (pos.ply + round(WIN_SCALE - abs(value)))) // 2
    return score if value > 0 else -score


def random_position(shape: Shape, rng: random.Random) -> Position:
    while True:
        pos = Position.empty(shape)
        for _ in range(rng.randrange(shape.cells - 2)):
            cols = [c for c in pos.legal_columns() if not pos.is_winning_move(c)]
            if not cols:
                break
            pos = pos.play(rng.choice(cols))
        if not pos.is_terminal():
            return pos


# --- puzzles: (moves, columns that solve it), 6x7; each its own test name ------------------
PUZZLES = {
    # X: bottom of columns 4-6, O on top: X wins at 3 or 7.
    "win_in_one": ("445566", {2, 6}),
    # X holds 1-3 on the bottom row: O must block column 4.
    "block": ("11223", {3}),
    # X on 3 and 4, O stacked on 1: X plays 5 for 3-4-5 with 2 and 6 both open.
    "make_double_threat": ("3141", {4}),
    # X on 3 and 4: O must stop 3-4-5 with 2 and 6 open: play 2, 5 or 6.
    "foil_double_threat": ("314", {1, 4, 5}),
    # Every column but 4 is full.
    "one_open_column": ("53637676615726121352671721253273135445", {3}),
    # X stacked three high in column 4: O must cap it.
    "vertical_block": ("41414", {3}),
    # X threatens row 2 of column 4 (5-6-7 beside it): O must not fill the cell below it.
    "not_under_threat": ("755572266", {0, 1, 2, 4, 5, 6}),
}


def check_puzzle(name: str, cls, heuristic: str) -> None:
    moves, good = PUZZLES[name]
    agent = cls(heuristic=heuristic, max_depth=7)
    col = solve(agent, Position.from_moves(moves))
    assert col in good, f"{cls.__name__}/{heuristic} played {col} in {name}; good: {sorted(good)}"


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_puzzle_win_in_one(cls, heuristic):
    check_puzzle("win_in_one", cls, heuristic)


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_puzzle_block(cls, heuristic):
    check_puzzle("block", cls, heuristic)


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_puzzle_make_double_threat(cls, heuristic):
    check_puzzle("make_double_threat", cls, heuristic)


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_puzzle_foil_double_threat(cls, heuristic):
    check_puzzle("foil_double_threat", cls, heuristic)


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_puzzle_one_open_column(cls, heuristic):
    check_puzzle("one_open_column", cls, heuristic)


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_puzzle_vertical_block(cls, heuristic):
    check_puzzle("vertical_block", cls, heuristic)


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_puzzle_not_under_threat(cls, heuristic):
    check_puzzle("not_under_threat", cls, heuristic)
    # also at depth 1, where only the shortcut in the kernel can see the loss
    moves, good = PUZZLES["not_under_threat"]
    assert solve(cls(heuristic=heuristic, max_depth=1), Position.from_moves(moves)) in good


def move_values(pos: Position, depth: int) -> dict[int, float]:
    """Value of each legal move for the side to move: exact-rule search, no heuristic."""
    out = {}
    for col in pos.legal_columns():
        if pos.is_winning_move(col):
            out[col] = WIN_SCALE - 1
        else:
            agent = NegamaxAgent(heuristic="none", max_depth=depth, tt_bits=16)
            solve(agent, pos.play(col))
            v = -agent.info().value  # a decisive value: one ply further from this root
            out[col] = v - 1 if v >= DECISIVE else v + 1 if v <= -DECISIVE else v
    return out


@pytest.mark.parametrize("name", list(PUZZLES))
def test_puzzle_answers_are_strictly_best(name):
    # The puzzles are honest: searched 7 plies deep with win/loss values only, every good
    # move is worth strictly more than every other move (a faster win, or not losing).
    moves, good = PUZZLES[name]
    values = move_values(Position.from_moves(moves), 7)
    others = [v for c, v in values.items() if c not in good]
    assert set(values) >= good
    assert not others or min(values[c] for c in good) > max(others)


def test_prefers_the_faster_win():
    # X holds 2-4 on the bottom row (O on top): it wins at once on 1 or 5, and would still
    # win later after any other move; the value is that of the immediate win.
    pos = Position.from_moves("223344")
    agent = NegamaxAgent(heuristic="bitsquares", max_depth=5)
    col = solve(agent, pos)
    assert col in (0, 4) and agent.info().value == WIN_SCALE - 1
    assert agent.info()["pons_score"] == (43 - pos.ply) // 2


def test_moves_realise_the_exact_score():
    # In Pons' end-game positions the move played keeps the exact score: after it, the
    # opponent's exact score is minus ours. So a lost side picks the slowest loss and a
    # winning side the fastest win (a draw stays a draw).
    lines = pons_lines("Test_L3_R1")
    picked = [ln for ln in lines if ln[1] < 0][:25] + [ln for ln in lines if ln[1] > 0][:25]
    agent, judge = NegamaxAgent(heuristic="none"), NegamaxAgent(heuristic="none")
    for moves, score in picked:
        pos = Position.from_moves(moves)
        col = solve(agent, pos)
        if pos.is_winning_move(col):
            assert score == (43 - pos.ply) // 2, moves
            continue
        solve(judge, pos.play(col))
        assert judge.info()["pons_score"] == -score, moves


# --- pruning never changes the value -------------------------------------------------------
@pytest.mark.parametrize("shape", [Shape(6, 7, 4), Shape(5, 4, 3), Shape(4, 5, 3)], ids=str)
@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_fixed_depth_value_equals_plain_minimax(shape, heuristic):
    rng = random.Random(hash((str(shape), heuristic)) % 10_000)
    params = list(params_array(heuristic))
    depth = 4 if shape.columns > 5 else 5
    for _ in range(6):
        pos = random_position(shape, rng)
        expected = minimax(pos, depth, heuristic, params)
        for cls in AGENTS:
            agent = cls(heuristic=heuristic, max_depth=depth, tt_bits=14)
            col = solve(agent, pos)
            assert agent.info().value == expected, (cls.__name__, pos)
            if abs(expected) >= DECISIVE:
                assert agent.info()["exact"] and agent.info()["pons_score"] == pons(pos, expected)
            # the move played achieves that value
            child = minimax(pos.play(col), depth - 1, heuristic, params, 1) if not pos.is_winning_move(col) else -expected
            assert -child == expected


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_compiled_and_plain_paths_agree(heuristic, monkeypatch):
    rng = random.Random(5)
    positions = [random_position(Shape(6, 7, 4), rng) for _ in range(4)]
    for cls in AGENTS:
        for pos in positions:
            fast = cls(heuristic=heuristic, max_depth=5, tt_bits=12)
            col_fast = solve(fast, pos)
            monkeypatch.setenv("CONNECTX_NUMBA", "0")
            assert kernels(kernel, 49) is kernel
            slow = cls(heuristic=heuristic, max_depth=5, tt_bits=12)
            col_slow = solve(slow, pos)
            monkeypatch.delenv("CONNECTX_NUMBA")
            assert (col_fast, fast.info().value, fast.info()["nodes"]) == (
                col_slow, slow.info().value, slow.info()["nodes"])


# --- exact values --------------------------------------------------------------------------
def pons_lines(name: str) -> list[tuple[str, int]]:
    path = PONS / name
    if not path.exists():
        pytest.skip(f"{path} not found")
    out = []
    for line in path.read_text().split("\n"):
        if line.strip():
            moves, score = line.split()
            out.append((moves, int(score)))
    return out


def test_negamax_exact_on_pons_end_easy():
    agent = NegamaxAgent(heuristic="none")
    for moves, score in pons_lines("Test_L3_R1"):
        solve(agent, Position.from_moves(moves))
        info = agent.info()
        assert info["exact"] and info["pons_score"] == score, moves


def test_alphabeta_exact_on_pons_middle_easy_sample():
    agent = AlphaBetaAgent(heuristic="bitsquares")  # a heuristic must not change proven values
    for moves, score in pons_lines("Test_L2_R1")[:100]:
        solve(agent, Position.from_moves(moves))
        info = agent.info()
        assert info["exact"] and info["pons_score"] == score, moves


# --- time --------------------------------------------------------------------------------
@pytest.mark.parametrize("plain", [False, True], ids=["compiled", "plain"])
@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_returns_by_the_deadline(cls, plain, monkeypatch):
    if plain:
        monkeypatch.setenv("CONNECTX_NUMBA", "0")
    agent = cls()
    agent.warm_up(Shape())
    pos = Position.from_moves("4453")
    for budget in (0.05, 0.3):
        t0 = time.perf_counter()
        col = solve(agent, pos, budget)
        assert time.perf_counter() - t0 < budget + 0.5  # generous: a loaded machine
        assert pos.can_play(col) and agent.info()["depth"] >= 1


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_background_compile_plays_plain_first_then_compiled(monkeypatch):
    # As in a fresh process (Kaggle's first move), where nothing is compiled yet.
    monkeypatch.setattr(alphabeta, "is_compiled", lambda game, heuristic=None, module=None: False)
    agent = NegamaxAgent()  # background_compile by default
    release, real_warm_up = threading.Event(), agent.warm_up

    def held_warm_up(shape):  # the compile starts only once the first move is over
        release.wait(30)
        return real_warm_up(shape)

    monkeypatch.setattr(agent, "warm_up", held_warm_up)
    pos = Position.from_moves("44")
    t0 = time.perf_counter()
    col = solve(agent, pos, 0.3)
    assert time.perf_counter() - t0 < 0.3 + 0.5 and pos.can_play(col)
    assert agent.info()["compiled"] is False  # this move ran on the plain path
    release.set()
    assert agent._gate.job.wait(120)  # the thread compiled (or found compiled) the kernel
    solve(agent, pos, 0.3)
    assert agent.info()["compiled"] is True


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_move_waits_for_the_compile_within_its_share(monkeypatch):
    NegamaxAgent().warm_up(Shape())  # the thread's compile is then quick: done within the share
    monkeypatch.setattr(alphabeta, "is_compiled", lambda game, heuristic=None, module=None: False)
    agent = NegamaxAgent()
    pos = Position.from_moves("44")
    t0 = time.perf_counter()
    col = solve(agent, pos, 1.0)
    assert time.perf_counter() - t0 < 1.0 + 0.5 and pos.can_play(col)
    assert agent.info()["compiled"] is True


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_slow_compile_never_makes_a_move_overrun(monkeypatch):
    monkeypatch.setattr(alphabeta, "is_compiled", lambda game, heuristic=None, module=None: False)
    agent = NegamaxAgent()
    release = threading.Event()

    def slow_warm_up(shape):  # a compile that outlasts the moves
        release.wait(30)

    monkeypatch.setattr(agent, "warm_up", slow_warm_up)
    pos = Position.from_moves("44")
    for budget in (0.2, 0.6):
        t0 = time.perf_counter()
        col = solve(agent, pos, budget)
        assert time.perf_counter() - t0 < budget + 0.3 and pos.can_play(col)
        assert agent.info()["compiled"] is False and agent.info()["depth"] >= 1
    release.set()


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_kernel_compiled_earlier_is_used_at_once():
    NegamaxAgent().warm_up(Shape())
    agent = NegamaxAgent()
    solve(agent, Position.from_moves("44"), 0.1)
    assert agent.info()["compiled"] is True


# --- positions our 0.5 s tournament file lost to kaggle negamax (issue 3, 2026-11-22) -------
# Each is a win the agent missed on the plain path (depth 7-9 in 0.25 s while numba compiles in
# the background); the exact solver gives the winning columns and the score. Not a search bug:
# the search proves the win at the depth below (the compiled kernel gets there in under 0.25 s,
# 35-100 K nodes), and plays a winning column from 2-4 plies shallower.
LOST_GAMES = {
    # game 11, ply 18: X played 3 (loses); 0 and 6 win with Pons score 3.
    "game11_ply18": ("1,1,4,5,3,2,1,5,3,5,5,5,3,3,1,3,1,1", 18, {0, 6}, 3),
    # game 25, ply 20: X played 0 (loses); 4 wins with score 3.
    "game25_ply20": ("2,2,3,4,1,0,3,3,3,6,3,1,1,4,3,6,4,0,4,1", 16, {4}, 3),
    # game 70, ply 15: O played 6 (loses); 2 wins with score 6.
    "game70_ply15": ("6,5,2,5,5,3,5,3,5,5,3,3,3,3,6", 16, {2}, 6),
    # game 70, ply 17: O played 0 (loses); 2 wins with score 6.
    "game70_ply17": ("6,5,2,5,5,3,5,3,5,5,3,3,3,3,6,6,0", 14, {2}, 6),
}


@pytest.mark.parametrize("cls", AGENTS)
@pytest.mark.parametrize("name", sorted(LOST_GAMES))
def test_lost_game_positions_win_at_the_depth_they_need(cls, name):
    moves, depth, good, score = LOST_GAMES[name]
    pos = Position.from_moves([int(c) for c in moves.split(",")])
    agent = cls(max_depth=depth)
    col = solve(agent, pos)
    info = agent.info()
    assert col in good and info["exact"] and info["pons_score"] == score, (name, col, info)


def test_cut_search_plays_the_deepest_finished_iteration():
    pos = Position.from_moves("44")
    agent = NegamaxAgent(tt_bits=16)
    agent.warm_up(Shape())
    col = solve(agent, pos, 0.1)
    depth = agent.info()["depth"]
    assert 1 <= depth < pos.shape.cells - pos.ply and not agent.info()["exact"]
    fixed = NegamaxAgent(tt_bits=16, max_depth=depth)
    assert solve(fixed, pos) == col and fixed.info().value == agent.info().value


# --- shapes and parameters -----------------------------------------------------------------
def test_large_board_runs_on_the_plain_path():
    shape = Shape(10, 10, 5)
    assert kernels(kernel, shape.bits) is kernel
    # X (to move after 8 plies) has four in a row on the bottom minus column 5: it must
    # win there; O, if it moved, would have to block it.
    pos = Position.from_moves([0, 0, 1, 1, 2, 2, 3, 3], shape)
    for cls in AGENTS:
        agent = cls(max_depth=3)
        assert solve(agent, pos) == 4
        assert solve(cls(max_depth=3), pos.play(9)) == 4  # O blocks
    agent = NegamaxAgent()
    col = solve(agent, Position.from_moves([4, 5], shape), 0.5)
    assert 0 <= col < 10 and agent.info()["depth"] >= 2


def test_heuristic_parameters_are_agent_parameters():
    agent = registry.make("alphabeta", heuristic="gameovers", double_attack="0.7")
    assert list(agent.heuristic_array()) == [0.7, 0.1]
    for jit in {False, numba_available()}:  # by name to the float slots the kernel's evaluate reads
        assert list(agent.kernel_search(Shape(), jit).floats[:2]) == [0.7, 0.1]
    assert registry.make("negamax", heuristic="oddeven", parity_two="0.2").power is None
    with pytest.raises(registry.SpecError, match="takes no parameter power"):
        registry.make("negamax", heuristic="gameovers", power="2")
    with pytest.raises(registry.SpecError, match="unknown heuristic"):
        registry.make("negamax", heuristic="squares")
