"""The exact solver on a game whose positions repeat and whose ply cap ends it in a draw
(Quixo): a position's value then depends on the plies left, so its table must too (the key
rule of :mod:`core.game`, checked here on every registered game by ``key_mismatch``).

Oracles: brute force on 3×3 over the plain kernels of the uncapped game (checked against the
reference rules in tests/test_quixo.py), recursing on (position, plies left); the uncapped 3×3 graph solved here by its own backward induction; and
the retrograde table ``data/quixo_4x4.npz``, whose "win (loss) in d plies" means, under a cap
leaving ``r`` plies, a win (loss) when ``d <= r``, else a draw (the side that cannot force an
end within ``r`` can always delay it, and a side that forces one never passes an end of its
opponent's). Each solver is shared by many positions at many plies: the bug this guards against
(a value stored for a position near the cap read back for the same position far from it) only
shows when one table serves both.
"""
from __future__ import annotations

import random
from collections import deque
from functools import cache
from pathlib import Path

import pytest

from agents.engine.solver import SolveError, Solver
from core.game import key_mismatch
from core.games import make_game, names
from tests.test_quixo_agents import random_states

DATA_4X4 = Path(__file__).resolve().parent.parent / "data" / "quixo_4x4.npz"
CAP = 200  # the game's cap in the value tests; positions are placed at ply CAP - plies left


def random_boards(n: int, count: int, seed: int, longest: int) -> list[tuple[int, int, int]]:
    """``(x, o, mover)`` of positions reached by random play in the uncapped game, not ended."""
    _, states = random_states(n, count, seed, cap=0, longest=longest)
    return [(s.words[0], s.words[1], s.words[2] & 1) for s in states]


def at_plies_left(board: tuple[int, int, int], left: int) -> tuple[int, int, int]:
    """The words of ``board`` with ``left`` plies before :data:`CAP`."""
    x, o, t = board
    return x, o, t | (CAP - left) << 1


@cache
def capped_value(n: int, board: tuple[int, int, int], left: int) -> int:
    """Brute force: the mover's value (1, 0, -1) of ``board`` with ``left`` plies before the
    cap's draw, on the uncapped game's plain kernels (the lines end it, ``left`` the rest)."""
    from core.quixo import kernels as K

    g = uncapped(n).g
    w = K.winner(g, board)
    if w >= 0:
        return 1 if w == board[2] else -1
    if left == 0:
        return 0
    out = [0] * 64
    best = -1
    for a in out[:K.legal(g, board, out, 0)]:
        x, o, meta = K.play(g, board, a)
        best = max(best, -capped_value(n, (x, o, meta & 1), left - 1))
    return best


@cache
def uncapped(n: int):
    return make_game("quixo", size=n, max_plies=0)


# --- the key rule on every game --------------------------------------------------------------------
SMALL = {"connectx": {"rows": 4, "columns": 4, "inarow": 3}, "connect4_count": {"rows": 4, "columns": 4},
         "quixo": {"size": 3, "max_plies": 8}, "reinforce_tactics": {"episode_steps": 4}}


def visited(game, games: int, seed: int) -> list:
    """Every state of ``games`` random games (to their end)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        s = game.initial()
        out.append(s)
        while not s.is_terminal():
            acts = s.chance_outcomes()
            if acts:
                s = s.apply(rng.choices([a for a, _ in acts], [p for _, p in acts])[0])
            else:
                s = s.apply(rng.choice(s.legal_actions()))
            out.append(s)
    return out


@pytest.mark.parametrize("name", names())
def test_equal_keys_mean_the_same_future_on_every_game(name):
    game = make_game(name, **SMALL.get(name, {}))
    assert key_mismatch(game, visited(game, 12, seed=3)[:400], depth=1) is None


@pytest.mark.parametrize("cap", [0, 6, 9])
def test_quixo_keys_keep_the_ply_exactly_when_a_cap_makes_it_matter(cap):
    game = make_game("quixo", size=3, max_plies=cap)
    assert key_mismatch(game, visited(game, 40, seed=cap)[:300], depth=2) is None


def test_the_key_check_catches_a_key_that_drops_the_ply_under_a_cap(monkeypatch):
    """Quixo's key before the fix (the planes and mover, no ply) fails the check under a cap."""
    from core.quixo import kernels as K

    game = make_game("quixo", size=3, max_plies=8)
    states = visited(game, 200, seed=8)
    monkeypatch.setattr(K, "key", K.exact_key)
    pair = key_mismatch(game, states, depth=2)
    assert pair is not None and pair[0].words[:2] == pair[1].words[:2]


# --- 3×3 against brute force ---------------------------------------------------------------------
def check_capped(n: int, jit: bool, boards: list, lefts: range, seed: int) -> int:
    """Solve each board at random plies left with one solver; returns the wins and losses seen."""
    game = make_game("quixo", size=n, max_plies=CAP)
    solver = Solver(game, tt_bits=12, jit=jit, max_plies=max(lefts) + 1)  # small table: overwrites too
    rng = random.Random(seed)
    decisive = 0
    for board in boards:
        left = rng.choice(lefts)
        want = capped_value(n, board, left)
        got = solver.value(game.new_state(at_plies_left(board, left)))
        assert got == want, (board, left)
        decisive += want != 0
    return decisive


def test_3x3_capped_values_equal_brute_force_at_every_plies_left_plain():
    boards = random_boards(3, 300, seed=1, longest=14)
    decisive = check_capped(3, False, boards, range(1, 9), seed=2)
    assert 60 < decisive < 290  # both draws (cap too near) and wins or losses


def test_3x3_capped_values_equal_brute_force_compiled():
    pytest.importorskip("numba")
    boards = random_boards(3, 150, seed=4, longest=14)
    check_capped(3, True, boards, range(1, 9), seed=5)


@pytest.mark.slow
@pytest.mark.parametrize("jit", [False, True])
def test_3x3_capped_values_equal_brute_force_far_from_the_cap(jit):
    if jit:
        pytest.importorskip("numba")
    boards = random_boards(3, 600 if jit else 200, seed=14 + jit, longest=20)
    check_capped(3, jit, boards, range(1, 13), seed=15)


# --- 4×4 against the retrograde table ------------------------------------------------------------
def check_against_table(jit: bool, count: int, lefts: range, seed: int) -> int:
    """Random 4×4 positions at random plies left, solved by one solver; returns the wins and
    losses seen."""
    from core.quixo.retrograde import Table

    table = Table(DATA_4X4)
    game = make_game("quixo", size=4, max_plies=CAP)
    solver = Solver(game, tt_bits=16, jit=jit, max_plies=max(lefts) + 1)
    rng = random.Random(seed)
    decisive = 0
    for board in random_boards(4, count, seed=seed, longest=40):
        left = rng.choice(lefts)
        words = at_plies_left(board, left)
        v, d = table.value(words)
        want = v if d <= left else 0
        assert solver.value(game.new_state(words)) == want, (board, left, v, d)
        decisive += want != 0
    return decisive


def test_4x4_capped_values_equal_the_retrograde_table_plain():
    decisive = check_against_table(False, 120, range(1, 5), seed=21)
    assert 20 < decisive < 110


def test_4x4_capped_values_equal_the_retrograde_table_compiled():
    pytest.importorskip("numba")
    decisive = check_against_table(True, 300, range(1, 9), seed=22)
    assert 60 < decisive < 280


@pytest.mark.slow
def test_4x4_capped_values_equal_the_retrograde_table_on_thousands_of_positions():
    pytest.importorskip("numba")
    decisive = check_against_table(True, 3000, range(1, 11), seed=23)
    assert 600 < decisive < 2900


@pytest.mark.slow
def test_4x4_initial_position_is_won_in_21_plies_and_drawn_in_20():
    """The table's "first player wins in 21": a win with 21 plies left, a draw with 20 (about
    4 M nodes each, compiled)."""
    pytest.importorskip("numba")
    game = make_game("quixo", size=4, max_plies=CAP)
    solver = Solver(game, tt_bits=22, jit=True, max_plies=22)
    assert [solver.value(game.new_state(at_plies_left((0, 0, 0), left))) for left in (20, 21)] == [0, 1]


def test_3x3_initial_position_needs_7_plies_left_to_win():
    """The retrograde solution's "win in 7" for the first player, seen through the cap."""
    game = make_game("quixo", size=3, max_plies=CAP)
    solver = Solver(game, tt_bits=14, jit=False, max_plies=16)
    values = [solver.value(game.new_state(at_plies_left((0, 0, 0), left))) for left in range(1, 10)]
    assert values == [0] * 6 + [1] * 3


@cache
def uncapped_graph_values(n: int) -> dict[tuple[int, int, int], int]:
    """Every position reachable on the uncapped n×n board with its value (positions that never
    end under best play are draws): backward induction over the explicit graph."""
    from core.quixo import kernels as K

    game = uncapped(n)
    g, out = game.g, [0] * 64
    succ: dict[tuple, list] = {}
    todo = [(0, 0, 0)]
    while todo:
        w = todo.pop()
        if w in succ:
            continue
        kids = [K.play(g, w, a) for a in out[:K.legal(g, w, out, 0)]]
        succ[w] = [(x, o, m & 1) for x, o, m in kids]
        todo.extend(k for k in succ[w] if k not in succ)
    preds: dict[tuple, list] = {w: [] for w in succ}
    for w, kids in succ.items():
        for k in kids:
            preds[k].append(w)
    value, left, queue = {}, {w: len(k) for w, k in succ.items()}, deque()
    for w, kids in succ.items():
        if not kids:
            r0 = game.new_state(w).returns()[0]
            value[w] = int(r0 if w[2] == 0 else -r0)
            queue.append(w)
    while queue:
        w = queue.popleft()
        for p in preds[w]:
            if p in value:
                continue
            if value[w] < 0:
                value[p] = 1
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:
                    value[p] = -1
                    queue.append(p)
    return {w: value.get(w, 0) for w in succ}


@pytest.mark.parametrize("jit", [False, True])
def test_3x3_uncapped_values_equal_backward_induction_or_the_solver_says_it_cannot(jit):
    """Without a cap play can cycle: the solver answers only when every line it follows ends
    within its ``max_plies`` (never a guess), and then the answer is the graph's value."""
    if jit:
        pytest.importorskip("numba")
    graph = uncapped_graph_values(3)
    game = make_game("quixo", size=3, max_plies=0)
    solver = Solver(game, tt_bits=12, jit=jit, max_plies=24)
    answered = 0
    for board in random_boards(3, 150, seed=6, longest=12):
        try:
            got = solver.value(game.new_state(board))
        except SolveError as exc:
            assert "max_plies" in str(exc)
            continue
        assert got == graph[board], board
        answered += 1
    assert answered >= 50
