"""Reinforce Tactics heuristic (``heuristics/reinforce_tactics``) and baseline agents
(``agents/reinforce_tactics``): plain and compiled paths agree, the heuristic's properties
(side symmetry, monotony), the greedy planner's choices on constructed positions, its plans'
legality and deadline, and a short greedy-vs-random match."""
from __future__ import annotations

import random

import numpy as np
import pytest

from agents.engine.turn_plan import likeliest_line
from base.jit import numba_available
from core.reinforce_tactics import ReinforceTactics, maps
from core.reinforce_tactics.layout import (
    A_END,
    A_UNIT,
    G_CELL_STRUCT,
    G_NS,
    G_STRUCT_CELL,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_OVER,
    H_PLAYER,
    MAX_HP,
    S_BASE,
    S_HP,
    S_OWNER,
    SF,
    SUB_TARGET,
    TR_HQ,
    TR_OCEAN,
    TR_WATER,
    U_BASE,
    U_CAN_ACT,
    U_CAN_MOVE,
    U_CELL,
    U_HP,
    U_ORIG,
    U_TYPE,
    UF,
    UMAX,
    UNIT_STRIDE,
)
from heuristics.reinforce_tactics import DEFAULT_PARAMS, evaluate
from heuristics.reinforce_tactics.params import NAMES, Weights

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
    from base import jit as J

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


# --- greedy planner ----------------------------------------------------------------------------
def put_unit(w: list[int], p: int, typ: int, x: int, y: int, hp: int | None = None, fresh: bool = True) -> int:
    """Add a unit for player ``p`` on cell (x, y) of words ``w`` (ready to move and act)."""
    k = w[H_COUNT + p]
    u = U_BASE + (p * UMAX + k) * UF
    c = y * 20 + x
    w[u + U_TYPE], w[u + U_CELL], w[u + U_ORIG] = typ, c, c
    w[u + U_HP] = MAX_HP[typ] if hp is None else hp
    w[u + U_CAN_MOVE] = w[u + U_CAN_ACT] = 1 if fresh else 0
    w[H_COUNT + p] = k + 1
    return k


def beginner_words():
    g = ReinforceTactics(map="beginner")
    return g, list(g.initial().words)


def structure_cells(g, terrain: int) -> list[tuple[int, int, int]]:
    """(structure index, x, y) of every structure of ``terrain``."""
    out = []
    for si in range(g.g[G_NS]):
        c = g.g[G_STRUCT_CELL + si]
        if g.g[G_TERRAIN + c] == terrain:
            out.append((si, c % 20, c // 20))
    return out


@pytest.fixture(scope="module")
def greedy_agent():
    from agents.reinforce_tactics.greedy import GreedyAgent

    def make(g, **kw):
        agent = GreedyAgent(game=g, **kw)
        agent.warm_up()
        return agent

    return make


def far_deadline() -> float:
    import time

    return time.perf_counter() + 600.0


def hq_of(g, w, p):
    for si, x, y in structure_cells(g, TR_HQ):
        if w[S_BASE + si * SF + S_OWNER] == p:
            return si, x, y
    raise AssertionError("no HQ")


def test_greedy_seizes_the_enemy_hq_when_it_wins(greedy_agent):
    g, w = beginner_words()
    si, x, y = hq_of(g, w, 1)
    w[S_BASE + si * SF + S_HP] = 10
    put_unit(w, 0, 1, x, y)  # a Warrior (15 hp) on the enemy HQ: seizing it wins
    put_unit(w, 1, 1, x - 1, y)  # an enemy Warrior beside it, to tempt an attack instead
    s = g.new_state(w)
    agent = greedy_agent(g)
    a = agent.choose(s, far_deadline())
    assert s.action_to_string(a) == f"seize {x},{y}"
    assert s.apply(a).returns() == (1.0, -1.0)


def played_plan(s, plan):
    """The plan's actions in notation and the state after them (chance: the counter-attack)."""
    texts = []
    for a in plan:
        texts.append(s.action_to_string(a))
        s = s.apply(a)
        while s.is_chance_node():
            s = s.apply(0)
    return texts, s


def test_greedy_takes_the_kill(greedy_agent):
    g, w = beginner_words()
    _, hx, hy = hq_of(g, w, 1)
    put_unit(w, 0, 1, 9, 11)  # a Warrior (the map is the box x, y in 7..12)
    put_unit(w, 1, 5, 10, 11, hp=2)  # a wounded enemy Knight beside it: the kill
    put_unit(w, 1, 1, 9, 12)  # a healthy enemy Warrior beside it too
    put_unit(w, 1, 4, hx, hy)  # and an enemy Archer on its HQ, so the kill does not end the game
    s = g.new_state(w)
    # valued alone, the kill beats every other sub-action
    a = greedy_agent(g, lookahead=False).choose(s, far_deadline())
    assert s.action_to_string(a) == "attack 9,11 10,11"
    # with the look-ahead the Warrior may first step onto the tower beside the Knight: it still kills
    texts, after = played_plan(s, greedy_agent(g).plan_turn(s, far_deadline()))
    assert any(x.startswith("attack") and x.endswith(" 10,11") for x in texts), texts
    assert after.words[H_COUNT + 1] == 2 and texts[-1] == "end"


def test_greedy_moves_into_a_kill(greedy_agent):
    g, w = beginner_words()
    _, hx, hy = hq_of(g, w, 1)
    put_unit(w, 0, 1, 7, 10)  # a Warrior three cells from a wounded enemy: move beside it, then kill
    put_unit(w, 1, 7, 10, 11, hp=1)
    put_unit(w, 1, 4, hx, hy)
    s = g.new_state(w)
    agent = greedy_agent(g)
    texts, t = played_plan(s, agent.plan_turn(s, far_deadline()))
    kill = [i for i, x in enumerate(texts) if x.startswith("attack") and x.endswith(" 10,11")]
    move = [i for i, x in enumerate(texts) if x.startswith("move 7,10 ")]
    assert kill and move and move[0] < kill[0], texts  # the move that sets up the kill, then the kill
    assert t.words[H_COUNT + 1] == 1 and texts[-1] == "end"  # the wounded unit is gone


def independent_value(g, s, me):
    """A sub-action's resulting state valued through the State API and the plain heuristic."""
    from agents.reinforce_tactics.planner import WIN

    if s.is_terminal():
        r = s.returns()[me]
        return WIN * r
    if s.is_chance_node():
        return sum(p * independent_value(g, s.apply(o), me) for o, p in s.chance_outcomes())
    v = evaluate(g.g, s.words, PARAMS)
    return v if s.words[H_PLAYER] == me else -v


def test_scores_match_an_independent_computation(greedy_agent):
    """Every legal sub-action's score (no look-ahead) equals the value of its successor computed
    with State.apply, chance_outcomes and the plain heuristic, on random states of three maps
    with combat (Rogue attacks included when they occur)."""
    checked = 0
    rogue_chance = 0
    for name in ("beginner", "rogue_flank"):
        g, states = random_states(name, 21, 260, p_end=0.08)
        agent = greedy_agent(g, lookahead=False)
        for s in states[::10]:
            if s.is_terminal():
                continue
            me = s.words[H_PLAYER]
            scores = agent.scores(s)
            assert sorted(scores) == sorted(s.legal_actions())
            for a, v in scores.items():
                t = s if a == A_END else s.apply(a)
                rogue_chance += t.is_chance_node()
                assert v == pytest.approx(independent_value(g, t, me), abs=1e-9)
                checked += 1
    assert checked > 300 and rogue_chance > 0


def test_lookahead_scores_moves_by_their_best_follow_up(greedy_agent):
    g, states = random_states("skirmish", 22, 200, p_end=0.1)
    agent = greedy_agent(g)
    plain = greedy_agent(g, lookahead=False)
    moved = 0
    for s in states[::20]:
        if s.is_terminal():
            continue
        me = s.words[H_PLAYER]
        with_look, alone = agent.scores(s), plain.scores(s)
        for a, v in with_look.items():
            if a == A_END or a < A_UNIT or (a - A_UNIT) % UNIT_STRIDE >= SUB_TARGET:
                assert v == alone[a]
                continue
            t = s.apply(a)
            k = (a - A_UNIT) // UNIT_STRIDE
            left = s.words[U_BASE + (me * UMAX + k) * UF + U_CELL]
            follow = [b for b in t.legal_actions()
                      if (b >= A_UNIT and (b - A_UNIT) // UNIT_STRIDE == k and (b - A_UNIT) % UNIT_STRIDE >= SUB_TARGET)
                      or (b < A_UNIT and g.g[G_STRUCT_CELL + b // 8] == left)]
            best = max([alone[a]] + [independent_value(g, t.apply(b), me) for b in follow])
            assert v == pytest.approx(best, abs=1e-9)
            moved += 1
    assert moved > 20


@pytest.mark.parametrize("name", ("beginner", "crossroads", "tower_rush"))
def test_greedy_plans_are_legal_and_end_the_turn(greedy_agent, name):
    g, states = random_states(name, 23, 150)
    agent = greedy_agent(g)
    for s in states[::12]:
        if s.is_terminal():
            continue
        plan = agent.plan_turn(s, far_deadline())
        me = s.current_player()
        assert plan and agent.choose(s, far_deadline()) == plan[0]
        t = s
        for i, a in enumerate(plan):
            assert a in t.legal_actions(), (i, a)
            t = likeliest_line(t.apply(a))  # the planner follows the likelier outcome: the counter-attack
            if t.is_terminal():
                break
        assert t.is_terminal() or (plan[-1] == A_END and t.current_player() == 1 - me)
        labels = agent.plan_labels(s, far_deadline())  # the same line, past chance nodes
        assert len(labels) == len(plan) or t.is_terminal()
        u = s
        for label in labels:
            u = likeliest_line(u)
            a = g.label_action(u, label)
            assert a is not None
            u = u.apply(a)


def test_greedy_respects_a_passed_deadline(greedy_agent):
    import time

    g, states = random_states("crossroads", 24, 120)
    agent = greedy_agent(g)
    busy = [s for s in states if not s.is_terminal() and len(s.legal_actions()) > 20]
    assert busy
    for s in busy[:5]:
        assert agent.choose(s, time.perf_counter() - 1.0) == A_END
        assert agent.plan_turn(s, time.perf_counter() - 1.0) == [A_END]
        with pytest.raises(TimeoutError):
            agent.scores(s, time.perf_counter() - 1.0)


@pytest.mark.skipif(not numba_available(), reason="numba not available")
def test_planner_plain_equals_compiled(greedy_agent):
    from agents.reinforce_tactics.greedy import GreedyAgent

    g, states = random_states("beginner", 25, 120)
    fast = greedy_agent(g)
    slow = GreedyAgent(game=g, jit=False)
    n = 0
    for s in states[::15][:5]:
        if s.is_terminal():
            continue
        a, b = fast.scores(s), slow.scores(s)
        assert slow.info()["jit"] is False and fast.info()["jit"] is True
        assert a.keys() == b.keys()
        for act in a:
            assert a[act] == pytest.approx(b[act], abs=1e-12)
        n += 1
    assert n >= 3


def test_greedy_beats_random_on_small_maps(greedy_agent):
    """Eight short games (two maps, two seeds, seats swapped, 40 steps): greedy loses none and
    wins most (a random side almost never ends a game by itself in 40 steps)."""
    from agents.engine.random_agent import RandomAgent
    from util.arena.match import play

    wins = 0
    for name in ("beginner", "starter"):
        g = ReinforceTactics(map=name, episode_steps=40)
        agent = greedy_agent(g)
        for seed in range(2):
            for seat in (0, 1):
                rnd = RandomAgent(game=g, seed=seed)
                first, second = (agent, rnd) if seat == 0 else (rnd, agent)
                r = play(first, second, g, time_per_move=600.0, chance_seed=seed)
                assert r["termination"] in ("win", "draw"), r["errors"]
                won = r["winner"] == seat + 1
                assert won or r["winner"] == 0
                wins += won
    assert wins >= 6
