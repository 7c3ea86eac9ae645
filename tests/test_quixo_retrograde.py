"""The retrograde solver (core.quixo.retrograde) against brute force on the plain reference."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from core.games import make_game
from core.quixo import retrograde as R
from tests.reference_quixo import RefQuixo

DATA_4X4 = Path(__file__).resolve().parent.parent / "data" / "quixo_4x4.npz"


def ref_search(pos: RefQuixo, depth: int) -> int:
    """+1 if the side to move forces a win within ``depth`` plies, -1 if the opponent does,
    0 if neither is proven (plain exhaustive search on the reference rules)."""
    if pos.is_over():
        return 1 if pos.winner() == pos.player else -1
    if depth == 0:
        return 0
    best = -1
    for mv in pos.moves():
        best = max(best, -ref_search(pos.play(mv), depth - 1))
        if best == 1:
            break
    return best


def ref_position(n: int, m: int, o: int) -> RefQuixo:
    """The reference position with the mover as crosses (player 0) to move."""
    board = [[0 if (m >> (y * n + x)) & 1 else 1 if (o >> (y * n + x)) & 1 else None for x in range(n)] for y in range(n)]
    return RefQuixo(n, board=board, player=0)


def check_by_brute_force(n: int, val: int, dist: int, pos: RefQuixo, draw_depth: int) -> None:
    if val == 0:
        assert ref_search(pos, draw_depth) == 0
        return
    sign = 1 if val == R.WIN else -1
    assert ref_search(pos, dist) == sign
    if dist > 0:
        assert ref_search(pos, dist - 1) != sign  # not sooner: dist is exact


@pytest.fixture(scope="module")
def solved3(tmp_path_factory):
    out = tmp_path_factory.mktemp("q") / "quixo_3x3.npz"
    assert R.main(["--size", "3", "--out", str(out), "--no-jit", "--quiet"]) == 0
    return R.solve(3, jit=False), R.Table(out)


def test_3x3_is_a_first_player_win_in_7_plies_and_has_no_draws(solved3):
    sol, _table = solved3
    assert sol.initial() == (R.WIN, 7)
    assert int((sol.val == R.DRAW).sum()) == 0


def test_3x3_values_and_distances_agree_with_brute_force_on_sampled_positions(solved3):
    sol, _table = solved3
    rng = random.Random(7)
    checked = {R.WIN: 0, R.LOSS: 0}
    while min(checked.values()) < 12:
        idx = rng.randrange(len(sol.val))
        v, d = int(sol.val[idx]), int(sol.dist[idx])
        if d > 3 or checked.get(v, 99) >= 12:
            continue
        m, o = R.decode(idx, 9)
        check_by_brute_force(3, v, d, ref_position(3, m, o), 2)
        checked[v] += 1


def test_packed_table_gives_every_3x3_state_its_value(solved3):
    sol, table = solved3
    rng = random.Random(1)
    for idx in [0] + [rng.randrange(len(sol.val)) for _ in range(1500)]:
        m, o = R.decode(idx, 9)
        t = rng.randrange(2)
        words = (m, o, 0) if t == 0 else (o, m, 1)
        v, d = table.value(words)
        assert v == {R.DRAW: 0, R.WIN: 1, R.LOSS: -1}[int(sol.val[idx])] and (v == 0 or d == sol.dist[idx])


def test_best_action_of_the_table_wins_3x3_against_every_reply(solved3):
    """Perfect play from the table beats every opponent line: exhaustive over the replies."""
    _sol, table = solved3
    g = make_game("quixo", size=3, max_plies=0)

    def first_wins(state, plies_left) -> bool:
        if state.is_terminal():
            return state.returns()[0] > 0
        if plies_left == 0:
            return False
        if state.current_player() == 0:
            a, _scores = table.best_action(state)
            return first_wins(state.apply(a), plies_left - 1)
        return all(first_wins(state.apply(a), plies_left - 1) for a in state.legal_actions())

    assert first_wins(g.initial(), 7)


def test_cli_rejects_a_bad_size_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        R.main(["--size", "5"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "use 3 or 4" in err[0]


@pytest.mark.slow
def test_compiled_3x3_solve_matches_the_plain_one():
    a, b = R.solve(3, jit=False), R.solve(3, jit=True)
    assert np.array_equal(a.val, b.val) and np.array_equal(a.dist, b.dist)
    assert R.pack(b, jit=True)[1] == 0 and np.array_equal(R.pack(a, jit=False)[0], R.pack(b, jit=True)[0])


@pytest.mark.slow
def test_3x3_agrees_with_forward_value_iteration_on_the_reference():
    """Every state reachable from the start, solved again by synchronous value iteration over
    the reference's own moves (a different algorithm and move generator): same values and
    same distances."""
    sol = R.solve(3, jit=False)
    start = RefQuixo(3)

    def norm(p: RefQuixo):  # mover's cubes as 0
        return tuple(None if v is None else (0 if v == p.player else 1) for row in p.board for v in row)

    states, children, frontier = {}, {}, [start]
    states[norm(start)] = start
    while frontier:
        nxt = []
        for p in frontier:
            k = norm(p)
            kids = []
            for mv in p.moves():
                q = p.play(mv)
                kq = norm(q)
                if kq not in states:
                    states[kq] = q
                    nxt.append(q)
                kids.append(kq)
            children[k] = kids
        frontier = nxt
    val = {k: (R.WIN if p.winner() == p.player else R.LOSS) for k, p in states.items() if p.is_over()}
    dist = {k: 0 for k in val}
    it = 0
    while True:
        it += 1
        new = {}
        for k, kids in children.items():
            if k in val or not kids:
                continue
            if any(val.get(c) == R.LOSS for c in kids):
                new[k] = R.WIN
            elif all(val.get(c) == R.WIN for c in kids):
                new[k] = R.LOSS
        if not new:
            break
        val.update(new)
        dist.update({k: it for k in new})
    for k in states:
        m = sum(1 << i for i, v in enumerate(k) if v == 0)
        o = sum(1 << i for i, v in enumerate(k) if v == 1)
        idx = int(R.b3(m, R.byte_table(), 2) + 2 * R.b3(o, R.byte_table(), 2))
        assert int(sol.val[idx]) == val.get(k, R.DRAW) and int(sol.dist[idx]) == dist.get(k, 0)
    assert len(states) > 1000


@pytest.mark.skipif(not DATA_4X4.is_file(), reason="data/quixo_4x4.npz not built (python -m core.quixo.retrograde --size 4)")
def test_4x4_table_agrees_with_brute_force_near_the_end():
    table = R.Table(DATA_4X4)
    g = make_game("quixo", size=4, max_plies=0)
    rng = random.Random(4)
    seen = {1: 0, -1: 0, 0: 0}
    tries = 0
    while min(seen.values()) < 3 and tries < 3000:
        tries += 1
        s = g.initial()
        for _ in range(rng.randrange(4, 40)):
            if s.is_terminal():
                break
            s = s.apply(rng.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        v, d = table.value(s.words)
        if seen[v] >= 3 or (v != 0 and d > 3):
            continue
        t = s.words[2] & 1
        pos = ref_position(4, s.words[t], s.words[1 - t])
        check_by_brute_force(4, {1: R.WIN, -1: R.LOSS, 0: R.DRAW}[v], d, pos, 1)
        seen[v] += 1
    assert min(seen.values()) >= 3
