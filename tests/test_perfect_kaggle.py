"""The judge and the perfect opponent of bench/perfect_kaggle.py, on late positions (quick solves)."""
from __future__ import annotations

from pathlib import Path

from agents.connectx.solver import Solver
from bench.perfect_kaggle import PerfectOpponent, SolverCache, judge
from core.connectx.position import Position
from tests.pons import PONS


def _late_positions(count: int) -> list[tuple[str, Position]]:
    lines = (PONS / "Test_L3_R1").read_text().splitlines()[:count]
    return [(line.split()[0], Position.from_moves(line.split()[0])) for line in lines]


def test_judge_flags_exactly_the_moves_that_change_the_value(tmp_path: Path) -> None:
    cache = SolverCache(tmp_path / "cache.json")
    oracle = Solver(tt_size=1 << 20)
    checked = 0
    for moves, pos in _late_positions(20):
        scores = oracle.child_scores(pos, weak=True)
        best = max(s for s in scores if s is not None)
        seat = 1 + pos.ply % 2
        prefix = [int(c) - 1 for c in moves]
        for col, s in enumerate(scores):
            if s is None:
                continue
            verdict = judge(prefix + [col], seat, cache, judge_from=pos.ply)
            assert (len(verdict["lost"]) == 0) == (s == best), (moves, col, scores, verdict)
            assert verdict["won_position"] == (best == 1)
            checked += 1
    assert checked > 50
    assert SolverCache(tmp_path / "cache.json").values  # kept on disk


def test_perfect_opponent_plays_a_best_strong_move_reproducibly(tmp_path: Path) -> None:
    cache = SolverCache(tmp_path / "cache.json")
    oracle = Solver(tt_size=1 << 20)
    spread = 0
    for _moves, pos in _late_positions(10):
        scores = oracle.child_scores(pos)
        best = max(s for s in scores if s is not None)
        picks = {PerfectOpponent(cache, seed, strong_from=0).choose_position(pos, 0.0) for seed in range(8)}
        assert all(scores[c] == best for c in picks)
        assert picks == {PerfectOpponent(cache, seed, strong_from=0).choose_position(pos, 0.0) for seed in range(8)}
        spread += len(picks) > 1
    assert spread > 0  # seeds spread the choice over tied moves


def test_judge_skips_the_opening_and_leaves_positions_beyond_its_node_limit_unjudged(tmp_path: Path) -> None:
    cache = SolverCache(tmp_path / "cache.json")
    moves, pos = _late_positions(1)[0]
    prefix = [int(c) - 1 for c in moves]
    col = next(c for c in pos.legal_columns() if not pos.is_winning_move(c))
    seat = 1 + pos.ply % 2
    # the whole prefix is the opening: only the last move is the seat's to judge
    tiny = judge(prefix + [col], seat, cache, judge_from=0, opening=len(prefix), node_limit=1)
    assert tiny["too_hard"] == [pos.ply] and tiny["kept"] == 0 and not tiny["lost"] and tiny["unjudged"] == 0
    assert cache.value(pos, node_limit=1) is None  # remembered: not solved again at that limit
    full = judge(prefix + [col], seat, cache, judge_from=0, opening=len(prefix))
    assert full["too_hard"] == [] and full["kept"] + len(full["lost"]) == 1
    # without the opening, the prefix's moves of the seat are judged too
    assert judge(prefix + [col], seat, cache, judge_from=0)["kept"] + len(judge(prefix + [col], seat, cache, judge_from=0)["lost"]) > 1
