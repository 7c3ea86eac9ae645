"""The greedy planner's turn under a short clock (``planner.sweep``, ``plan``'s fallback), its
replay of a planned turn in ``choose``, and the strength bench's bookkeeping."""
from __future__ import annotations

import numpy as np
import pytest

from agents.engine.turn_plan import likeliest_line
from agents.reinforce_tactics import planner
from base import jit as J
from base.jit import numba_available
from bench.rt_strength import tally, turn_seconds
from core.game import constants_array
from core.reinforce_tactics import ReinforceTactics
from core.reinforce_tactics.layout import A_END, A_UNIT, CELLS, NUM_ACTIONS, UNIT_STRIDE
from heuristics.reinforce_tactics.params import Weights
from tests.test_rt_agents import hq_of, put_unit, random_states

FAR_NS = 2 ** 62  # a deadline that never passes (kernel nanoseconds)
PATHS = [False] + ([True] if numba_available() else [])


def run_sweep(g, words, jit: bool) -> tuple[list[int], float, float]:
    """``planner.sweep`` from ``words`` on one kernel path: (its actions, value before, after)."""
    k = J.compiled(planner) if jit else planner
    ga = constants_array(g, jit)
    s = np.asarray(words, np.int64)
    params = np.array(Weights().vector(), np.float64)
    out = np.empty(200, np.int64)
    acts, buf = np.empty(NUM_ACTIONS, np.int64), np.empty(NUM_ACTIONS, np.int64)
    scores, work = np.empty(NUM_ACTIONS, np.float64), np.empty(3 * CELLS, np.int64)
    n, t = k.sweep(ga, s, params, True, 0.0, FAR_NS, out, 0, (acts, scores, work, buf))
    me = int(s[0])
    return [int(a) for a in out[:n]], k.value(ga, s, me, params), k.value(ga, t, me, params)


@pytest.mark.parametrize("jit", PATHS)
def test_sweep_advances_every_unit_on_an_empty_20x20_map(jit):
    """cavalry_charge (20 x 20, HQ recruitment only): six fresh Warriors beside the HQ and no
    enemy in reach. The sweep must move each of them (towards the enemy HQ) in one pass."""
    g = ReinforceTactics(map="cavalry_charge")
    w = list(g.initial().words)
    _, x, y = hq_of(g, w, 0)
    cells = [(x + dx, y + dy) for dx in range(-2, 3) for dy in range(-2, 3) if (dx or dy)]
    placed = 0
    for cx, cy in cells:  # keep the cells where a Warrior can stand and move
        if placed == 6 or not (0 <= cx < 20 and 0 <= cy < 20):
            continue
        w2 = list(w)
        k = put_unit(w2, 0, 1, cx, cy)
        first = A_UNIT + UNIT_STRIDE * k
        if any(first <= a < first + UNIT_STRIDE for a in g.new_state(w2).legal_actions()):
            w, placed = w2, placed + 1
    assert placed == 6
    plan, before, after = run_sweep(g, w, jit)
    movers = {(a - A_UNIT) // UNIT_STRIDE for a in plan if a >= A_UNIT}
    assert movers == set(range(6)), [g.new_state(w).action_to_string(a) for a in plan]
    assert after > before
    s = g.new_state(w)
    for a in plan:  # legal in order
        assert a in s.legal_actions()
        s = likeliest_line(s.apply(a))


@pytest.mark.parametrize("jit", PATHS)
def test_sweep_plans_are_legal_and_never_lower_the_value(jit):
    g, states = random_states("crossroads", 31, 160)
    checked = 0
    for s in states[::16]:
        if s.is_terminal():
            continue
        plan, before, after = run_sweep(g, s.words, jit)
        assert after >= before
        t = s
        for a in plan:
            assert a in t.legal_actions()
            t = likeliest_line(t.apply(a))
            if t.is_terminal():
                break
        checked += 1
    assert checked >= 5


@pytest.mark.skipif(not numba_available(), reason="numba not available")
def test_sweep_plain_equals_compiled():
    g, states = random_states("tower_rush", 32, 160)
    for s in [s for s in states if not s.is_terminal()][::25][:4]:
        assert run_sweep(g, s.words, False)[0] == run_sweep(g, s.words, True)[0]


def test_choose_plays_the_planned_turn():
    """Over a whole turn without chance, ``choose`` plays exactly ``plan_turn``'s actions."""
    from agents.reinforce_tactics.greedy import GreedyAgent

    g, states = random_states("crossroads", 33, 200)
    agent = GreedyAgent(game=g, jit=numba_available())
    agent.warm_up()
    done = 0
    for s in [s for s in states if not s.is_terminal()][::20]:
        plan = agent.plan_turn(s, 1e12)
        agent.reset()
        t, played = s, []
        while not t.is_terminal() and t.current_player() == s.current_player() and len(played) <= len(plan):
            if t.is_chance_node():
                break
            a = agent.choose(t, 1e12)
            played.append(a)
            t = t.apply(a)
            if a == A_END:
                break
        if not t.is_chance_node():
            assert played == plan
            done += 1
    assert done >= 3


def test_turn_seconds_sums_runs_of_one_side():
    assert turn_seconds([1, 2, 3, 4, 5], [1, 1, 2, 1, 1], 1) == [3, 9]
    assert turn_seconds([1, 2, 3], [2, 1, 2], 2) == [1, 3]


def test_tally_counts_points_and_faults():
    from util.arena.match import GameJob
    from util.arena.players import PlayerSpec

    a, b = PlayerSpec("greedy", "agent", "greedy"), PlayerSpec("random", "engine", "random")
    spec = "reinforce_tactics:map=beginner"
    j0 = GameJob(a, b, 0, spec, 0.5, "direct", 1)  # index 0: a moves first (mark 1)
    j1 = GameJob(a, b, 1, spec, 0.5, "direct", 2)  # index 1: b moves first, a is mark 2
    res = [(j0, {"winner": 1, "termination": "win", "errors": {}, "move_times": [0.1], "movers": [1]}),
           (j1, {"winner": 0, "termination": "draw", "errors": {}, "move_times": [0.1], "movers": [2]}),
           (j1, {"winner": 1, "termination": "timeout", "errors": {2: "turn took 2 s"}, "move_times": [2.0], "movers": [2]})]
    t = tally(res, "greedy")
    assert (t["wins"], t["draws"], t["losses"], t["faults"]) == (1, 1, 1, 1)
    assert t["share"] == pytest.approx(0.5)
    assert t["max_turn_s"] == 2.0
