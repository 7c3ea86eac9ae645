"""Expectimax (``agents/engine/expectimax.py``) against a brute-force expectimax written here
from the value model: Star1 and the table must return the very same floats as plain expectimax,
on EinStein würfelt nicht!, Dice Nim and tic-tac-toe; the compiled and plain kernels agree;
the agent plays legal moves, takes a win at once, and is registered."""
from __future__ import annotations

import random
import time

import pytest

from agents.engine.expectimax import ExpectimaxAgent, Search
from agents.registry import make
from base.jit import numba_available
from core.einstein import Einstein
from core.game import CHANCE
from core.tictactoe import TicTacToe
from heuristics.einstein import DEFAULT_PARAMS, evaluate_race
from tests.games_dicenim import DiceNim

EIN = Einstein()
PARAMS = DEFAULT_PARAMS["race"]


def brute(game, s, depth: int, view: int, h=None, params=()) -> float:
    """Expectimax by the module docstring's model, on the game's plain kernels (rules are
    tested elsewhere; this checks the search)."""
    k, g = game.kernel_module, game.g
    if k.terminal(g, s):
        o = k.outcome(g, s)
        return o if view == 0 else -o
    buf = [0] * game.num_actions
    n = k.legal(g, s, buf, 0)
    m = k.to_move(g, s)
    if m == CHANCE:
        total = 0.0
        for a in buf[:n]:
            total += k.chance_prob(g, s, a) * brute(game, k.play(g, s, a), depth, view, h, params)
        return total
    sign = 1.0 if m == view else -1.0
    if depth <= 0:
        top = game.win_value
        e = h(g, s, list(params)) if h else 0.0
        return sign * min(top, max(-top, e))
    return sign * max(brute(game, k.play(g, s, a), depth - 1, m, h, params) for a in buf[:n])


def brute_root(state, depth, h=None, params=()) -> dict[int, float]:
    game, m = state.game, state.current_player()
    k = game.kernel_module
    return {a: brute(game, k.play(game.g, state.words, a), depth - 1, m, h, params) for a in state.legal_actions()}


def decision_positions(game, count: int, seed: int, min_plies: int = 0) -> list:
    """Decision nodes from random play (``min_plies`` actions in at least)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = game.initial()
        stop = rng.randrange(min_plies, min_plies + 40)
        while not s.is_terminal() and (len(s.history) < stop or s.is_chance_node()):
            s = s.apply(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            out.append(s)
    return out


def _check(game, positions, depths, heuristic, h, params, jit=False) -> int:
    checked = 0
    plain = Search(game, heuristic, params, jit=jit, prune=False, ply_cap=16)
    all_values = Search(game, heuristic, params, jit=jit, root_all=True, ply_cap=16)
    pruned = Search(game, heuristic, params, jit=jit, ply_cap=16, star2=True)
    star1 = Search(game, heuristic, params, jit=jit, ply_cap=16)
    for s in positions:
        for d in depths:
            want = brute_root(s, d, h, params)
            best = max(want.values())
            r = plain.run(s, d)
            assert r.value == best and dict(plain.root_values()) == want
            all_values.clear()
            r = all_values.run(s, d)
            assert r.value == best and dict(all_values.root_values()) == want
            pruned.clear()
            r = pruned.run(s, d)
            assert r.value == best and want[r.best] == best
            star1.clear()
            r = star1.run(s, d)
            assert r.value == best and want[r.best] == best
            checked += 1
    return checked


def test_star1_equals_plain_expectimax_einstein():
    positions = decision_positions(EIN, 10, seed=1, min_plies=3)
    assert _check(EIN, positions, (1, 2), "race", evaluate_race, PARAMS) == 20
    assert _check(EIN, positions[:1], (3,), "race", evaluate_race, PARAMS) == 1


def test_star1_equals_plain_expectimax_dicenim():
    game = DiceNim(pile=8)
    positions = decision_positions(game, 8, seed=2)
    assert _check(game, positions, (1, 2, 3, 6), None, None, ()) == 32


def test_no_chance_is_minimax():
    game = TicTacToe()
    positions = decision_positions(game, 6, seed=3, min_plies=2)
    assert _check(game, positions, (1, 3, 9), None, None, ()) == 18


def test_star1_and_star2_prune():
    s = decision_positions(EIN, 1, seed=4, min_plies=3)[0]
    plain = Search(EIN, "race", jit=False, prune=False).run(s, 3)
    star1 = Search(EIN, "race", jit=False, use_tt=False).run(s, 3)
    star2 = Search(EIN, "race", jit=False, use_tt=False, star2=True).run(s, 3)
    assert star1.value == plain.value == star2.value and star1.nodes < plain.nodes and star2.nodes < plain.nodes


def test_table_never_changes_a_value():
    """Iterative deepening with one table (entries from shallower iterations and transpositions)
    gives the values of a fresh search without a table, at every depth."""
    for game, heur, positions, depths in ((EIN, "race", decision_positions(EIN, 4, seed=5, min_plies=3), 2),
                                          (EIN, "race", decision_positions(EIN, 1, seed=11, min_plies=3), 3),
                                          (DiceNim(pile=12), None, decision_positions(DiceNim(pile=12), 4, seed=6), 7)):
        for s in positions:
            with_tt = Search(game, heur, jit=False, root_all=True)
            for d in range(1, depths + 1):
                fresh = Search(game, heur, jit=False, use_tt=False, root_all=True, star2=d % 2 == 0)
                a, b = with_tt.run(s, d), fresh.run(s, d)
                assert a.value == b.value
                assert dict(with_tt.root_values()) == dict(fresh.root_values())


@pytest.mark.slow  # numba's compile: ~15 s on the shared machine
@pytest.mark.skipif(not numba_available(), reason="numba not importable")
def test_compiled_agrees_with_plain_dicenim():
    game = DiceNim(pile=10)
    for s in decision_positions(game, 6, seed=7):
        for d in (2, 4, 7):
            for prune in (False, True):
                a = Search(game, None, jit=False, prune=prune, root_all=True).run(s, d)
                b_search = Search(game, None, jit=True, prune=prune, root_all=True)
                b = b_search.run(s, d)
                assert (a.value, a.best, a.nodes) == (b.value, b.best, b.nodes)


@pytest.mark.slow
@pytest.mark.skipif(not numba_available(), reason="numba not importable")
def test_compiled_agrees_with_plain_einstein():
    positions = decision_positions(EIN, 8, seed=8, min_plies=3)
    for s in positions:
        for d in (1, 2, 3):
            a = Search(EIN, "race", jit=False).run(s, d)
            b = Search(EIN, "race", jit=True).run(s, d)
            assert (a.value, a.best, a.nodes) == (b.value, b.best, b.nodes)
    assert _check(EIN, positions, (1, 2), "race", evaluate_race, PARAMS, jit=True) == 16


def _winning_position():
    """A decision node where the mover can reach the goal corner at once."""
    rng = random.Random(9)
    while True:
        s = EIN.initial()
        while not s.is_terminal():
            if not s.is_chance_node():
                for a in s.legal_actions():
                    if s.apply(a).is_terminal():
                        return s, a
            s = s.apply(rng.choice(s.legal_actions()))


def test_agent_plays_legal_moves_and_wins_at_once():
    agent = make("expectimax:background_compile=false", EIN)
    assert isinstance(agent, ExpectimaxAgent)
    agent.warm_up = lambda: 0.0  # plain path only: no compile in the default test run
    agent._use_jit = lambda deadline: False
    s, win = _winning_position()
    assert agent.choose(s, time.perf_counter() + 0.3) == win
    for s in decision_positions(EIN, 4, seed=10, min_plies=3):
        start = time.perf_counter()
        a = agent.choose(s, start + 0.2)
        assert a in s.legal_actions() and time.perf_counter() - start < 0.5
        info = agent.info()
        if len(s.legal_actions()) == 1:
            assert info["depth"] == 0 and info["pv"] == [a]
            continue
        assert info["depth"] >= 1 and info["nodes"] > 0 and a in info["action_values"] and info["pv"][0] == a
        assert -1.0 <= info["value"] <= 1.0


def test_agent_on_a_game_without_chance():
    agent = make("expectimax:max_depth=9", TicTacToe())
    agent._use_jit = lambda deadline: False
    s = TicTacToe().initial()
    a = agent.choose(s, time.perf_counter() + 30)
    assert agent.info()["exact"] and agent.info()["value"] == 0.0 and a in s.legal_actions()


# --- the odds heuristic (heuristics/einstein): its race table and its symmetries -------------

def _brute_race(dists: tuple, t: int, memo: dict) -> float:
    """Chance of bringing a cube home within ``t`` turns, racing alone; ``dists[k - 1]`` is cube
    ``k``'s distance or None once captured. Written from the rules, by recursion over the dice,
    with the kernels' ``movable`` only to name the cubes a die lets move."""
    from core.einstein.kernels import ALL_GONE, movable, set_cube

    if t == 0:
        return 0.0
    if (dists, t) in memo:
        return memo[dists, t]
    b = ALL_GONE
    for k, d in enumerate(dists, 1):
        if d is not None:
            b = set_cube(b, 0, k, 0)  # any cell: movable reads only which cubes are on the board
    total = 0.0
    for die in range(1, 7):
        best = 0.0
        for k in movable(b, 0, die):
            if k == 0:
                continue
            if dists[k - 1] == 1:
                best = 1.0
            else:
                nxt = tuple(d - 1 if i == k - 1 else d for i, d in enumerate(dists))
                best = max(best, _brute_race(nxt, t - 1, memo))
        total += best
    memo[dists, t] = total / 6
    return memo[dists, t]


def test_odds_race_table_matches_brute_force():
    from heuristics.einstein import HORIZON, RACE_TABLE

    rng = random.Random(12)
    memo: dict = {}
    for _ in range(40):
        dists = tuple(rng.choice((None, 1, 2, 3, 4)) if rng.random() < 0.7 else None for _ in range(6))
        if all(d is None for d in dists):
            continue
        code = sum((4 if d is None else d - 1) * 5 ** i for i, d in enumerate(dists))
        for t in (1, 2, 3, 5, 8, HORIZON):
            assert RACE_TABLE[code * (HORIZON + 1) + t] == pytest.approx(_brute_race(dists, t, memo), abs=1e-12)
    full = sum(3 * 5 ** i for i in range(6))  # six cubes four steps away: home within 19 turns, not 3
    assert RACE_TABLE[full * (HORIZON + 1) + 3] == 0.0 and RACE_TABLE[full * (HORIZON + 1) + HORIZON] == pytest.approx(1.0)


def _mirror(words):
    """Colours swapped and the board turned half a turn: the same position for the other side."""
    from core.einstein.kernels import GONE, cube_cell, set_cube

    b = words[0]
    out = b
    for p in range(2):
        for k in range(1, 7):
            c = cube_cell(b, p, k)
            out = set_cube(out, 1 - p, k, GONE if c == GONE else 24 - c)
    return (out, words[1] ^ 4)


def test_odds_sees_both_colours_alike_and_averages_the_die():
    from heuristics.einstein import DEFAULT_PARAMS as DP
    from heuristics.einstein import evaluate_odds, race_odds

    params = DP["odds"]
    for s in decision_positions(EIN, 30, seed=13, min_plies=3):
        w = s.words
        assert evaluate_odds(EIN.g, w, params) == pytest.approx(evaluate_odds(EIN.g, _mirror(w), params), abs=1e-12)
        me = (w[1] >> 2) & 1
        # before the roll the chance is the mean over the six dice of the chance holding each
        mean = sum(race_odds(w[0], me, d) for d in range(1, 7)) / 6
        assert race_odds(w[0], me, 0) == pytest.approx(mean, abs=1e-12)
        assert 0.0 <= race_odds(w[0], me, 0) <= 1.0


def test_odds_win_in_one_is_certain():
    from heuristics.einstein import race_odds

    s, win = _winning_position()
    w = s.words
    assert race_odds(w[0], (w[1] >> 2) & 1, (w[1] >> 3) & 7) == pytest.approx(1.0)


@pytest.mark.slow
@pytest.mark.skipif(not numba_available(), reason="numba not importable")
def test_odds_compiled_agrees_with_plain():
    import numpy as np

    import heuristics.einstein as H
    from base.jit import compiled

    ns = compiled(H)
    params = H.DEFAULT_PARAMS["odds"]
    for s in decision_positions(EIN, 40, seed=14, min_plies=3):
        assert ns.evaluate_odds(np.zeros(1, dtype=np.int64), s.words, np.array(params)) == H.evaluate_odds(EIN.g, s.words, params)
