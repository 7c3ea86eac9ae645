"""Reinforce Tactics (Kaggle's ``reinforce_tactics``) on the kernel contract (:mod:`core.game`),
its rules as the Kaggle environment runs them (its engine with the environment's
``ENGINE_OVERRIDES``: Warrior cost 300, hit-point-scaled damage), checked step by step against
that engine in ``tests/test_reinforce_tactics_oracle.py``. State, ``g`` and actions:
:mod:`core.reinforce_tactics.layout`; the rules in full: ``docs/reinforce-tactics.md``.

A Kaggle turn is a run of decision nodes of one player ending with ``A_END``. Two sets:

- :func:`legal`: the engine's own ``GameState.get_legal_actions`` (the sub-actions it offers);
- :func:`accepted`: every action the Kaggle interpreter executes rather than skipping (a
  superset: e.g. an attack at any distance deals the minimum 1 damage, a hasted paralysed unit
  may move). :func:`play` runs any accepted action, so a Kaggle game replays whatever its agents
  sent (``core.reinforce_tactics.kaggle``).

Chance: a Rogue's attack that leaves its target alive and able to counter stops at a chance
node: ``OUT_EVADE`` (probability 0.15, 0.30 from a forest) or ``OUT_COUNTER``.

State arrays are int64 (a tuple or list reads as well on the plain path); :func:`play` returns
a new array and never changes its argument.
"""
from __future__ import annotations

import numpy as np

from base.jit import hot
from core.reinforce_tactics.layout import (
    A_CREATE,
    A_END,
    A_UNIT,
    ATTACK,
    ATTACK_FAR,
    BUFF_TURNS,
    CELLS,
    CHARGE_DISTANCE,
    CLERIC_RANGE,
    COOLDOWN,
    COST,
    DEFENCE,
    EVADE,
    EVADE_FOREST,
    G_CELL_STRUCT,
    G_EPISODE,
    G_NS,
    G_STRUCT_CELL,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_OVER,
    H_PEND_ATT,
    H_PEND_TGT,
    H_PLAYER,
    H_STEP,
    H_TURN,
    H_WINNER,
    HEAL_AMOUNT,
    HEAL_COST_1,
    HEAL_COST_2,
    INCOME,
    K_ATK_BUFF,
    K_ATTACK,
    K_CURE,
    K_DEF_BUFF,
    K_HASTE,
    K_HEAL,
    K_PARALYZE,
    MAX_HP,
    MAX_MOVE,
    MOVEMENT,
    N_OFFSETS,
    NO_HQ_DISTANCE,
    OFF_DX,
    OFF_DY,
    OFF_INDEX,
    OFF_SIDE,
    OUT_COUNTER,
    PARALYZE_TURNS,
    S_BASE,
    S_HP,
    S_OWNER,
    S_REGEN,
    SF,
    STATE_LEN,
    STRUCT_MAX_HP_BY_CODE,
    SUB_SEIZE,
    SUB_TARGET,
    T_ARCHER,
    T_CLERIC,
    T_KNIGHT,
    T_MAGE,
    T_ROGUE,
    T_SORCERER,
    TR_BUILDING,
    TR_FOREST,
    TR_HQ,
    TR_MOUNTAIN,
    TR_OCEAN,
    TR_TOWER,
    TR_WATER,
    U_ATK_CD,
    U_ATK_TURNS,
    U_BASE,
    U_CAN_ACT,
    U_CAN_MOVE,
    U_CELL,
    U_DEF_CD,
    U_DEF_TURNS,
    U_DIST,
    U_HASTE_CD,
    U_HASTED,
    U_HP,
    U_MOVED,
    U_ORIG,
    U_PARA_CD,
    U_PARALYZED,
    U_TYPE,
    UF,
    UMAX,
    UNIT_STRIDE,
    W,
)

CHANCE = -1  # core.game.CHANCE (a literal: numba reads module globals as constants)
COMPILED = False


# --- small helpers -------------------------------------------------------------------------
@hot
def ub(gu: int) -> int:
    """Offset of global unit slot ``gu`` (``player * UMAX + slot``)."""
    return U_BASE + gu * UF


@hot
def sb(si: int) -> int:
    return S_BASE + si * SF


@hot
def dist(c1: int, c2: int) -> int:
    return abs(c1 % W - c2 % W) + abs(c1 // W - c2 // W)


@hot
def occupancy(s, occ) -> None:
    """``occ[cell]``: the global slot of the unit there, -1 for none."""
    occ[:] = -1
    for p in range(2):
        for k in range(s[H_COUNT + p]):
            occ[s[ub(p * UMAX + k) + U_CELL]] = p * UMAX + k


@hot
def walkable(g, c: int) -> bool:
    t = g[G_TERRAIN + c]
    return t != TR_WATER and t != TR_OCEAN


@hot
def reach(g, occ, p: int, start: int, mv: int, dist_out, queue) -> None:
    """Breadth-first distances from ``start`` (``dist_out[c]``, -1 unreached) over walkable cells
    not held by the opponent (own units are passed through), up to ``mv`` steps: the engine's
    ``get_reachable_positions``."""
    dist_out[:] = -1
    dist_out[start] = 0
    head = 0
    tail = 1
    queue[0] = start
    while head < tail:
        c = queue[head]
        head += 1
        d = dist_out[c]
        if d >= mv:
            continue
        x = c % W
        for i in range(4):
            nc = c - W if i == 0 else (c + W if i == 1 else (c - 1 if i == 2 else c + 1))
            if i == 0 and c < W:
                continue
            if i == 1 and c >= CELLS - W:
                continue
            if i == 2 and x == 0:
                continue
            if i == 3 and x == W - 1:
                continue
            if dist_out[nc] >= 0 or not walkable(g, nc):
                continue
            o = occ[nc]
            if o >= 0 and o // UMAX != p:
                continue
            dist_out[nc] = d + 1
            queue[tail] = nc
            tail += 1


@hot
def offset_cell(c: int, i: int) -> int:
    """The cell at move offset ``i`` from ``c``, -1 off the board."""
    x = c % W + OFF_DX[i]
    y = c // W + OFF_DY[i]
    if x < 0 or x >= W or y < 0 or y >= CELLS // W:
        return -1
    return y * W + x


@hot
def offset_of(c: int, target: int) -> int:
    """The move offset index from ``c`` to ``target``, -1 when longer than any move."""
    dx = target % W - c % W
    dy = target // W - c // W
    if abs(dx) + abs(dy) > MAX_MOVE or (dx == 0 and dy == 0):
        return -1
    return OFF_INDEX[(dy + MAX_MOVE) * OFF_SIDE + dx + MAX_MOVE]


@hot
def base_damage(t: int, d: int, on_mountain: bool) -> int:
    """A unit's attack at distance ``d`` (0 out of range): ``Unit.get_attack_damage``."""
    if t == T_MAGE or t == T_SORCERER:
        if d == 1:
            return ATTACK[t]
        if d == 2:
            return ATTACK_FAR[t]
        return 0
    if t == T_ARCHER:
        if 2 <= d <= (4 if on_mountain else 3):
            return ATTACK[t]
        return 0
    return ATTACK[t] if d == 1 else 0


@hot
def defended(dmg: float, defence: int) -> int:
    """``apply_defence_reduction``: 5% less a defence point, at most 90%, at least 1."""
    r = defence * 0.05
    if r > 0.9:
        r = 0.9
    v = int(dmg * (1 - r))
    return v if v > 1 else 1


@hot
def flanked(s, p: int, k: int, tcell: int) -> bool:
    """Another of player ``p``'s units stands next to ``tcell`` (the Rogue's flank)."""
    for j in range(s[H_COUNT + p]):
        if j != k and dist(s[ub(p * UMAX + j) + U_CELL], tcell) == 1:
            return True
    return False


@hot
def on_mountain(g, c: int) -> bool:
    return g[G_TERRAIN + c] == TR_MOUNTAIN


@hot
def counter_allowed(s, a: int, t: int) -> bool:
    """The target may strike back: alive, not paralysed, and not a melee unit shot by an Archer."""
    if s[t + U_HP] <= 0 or s[t + U_PARALYZED] > 0:
        return False
    tt = s[t + U_TYPE]
    return not (s[a + U_TYPE] == T_ARCHER and tt != T_ARCHER and tt != T_MAGE and tt != T_SORCERER)


# --- legal sub-actions (the engine's get_legal_actions) -------------------------------------
@hot
def legal(g, s, out, base) -> int:
    if s[H_OVER] != 0:
        return 0
    if s[H_PEND_ATT] >= 0:
        out[base] = 0
        out[base + 1] = 1
        return 2
    p = s[H_PLAYER]
    occ = np.empty(CELLS, np.int64)
    dists = np.empty(CELLS, np.int64)
    queue = np.empty(CELLS, np.int64)
    occupancy(s, occ)
    n = 0
    gold = s[H_GOLD + p]
    if s[H_COUNT + p] < UMAX:
        for si in range(g[G_NS]):
            c = g[G_STRUCT_CELL + si]
            tr = g[G_TERRAIN + c]
            if (tr == TR_BUILDING or tr == TR_HQ) and s[sb(si) + S_OWNER] == p and occ[c] < 0:
                for t in range(1, 9):
                    if gold >= COST[t]:
                        out[base + n] = A_CREATE + 8 * si + t - 1
                        n += 1
    for k in range(s[H_COUNT + p]):
        n = unit_legal(g, s, occ, dists, queue, p, k, out, base, n)
    out[base + n] = A_END
    return n + 1


@hot
def unit_legal(g, s, occ, dists, queue, p: int, k: int, out, base: int, n: int) -> int:
    u = ub(p * UMAX + k)
    if s[u + U_HP] <= 0 or s[u + U_PARALYZED] > 0:
        return n
    a0 = A_UNIT + UNIT_STRIDE * k
    c = s[u + U_CELL]
    t = s[u + U_TYPE]
    if s[u + U_CAN_MOVE] != 0:
        reach(g, occ, p, c, MOVEMENT[t], dists, queue)
        for i in range(N_OFFSETS):
            nc = offset_cell(c, i)
            if nc >= 0 and dists[nc] > 0 and occ[nc] < 0:
                out[base + n] = a0 + i
                n += 1
    if s[u + U_CAN_ACT] == 0:
        return n
    q = 1 - p
    mtn = on_mountain(g, c)
    for e in range(s[H_COUNT + q]):
        v = ub(q * UMAX + e)
        d = dist(c, s[v + U_CELL])
        if base_damage(t, d, mtn) > 0:
            out[base + n] = a0 + SUB_TARGET + K_ATTACK * UMAX + e
            n += 1
            if t == T_MAGE and s[u + U_PARA_CD] == 0 and s[v + U_PARALYZED] == 0 and d <= 2:
                out[base + n] = a0 + SUB_TARGET + K_PARALYZE * UMAX + e
                n += 1
    for j in range(s[H_COUNT + p]):
        v = ub(p * UMAX + j)
        d = dist(c, s[v + U_CELL])
        if t == T_CLERIC and j != k and 1 <= d <= CLERIC_RANGE:
            if s[v + U_HP] < MAX_HP[s[v + U_TYPE]]:
                out[base + n] = a0 + SUB_TARGET + K_HEAL * UMAX + j
                n += 1
            if s[v + U_PARALYZED] > 0:
                out[base + n] = a0 + SUB_TARGET + K_CURE * UMAX + j
                n += 1
        if t == T_SORCERER and d <= 2:
            if s[u + U_HASTE_CD] == 0 and j != k and s[v + U_HASTED] == 0:
                out[base + n] = a0 + SUB_TARGET + K_HASTE * UMAX + j
                n += 1
            if s[u + U_DEF_CD] == 0 and s[v + U_DEF_TURNS] == 0:
                out[base + n] = a0 + SUB_TARGET + K_DEF_BUFF * UMAX + j
                n += 1
            if s[u + U_ATK_CD] == 0 and s[v + U_ATK_TURNS] == 0:
                out[base + n] = a0 + SUB_TARGET + K_ATK_BUFF * UMAX + j
                n += 1
    si = g[G_CELL_STRUCT + c]
    if si >= 0 and s[sb(si) + S_OWNER] != p:
        out[base + n] = a0 + SUB_SEIZE
        n += 1
    return n


# --- the interpreter's acceptance -----------------------------------------------------------
@hot
def accepted(g, s, a) -> bool:
    """The Kaggle interpreter executes action ``a`` (rather than skipping it as illegal)."""
    if s[H_OVER] != 0:
        return False
    if s[H_PEND_ATT] >= 0:
        return a == 0 or a == 1
    if a == A_END:
        return True
    if a < 0 or a > A_END:
        return False
    p = s[H_PLAYER]
    if a < A_UNIT:
        si = (a - A_CREATE) // 8
        if si >= g[G_NS] or s[H_COUNT + p] >= UMAX:
            return False
        c = g[G_STRUCT_CELL + si]
        tr = g[G_TERRAIN + c]
        if (tr != TR_BUILDING and tr != TR_HQ) or s[sb(si) + S_OWNER] != p or unit_at(s, c) >= 0:
            return False
        return s[H_GOLD + p] >= COST[(a - A_CREATE) % 8 + 1]
    k = (a - A_UNIT) // UNIT_STRIDE
    sub = (a - A_UNIT) % UNIT_STRIDE
    if k >= s[H_COUNT + p]:
        return False
    u = ub(p * UMAX + k)
    c = s[u + U_CELL]
    if sub < SUB_TARGET:
        return move_ok(g, s, p, k, offset_cell(c, sub))
    if s[u + U_CAN_ACT] == 0:
        return False
    if sub == SUB_SEIZE:
        si = g[G_CELL_STRUCT + c]
        return si >= 0 and s[sb(si) + S_OWNER] != p
    kind = (sub - SUB_TARGET) // UMAX
    j = (sub - SUB_TARGET) % UMAX
    q = p if kind >= K_HEAL else 1 - p
    if j >= s[H_COUNT + q]:
        return False
    v = ub(q * UMAX + j)
    d = dist(c, s[v + U_CELL])
    t = s[u + U_TYPE]
    if kind == K_ATTACK:
        return True
    if kind == K_PARALYZE:
        return t == T_MAGE and s[u + U_PARA_CD] == 0 and 1 <= d <= 2
    if kind == K_HEAL:
        return t == T_CLERIC and 1 <= d <= CLERIC_RANGE and s[v + U_HP] < MAX_HP[s[v + U_TYPE]]
    if kind == K_CURE:
        return t == T_CLERIC and 1 <= d <= CLERIC_RANGE and s[v + U_PARALYZED] > 0
    if t != T_SORCERER:
        return False
    if kind == K_HASTE:
        return s[u + U_HASTE_CD] == 0 and j != k and s[v + U_HASTED] == 0 and 1 <= d <= 2
    if kind == K_DEF_BUFF:
        return s[u + U_DEF_CD] == 0 and s[v + U_DEF_TURNS] == 0 and d <= 2
    return s[u + U_ATK_CD] == 0 and s[v + U_ATK_TURNS] == 0 and d <= 2


@hot
def unit_at(s, c: int) -> int:
    """The global slot of the unit on cell ``c``, -1 for none."""
    for p in range(2):
        for k in range(s[H_COUNT + p]):
            if s[ub(p * UMAX + k) + U_CELL] == c:
                return p * UMAX + k
    return -1


@hot
def move_ok(g, s, p: int, k: int, target: int) -> bool:
    u = ub(p * UMAX + k)
    if target < 0 or s[u + U_CAN_MOVE] == 0:
        return False
    occ = np.empty(CELLS, np.int64)
    dists = np.empty(CELLS, np.int64)
    queue = np.empty(CELLS, np.int64)
    occupancy(s, occ)
    reach(g, occ, p, s[u + U_CELL], MOVEMENT[s[u + U_TYPE]], dists, queue)
    return dists[target] > 0 and occ[target] < 0


# --- play ----------------------------------------------------------------------------------
@hot
def play(g, s, a):
    t = np.empty(STATE_LEN, np.int64)
    t[:] = s[:]
    if t[H_PEND_ATT] >= 0:
        resolve(g, t, a == OUT_COUNTER)
    elif a == A_END:
        end_turn(g, t)
    elif a < A_UNIT:
        create(g, t, (a - A_CREATE) // 8, (a - A_CREATE) % 8 + 1)
    else:
        unit_action(g, t, (a - A_UNIT) // UNIT_STRIDE, (a - A_UNIT) % UNIT_STRIDE)
    return t


@hot
def create(g, t, si: int, typ: int) -> None:
    p = t[H_PLAYER]
    k = t[H_COUNT + p]
    u = ub(p * UMAX + k)
    for f in range(UF):
        t[u + f] = 0
    c = g[G_STRUCT_CELL + si]
    t[u + U_TYPE] = typ
    t[u + U_CELL] = c
    t[u + U_ORIG] = c
    t[u + U_HP] = MAX_HP[typ]
    t[H_COUNT + p] = k + 1
    t[H_GOLD + p] -= COST[typ]


@hot
def unit_action(g, t, k: int, sub: int) -> None:
    p = t[H_PLAYER]
    u = ub(p * UMAX + k)
    if sub < SUB_TARGET:
        c = offset_cell(t[u + U_CELL], sub)
        t[u + U_DIST] = dist(c, t[u + U_ORIG])
        t[u + U_CELL] = c
        t[u + U_MOVED] = 1
        t[u + U_CAN_MOVE] = 0
        return
    if sub == SUB_SEIZE:
        seize(g, t, p, u)
        return
    kind = (sub - SUB_TARGET) // UMAX
    j = (sub - SUB_TARGET) % UMAX
    if kind == K_ATTACK:
        attack(g, t, p, k, j)
        return
    q = p if kind >= K_HEAL else 1 - p
    v = ub(q * UMAX + j)
    if kind == K_PARALYZE:
        t[v + U_PARALYZED] = PARALYZE_TURNS
        t[u + U_PARA_CD] = COOLDOWN
    elif kind == K_HEAL:
        hp = t[v + U_HP] + HEAL_AMOUNT
        mx = MAX_HP[t[v + U_TYPE]]
        t[v + U_HP] = hp if hp < mx else mx
    elif kind == K_CURE:
        t[v + U_PARALYZED] = 0
        t[v + U_CAN_MOVE] = 1
        t[v + U_CAN_ACT] = 1
    elif kind == K_HASTE:
        t[v + U_HASTED] = 1
        t[v + U_CAN_MOVE] = 1
        t[v + U_CAN_ACT] = 1
        t[u + U_HASTE_CD] = COOLDOWN
    elif kind == K_DEF_BUFF:
        t[v + U_DEF_TURNS] = BUFF_TURNS
        t[u + U_DEF_CD] = COOLDOWN
    else:
        t[v + U_ATK_TURNS] = BUFF_TURNS
        t[u + U_ATK_CD] = COOLDOWN
    t[u + U_CAN_MOVE] = 0
    t[u + U_CAN_ACT] = 0


@hot
def seize(g, t, p: int, u: int) -> None:
    si = g[G_CELL_STRUCT + t[u + U_CELL]]
    b = sb(si)
    t[b + S_REGEN] = 0
    t[b + S_HP] -= t[u + U_HP]
    if t[b + S_HP] <= 0:
        t[b + S_HP] = STRUCT_MAX_HP_BY_CODE[g[G_TERRAIN + g[G_STRUCT_CELL + si]]]
        t[b + S_OWNER] = p
        if g[G_TERRAIN + g[G_STRUCT_CELL + si]] == TR_HQ:
            game_over(t, p)
    t[u + U_CAN_MOVE] = 0
    t[u + U_CAN_ACT] = 0


@hot
def game_over(t, winner: int) -> None:
    if t[H_OVER] == 0:
        t[H_OVER] = 1
        t[H_WINNER] = winner


@hot
def attack(g, t, p: int, k: int, e: int) -> None:
    """``GameState.attack`` (``attack_unit`` with ``damage_model="hp_scaled"``); a Rogue's
    counter-attack waits for its chance outcome (:func:`resolve`)."""
    q = 1 - p
    a = ub(p * UMAX + k)
    v = ub(q * UMAX + e)
    at = t[a + U_TYPE]
    ac = t[a + U_CELL]
    vc = t[v + U_CELL]
    dmg = base_damage(at, dist(ac, vc), on_mountain(g, ac)) * (t[a + U_HP] / MAX_HP[at])
    if at == T_KNIGHT and t[a + U_DIST] >= CHARGE_DISTANCE:
        dmg = float(int(dmg * 1.5))
    if at == T_ROGUE and flanked(t, p, k, vc):
        dmg = float(int(dmg * 1.5))
    if t[a + U_ATK_TURNS] > 0:
        dmg = float(int(dmg * 1.5))
    hit = defended(dmg, DEFENCE[t[v + U_TYPE]])
    if t[v + U_DEF_TURNS] > 0:
        hit = int(hit * 0.5)
        if hit < 1:
            hit = 1
    t[v + U_HP] -= hit
    if t[v + U_HP] < 0:
        t[v + U_HP] = 0
    if counter_allowed(t, a, v) and at == T_ROGUE:
        t[H_PEND_ATT] = p * UMAX + k
        t[H_PEND_TGT] = q * UMAX + e
        return
    finish_attack(g, t, p, k, e, counter_allowed(t, a, v))


@hot
def resolve(g, t, counter: bool) -> None:
    """The chance outcome of a pending Rogue attack: countered, or evaded."""
    ga = t[H_PEND_ATT]
    gt = t[H_PEND_TGT]
    t[H_PEND_ATT] = -1
    t[H_PEND_TGT] = -1
    finish_attack(g, t, ga // UMAX, ga % UMAX, gt % UMAX, counter)


@hot
def finish_attack(g, t, p: int, k: int, e: int, counter: bool) -> None:
    q = 1 - p
    a = ub(p * UMAX + k)
    v = ub(q * UMAX + e)
    if counter:
        vt = t[v + U_TYPE]
        vc = t[v + U_CELL]
        cb = base_damage(vt, dist(vc, t[a + U_CELL]), on_mountain(g, vc)) * 0.8
        cb = cb * (t[v + U_HP] / MAX_HP[vt])
        c = int(cb)
        if t[v + U_ATK_TURNS] > 0:
            c = int(c * 1.5)
        hit = defended(float(c), DEFENCE[t[a + U_TYPE]])
        if t[a + U_DEF_TURNS] > 0:
            hit = int(hit * 0.5)
            if hit < 1:
                hit = 1
        t[a + U_HP] -= hit
        if t[a + U_HP] < 0:
            t[a + U_HP] = 0
    if t[v + U_HP] == 0:
        kill(g, t, q, e)
    if t[a + U_HP] == 0:
        kill(g, t, p, k)
    else:
        t[a + U_CAN_MOVE] = 0
        t[a + U_CAN_ACT] = 0


@hot
def kill(g, t, p: int, k: int) -> None:
    """Remove player ``p``'s unit ``k`` (later slots move down); a damaged structure under it
    starts regenerating; the player's last unit lost loses the game."""
    u = ub(p * UMAX + k)
    si = g[G_CELL_STRUCT + t[u + U_CELL]]
    if si >= 0 and t[sb(si) + S_HP] < STRUCT_MAX_HP_BY_CODE[g[G_TERRAIN + t[u + U_CELL]]]:
        t[sb(si) + S_REGEN] = 1
    n = t[H_COUNT + p]
    last = ub(p * UMAX + n - 1)
    for i in range(u, last):
        t[i] = t[i + UF]
    for f in range(UF):
        t[last + f] = 0
    t[H_COUNT + p] = n - 1
    if n == 1:
        game_over(t, 1 - p)


# --- end of turn ---------------------------------------------------------------------------
@hot
def end_turn(g, t) -> None:
    """``GameState.end_turn`` then Kaggle's step limit (a draw after ``episodeSteps - 1``
    single turns)."""
    p = t[H_PLAYER]
    for k in range(t[H_COUNT + p]):
        u = ub(p * UMAX + k)
        o = t[u + U_ORIG]
        if t[u + U_MOVED] != 0 and t[u + U_CELL] != o:
            si = g[G_CELL_STRUCT + o]
            if si >= 0 and unit_at(t, o) < 0 and t[sb(si) + S_HP] < STRUCT_MAX_HP_BY_CODE[g[G_TERRAIN + o]]:
                t[sb(si) + S_HP] = STRUCT_MAX_HP_BY_CODE[g[G_TERRAIN + o]]
                t[sb(si) + S_REGEN] = 0
    for k in range(t[H_COUNT + p]):  # dead until p's next turn resets them: made canonical
        u = ub(p * UMAX + k)
        t[u + U_ORIG] = t[u + U_CELL]
        t[u + U_MOVED] = 0
    for si in range(g[G_NS]):
        b = sb(si)
        if t[b + S_REGEN] != 0:
            c = g[G_STRUCT_CELL + si]
            if unit_at(t, c) >= 0:
                t[b + S_REGEN] = 0
            else:
                mx = STRUCT_MAX_HP_BY_CODE[g[G_TERRAIN + c]]
                hp = t[b + S_HP] + mx // 2
                t[b + S_HP] = hp if hp < mx else mx
                if t[b + S_HP] >= mx:
                    t[b + S_REGEN] = 0
    q = 1 - p
    t[H_PLAYER] = q
    if q == 0:
        t[H_TURN] += 1
    if q == 0 and t[H_TURN] >= g[G_EPISODE]:  # the engine's max_turns (never before the step limit)
        game_over(t, -1)
    else:
        start_turn(g, t, q)
    t[H_STEP] += 1
    if t[H_STEP] >= g[G_EPISODE] - 1:
        game_over(t, -1)


@hot
def start_turn(g, t, q: int) -> None:
    for k in range(t[H_COUNT + q]):
        u = ub(q * UMAX + k)
        for f in range(U_PARALYZED, U_ATK_CD + 1):
            if f != U_HASTED and f != U_DIST and t[u + f] > 0:
                t[u + f] -= 1
        free = 1 if t[u + U_PARALYZED] == 0 else 0
        t[u + U_CAN_MOVE] = free
        t[u + U_CAN_ACT] = free
        t[u + U_ORIG] = t[u + U_CELL]
        t[u + U_MOVED] = 0
        t[u + U_DIST] = 0
        t[u + U_HASTED] = 0
    income = 0
    for si in range(g[G_NS]):
        if t[sb(si) + S_OWNER] == q:
            income += INCOME[g[G_TERRAIN + g[G_STRUCT_CELL + si]]]
    t[H_GOLD + q] += income
    heal_on_structures(g, t, q)


@hot
def heal_on_structures(g, t, q: int) -> None:
    """``heal_units_on_structures``: wounded units on their own structures heal (Tower 1, HQ or
    Building 2 hit points) for gold, nearest the opponent's HQ first (then recruitment order);
    on a Tower only in full, elsewhere as many points as the gold pays."""
    hq = -1
    for si in range(g[G_NS]):
        c = g[G_STRUCT_CELL + si]
        o = t[sb(si) + S_OWNER]
        if g[G_TERRAIN + c] == TR_HQ and o >= 0 and o != q:
            hq = c
            break
    done = 0  # bit k: unit k considered (at most UMAX = 50 bits)
    while True:
        best = -1
        best_d = 0
        for k in range(t[H_COUNT + q]):
            if (done >> k) & 1:
                continue
            u = ub(q * UMAX + k)
            c = t[u + U_CELL]
            si = g[G_CELL_STRUCT + c]
            if t[u + U_HP] >= MAX_HP[t[u + U_TYPE]] or si < 0 or t[sb(si) + S_OWNER] != q:
                done |= 1 << k
                continue
            d = dist(c, hq) if hq >= 0 else NO_HQ_DISTANCE
            if best < 0 or d < best_d:
                best = k
                best_d = d
        if best < 0:
            return
        done |= 1 << best
        u = ub(q * UMAX + best)
        typ = t[u + U_TYPE]
        tr = g[G_TERRAIN + t[u + U_CELL]]
        want = 1 if tr == TR_TOWER else 2
        room = MAX_HP[typ] - t[u + U_HP]
        if room < want:
            want = room
        gold = t[H_GOLD + q]
        cost = HEAL_COST_2[typ] if want == 2 else HEAL_COST_1[typ]
        if gold < cost and want == 2 and tr != TR_TOWER:
            want = 1
            cost = HEAL_COST_1[typ]
        if gold >= cost:
            t[u + U_HP] += want
            t[H_GOLD + q] = gold - cost


# --- the rest of the contract --------------------------------------------------------------
@hot
def to_move(g, s) -> int:
    if s[H_PEND_ATT] >= 0 and s[H_OVER] == 0:
        return CHANCE
    return s[H_PLAYER]


@hot
def terminal(g, s) -> bool:
    return s[H_OVER] != 0


@hot
def outcome(g, s) -> float:
    w = s[H_WINNER]
    if s[H_OVER] == 0 or w < 0:
        return 0.0
    return 1.0 if w == 0 else -1.0


@hot
def evade_chance(g, s) -> float:
    c = s[ub(s[H_PEND_ATT]) + U_CELL]
    return EVADE_FOREST if g[G_TERRAIN + c] == TR_FOREST else EVADE


@hot
def chance_prob(g, s, a) -> float:
    if s[H_PEND_ATT] < 0:
        return 0.0
    pe = evade_chance(g, s)
    return pe if a == 1 else 1.0 - pe


@hot
def actor(g, s, a) -> int:
    """Who does decision ``a`` (the kernel contract's optional hook, for the turn searches): the
    mover's unit slot for a unit's sub-action, ``UMAX`` + the structure for a recruitment
    (a site recruits at most one unit a turn: the new unit stands on it). Not the end of the turn."""
    if a >= A_UNIT:
        return (a - A_UNIT) // UNIT_STRIDE
    return UMAX + (a - A_CREATE) // 8
