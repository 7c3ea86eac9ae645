"""Quixo's agents: the kernels' order hook and table-driven symmetries, the course-style
minimax against the course player's own values, the perfect agent on the solved boards."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from base import jit as J
from core.game import play_line
from core.games import make_game
from util.arena.match import play

SIZES = (3, 4, 5)


def random_states(n: int, count: int, seed: int, cap: int = 0, longest: int = 30):
    g = make_game("quixo", size=n, max_plies=cap)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = g.initial()
        for _ in range(rng.randrange(0, longest)):
            if s.is_terminal():
                break
            s = s.apply(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            out.append(s)
    return g, out


@pytest.fixture
def plain(monkeypatch):
    """Plain-Python kernels for the agents built in a test (no numba compile, no thread)."""
    monkeypatch.setenv("CONNECTX_NUMBA", "0")


# --- kernels: permute by row tables, order ----------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
def test_permute_by_row_tables_equals_the_cell_by_cell_permutation_on_both_paths(n):
    g = make_game("quixo", size=n)
    k, c = g.kernel_module, J.compiled(g.kernel_module)
    ga = np.asarray(g.g, dtype=np.int64)
    rng = random.Random(n)
    for _ in range(200):
        b = rng.getrandbits(n * n)
        for sym in range(8):
            want = k.permute_cells(g.g, b, sym)
            assert k.permute(g.g, b, sym) == want == c.permute(ga, b, sym)


def order_of(g, s, compiled: bool) -> list[int]:
    k = J.compiled(g.kernel_module) if compiled else g.kernel_module
    gg = np.asarray(g.g, dtype=np.int64) if compiled else g.g
    buf = np.zeros(64, dtype=np.int64) if compiled else [0] * 64
    n = k.legal(gg, s.words, buf, 0)
    k.order(gg, s.words, buf, 0, n, np.zeros(1) if compiled else [0.0])
    return [int(a) for a in buf[:n]]


@pytest.mark.parametrize("n", SIZES)
def test_order_is_a_permutation_with_wins_first_and_self_defeating_moves_last_on_both_paths(n):
    g, states = random_states(n, 40, seed=40 + n)
    wins_seen = losses_seen = 0
    for s in states:
        got = order_of(g, s, False)
        assert got == order_of(g, s, True)
        assert sorted(got) == s.legal_actions()
        me = s.current_player()
        kind = []  # +1 wins at once, -1 loses at once, 0 neither (from State, not the hook's scores)
        for a in got:
            c = s.apply(a)
            kind.append(0 if not c.is_terminal() or c.returns()[me] == 0 else (1 if c.returns()[me] > 0 else -1))
        assert kind[:kind.count(1)] == [1] * kind.count(1) and kind[len(kind) - kind.count(-1):] == [-1] * kind.count(-1)
        wins_seen += kind.count(1) > 0
        losses_seen += kind.count(-1) > 0
    assert wins_seen and losses_seen  # both ends were exercised


def test_move_ordering_changes_no_fixed_depth_value(plain):
    from agents.engine.negamax import Search
    from bench.quixo_depth import variant_game

    g, states = random_states(4, 6, seed=7)
    bare = variant_game("no_order", 4)
    for s in states:
        a = Search(g, "lines", tt_bits=12, jit=False).run(s, 3)
        b = Search(bare, "lines", tt_bits=12, jit=False).run(bare.new_state(s.words), 3)
        assert a.value == pytest.approx(b.value)


# --- the course-style minimax -----------------------------------------------------------------
def course_best(state, depth: int) -> set[int]:
    """The course player's own best moves (its make_move loop without the random choice)."""
    from agents.quixo.harness import CourseMinimaxPlayer, _View, course_moves, course_slide, course_to_action

    view = _View.of(state)
    board, me = view.get_board(), view.get_current_player()
    p = CourseMinimaxPlayer(depth)
    values = {course_to_action(state.game, pos, side): -p._negamax(course_slide(board, pos, side, me), 1 - me, depth - 1)
              for pos, side in course_moves(board, me)}
    top = max(values.values())
    return {a for a, v in values.items() if v == top}


@pytest.mark.parametrize("n,depth,count", [(3, 3, 4), (4, 2, 8)])
def test_course_minimax_agent_has_the_course_players_best_moves(plain, n, depth, count):
    from agents.registry import make

    g, states = random_states(n, count, seed=50 + n)
    agent = make(f"course_minimax:depth={depth},seed=1", g)
    for s in states:
        best, _values = agent.best_actions(s)
        assert set(best) == course_best(s, depth)
        assert agent.choose(s, 1e18) in best


def test_course_minimax_spec_is_refused_for_other_games():
    from agents.engine.spec import SpecError
    from agents.registry import make

    with pytest.raises(SpecError, match="quixo"):
        make("course_minimax", make_game("tictactoe"))


# --- quixo_perfect ----------------------------------------------------------------------------
def test_perfect_wins_3x3_as_first_player_against_random(plain):
    from agents.registry import make

    g = make_game("quixo", size=3)
    for seed in range(6):
        r = play(make("quixo_perfect", g), make(f"random:seed={seed}", g), g, 10.0)
        assert r["winner"] == 1 and len(r["moves"]) <= 7


@pytest.mark.parametrize("opponent", ["random", "alphabeta:max_depth=2", "course_minimax:depth=2"])
def test_perfect_never_loses_4x4_as_first_player_and_wins_from_the_initial_position(plain, opponent):
    from agents.registry import make

    g = make_game("quixo", size=4)
    me = make("quixo_perfect", g)
    assert me.game is g
    for seed in range(4 if opponent == "random" else 2):
        spec = opponent if opponent.startswith("alphabeta") else f"{opponent}{':' if opponent == 'random' else ','}seed={seed}"
        r = play(me, make(spec, g), g, 10.0)
        assert r["winner"] == 1 and not r["errors"]
        assert len(r["moves"]) <= 21  # the table's win is in 21 plies: an opponent can only make it quicker
    assert me.info()["exact"] and me.info()["value"] == 1.0


def test_perfect_table_value_of_its_move_matches_the_solved_initial_value():
    from agents.quixo.perfect import load_table

    t = load_table(4)
    assert t.value((0, 0, 0)) == (1, 21)
    s = make_game("quixo", size=4).initial()
    a, scores = t.best_action(s)
    assert scores[a] == (1, 21)


def test_perfect_falls_back_to_alpha_beta_on_5x5_and_refuses_a_missing_named_table(plain, tmp_path, capsys):
    """5x5 (no table) plays the fallback; a table the spec names that is missing is refused when
    the agent is built (issue 34: not a game of fallback moves the user did not ask for), and a
    table that cannot be read at the first move still falls back."""
    from agents.engine.spec import SpecError
    from agents.quixo.perfect import QuixoPerfectAgent
    from agents.registry import make

    g5 = make_game("quixo", size=5)
    s = play_line(g5, [g5.encode(0, 0, "BOTTOM")])
    a5 = make("quixo_perfect", g5)
    assert a5.choose(s, time.perf_counter() + 0.3) in s.legal_actions()
    assert a5.info()["fallback"] == "alphabeta"
    g4 = make_game("quixo", size=4)
    with pytest.raises(SpecError, match="does not exist"):
        make(f"quixo_perfect:table={tmp_path / 'none.npz'}", g4)
    missing = QuixoPerfectAgent(game=g4, table=str(tmp_path / "gone.npz"))  # built, then the file is gone
    s4 = g4.initial()
    assert missing.choose(s4, time.perf_counter() + 0.3) in s4.legal_actions()
    assert "fallback" in missing.info()
    assert "no table" in capsys.readouterr().err
