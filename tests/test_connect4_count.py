"""Count-the-fours Connect Four (core.connect4_count) against the plain 2-D reference
(tests/reference_connect4_count.py): random full games on many shapes, both kernel paths,
perft, mirror symmetry, the heuristics, and exact values by a brute-force minimax."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.engine import perft
from base.jit import compiled
from core.connect4_count import kernels as K
from core.connect4_count import score_bound, windows
from core.game import parse_line, play_line
from core.games import make_game, parse_game
from heuristics import connect4_count as H
from tests.reference_connect4_count import RefCount, ref_perft

# (rows, columns, inarow): Connect Four's shapes, one of exactly 63 bits, boards over 63 bits
# (plain path only), other line lengths, and a tall board where diagonal shifts pass 63 bits.
SHAPES = [(4, 4, 4), (4, 5, 4), (5, 6, 4), (6, 7, 4), (6, 9, 4), (7, 8, 4), (9, 9, 4),
          (3, 3, 3), (5, 4, 5), (20, 3, 4), (2, 6, 2)]


def game_of(rows: int, columns: int, inarow: int):
    return make_game("connect4_count", rows=rows, columns=columns, inarow=inarow)


def kernel_paths(game) -> list[tuple[object, object]]:
    """(kernel namespace, g) for the plain path, and the compiled one when the board fits."""
    paths = [(K, list(game.g))]
    if game.fits_int64():
        paths.append((compiled(K), np.asarray(game.g, dtype=np.int64)))
    return paths


def kernel_view(k, g, s, n_actions: int) -> tuple:
    """Everything the kernels say about ``s``, as plain Python values."""
    buf = np.zeros(n_actions + 1, dtype=np.int64) if isinstance(g, np.ndarray) else [0] * (n_actions + 1)
    n = k.legal(g, s, buf, 1)
    acts = [int(a) for a in buf[1:1 + n]]
    k.order(g, s, buf, 1, n, np.zeros(1) if isinstance(g, np.ndarray) else [0.0])
    ordered = [int(a) for a in buf[1:1 + n]]
    return (int(k.to_move(g, s)), bool(k.terminal(g, s)), acts, ordered, float(k.outcome(g, s)),
            tuple(int(w) for w in k.key(g, s)), tuple(float(b) for b in k.bounds(g, s)),
            [tuple(int(w) for w in k.play(g, s, a)) for a in acts])


def heuristic_view(game, g, s) -> list[float]:
    out = []
    for name, fn in H.HEURISTICS.items():
        params = H.DEFAULT_PARAMS[name]
        if isinstance(g, np.ndarray):
            out.append(float(getattr(compiled(H), fn.__name__)(g, s, np.asarray(params, dtype=np.float64))))
        else:
            out.append(float(fn(g, s, list(params))))
    return out


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, 10 ** 6), min_size=81, max_size=81))
def test_random_full_games_agree_with_the_reference_on_both_paths(shape, choices):
    rows, columns, inarow = shape
    game = game_of(*shape)
    ref = RefCount(rows, columns, inarow)
    state = game.initial()
    paths = kernel_paths(game)
    mover_bounds = []
    ply = 0
    while True:
        assert state.legal_actions() == ref.legal() or (ref.full() and state.legal_actions() == [])
        assert state.is_terminal() == ref.full()
        assert state.current_player() == ref.to_move()
        assert game.scores(state) == ref.scores(), ref.text()
        views = [kernel_view(k, g, state.words, columns) for k, g in paths]
        assert all(v == views[0] for v in views[1:]), "compiled and plain kernels disagree"
        assert views[0][4] == ref.outcome()  # outcome: the score difference so far, for player 0
        heur = [heuristic_view(game, g, state.words) for _k, g in paths]
        assert all(h == pytest.approx(heur[0], abs=1e-9) for h in heur[1:])
        sign = 1 if ref.to_move() == 0 else -1
        assert heur[0][1] == sign * ref.outcome()  # "score" heuristic, for the side to move
        mover_bounds.append((sign, views[0][6]))
        if ref.full():
            break
        legal = ref.legal()
        a = legal[choices[ply % len(choices)] % len(legal)]
        ref.play(a)
        state = state.apply(a)
        ply += 1
    final = ref.outcome()
    assert state.returns() == (float(final), float(-final) if final else 0.0)
    assert abs(final) <= game.win_value
    for sign, (lo, hi) in mover_bounds:
        assert lo <= sign * final <= hi
    assert state.history == tuple(ref.moves)


@pytest.mark.parametrize("shape", [(4, 4, 4), (5, 6, 4), (9, 9, 4), (3, 3, 3)], ids=lambda s: "x".join(map(str, s)))
@settings(max_examples=8, deadline=None)
@given(choices=st.lists(st.integers(0, 10 ** 6), min_size=0, max_size=81))
def test_mirror_symmetry_maps_states_actions_and_values(shape, choices):
    rows, columns, inarow = shape
    game = game_of(*shape)
    ref = RefCount(rows, columns, inarow)
    for c in choices[:rows * columns]:
        legal = ref.legal()
        ref.play(legal[c % len(legal)])
    state = play_line(game, ref.moves)
    ident, mirror = game.symmetries()
    assert ident.state(state.words) == state.words
    image = game.new_state(mirror.state(state.words))
    assert image.words == play_line(game, [mirror.action(a) for a in ref.moves]).words
    assert game.scores(image) == game.scores(state) == ref.mirrored().scores()
    assert image.legal_actions() == sorted(mirror.action(a) for a in state.legal_actions())
    for a in state.legal_actions():
        assert mirror.state(state.apply(a).words) == image.apply(mirror.action(a)).words
    for name, fn in H.HEURISTICS.items():
        p = H.DEFAULT_PARAMS[name]
        assert fn(game.g, image.words, p) == pytest.approx(fn(game.g, state.words, p), abs=1e-9)
    assert state.key() == image.key()


def test_keys_identify_positions_up_to_the_mirror():
    """Over every reachable 3x4 position: two positions share a key exactly when they are equal
    or mirror images (the reference's grids decide), and a key has a state's length."""
    shape = (3, 4, 3)
    game = game_of(*shape)
    by_key: dict = {}
    seen: set = set()

    def walk(b: RefCount, state) -> None:
        if b.key() in seen:
            return
        seen.add(b.key())
        canonical = min(b.key(), b.mirrored().key())
        k = state.key()
        assert len(k) == game.words
        assert by_key.setdefault(k, canonical) == canonical
        for c in b.legal():
            b.play(c)
            walk(b, state.apply(c))
            b.undo()

    walk(RefCount(*shape), game.initial())
    assert len(by_key) == len({min(k, tuple(reversed(k))) for k in seen})


@pytest.mark.parametrize("shape,depth", [((4, 4, 4), 7), ((5, 6, 4), 5), ((2, 3, 2), 6), ((9, 9, 4), 3)])
@pytest.mark.parametrize("jit", [False, True])
def test_perft_matches_the_reference_enumeration(shape, depth, jit):
    game = game_of(*shape)
    if jit and not game.fits_int64():
        pytest.skip("board over 63 bits: plain path only")
    ref = RefCount(*shape)
    memo: dict = {}
    assert [perft.count(game, d, jit=jit) for d in range(1, depth + 1)] == [ref_perft(ref, d, memo) for d in range(1, depth + 1)]


@pytest.mark.parametrize("rows,columns,jit", [(3, 3, False), (3, 3, True), (2, 5, True), (3, 4, True)])
def test_complete_games_count_the_column_sequences(rows, columns, jit):
    """The game always fills the board, so the games are the sequences using every column
    ``rows`` times: ``(rows * columns)! / (rows!) ** columns``, an oracle apart from both boards."""
    game = game_of(rows, columns, min(3, max(rows, columns)))
    cells = rows * columns
    expected = math.factorial(cells) // math.factorial(rows) ** columns
    assert perft.count(game, cells, jit=jit) == expected
    assert perft.count(game, cells + 1, jit=jit) == 0


def brute(b: RefCount, memo: dict) -> tuple[int, int]:
    """``(value, extreme)`` of the reference position ``b``: the final score difference for the
    side to move under best play (plain negamax, no pruning, memo on the reference's own key),
    and the largest |difference| of any full board reachable from ``b``."""
    if b.full():
        d = b.outcome()
        return (d if b.to_move() == 0 else -d), abs(d)
    k = b.key()
    got = memo.get(k)
    if got is None:
        best, extreme = None, 0
        for c in b.legal():
            b.play(c)
            v, e = brute(b, memo)
            b.undo()
            best = -v if best is None else max(best, -v)
            extreme = max(extreme, e)
        memo[k] = got = (best, extreme)
    return got


_SOLVED: dict = {}


def solved(shape: tuple[int, int, int]) -> tuple[dict, int, int]:
    """The brute force's memo, value and extreme of ``shape``'s initial position (once per run)."""
    if shape not in _SOLVED:
        memo: dict = {}
        _SOLVED[shape] = (memo, *brute(RefCount(*shape), memo))
    return _SOLVED[shape]


SMALL = [(3, 3, 3), (3, 4, 3), (4, 3, 3), (4, 4, 4)]  # solved by brute force in the default run


@pytest.mark.parametrize("shape", SMALL, ids=lambda s: "x".join(map(str, s)))
def test_brute_force_values_are_consistent_and_win_value_bounds_every_board(shape):
    """The value is its best child's, mirror images agree, it lies in the kernels' bounds, and
    every reachable full board's |difference| is within win_value (the documented bound)."""
    game = game_of(*shape)
    memo, value, extreme = solved(shape)
    lo, hi = K.bounds(game.g, game.initial().words)
    assert lo <= value <= hi
    b = RefCount(*shape)
    children = []
    for c in b.legal():
        b.play(c)
        children.append(-brute(b, memo)[0])
        b.undo()
    assert value == max(children) and children == children[::-1]
    assert 0 < extreme <= game.win_value == max(1, score_bound(*shape))


def test_win_value_of_connect_four():
    assert len(windows(6, 7, 4)) == 69  # Connect Four's 69 lines
    assert 4 <= game_of(6, 7, 4).win_value <= 69


def test_game_text_parameters_and_render():
    game = parse_game("connect4_count:rows=4,columns=5")
    assert game.spec() == "connect4_count:rows=4,columns=5,inarow=4" and game.num_actions == 5
    s = parse_line(game, "3345")
    assert s.history == (2, 2, 3, 4)
    assert parse_line(game, "3 3, 4 5").words == s.words
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["1", "2", "3", "4", "5"]
    assert all(s.string_to_action(s.action_to_string(a)) == a for a in s.legal_actions())
    for bad in ("0", "6", "x", ""):
        with pytest.raises(ValueError, match="from 1 to 5"):
            s.string_to_action(bad)
    full = parse_line(game, "3333")
    with pytest.raises(ValueError, match="column 3 is full"):
        full.string_to_action("3")
    with pytest.raises(ValueError, match="is not legal here; legal: "):
        parse_line(game, "33333")
    wide = game_of(3, 12, 4)
    assert wide.parse_moves("12 1 10") == [11, 0, 9]
    assert wide.parse_moves("11") == [10]  # one token: one column when there are over 9
    text = str(parse_line(game, "11223344"))
    assert text.splitlines()[-1] == "X 1 - O 1 (X to move)"
    assert text.splitlines()[-3] == "X X X X ."
    with pytest.raises(ValueError, match="inarow=6"):
        game_of(4, 5, 6)
    with pytest.raises(ValueError, match="rows must be an integer from 1 to 32"):
        game_of(0, 5, 4)
    with pytest.raises(ValueError, match="rows"):
        make_game("connect4_count", rows="six")
    assert game_of(6, 9, 4).fits_int64() and not game_of(7, 8, 4).fits_int64()


def test_lines_heuristic_prefers_open_windows_and_is_antisymmetric():
    """With open_weight 0 it is the score; it values my open three above none; swapping the
    two sides (a null move) negates it."""
    game = game_of(6, 7, 4)
    rng = random.Random(5)
    for _ in range(30):
        state = game.initial()
        for _ in range(rng.randrange(0, 30)):
            state = state.apply(rng.choice(state.legal_actions()))
        cur, mask = state.words
        v = H.evaluate_lines(game.g, state.words, [0.5, 2.0])
        assert H.evaluate_lines(game.g, (cur ^ mask, mask), [0.5, 2.0]) == pytest.approx(-v, abs=1e-9)
        assert H.evaluate_lines(game.g, state.words, [0.0, 2.0]) == H.evaluate_score(game.g, state.words, [0.0])
    three = play_line(game, [0, 6, 1, 6, 2]).words  # X: 1 2 3 on the bottom row; O to move
    cur, mask = three
    assert H.evaluate_lines(game.g, (cur ^ mask, mask), [0.5, 2.0]) > H.evaluate_lines(game.g, (cur ^ mask, mask), [0.0, 2.0]) + 0.4


# --- the engine's solver and agents on this game -------------------------------------------


def ref_of(shape: tuple[int, int, int], moves) -> RefCount:
    b = RefCount(*shape)
    for c in moves:
        b.play(c)
    return b


@pytest.mark.parametrize("shape", SMALL, ids=lambda s: "x".join(map(str, s)))
def test_solver_values_of_small_boards_equal_the_brute_force(shape, monkeypatch):
    """The engine's exact solver (plain path: the compiled one is a slow test) gives the brute
    force's value at the start and after every first move."""
    from agents.engine.solver import Solver

    game = game_of(*shape)
    memo, value, _ = solved(shape)
    solver = Solver(game, tt_bits=16, jit=False)
    assert solver.value(game.initial()) == value
    values = solver.action_values(game.initial())
    assert values == {c: float(-brute(ref_of(shape, [c]), memo)[0]) for c in range(shape[1])}


@pytest.mark.parametrize("shape,plies", [((4, 5, 4), 10), ((5, 6, 4), 20), ((6, 7, 4), 32), ((9, 9, 4), 71)],
                         ids=lambda s: "x".join(map(str, s)) if isinstance(s, tuple) else str(s))
def test_solver_matches_the_brute_force_late_in_random_games(shape, plies):
    """Bigger boards, from positions with a few empty cells left (random play to there)."""
    from agents.engine.solver import Solver

    game = game_of(*shape)
    solver = Solver(game, tt_bits=14, jit=False)
    rng = random.Random(sum(shape) * 100 + plies)
    for _ in range(3):
        b = RefCount(*shape)
        for _ in range(plies):
            b.play(rng.choice(b.legal()))
        assert solver.value(play_line(game, b.moves)) == brute(b, {})[0], b.text()


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(3, 4, 3), (4, 4, 4), (4, 5, 4), (5, 4, 4)], ids=lambda s: "x".join(map(str, s)))
def test_compiled_solver_values_equal_the_brute_force(shape):
    """Slow: numba compiles the solver's kernel (seconds), and the brute force of 4x5 / 5x4
    takes minutes in plain Python."""
    from agents.engine.solver import Solver

    game = game_of(*shape)
    if not game.fits_int64():
        pytest.skip("board over 63 bits")
    _memo, value, extreme = solved(shape)
    assert Solver(game, tt_bits=22, jit=True).value(game.initial()) == value
    assert extreme <= game.win_value


def play_out(state, agents, seconds: float = 30.0):
    """Play ``state`` to the end; every action must be legal. Returns player 0's return."""
    while not state.is_terminal():
        a = agents[state.current_player()].choose(state, __import__("time").perf_counter() + seconds)
        assert a in state.legal_actions()
        state = state.apply(a)
    return state.returns()[0]


ENGINE_SPECS = ["random:seed=1", "alphabeta:max_depth=3", "alphabeta:max_depth=2,heuristic=score,pvs=false",
                "minimax:max_depth=2", "solver:max_depth=2", "mcts:max_sims=200,seed=1"]


@pytest.mark.parametrize("spec", ENGINE_SPECS)
def test_engine_agents_play_legal_moves_through_the_registry(spec, monkeypatch):
    """Every engine agent (plain path: CONNECTX_NUMBA=0 spares the compile) plays whole games of
    4x5 against random from both seats at 0.3 s a move (the solver falls back to alpha-beta
    until it proves the position), with the info keys of ENGINE.md."""
    from agents import registry
    from agents.engine.info import SearchInfo

    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    name = spec.split(":")[0]
    if name not in registry.ENGINE_AGENTS:
        pytest.skip(f"engine agent {name!r} not registered yet")
    game = game_of(4, 5, 4)
    assert name in registry.names("connect4_count")
    agent = registry.make(spec, game)
    for seat in (0, 1):
        rnd = registry.make(f"random:seed={seat}", game)
        play_out(game.initial(), (agent, rnd) if seat == 0 else (rnd, agent), seconds=0.3)
    info = agent.info()
    assert isinstance(info, SearchInfo)
    if name != "random":
        assert set(info) & {"action_values", "visits", "value", "nodes", "simulations"}


def test_alphabeta_with_the_lines_heuristic_beats_random(monkeypatch):
    """20 seeded games on 5x6 (10 random openers, seats swapped), plain path: alpha-beta at depth
    2 wins at least 18 and its total difference is positive."""
    from agents import registry

    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    game = game_of(5, 6, 4)
    wins, total = 0, 0.0
    for seed in range(10):
        for seat in (0, 1):
            ab = registry.make("alphabeta:max_depth=2,heuristic=lines", game)
            rnd = registry.make(f"random:seed={seed}", game)
            r = play_out(game.initial(), (ab, rnd) if seat == 0 else (rnd, ab))
            mine = r if seat == 0 else -r
            wins += mine > 0
            total += mine
    assert wins >= 18 and total > 0


def test_solver_agent_plays_optimal_moves_on_4x4(monkeypatch):
    """From random 4x4 positions the solver agent's move keeps the brute-force value."""
    from agents import registry

    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    shape = (4, 4, 4)
    game = game_of(*shape)
    memo, _value, _ = solved(shape)
    agent = registry.make("solver", game)
    rng = random.Random(7)
    for _ in range(6):
        b = RefCount(*shape)
        for _ in range(rng.randrange(4, 11)):
            b.play(rng.choice(b.legal()))
        state = play_line(game, b.moves)
        a = agent.choose(state, __import__("time").perf_counter() + 30)
        assert agent.info()["exact"]
        assert -brute(ref_of(shape, b.moves + [a]), memo)[0] == brute(b, memo)[0]
