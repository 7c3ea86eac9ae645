"""``fogplan`` (:mod:`agents.reinforce_tactics.fog_plan`): plan cross-evaluation under fog of war
plays only legal actions in both seats, decides from the information state only (two states the
mover cannot tell apart get the same move for a seed; a variant that peeks does not), and its
compiled cross-evaluation agrees with the plain one."""
from __future__ import annotations

import random

import numpy as np

from agents.registry import make
from agents.reinforce_tactics import cross
from base import jit as J
from core.game import constants_array
from core.games import parse_game
from core.reinforce_tactics import fog as F
from core.reinforce_tactics.kernels import offset_cell, ub, walkable
from core.reinforce_tactics.layout import (
    A_END,
    A_UNIT,
    H_COUNT,
    MAX_HP,
    MOVEMENT,
    STATE_LEN,
    SUB_TARGET,
    T_BARBARIAN,
    U_CELL,
    U_TYPE,
    UMAX,
    UNIT_STRIDE,
    W,
)

INF = float("inf")


def fog_game(name: str = "crossroads"):
    return parse_game(f"reinforce_tactics:map={name},episode_steps=60,fog=1")


def states_of(fog, seed: int, steps: int):
    agents = [make("pimc:view=seen", fog), make("pimc:view=seen", fog)]
    s, rng, out = fog.initial(), random.Random(seed), []
    while not s.is_terminal() and len(out) < steps:
        if s.is_chance_node():
            s = s.apply(rng.choice(s.legal_actions()))
            continue
        out.append(s)
        s = s.apply(agents[s.current_player()].choose(s, INF) if rng.random() < 0.8 else rng.choice(s.legal_actions()))
    return out


class Peek:
    """The game, but its seen view and its samples are the true state: a variant of the agent that peeks."""

    def __init__(self, game) -> None:
        self._game = game

    def __getattr__(self, name):
        return getattr(self._game, name)

    def seen_state(self, state, player):
        return state

    def determinize(self, state, player, seed):
        return state


def with_hidden_enemy(fog, s, cell: int, typ: int = T_BARBARIAN):
    """``s`` with one more enemy unit (of the mover's enemy; full hit points, fresh) on ``cell``."""
    w = np.array(s.words, np.int64)
    q = 1 - s.current_player()
    k = int(w[H_COUNT + q])
    F.place_enemy(w, q, k, typ, cell, MAX_HP[typ])
    w[H_COUNT + q] = k + 1
    return fog.new_state(w)


def hidden_free(fog, s, c: int) -> bool:
    """Cell ``c`` is walkable, empty, and out of the mover's sight."""
    w, p = s.words, s.current_player()
    if c < 0 or not walkable(fog.g, c) or F.plane_has(w, F.fb(p) + F.FB_VISIBLE, c):
        return False
    return all(w[ub(r * UMAX + k) + U_CELL] != c for r in (0, 1) for k in range(w[H_COUNT + r]))


def move_target(s, a: int) -> int:
    """The cell a move sub-action of the mover goes to, -1 for another action."""
    if not (A_UNIT <= a < A_END and (a - A_UNIT) % UNIT_STRIDE < SUB_TARGET):
        return -1
    p, k = s.current_player(), (a - A_UNIT) // UNIT_STRIDE
    return offset_cell(s.words[ub(p * UMAX + k) + U_CELL], (a - A_UNIT) % UNIT_STRIDE)


def blocked_states(fog, seeds=range(3, 9), steps: int = 100):
    """States where the fog forbids the first sub-action of the plan on the visible picture: that
    plan's first move goes to a cell out of sight, and a hidden enemy unit stands there."""
    planner = make("fogplan", fog)._planner
    out = []
    for seed in seeds:
        for s in states_of(fog, seed, steps):
            planner.reset()
            a = planner.plan_turn(fog.seen_state(s, s.current_player()), INF)[0]
            c = move_target(s, a)
            if hidden_free(fog, s, c):
                t = with_hidden_enemy(fog, s, c)
                assert fog.information_state(t, t.current_player()) == fog.information_state(s, s.current_player())
                if a not in t.legal_actions():
                    out.append((t, a))
    return out


def test_fogplan_plays_legal_actions_where_the_fog_forbids_its_plan():
    """On states where the plan on the visible picture starts with a move a hidden enemy unit
    blocks, the agent (both seats: the states come from both movers) still plays a legal
    sub-action, and the whole turn it then plays is legal."""
    checked = 0
    for name in ("crossroads", "beginner"):
        fog = fog_game(name)
        for t, _ in blocked_states(fog):
            agent = make("fogplan:samples=3,reply=1", fog)
            s, n, me = t, 0, t.current_player()
            while not s.is_terminal() and not s.is_chance_node() and s.current_player() == me and n < 40:
                act = agent.choose(s, INF)
                assert act in s.legal_actions()
                s, n = s.apply(act), n + 1
            checked += 1
    assert checked >= 4


def lookalike_pairs(fog, seed: int, steps: int):
    """Pairs of full states the mover cannot tell apart, the second with one more hidden enemy
    Barbarian in reach of the mover's units (its move and attack: Manhattan 2..6 from one of
    them, out of every unit's own move, so the legal sub-actions are the same)."""
    out = []
    for s in states_of(fog, seed, steps)[10::4]:
        p = s.current_player()
        w = s.words
        mine = [w[ub(p * UMAX + k) + U_CELL] for k in range(w[H_COUNT + p])]
        for k, c0 in enumerate(mine):
            typ = w[ub(p * UMAX + k) + U_TYPE]
            cells = [c for c in range(W * W) if hidden_free(fog, s, c)
                     and MOVEMENT[typ] < abs(c % W - c0 % W) + abs(c // W - c0 // W) <= MOVEMENT[T_BARBARIAN] + 1]
            if cells:
                t = with_hidden_enemy(fog, s, cells[len(cells) // 2])
                if sorted(t.legal_actions()) == sorted(s.legal_actions()):
                    out.append((s, t))
                break
    return out


def turns_on_lookalikes(fog, pairs, peek: bool) -> tuple[int, int]:
    """(pairs whose turns agree, pairs): a fresh agent of one seed on each state of a pair plays
    its turn; the turns agree while the mover still cannot tell the two apart (a move may reveal
    the extra unit: from there on they may differ)."""
    same = 0
    for pair in pairs:
        agents = [make("fogplan:samples=3,reply=1,seed=4", fog) for _ in pair]
        if peek:
            for a in agents:
                a.game = Peek(fog)
        states, me, alike = list(pair), pair[0].current_player(), True
        for _ in range(12):
            if not all(not x.is_terminal() and not x.is_chance_node() and x.current_player() == me for x in states):
                break
            if fog.information_state(states[0], me) != fog.information_state(states[1], me) \
                    or sorted(states[0].legal_actions()) != sorted(states[1].legal_actions()):
                break
            acts = [a.choose(x, INF) for a, x in zip(agents, states)]
            if acts[0] != acts[1]:
                alike = False
                break
            states = [x.apply(acts[0]) for x in states]
        same += alike
    return same, len(pairs)


def test_fogplan_reads_only_the_information_state():
    """Same turn on look-alike pairs whose hidden enemy units differ in reach of the mover's
    units; a variant that peeks (samples and view the true state) plays differently on some of
    these pairs, so they tell an agent that reads hidden units from one that does not."""
    fog = fog_game()
    pairs = lookalike_pairs(fog, 5, 120)
    assert len(pairs) >= 5
    same, n = turns_on_lookalikes(fog, pairs, peek=False)
    assert same == n
    peek_same, _ = turns_on_lookalikes(fog, pairs, peek=True)
    assert peek_same < n


def test_cross_values_compiled_equal_plain():
    fog = fog_game()
    agent = make("fogplan:samples=3", fog)
    for s in states_of(fog, 9, 60)[10::10]:
        p = s.current_player()
        samples = [fog.determinize(s, p, k) for k in range(3)]
        lines = [agent._planner.plan_turn(x, INF) for x in samples]
        width = max(map(len, lines))
        arr = np.array([line + [A_END] * (width - len(line)) for line in lines], np.int64)
        words = np.array([x.words[:STATE_LEN] for x in samples], np.int64)
        out = []
        for jit in (False, True):
            v = np.empty((len(lines), len(samples)))
            ns = J.compiled(cross) if jit else cross
            ns.cross_values(constants_array(fog, jit), words, arr, p, agent._planner.kernel_params, True,
                            True, 0.0, 2 ** 62, v)
            out.append(v)
        assert np.allclose(out[0], out[1])
