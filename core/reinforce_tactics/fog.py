"""Reinforce Tactics under fog of war (``reinforce_tactics:fog=1``): the rule of the game's upstream
project (github.com/kuds/reinforce-tactics, ``reinforcetactics/core/visibility.py`` and
``game_state.py``: its facts, not its code), as kernels of the hidden-information contract
(:mod:`core.game`'s docstring) wrapped around the fog-free rules of
:mod:`core.reinforce_tactics.kernels`, which stay as they were (``fog=0`` pays nothing).

The rule:

- a player sees the cells within a Chebyshev radius of each of its units (Warrior, Mage,
  Cleric, Knight, Sorcerer 3; Archer, Rogue 4; Barbarian 2; one more on a mountain) and of each
  structure it owns (HQ 4, Building 3, Tower 5);
- its view is recomputed after each move of one of its units and at the start of its turn
  (and for both at the start of the game); nothing else (a recruit, a seizure, a kill)
  recomputes it. Cells are unexplored, shrouded (seen before) or visible;
- it remembers the enemy units it saw, by cell (type, hit points, the turn seen), until that
  cell is visible again or the memory is more than 10 turns old, and each structure's owner and
  hit points when last seen;
- a unit may attack (or paralyse) only an enemy that was visible when the unit started to act
  (before its move this turn, if it moved): not one its own move discovered. Ours also asks the
  enemy to be visible now (upstream does not), so that the legal attacks follow from what the
  player sees;
- the enemy's gold is hidden (upstream's observation for learning agents zeroes it).

The state is the fog-free state's :data:`STATE_LEN` words followed by the fog block: for each
player a block of :data:`PB` words (``FB_*``: explored and visible cells as bit planes of
:data:`NPW` words, the enemy income it has counted, each structure as last seen, the remembered
enemy units by cell), then the mover's units' views at the start of their action
(:data:`F_SNAP`, a plane per unit slot).

What a player observes (:func:`observe`): the public header, its own gold, units and
structures, its visible plane, the enemy units on its visible cells (with their slots: actions
name targets by slot) and the structures on them; its information state (:func:`info_key`) adds
what it remembers (explored cells, units and structures as last seen, the income counted) and,
when it is the mover, its units' views at their action's start. A legal move may still say more
than that (a path blocked by a unit in the fog, as upstream): the information state does not
hold it, and PIMC counts only the votes for actions legal at the true state.

The determinizer (:func:`determinize`) keeps everything the player observes, puts the
structures it does not see as it last saw them (one it lost to the enemy's), each enemy unit
it remembers on a free cell out of sight that it could have walked to since it was seen (its
movement times the enemy turns since), but for those taken for units in sight (one of its type
within that walk, each at most once: :func:`in_sight_memories`), fills the enemy slots below a visible unit's with drawn
units (full hit points, on the nearest free cell out of sight of an enemy structure; each type
one the enemy's gold can have bought: its starting gold and the income counted, less the cost of
its known units, the cheapest unit's cost kept back for each later draw), and gives the enemy
the gold it can have: that budget less the cost of the units placed (at least 0).
"""
from __future__ import annotations

import numpy as np

from base.jit import hot
from core.hidden import draw
from core.reinforce_tactics.kernels import actor, chance_prob, outcome, sb, terminal, to_move, ub  # noqa: F401  (the contract)
from core.reinforce_tactics.kernels import legal as base_legal
from core.reinforce_tactics.kernels import play as base_play
from core.reinforce_tactics.layout import (
    A_END,
    A_UNIT,
    CELLS,
    COST,
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
    INCOME,
    MAX_HP,
    MOVEMENT,
    NSMAX,
    S_HP,
    S_OWNER,
    S_REGEN,
    STATE_LEN,
    SUB_TARGET,
    TR_BUILDING,
    TR_HQ,
    TR_MOUNTAIN,
    TR_OCEAN,
    TR_TOWER,
    TR_WATER,
    U_CAN_ACT,
    U_CAN_MOVE,
    U_CELL,
    U_HP,
    U_MOVED,
    U_ORIG,
    U_TYPE,
    UF,
    UMAX,
    UNIT_STRIDE,
    H,
    W,
)

# --- the rule's numbers (upstream's visibility.py) ------------------------------------------------
UNIT_VISION = (0, 3, 3, 3, 4, 3, 4, 3, 2)  # by unit type code: W M C A K R S B
STRUCT_VISION = (0, 0, 0, 0, 0, 3, 4, 5, 0)  # by terrain code: Building 3, HQ 4, Tower 5
MOUNTAIN_BONUS = 1  # a unit on a mountain sees one cell further
MEMORY_TURNS = 10  # a remembered unit older than this many turns is forgotten
UNEXPLORED, SHROUDED, VISIBLE = 0, 1, 2  # a cell's state for a player (upstream's constants)

# --- the fog block's layout ------------------------------------------------------------------------
PLANE_BITS = 60  # cells per word of a bit plane
NPW = (CELLS + PLANE_BITS - 1) // PLANE_BITS  # words of a plane (7)
FB_EXPLORED = 0  # plane: cells ever visible
FB_VISIBLE = FB_EXPLORED + NPW  # plane: cells visible at the last update
FB_INCOME = FB_VISIBLE + NPW  # the enemy's starting gold plus the income counted at its turns' starts
FB_STRUCT = FB_INCOME + 1  # NSMAX words: a structure as last seen (:func:`struct_word`)
FB_MEMORY = FB_STRUCT + NSMAX  # CELLS words: the enemy unit remembered on a cell (:func:`memory_word`), 0: none
PB = FB_MEMORY + CELLS  # words of a player's block
F_BASE = STATE_LEN  # player p's block at F_BASE + p * PB
F_SNAP = F_BASE + 2 * PB  # UMAX planes: the mover's unit k's visible cells when it started to act
FOG_STATE_LEN = F_SNAP + UMAX * NPW

# --- observations ----------------------------------------------------------------------------------
O_HEADER = 9  # player to move, turn, step, over, winner, pending attack (2), own gold, own unit count
O_OWN = O_HEADER  # UMAX * UF: own units by slot
O_VISIBLE = O_OWN + UMAX * UF  # NPW: the visible plane
O_ENEMY = O_VISIBLE + NPW  # UMAX * UF: the enemy units seen now, by slot (zeros: none seen there)
O_STRUCT = O_ENEMY + UMAX * UF  # NSMAX * 3: structures seen now or owned (owner + 2, hit points, regenerating)
OBS_LEN = O_STRUCT + NSMAX * 3
I_MEMORY = OBS_LEN  # PB: the player's block (explored, visible again, income, structures, units remembered)
I_SNAP = I_MEMORY + PB  # UMAX * NPW: the units' views at their action's start, when the player moves
INFO_LEN = I_SNAP + UMAX * NPW
CHEAPEST_TYPE = 3  # the Cleric
CHEAPEST = 200  # its cost: COST[CHEAPEST_TYPE]
SEED_STRIDE = 7919  # a determinization's i-th draw uses seed + SEED_STRIDE * i


@hot
def fb(p: int) -> int:
    """The start of player ``p``'s fog block."""
    return F_BASE + p * PB


@hot
def plane_has(s, b: int, c: int) -> bool:
    return (s[b + c // PLANE_BITS] >> (c % PLANE_BITS)) & 1 != 0


@hot
def plane_add(t, b: int, c: int) -> None:
    t[b + c // PLANE_BITS] |= 1 << (c % PLANE_BITS)


@hot
def memory_word(typ: int, hp: int, turn: int) -> int:
    """A remembered unit: type, hit points and the turn it was seen, in one word."""
    return typ + 16 * hp + 1024 * (turn + 1)


@hot
def struct_word(owner: int, hp: int, seen: int) -> int:
    """A structure as remembered: owner (-1 neutral), hit points, whether ever seen."""
    return (owner + 2) + 4 * hp + 256 * seen


@hot
def add_square(t, b: int, c: int, r: int) -> None:
    """The cells within Chebyshev distance ``r`` of cell ``c`` into the plane at ``b``."""
    cx = c % W
    cy = c // W
    for y in range(max(0, cy - r), min(H - 1, cy + r) + 1):
        for x in range(max(0, cx - r), min(W - 1, cx + r) + 1):
            plane_add(t, b, y * W + x)


@hot
def vision(g, s, p: int, t, b: int) -> None:
    """Player ``p``'s visible cells at ``s`` (its units' and owned structures' radii) into the
    plane of ``t`` at ``b`` (``t`` may be ``s``)."""
    for i in range(NPW):
        t[b + i] = 0
    for k in range(s[H_COUNT + p]):
        u = ub(p * UMAX + k)
        c = s[u + U_CELL]
        r = UNIT_VISION[s[u + U_TYPE]]
        if g[G_TERRAIN + c] == TR_MOUNTAIN:
            r += MOUNTAIN_BONUS
        add_square(t, b, c, r)
    for si in range(g[G_NS]):
        if s[sb(si) + S_OWNER] == p:
            c = g[G_STRUCT_CELL + si]
            add_square(t, b, c, STRUCT_VISION[g[G_TERRAIN + c]])


@hot
def update(g, t, p: int) -> None:
    """Upstream's ``VisibilityMap.update`` then its stale-memory rule, for player ``p`` in ``t``."""
    b = fb(p)
    vision(g, t, p, t, b + FB_VISIBLE)
    for i in range(NPW):
        t[b + FB_EXPLORED + i] |= t[b + FB_VISIBLE + i]
    turn = t[H_TURN]
    m = b + FB_MEMORY
    for c in range(CELLS):
        if plane_has(t, b + FB_VISIBLE, c):
            t[m + c] = 0
    q = 1 - p
    for k in range(t[H_COUNT + q]):
        u = ub(q * UMAX + k)
        c = t[u + U_CELL]
        if plane_has(t, b + FB_VISIBLE, c):
            t[m + c] = memory_word(t[u + U_TYPE], t[u + U_HP], turn)
    for si in range(g[G_NS]):
        if plane_has(t, b + FB_VISIBLE, g[G_STRUCT_CELL + si]):
            t[b + FB_STRUCT + si] = struct_word(t[sb(si) + S_OWNER], t[sb(si) + S_HP], 1)
    for c in range(CELLS):
        w = t[m + c]
        if w != 0 and turn - (w // 1024 - 1) > MEMORY_TURNS:
            t[m + c] = 0


@hot
def believed_owner(g, s, p: int, si: int) -> int:
    """Who ``p`` takes structure ``si``'s owner to be: the owner if ``p`` owns it or sees it,
    else the owner last seen (the enemy's if ``p`` last saw it as its own)."""
    o = s[sb(si) + S_OWNER]
    if o == p or plane_has(s, fb(p) + FB_VISIBLE, g[G_STRUCT_CELL + si]):
        return o
    last = s[fb(p) + FB_STRUCT + si] % 4 - 2
    return 1 - p if last == p else last


@hot
def start(g, s):
    """The fog state of the fog-free first state ``s``: both players' views (upstream updates
    both at the start), structures remembered as the map sets them, the enemy's gold known."""
    t = np.zeros(FOG_STATE_LEN, np.int64)
    for i in range(STATE_LEN):
        t[i] = s[i]
    for p in range(2):
        b = fb(p)
        t[b + FB_INCOME] = s[H_GOLD + 1 - p]
        for si in range(g[G_NS]):
            t[b + FB_STRUCT + si] = struct_word(s[sb(si) + S_OWNER], s[sb(si) + S_HP], 0)
        update(g, t, p)
    return t


# --- the rules under fog ---------------------------------------------------------------------------
@hot
def attackable(s, p: int, k: int, e: int) -> bool:
    """Player ``p``'s unit ``k`` may target enemy ``e``: seen now, and when ``k`` started to act."""
    c = s[ub((1 - p) * UMAX + e) + U_CELL]
    if not plane_has(s, fb(p) + FB_VISIBLE, c):
        return False
    return s[ub(p * UMAX + k) + U_MOVED] == 0 or plane_has(s, F_SNAP + k * NPW, c)


@hot
def legal(g, s, out, base) -> int:
    """The fog-free legal actions less the attacks and paralyses of enemies not attackable."""
    n = base_legal(g, s, out, base)
    if n == 0 or s[H_PEND_ATT] >= 0:
        return n
    p = s[H_PLAYER]
    m = 0
    for i in range(n):
        a = out[base + i]
        keep = True
        if A_UNIT <= a < A_END:
            sub = (a - A_UNIT) % UNIT_STRIDE
            if SUB_TARGET <= sub < SUB_TARGET + 2 * UMAX:  # attack or paralyse: an enemy slot
                keep = attackable(s, p, (a - A_UNIT) // UNIT_STRIDE, (sub - SUB_TARGET) % UMAX)
        if keep:
            out[base + m] = a
            m += 1
    return m


@hot
def drop_snap(t, k: int, n: int) -> None:
    """The mover's unit ``k`` died: the views of slots above it move down (``n`` units before)."""
    for j in range(k, n - 1):
        for i in range(NPW):
            t[F_SNAP + j * NPW + i] = t[F_SNAP + (j + 1) * NPW + i]
    for i in range(NPW):
        t[F_SNAP + (n - 1) * NPW + i] = 0


@hot
def play(g, s, a):
    """The fog-free ``play``, then the fog: a moving unit's view at its action's start, the
    mover's view after a move, the new mover's at its turn's start (and the income its enemy
    counts for it)."""
    t = np.empty(FOG_STATE_LEN, np.int64)
    t[:STATE_LEN] = base_play(g, s[:STATE_LEN], a)
    for i in range(STATE_LEN, FOG_STATE_LEN):
        t[i] = s[i]
    p = s[H_PLAYER]
    if s[H_PEND_ATT] < 0 and a == A_END:
        for i in range(UMAX * NPW):
            t[F_SNAP + i] = 0
        q = t[H_PLAYER]
        if q != p:
            for si in range(g[G_NS]):
                if believed_owner(g, t, p, si) == q:
                    t[fb(p) + FB_INCOME] += INCOME[g[G_TERRAIN + g[G_STRUCT_CELL + si]]]
            update(g, t, q)
        return t
    if s[H_PEND_ATT] < 0 and A_UNIT <= a < A_END and (a - A_UNIT) % UNIT_STRIDE < SUB_TARGET:
        k = (a - A_UNIT) // UNIT_STRIDE
        if s[ub(p * UMAX + k) + U_MOVED] == 0:
            for i in range(NPW):
                t[F_SNAP + k * NPW + i] = s[fb(p) + FB_VISIBLE + i]
        update(g, t, p)
    n = s[H_COUNT + p]
    if t[H_COUNT + p] < n:  # a unit of the mover died (a counter-attack): find its slot
        k = 0
        while k < n - 1 and s[ub(p * UMAX + k) + U_CELL] == t[ub(p * UMAX + k) + U_CELL] \
                and t[ub(p * UMAX + k) + U_TYPE] != 0:
            k += 1
        drop_snap(t, k, n)
    return t


# --- what a player sees, knows, and a state it cannot tell from the true one -------------------------
@hot
def observe_into(g, s, p: int, out) -> None:
    """:func:`observe` written into ``out`` (``OBS_LEN`` words at its start)."""
    for i in range(OBS_LEN):
        out[i] = 0
    out[0] = s[H_PLAYER]
    out[1] = s[H_TURN]
    out[2] = s[H_STEP]
    out[3] = s[H_OVER]
    out[4] = s[H_WINNER]
    out[5] = s[H_PEND_ATT]
    out[6] = s[H_PEND_TGT]
    out[7] = s[H_GOLD + p]
    out[8] = s[H_COUNT + p]
    for k in range(s[H_COUNT + p]):
        u = ub(p * UMAX + k)
        for f in range(UF):
            out[O_OWN + k * UF + f] = s[u + f]
    b = fb(p) + FB_VISIBLE
    for i in range(NPW):
        out[O_VISIBLE + i] = s[b + i]
    q = 1 - p
    for k in range(s[H_COUNT + q]):
        u = ub(q * UMAX + k)
        if plane_has(s, b, s[u + U_CELL]) or s[H_PEND_ATT] == q * UMAX + k:  # an attacker is seen
            for f in range(UF):
                out[O_ENEMY + k * UF + f] = s[u + f]
    for si in range(g[G_NS]):
        o = s[sb(si) + S_OWNER]
        if o == p or plane_has(s, b, g[G_STRUCT_CELL + si]):
            out[O_STRUCT + 3 * si] = o + 2
            out[O_STRUCT + 3 * si + 1] = s[sb(si) + S_HP]
            out[O_STRUCT + 3 * si + 2] = s[sb(si) + S_REGEN]


@hot
def observe(g, s, p: int):
    """What player ``p`` sees at ``s`` now (:data:`OBS_LEN` words; layout ``O_*``)."""
    out = np.empty(OBS_LEN, np.int64)
    observe_into(g, s, p, out)
    return out


@hot
def info_key(g, s, p: int):
    """Player ``p``'s information state: its observation, its fog block (what it remembers) and,
    when it is the mover, its units' views at their action's start (:data:`INFO_LEN` words)."""
    out = np.zeros(INFO_LEN, np.int64)
    observe_into(g, s, p, out)
    for i in range(PB):
        out[I_MEMORY + i] = s[fb(p) + i]
    if s[H_PLAYER] == p:
        for i in range(UMAX * NPW):
            out[I_SNAP + i] = s[F_SNAP + i]
    return out


@hot
def free_hidden_cell(g, t, p: int, near: int, seed: int) -> int:
    """A cell for a drawn enemy unit: walkable, empty in ``t``, not visible to ``p``, nearest
    ``near`` (ties by the seed); -1 when there is none."""
    best = -1
    best_key = 0
    for c in range(CELLS):
        tr = g[G_TERRAIN + c]
        if tr == TR_WATER or tr == TR_OCEAN or plane_has(t, fb(p) + FB_VISIBLE, c):
            continue
        busy = False
        for q in range(2):
            for k in range(t[H_COUNT + q]):
                if t[ub(q * UMAX + k) + U_CELL] == c:
                    busy = True
        if busy:
            continue
        d = max(abs(c % W - near % W), abs(c // W - near // W))
        key = d * 64 + draw(seed + c, 64)
        if best < 0 or key < best_key:
            best = c
            best_key = key
    return best


@hot
def place_enemy(t, q: int, k: int, typ: int, c: int, hp: int) -> None:
    u = ub(q * UMAX + k)
    for f in range(UF):
        t[u + f] = 0
    t[u + U_TYPE] = typ
    t[u + U_CELL] = c
    t[u + U_HP] = hp
    t[u + U_CAN_MOVE] = 1
    t[u + U_CAN_ACT] = 1
    t[u + U_ORIG] = c


@hot
def copy_known(g, s, p: int, t) -> None:
    """Into the zeroed ``t``: what ``p`` knows for certain (the public header, its gold, units,
    fog block and, when it moves, its units' views) and the structures as it believes them."""
    q = 1 - p
    for i in range(H_COUNT + 2):
        t[i] = s[i]
    t[H_GOLD + q] = 0
    t[H_COUNT + q] = 0
    for k in range(s[H_COUNT + p]):
        u = ub(p * UMAX + k)
        for f in range(UF):
            t[u + f] = s[u + f]
    for i in range(PB):
        t[fb(p) + i] = s[fb(p) + i]
    if s[H_PLAYER] == p:
        for i in range(UMAX * NPW):
            t[F_SNAP + i] = s[F_SNAP + i]
    vis = fb(p) + FB_VISIBLE
    for si in range(g[G_NS]):
        o = s[sb(si) + S_OWNER]
        if o == p or plane_has(s, vis, g[G_STRUCT_CELL + si]):
            t[sb(si) + S_OWNER] = o
            t[sb(si) + S_HP] = s[sb(si) + S_HP]
            t[sb(si) + S_REGEN] = s[sb(si) + S_REGEN]
        else:
            t[sb(si) + S_OWNER] = believed_owner(g, s, p, si)
            t[sb(si) + S_HP] = (s[fb(p) + FB_STRUCT + si] // 4) % 64


@hot
def enemy_view(g, t, p: int) -> None:
    """The enemy's (``1 - p``'s) fog block in ``t``, as if it had just looked (what it
    remembers is not known to ``p``); its units' views too when it moves."""
    q = 1 - p
    bq = fb(q)
    vision(g, t, q, t, bq + FB_VISIBLE)
    for i in range(NPW):
        t[bq + FB_EXPLORED + i] = t[bq + FB_VISIBLE + i]
    for si in range(g[G_NS]):
        t[bq + FB_STRUCT + si] = struct_word(t[sb(si) + S_OWNER], t[sb(si) + S_HP], 1)
    t[bq + FB_INCOME] = t[H_GOLD + p]
    if t[H_PLAYER] == q:
        for k in range(UMAX):
            for i in range(NPW):
                t[F_SNAP + k * NPW + i] = t[bq + FB_VISIBLE + i]


@hot
def seen_enemy(s, p: int, k: int) -> bool:
    """``p`` sees the enemy's unit ``k``: on a visible cell, or attacking now."""
    q = 1 - p
    return plane_has(s, fb(p) + FB_VISIBLE, s[ub(q * UMAX + k) + U_CELL]) or s[H_PEND_ATT] == q * UMAX + k


@hot
def affordable_type(budget: int, seed: int) -> int:
    """A unit type drawn uniformly among those costing at most ``budget`` (the cheapest when none does)."""
    n = 0
    for typ in range(1, 9):
        if COST[typ] <= budget:
            n += 1
    if n == 0:
        return CHEAPEST_TYPE
    pick = draw(seed, n)
    for typ in range(1, 9):
        if COST[typ] <= budget:
            if pick == 0:
                return typ
            pick -= 1
    return CHEAPEST_TYPE


@hot
def memory_steps(s, p: int, w: int) -> int:
    """How far the unit ``p`` remembers as word ``w`` may have walked since it was seen: its
    movement times the enemy's turns since (0 when none)."""
    elapsed = s[H_TURN] + (0 if s[H_PLAYER] == p else 1)  # less the turn seen: the enemy's turns since
    steps = MOVEMENT[w % 16] * (elapsed - (w // 1024 - 1))
    return steps if steps > 0 else 0


@hot
def moved_cell(g, t, p: int, c: int, steps: int, seed: int) -> int:
    """Where a unit ``p`` saw on cell ``c`` may stand after ``steps`` cells of walking (over walkable
    cells, units ignored): one such cell out of ``p``'s sight and empty in ``t``, drawn by the seed
    (uniform); ``c`` itself when no steps; -1 when there is none."""
    dist = np.full(CELLS, -1, np.int64)
    queue = np.empty(CELLS, np.int64)
    tail = walk(g, c, steps, dist, queue)
    n = 0
    for i in range(tail):
        if hidden_free(g, t, p, queue[i]):
            n += 1
    if n == 0:
        return -1
    pick = draw(seed, n)
    for i in range(tail):
        if hidden_free(g, t, p, queue[i]):
            if pick == 0:
                return queue[i]
            pick -= 1
    return -1


@hot
def walk(g, c: int, steps: int, dist, queue) -> int:
    """The cells within ``steps`` cells of walking from ``c`` (over walkable cells, units ignored):
    their distances into ``dist`` (all -1 on entry; -1 stays: out of reach), the cells into
    ``queue`` from its start, nearest first; returns how many."""
    dist[c] = 0
    queue[0] = c
    head = 0
    tail = 1
    while head < tail:
        x = queue[head]
        head += 1
        if dist[x] >= steps:
            continue
        for i in range(4):
            if (i == 0 and x < W) or (i == 1 and x >= CELLS - W) or (i == 2 and x % W == 0) \
                    or (i == 3 and x % W == W - 1):
                continue
            nc = x - W if i == 0 else (x + W if i == 1 else (x - 1 if i == 2 else x + 1))
            tr = g[G_TERRAIN + nc]
            if dist[nc] >= 0 or tr == TR_WATER or tr == TR_OCEAN:
                continue
            dist[nc] = dist[x] + 1
            queue[tail] = nc
            tail += 1
    return tail


@hot
def hidden_free(g, t, p: int, c: int) -> bool:
    """Cell ``c`` is walkable, out of ``p``'s sight and holds no unit in ``t``."""
    tr = g[G_TERRAIN + c]
    if tr == TR_WATER or tr == TR_OCEAN or plane_has(t, fb(p) + FB_VISIBLE, c):
        return False
    for q in range(2):
        for k in range(t[H_COUNT + q]):
            if t[ub(q * UMAX + k) + U_CELL] == c and t[ub(q * UMAX + k) + U_TYPE] != 0:
                return False
    return True


@hot
def in_sight_memories(g, s, p: int, taken) -> None:
    """Marks in ``taken`` (:data:`CELLS` words, zeros on entry) the cells of the units ``p``
    remembers out of sight that are taken for enemy units it sees now: one of the same type
    within its walk since it was seen (:func:`memory_steps`, :func:`walk`; hit points not
    compared: units heal), each unit in sight taken for one at most, as many as can be (a
    maximum matching, the remembered units in cell order)."""
    q = 1 - p
    rem = np.empty(CELLS, np.int64)  # the cells of the remembered units that may be one in sight
    fits = np.zeros(CELLS * UMAX, np.int64)  # fits[r * UMAX + k]: the r-th may be the enemy's unit k
    dist = np.full(CELLS, -1, np.int64)
    queue = np.empty(CELLS, np.int64)
    nr = 0
    for c in range(CELLS):
        w = s[fb(p) + FB_MEMORY + c]
        if w == 0 or plane_has(s, fb(p) + FB_VISIBLE, c):
            continue
        tail = walk(g, c, memory_steps(s, p, w), dist, queue)
        found = False
        for k in range(s[H_COUNT + q]):
            u = ub(q * UMAX + k)
            if s[u + U_TYPE] == w % 16 and seen_enemy(s, p, k) and dist[s[u + U_CELL]] >= 0:
                fits[nr * UMAX + k] = 1
                found = True
        for i in range(tail):
            dist[queue[i]] = -1
        if found:
            rem[nr] = c
            nr += 1
    mate = np.full(nr if nr > 0 else 1, -1, np.int64)
    match_rows(fits, nr, mate)
    for r in range(nr):
        if mate[r] >= 0:
            taken[rem[r]] = 1


@hot
def match_rows(fits, nr: int, mate) -> None:
    """A maximum matching of rows ``0..nr-1`` to columns ``0..UMAX-1`` where ``fits[r * UMAX + k]``:
    ``mate[r]`` the column of row ``r`` (-1 on entry; stays: unmatched), the rows tried in order,
    each by a breadth-first search for an augmenting path (Kuhn's algorithm)."""
    owner = np.full(UMAX, -1, np.int64)  # the row matched to a column
    par = np.empty(UMAX, np.int64)  # the row a search reached a column from
    rows = np.empty(nr + 1, np.int64)
    for r in range(nr):
        for k in range(UMAX):
            par[k] = -1
        rows[0] = r
        head = 0
        tail = 1
        end = -1
        while head < tail and end < 0:
            x = rows[head]
            head += 1
            for k in range(UMAX):
                if fits[x * UMAX + k] != 0 and par[k] < 0:
                    par[k] = x
                    if owner[k] < 0:
                        end = k
                        break
                    rows[tail] = owner[k]
                    tail += 1
        while end >= 0:  # flip the path: each row on it takes the column it reached
            x = par[end]
            prev = mate[x]
            owner[end] = x
            mate[x] = end
            end = prev


@hot
def place_remembered(g, s, p: int, t, seed: int) -> None:
    """Into ``t`` (the enemy units ``p`` sees already there), in the enemy's free slots: each unit
    ``p`` remembers out of sight but one taken for a unit in sight (:func:`in_sight_memories`), with
    its type and hit points, on a cell it could have walked to (:func:`moved_cell`)."""
    q = 1 - p
    taken = np.zeros(CELLS, np.int64)
    in_sight_memories(g, s, p, taken)
    k = 0
    for c in range(CELLS):
        w = s[fb(p) + FB_MEMORY + c]
        if w == 0 or plane_has(s, fb(p) + FB_VISIBLE, c) or taken[c] != 0:
            continue
        while k < UMAX and t[ub(q * UMAX + k) + U_TYPE] != 0:
            k += 1
        if k >= UMAX:
            continue
        cell = moved_cell(g, t, p, c, memory_steps(s, p, w), seed + SEED_STRIDE * (c + 2 * UMAX + 1))
        if cell < 0:
            continue
        place_enemy(t, q, k, w % 16, cell, (w // 16) % 64)
        if k >= t[H_COUNT + q]:
            t[H_COUNT + q] = k + 1


@hot
def drawn_near(g, t, q: int, seed: int) -> int:
    """The cell the drawn units of ``q`` stand nearest: one of its structures in ``t``, drawn by
    the seed (the board's centre when it has none)."""
    ns = 0
    for si in range(g[G_NS]):
        if t[sb(si) + S_OWNER] == q:
            ns += 1
    pick = draw(seed, ns) if ns > 0 else 0
    near = -1
    for si in range(g[G_NS]):
        if t[sb(si) + S_OWNER] == q:
            if pick == 0:
                near = g[G_STRUCT_CELL + si]
            pick -= 1
    return near if near >= 0 else (H // 2) * W + W // 2


@hot
def determinize(g, s, p: int, seed: int):
    """A full state with ``p``'s :func:`info_key` of ``s``, read from that key's words of ``s``
    only (the module docstring says what is drawn); ``seed`` >= 0."""
    q = 1 - p
    t = np.zeros(FOG_STATE_LEN, np.int64)
    copy_known(g, s, p, t)
    n = 0  # enemy slots used: the seen ones where they are
    for k in range(s[H_COUNT + q]):
        u = ub(q * UMAX + k)
        if seen_enemy(s, p, k):
            for f in range(UF):
                t[u + f] = s[u + f]
            n = k + 1
    t[H_COUNT + q] = n
    place_remembered(g, s, p, t, seed)
    near = drawn_near(g, t, q, seed)  # drawn units for the slots still empty below the last one used
    cost = 0
    m = 0  # the slots to draw
    for k in range(t[H_COUNT + q]):
        typ = t[ub(q * UMAX + k) + U_TYPE]
        cost += COST[typ]
        if typ == 0:
            m += 1
    left = s[fb(p) + FB_INCOME] - cost  # the gold the enemy can have spent on the drawn units
    for k in range(t[H_COUNT + q]):
        u = ub(q * UMAX + k)
        if t[u + U_TYPE] == 0:
            m -= 1
            typ = affordable_type(left - CHEAPEST * m, seed + SEED_STRIDE * (k + 1))
            left -= COST[typ]
            c = free_hidden_cell(g, t, p, near, seed + SEED_STRIDE * (k + UMAX + 1))
            if c < 0:
                c = s[ub(p * UMAX) + U_CELL] if s[H_COUNT + p] > 0 else 0  # no room: never in a real game
            place_enemy(t, q, k, typ, c, MAX_HP[typ])
            cost += COST[typ]
    gold = s[fb(p) + FB_INCOME] - cost
    t[H_GOLD + q] = gold if gold > 0 else 0
    enemy_view(g, t, p)
    return t


@hot
def seen(g, s, p: int):
    """What ``p`` sees as a full state, as if it were all: its own side, the enemy units it sees
    now (in their order, from slot 0), the structures as it believes them, no enemy gold. Not
    a determinization (the slots of the enemy units move): the view a search that ignores the
    fog plays on."""
    q = 1 - p
    t = np.zeros(FOG_STATE_LEN, np.int64)
    copy_known(g, s, p, t)
    n = 0
    for k in range(s[H_COUNT + q]):
        if seen_enemy(s, p, k):
            u = ub(q * UMAX + k)
            v = ub(q * UMAX + n)
            for f in range(UF):
                t[v + f] = s[u + f]
            if s[H_PEND_ATT] == q * UMAX + k:
                t[H_PEND_ATT] = q * UMAX + n
            if s[H_PEND_TGT] == q * UMAX + k:
                t[H_PEND_TGT] = q * UMAX + n
            n += 1
    t[H_COUNT + q] = n
    enemy_view(g, t, p)
    return t


@hot
def cell_state(s, p: int, c: int) -> int:
    """Cell ``c``'s state for player ``p``: :data:`UNEXPLORED`, :data:`SHROUDED` or :data:`VISIBLE`."""
    if plane_has(s, fb(p) + FB_VISIBLE, c):
        return VISIBLE
    return SHROUDED if plane_has(s, fb(p) + FB_EXPLORED, c) else UNEXPLORED


assert COST[CHEAPEST_TYPE] == CHEAPEST == min(COST[1:])
assert TR_BUILDING == 5 and TR_HQ == 6 and TR_TOWER == 7 and STRUCT_VISION[TR_HQ] == 4
