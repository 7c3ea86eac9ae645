"""RulesAgent: one named puzzle test per rule (hand-checked positions on several shapes, each
also checked against the plain 2-D reference), a property test of every rule against a
brute-force reference over seeded random positions, compiled == plain kernels, and its record
against RandomAgent (the benchmark's claim, on fewer games)."""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import agents.connectx.rules as rules_mod
from agents.connectx import registry
from agents.connectx.rules import RulesAgent
from base.jit import compiled, numba_available
from core.connectx import Position, Shape
from tests.reference import RefBoard

S67, S795, S543, S68 = Shape(6, 7, 4), Shape(7, 9, 5), Shape(5, 4, 3), Shape(6, 8, 4)
SEEDS = range(12)


def picture(text: str, shape: Shape) -> Position:
    """A position from rows drawn top row first: X is mark 1 (moved first), O mark 2."""
    rows = [r.split() for r in text.strip().splitlines()]
    assert len(rows) == shape.rows and all(len(r) == shape.columns for r in rows)
    return Position.from_board([".XO".index(c) for r in rows for c in r], shape)


def puzzle_id(value: object) -> str | None:
    """Short test ids: pictures become "picture", shapes "6x7x4", the rest pytest's default."""
    if isinstance(value, Shape):
        return str(value)
    return "picture" if isinstance(value, str) and "\n" in value else None


def pos_of(spec, shape: Shape) -> Position:
    if isinstance(spec, str) and "\n" in spec:
        return picture(spec, shape)
    return Position.from_moves(spec, shape)


def moves_played(pos: Position, **params) -> set[int]:
    """Every move the agent plays here over several tie-break seeds (plain kernels: fast to start)."""
    return {RulesAgent(seed=s, jit=False, **params).choose_position(pos, 0.0) for s in SEEDS}


def rule_used(pos: Position, **params) -> str:
    agent = RulesAgent(seed=0, jit=False, **params)
    agent.choose_position(pos, 0.0)
    return agent.info()["rule"]


# --- an independent oracle: brute force on tests/reference.py's 2-D board ------------------------
def ref_of(pos: Position) -> RefBoard:
    s = pos.shape
    ref = RefBoard(s.rows, s.columns, s.inarow)
    flat = pos.to_board()
    ref.grid = [flat[r * s.columns:(r + 1) * s.columns] for r in range(s.rows)]
    ref.moves = [-1] * pos.ply  # only the count matters (whose turn); play/undo append and pop
    return ref


def ref_wins_now(ref: RefBoard) -> set[int]:
    return {c for c in ref.legal() if ref.wins_if_played(c)}


def ref_opponent_cells(ref: RefBoard) -> set[tuple[int, int]]:
    """Empty cells (row from the top, col) where the side NOT to move would complete a line."""
    mark = 3 - ref.mark_to_move()
    out = set()
    for r in range(ref.rows):
        for c in range(ref.columns):
            if ref.grid[r][c] == 0:
                ref.grid[r][c] = mark
                if ref.line_through(r, c):
                    out.add((r, c))
                ref.grid[r][c] = 0
    return out


def ref_landing_row(ref: RefBoard, col: int) -> int:
    return max(r for r in range(ref.rows) if ref.grid[r][col] == 0)


def ref_forced_win_after(ref: RefBoard, col: int) -> bool:
    """After the mover plays ``col`` (no immediate win), does every reply leave it a winning move?"""
    ref.play(col)
    replies = ref.legal()
    ok = bool(replies) and not ref_wins_now(ref)
    for r in replies if ok else ():
        ref.play(r)
        ok = bool(ref_wins_now(ref))
        ref.undo()
        if not ok:
            break
    ref.undo()
    return ok


def ref_create(ref: RefBoard) -> set[int]:
    return {c for c in ref.legal() if ref_forced_win_after(ref, c)}


def ref_stop(ref: RefBoard) -> set[int]:
    """Our moves after which the opponent can neither win at once nor force a win on its next move."""
    out = set()
    for c in ref.legal():
        ref.play(c)
        if not ref_wins_now(ref) and not ref_create(ref):
            out.add(c)
        ref.undo()
    return out


# --- the named puzzles, one test per rule ---------------------------------------------------------
# Each: (position spec, shape, the moves that are right, tempting wrong moves). Hand-checked; the
# comments say why.

def test_centre_on_empty_board():
    assert moves_played(Position.empty(S67)) == {3}
    assert moves_played(Position.empty(S795)) == {4}
    assert moves_played(Position.empty(Shape(4, 5, 3))) == {2}
    # Even widths have two centre columns: the seed picks, and both come up.
    assert moves_played(Position.empty(S543)) == {1, 2}
    assert moves_played(Position.empty(S68)) == {3, 4}
    assert rule_used(Position.empty(S68)) == "centre"


WIN = [
    ("445566", S67, {2}, {3, 6}),  # X has cols 4-6 (1-based) on row 0: wins at 3 or 7, 3 is nearer the centre
    ("121212", S67, {0}, {1}),  # X wins up col 1; O also threatens col 2, but winning comes first
    (  # diagonal from the bottom-left: X at (1,1) (2,2) (3,3) needs (0,0)
        """
        . . . . . . .
        . . . . . . .
        . . . X . . .
        . . X O . . .
        . X O X . . .
        . O X O . . O
        """, S67, {0}, {3}),
    ([2, 2, 3, 3, 4, 4, 5, 8], S795, {6}, {1, 4}),  # X has 4 of 5 on row 0 (cols 2-5): 6 beats 1 on centrality
    ("1213", S543, {0}, {3}),  # X wins up col 1 (3 in a row); O's threat at col 4 can wait
]


@pytest.mark.parametrize("spec,shape,right,wrong", WIN, ids=puzzle_id)
def test_win_now(spec, shape, right, wrong):
    pos = pos_of(spec, shape)
    assert right <= ref_wins_now(ref_of(pos)) and not wrong & right
    assert moves_played(pos) == right and rule_used(pos) == "win"


BLOCK = [
    ("17273", S67, {3}, {6}),  # O to move: X has cols 1-3 on row 0, O must take col 4 (not extend col 7)
    ("41424", S67, {3}, {0, 1, 2}),  # O to move: X has three up col 4
    (  # O to move: X's diagonal (1,1) (2,2) (3,3) is completed at (0,0), the bottom of col 1
        """
        . . . . . . .
        . . . . . . .
        . . . X . . .
        . . X O . . .
        . X O X . . .
        . O X O . X O
        """, S67, {0}, {3}),
    ([8, 4, 8, 4, 8, 4, 8], S795, {8}, {4}),  # O to move: X has 4 up the edge column; O's own 3 can wait
    ("121", S543, {0}, {2}),  # O to move: X has 2 up col 1, 3 wins on 5x4x3
]


@pytest.mark.parametrize("spec,shape,right,wrong", BLOCK, ids=puzzle_id)
def test_block_immediate_win(spec, shape, right, wrong):
    pos = pos_of(spec, shape)
    ref = ref_of(pos)
    assert not ref_wins_now(ref)
    ref.moves.append(-1)  # the opponent's view: its winning moves are our blocks
    assert ref_wins_now(ref) == right and not wrong & right
    assert moves_played(pos) == right and rule_used(pos) == "block"


AVOID = [
    (  # O wins at row 1 of col 4 (O O O on row 1): X must not fill the cell under it (col 4's bottom)
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        O O O . . . .
        X X O . X X .
        """, S67, {3}),
    (  # O wins at row 2 of col 4 (O O O on row 2, cols 5-7); col 4 has one stone: the centre is poisoned
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . O O O
        . . . . X O X
        . . . X O X X
        """, S67, {3}),
    (  # 7x9x5: O has four on row 1 (cols 6-9); the centre column's bottom lies under its win
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . O O O O
        X X . . . X O X X
        """, S795, {4}),
]


@pytest.mark.parametrize("spec,shape,wrong", AVOID, ids=puzzle_id)
@pytest.mark.parametrize("threats", [True, False])
def test_avoid_playing_under_opponent_win(spec, shape, wrong, threats):
    pos = pos_of(spec, shape)
    ref = ref_of(pos)
    assert not ref_wins_now(ref)
    cells = ref_opponent_cells(ref)
    assert all((ref_landing_row(ref, c) - 1, c) in cells for c in wrong)  # hand check confirmed
    played = moves_played(pos, threats=threats)
    assert played and not played & wrong


CREATE = [  # (position, shape, every double-threat move, the one played, wrong moves); 1-based in comments
    ("644363366", S67, {1}, {1}, {4}),  # O to move: col 2 makes O O O on row 0, open at cols 1 and 5
    # X: col 3 makes X X X on row 2 (win at col 2, row 2) with X's anti-diagonal win right above
    # it (col 2, row 3); col 2 also works (three up col 2 and row 2's gap at col 3): col 3 is central.
    ("26644355235647", S67, {1, 2}, {2}, {3}),
    ("955473354", S795, {1}, {1}, {5}),  # O to move: col 2 makes four on row 0, open at cols 1 and 6
]


@pytest.mark.parametrize("spec,shape,creating,right,wrong", CREATE, ids=puzzle_id)
def test_create_double_threat(spec, shape, creating, right, wrong):
    pos = pos_of(spec, shape)
    ref = ref_of(pos)
    assert not ref_wins_now(ref) and ref_create(ref) == creating and right <= creating
    assert moves_played(pos) == right and rule_used(pos) == "create"
    assert moves_played(pos, threats=False) & wrong  # the puzzle needs the rule: without it, a wrong move


STOP = [
    ("4266241357", S67, {2, 4, 6}, {3}),  # O threatens col 5 (row 1): O O O with cols 3 and 7 open
    ("7314", S67, {1, 4, 5}, {0, 3, 6}),  # O has cols 3-4 on row 0: col 5 would make an open three
    ([0, 3, 8, 4, 0, 5], S795, {2, 6}, {0, 4}),  # O has cols 4-6 on row 0 of 9: either end makes an open four
]


@pytest.mark.parametrize("spec,shape,right,wrong", STOP, ids=puzzle_id)
def test_stop_opponent_double_threat(spec, shape, right, wrong):
    pos = pos_of(spec, shape)
    ref = ref_of(pos)
    assert not ref_wins_now(ref) and not ref_create(ref) and ref_stop(ref) == right
    played = moves_played(pos)
    assert played <= right and not played & wrong
    assert moves_played(pos, threats=False) & wrong  # without the rule, a losing move


EXTEND = [
    ("1417", S67, {0}, {3}),  # X: col 1 makes 3 up the edge; the centre adds to nothing open
    ([8, 4, 8, 2, 8, 6], S795, {8}, {4}),  # X: col 9 makes 4 of 5 vertically
    ("1213", S67, {0}, {3}),  # X: three up col 1 (O's two on row 0 is no threat yet)
    ("4", S67, {3}, set()),  # O: every cell scores 1 (one open line each): the centre, on X's stone
]


@pytest.mark.parametrize("spec,shape,right,wrong", EXTEND, ids=puzzle_id)
def test_extend_longest_open_line(spec, shape, right, wrong):
    pos = pos_of(spec, shape)
    assert moves_played(pos) == right and moves_played(pos, threats=False) == right
    assert rule_used(pos) == "extend"


def test_open_line_length_counts_only_open_windows():
    pos = Position.from_moves("1427")  # row 0: X X . O . . O (cells as (col, row)); X to move
    me, opp = pos.current, pos.opponent
    # Every row-0 window through (2,0) holds O's (3,0): X's two there do not count; the
    # vertical and the up-right diagonal are open with this stone alone.
    assert rules_mod.open_line_length(me, opp, 2, 0, 6, 7, 4) == 1
    assert rules_mod.open_line_length(me, opp, 0, 1, 6, 7, 4) == 2  # up col 0, on X's stone
    assert rules_mod.open_line_length(me, opp, 5, 0, 6, 7, 4) == 1  # row windows hold an O
    assert rules_mod.open_line_length(me, 0, 2, 0, 6, 7, 4) == 3  # without O's stones: X X x
    assert rules_mod.open_line_length(0, 0, 0, 0, 1, 3, 3) == 1  # one row of three
    assert rules_mod.open_line_length(0, 0, 1, 0, 1, 3, 4) == 0  # no window of 4 fits


# --- every rule against the brute-force reference, over seeded random positions -------------------
def random_position(shape: Shape, rng: random.Random) -> Position:
    """A non-terminal position after a random number of plies, half of them played by a
    threat-blind RulesAgent so that lines, threats and double threats come up often."""
    while True:
        pos = Position.empty(shape)
        blind = RulesAgent(seed=rng.randrange(1000), threats=False, jit=False)
        for _ in range(rng.randrange(1, shape.cells)):
            if pos.is_terminal():
                break
            pos = pos.play(blind.choose_position(pos, 0.0) if rng.random() < 0.5 else rng.choice(pos.legal_columns()))
        if not pos.is_terminal():
            return pos


@pytest.mark.parametrize("shape", [S67, S543, S795, Shape(10, 10, 5)], ids=str)
def test_rules_match_reference_on_random_positions(shape):
    rng = random.Random(20240 + shape.cells)
    seen = {"win": 0, "block": 0, "create": 0, "extend": 0, "avoided": 0, "stopped": 0}
    for _ in range(300 if shape.cells <= 42 else 80):
        pos = random_position(shape, rng)
        agent = RulesAgent(seed=rng.randrange(1000), jit=False)
        col = agent.choose_position(pos, 0.0)
        rule = agent.info()["rule"]
        seen[rule] += 1
        ref = ref_of(pos)
        assert col in ref.legal()
        wins = ref_wins_now(ref)
        ref.moves.append(-1)
        blocks = ref_wins_now(ref)  # the opponent's winning moves, were it to move
        ref.moves.pop()
        if wins:
            assert col in wins and rule == "win"
            continue
        if blocks:
            assert col in blocks and rule == "block"
            continue
        cells = ref_opponent_cells(ref)
        under = {c for c in ref.legal() if (ref_landing_row(ref, c) - 1, c) in cells}
        allowed = set(ref.legal()) - under or under  # "avoid", unless every move is under
        seen["avoided"] += bool(under) and allowed != under
        assert col in allowed, "played under an opponent's winning cell with a safe move left"
        create = ref_create(ref) & allowed
        if create:
            assert col in create and rule == "create"
            continue
        assert rule == "extend"
        stoppers = ref_stop(ref) & allowed
        if stoppers:
            seen["stopped"] += stoppers != allowed
            assert col in stoppers
    print(shape, seen)
    assert all(seen[r] > 0 for r in ("win", "block", "extend", "avoided")), seen
    if shape.cells <= 42:
        assert seen["create"] > 0 and seen["stopped"] > 0, seen


# --- the compiled kernels and the plain ones agree ------------------------------------------------
@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_compiled_and_plain_kernels_agree():
    fast = compiled(rules_mod)
    rng = random.Random(5)
    for shape in (S67, S543, Shape(6, 9, 5)):  # 6x9 takes 63 bits: the largest int64 board
        r, c, n = shape.rows, shape.columns, shape.inarow
        for _ in range(150):
            pos = Position.empty(shape)
            for _ in range(rng.randrange(0, shape.cells)):
                if pos.is_terminal():
                    break
                pos = pos.play(rng.choice(pos.legal_columns()))
            if pos.is_terminal():
                continue
            cur, mask, opp = pos.current, pos.mask, pos.opponent
            for name in ("playable_wins", "double_threat_moves", "moves_stopping_threats"):
                assert getattr(fast, name)(cur, mask, r, c, n) == getattr(rules_mod, name)(cur, mask, r, c, n), name
            col = rng.randrange(c)
            row = pos.height(col) if pos.height(col) < r else r - 1
            assert fast.open_line_length(cur, opp, col, row, r, c, n) == rules_mod.open_line_length(cur, opp, col, row, r, c, n)
            seed = rng.randrange(100)
            assert RulesAgent(seed=seed).choose_position(pos, 0.0) == RulesAgent(seed=seed, jit=False).choose_position(pos, 0.0)


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_first_move_compiles_every_kernel():
    """A warm-up move on the empty board (what tournaments do) must compile every kernel the
    agent uses, or the first real move pays numba's compile time inside a game's clock. A fresh
    process, since numba compiles once per process."""
    code = (
        "import agents.connectx.rules as m; from core.connectx import Position; from base.jit import compiled\n"
        "m.RulesAgent(seed=0).choose_position(Position.empty(), 0.0)\n"
        "ns = compiled(m)\n"
        "names = ['possible_moves', 'winning_cells', 'playable_wins', 'forced_after',"
        " 'double_threat_moves', 'moves_stopping_threats', 'open_line_length']\n"
        "print(*[n for n in names if not getattr(ns, n).signatures])\n"
    )
    root = Path(__file__).resolve().parents[1]
    # No kernel cache: a caller loaded from it carries its callees' code without compiling their
    # own dispatchers, which this count of signatures would take for kernels left to compile.
    env = {**os.environ, "CONNECTX_JIT_CACHE": "0"}
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"not compiled by the first move: {out.stdout}"


def test_registry_and_game_over():
    agent = registry.make("rules", seed="3", threats="false")
    assert isinstance(agent, RulesAgent) and agent.seed == 3 and agent.threats is False
    with pytest.raises(ValueError):
        RulesAgent(jit=False).choose_position(Position.from_moves("4343434"), 0.0)


def test_beats_random_on_seeded_games():
    """The benchmark's claim (>= 95% of 200 games) on 40 games, with a margin: >= 90%."""
    from bench.rules_vs_random import run

    wins, draws, losses = run(games=40, seed=0, jit=False)
    assert wins + draws + losses == 40
    assert wins >= 36, (wins, draws, losses)


def test_bench_cli(capsys):
    from bench.rules_vs_random import main

    assert main(["--games", "6", "--seed", "1", "--no-jit", "--shape", "5x4x3"]) == 0
    assert "win rate" in capsys.readouterr().out
    for argv in (["--games", "0"], ["--shape", "9x9"], ["--seed", "x"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("python -m bench.rules_vs_random: error: ")
