"""Reinforce Tactics heuristic (``heuristics/reinforce_tactics``) and baseline agents
(``agents/reinforce_tactics``): plain and compiled paths agree, the heuristic's properties
(side symmetry, monotony), the greedy planner's choices on constructed positions, its plans'
legality and deadline, and a short greedy-vs-random match."""
from __future__ import annotations

import random

import numpy as np
import pytest

from core.reinforce_tactics import ReinforceTactics, maps
from core.reinforce_tactics.layout import (
    A_END,
    G_CELL_STRUCT,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_OVER,
    H_PLAYER,
    MAX_HP,
    S_BASE,
    S_OWNER,
    SF,
    TR_OCEAN,
    TR_WATER,
    U_BASE,
    U_CELL,
    U_HP,
    U_ORIG,
    U_TYPE,
    UF,
    UMAX,
)
from heuristics.reinforce_tactics import DEFAULT_PARAMS, evaluate
from heuristics.reinforce_tactics.params import NAMES, Weights
from util.jit import numba_available

PARAMS = DEFAULT_PARAMS["standard"]
SMALL_MAPS = ("beginner", "starter", "intermediate", "skirmish", "corner_points")


def random_states(name: str, seed: int, plies: int, p_end: float = 0.15):
    """States along one random game (random legal sub-actions, ending the turn with ``p_end``)."""
    g = ReinforceTactics(map=name, seed=seed)
    rng = random.Random(seed)
    s = g.initial()
    out = []
    for _ in range(plies):
        if s.is_terminal():
            break
        la = s.legal_actions()
        if s.is_chance_node():
            a = rng.choice(la)
        else:
            a = A_END if rng.random() < p_end else rng.choice(la)
        s = s.apply(a)
        if not s.is_chance_node():
            out.append(s)
    return g, out


def swapped(words) -> list[int]:
    """The state with the two sides' labels swapped (units, gold, counts, owners, mover)."""
    w = list(words)
    n = UMAX * UF
    w[U_BASE:U_BASE + n], w[U_BASE + n:U_BASE + 2 * n] = w[U_BASE + n:U_BASE + 2 * n], w[U_BASE:U_BASE + n]
    w[H_GOLD], w[H_GOLD + 1] = w[H_GOLD + 1], w[H_GOLD]
    w[H_COUNT], w[H_COUNT + 1] = w[H_COUNT + 1], w[H_COUNT]
    w[H_PLAYER] = 1 - w[H_PLAYER]
    for si in range(64):
        o = w[S_BASE + si * SF + S_OWNER]
        if o >= 0:
            w[S_BASE + si * SF + S_OWNER] = 1 - o
    return w


# --- heuristic -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SMALL_MAPS)
def test_heuristic_mover_flip_negates(name):
    g, states = random_states(name, 11, 150)
    assert len(states) > 50
    seen_nonzero = 0
    for s in states:
        v = evaluate(g.g, s.words, PARAMS)
        w = list(s.words)
        w[H_PLAYER] = 1 - w[H_PLAYER]
        assert evaluate(g.g, w, PARAMS) == pytest.approx(-v, abs=1e-12)
        seen_nonzero += abs(v) > 1e-6
    assert seen_nonzero > 10  # the property is not met by scoring everything 0


@pytest.mark.parametrize("name", SMALL_MAPS)
def test_heuristic_relabelled_sides_score_the_same(name):
    g, states = random_states(name, 12, 150)
    for s in states:
        assert evaluate(g.g, swapped(s.words), PARAMS) == pytest.approx(evaluate(g.g, s.words, PARAMS), abs=1e-12)


def point_symmetric_maps() -> list[str]:
    """Maps whose set-up (terrain, structures, owners swapped) is point-symmetric about the
    centre of the map's own box (most are; crossroads, difficult_terrain, last_stand and
    the_narrows are not)."""
    out = []
    for name in maps.map_names():
        g = ReinforceTactics(map=name)
        G, s = g.g, g.initial().words
        if reflection(g) is None:
            continue
        f = reflection(g)
        ok = True
        for c in range(400):
            r = f(c)
            if G[G_TERRAIN + c] != G[G_TERRAIN + r]:
                ok = False
                break
            si = G[G_CELL_STRUCT + c]
            if si >= 0:
                o, o2 = s[S_BASE + si * SF + S_OWNER], s[S_BASE + G[G_CELL_STRUCT + r] * SF + S_OWNER]
                ok = ok and (o < 0) == (o2 < 0) and (o < 0 or o != o2)
        if ok:
            out.append(name)
    return out


def reflection(g):
    cells = [c for c in range(400) if g.g[G_TERRAIN + c] != TR_OCEAN]
    xs, ys = [c % 20 for c in cells], [c // 20 for c in cells]
    sx, sy = min(xs) + max(xs), min(ys) + max(ys)
    return lambda c: (sy - c // 20) * 20 + (sx - c % 20)


def test_heuristic_point_symmetric_positions_score_zero():
    names = point_symmetric_maps()
    assert len(names) >= 12
    rng = random.Random(5)
    for name in names:
        g = ReinforceTactics(map=name)
        f = reflection(g)
        walk = [c for c in range(400) if g.g[G_TERRAIN + c] not in (TR_OCEAN, TR_WATER) and f(c) != c]
        for trial in range(3):
            w = list(g.initial().words)
            w[H_PLAYER] = trial % 2
            w[H_GOLD] = w[H_GOLD + 1] = rng.randrange(0, 2000)
            used: set[int] = set()
            n = rng.randrange(1, 6)
            for k in range(n):
                c = rng.choice([c for c in walk if c not in used and f(c) not in used])
                used |= {c, f(c)}
                t = rng.randrange(1, 9)
                hp = rng.randrange(1, MAX_HP[t] + 1)
                for p, cell in ((0, c), (1, f(c))):
                    u = U_BASE + (p * UMAX + k) * UF
                    w[u + U_TYPE], w[u + U_CELL], w[u + U_HP], w[u + U_ORIG] = t, cell, hp, cell
            w[H_COUNT] = w[H_COUNT + 1] = n
            assert evaluate(g.g, w, PARAMS) == pytest.approx(0.0, abs=1e-9), name
            # one unit of player 0 a point weaker: player 0 is now behind
            if w[U_BASE + U_HP] > 1:
                w[U_BASE + U_HP] -= 1
                v = evaluate(g.g, w, PARAMS)
                assert (v < 0) if w[H_PLAYER] == 0 else (v > 0)


@pytest.mark.parametrize("name", SMALL_MAPS[:3])
def test_heuristic_more_material_or_gold_scores_higher(name):
    g, states = random_states(name, 13, 200)
    checked = 0
    for s in states:
        base = evaluate(g.g, s.words, PARAMS)
        me = s.words[H_PLAYER]
        w = list(s.words)
        w[H_GOLD + me] += 100
        assert evaluate(g.g, w, PARAMS) > base
        w = list(s.words)
        w[H_GOLD + 1 - me] += 100
        assert evaluate(g.g, w, PARAMS) < base
        for k in range(s.words[H_COUNT + me]):
            u = U_BASE + (me * UMAX + k) * UF
            if s.words[u + U_HP] < MAX_HP[s.words[u + U_TYPE]]:
                w = list(s.words)
                w[u + U_HP] += 1
                assert evaluate(g.g, w, PARAMS) > base
                checked += 1
    assert checked > 5


def test_heuristic_terminal_and_bounds():
    g, states = random_states("beginner", 14, 400, p_end=0.05)
    top = Weights().top
    for s in states:
        v = evaluate(g.g, s.words, PARAMS)
        assert -top <= v <= top
    over = [s for s in states if s.words[H_OVER]]
    for s in over:
        assert abs(evaluate(g.g, s.words, PARAMS)) in (0.0, top)


def test_params_table_names_every_weight():
    assert list(NAMES) == list(Weights.__dataclass_fields__)
    assert DEFAULT_PARAMS["standard"] == Weights().vector()
    assert ReinforceTactics.heuristics == "heuristics.reinforce_tactics"


@pytest.mark.skipif(not numba_available(), reason="numba not available")
def test_heuristic_plain_equals_compiled():
    from util import jit as J

    C = J.compiled("heuristics.reinforce_tactics")
    p = np.array(PARAMS)
    n = 0
    for name in ("beginner", "crossroads", "tower_rush", "last_stand"):
        g, states = random_states(name, 15, 120)
        ga = np.asarray(g.g, np.int64)
        for s in states:
            assert C.evaluate(ga, np.asarray(s.words, np.int64), p) == pytest.approx(evaluate(g.g, s.words, PARAMS), abs=1e-12)
            n += 1
    assert n > 200
