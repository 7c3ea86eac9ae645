"""EinStein würfelt nicht! on the kernel contract (:mod:`core.game`), with OpenSpiel's rules,
set-up and action numbers (``einstein_wurfelt_nicht``), so that the two can be replayed side by
side (``tests/test_einstein_openspiel.py``).

Rules (5×5 board, cell ``5 * row + col``): player 0 (Black) owns cubes 1-6 in the top-left
triangle (``row + col <= 2``) and moves them down, right or down-right; player 1 (White) owns
cubes 1-6 in the bottom-right triangle (``row + col >= 6``) and moves them up, left or up-left.
The game starts with two chance nodes that place the cubes: each outcome (0..719) is a
permutation of 1..6 in lexicographic order, written on the triangle's cells in row-major order
(Black first, then White). Then every turn is a die roll (outcome ``d - 1`` for face ``d``)
followed by one move of the roller: the cube numbered ``d`` if it is still on the board, else
the next lower or the next higher cube still there (the player's choice). A cube steps one cell
and captures whatever stands there, own cube or not. White moves first. A player wins by
reaching the opposite corner or by leaving the opponent no cube; returns are ±1.

Actions (OpenSpiel's mixed-radix number): ``((cell * 6 + dir) * 2 + capture)`` for the moving
cube's cell, the direction (``DR``/``DC``: 0-2 Black's down-right/down/right, 3-5 White's
up/up-left/left) and whether the target cell is occupied. Chance outcomes share the action
numbers (``num_actions = 720`` covers the set-ups). Legal moves are listed by cube cell, then
direction, as OpenSpiel does.

State, two words below 2**63:
- ``s[0]``: the cubes, 5 bits each: cube ``k`` (1..6) of player ``p`` at bits
  ``5 * (6 * p + k - 1)``, holding its cell or ``GONE`` (31) once captured (or before set-up);
- ``s[1]``: ``phase`` (bits 0-1: 0 Black's set-up, 1 White's set-up, 2 roll, 3 move), the mover
  (bit 2: the player who rolls next or is moving) and the die (bits 3-5; 0 outside ``phase`` 3).
``g`` is unused (``[0]``).
"""
from __future__ import annotations

from base.jit import hot

CHANCE = -1  # core.game.CHANCE (a literal: numba reads module globals as constants)
GONE = 31
SETUP_BLACK, SETUP_WHITE, ROLL, MOVE = 0, 1, 2, 3
NUM_PERMS = 720
NUM_ACTIONS = 720  # 300 moves; the set-up chance nodes have 720 outcomes
BLACK_CELLS = (0, 1, 2, 5, 6, 10)  # row + col <= 2, row-major
WHITE_CELLS = (14, 18, 19, 22, 23, 24)  # row + col >= 6, row-major
DR = (1, 1, 0, -1, -1, 0)
DC = (1, 0, 1, 0, -1, -1)
FACT = (120, 24, 6, 2, 1, 1)  # (5 - j)! for position j of a permutation
ALL_GONE = (1 << 60) - 1


@hot
def cube_cell(b: int, p: int, k: int) -> int:
    return (b >> (5 * (6 * p + k - 1))) & 31


@hot
def set_cube(b: int, p: int, k: int, cell: int) -> int:
    shift = 5 * (6 * p + k - 1)
    return (b & ~(31 << shift)) | (cell << shift)


@hot
def winner(b: int) -> int:
    """0 or 1 for a won board, -1 otherwise (called after set-up only)."""
    black_home = False
    white_home = False
    nb = 0
    nw = 0
    for k in range(1, 7):
        cb = cube_cell(b, 0, k)
        cw = cube_cell(b, 1, k)
        if cb != GONE:
            nb += 1
            if cb == 24:
                black_home = True
        if cw != GONE:
            nw += 1
            if cw == 0:
                white_home = True
    if black_home or nw == 0:
        return 0
    if white_home or nb == 0:
        return 1
    return -1


@hot
def terminal(g, s) -> bool:
    return (s[1] & 3) == ROLL and winner(s[0]) >= 0


@hot
def to_move(g, s) -> int:
    phase = s[1] & 3
    if phase == MOVE:
        return (s[1] >> 2) & 1
    if phase == ROLL and winner(s[0]) >= 0:
        return (s[1] >> 2) & 1
    return CHANCE


@hot
def outcome(g, s) -> float:
    if (s[1] & 3) != ROLL:
        return 0.0
    w = winner(s[0])
    if w == 0:
        return 1.0
    if w == 1:
        return -1.0
    return 0.0


@hot
def chance_prob(g, s, a) -> float:
    phase = s[1] & 3
    if phase == ROLL:
        return 1.0 / 6.0
    if phase == MOVE:
        return 0.0
    return 1.0 / NUM_PERMS


@hot
def movable(b: int, p: int, die: int) -> tuple:
    """The cubes player ``p`` may move on ``die``: ``(k1, k2)``, 0 for none (the die's own
    cube alone, or the next lower and next higher cubes still on the board)."""
    if cube_cell(b, p, die) != GONE:
        return die, 0
    lo = 0
    for k in range(die - 1, 0, -1):
        if cube_cell(b, p, k) != GONE:
            lo = k
            break
    hi = 0
    for k in range(die + 1, 7):
        if cube_cell(b, p, k) != GONE:
            hi = k
            break
    return lo, hi


@hot
def occupied(b: int, cell: int) -> bool:
    for i in range(12):
        if ((b >> (5 * i)) & 31) == cell:
            return True
    return False


@hot
def cube_moves(b: int, p: int, cell: int, out, base: int, n: int) -> int:
    r = cell // 5
    c = cell % 5
    for o in range(3):
        d = 3 * p + o
        r2 = r + DR[d]
        c2 = c + DC[d]
        if 0 <= r2 < 5 and 0 <= c2 < 5:
            cap = 1 if occupied(b, 5 * r2 + c2) else 0
            out[base + n] = (cell * 6 + d) * 2 + cap
            n += 1
    return n


@hot
def legal(g, s, out, base) -> int:
    phase = s[1] & 3
    if phase == SETUP_BLACK or phase == SETUP_WHITE:
        for a in range(NUM_PERMS):
            out[base + a] = a
        return NUM_PERMS
    if phase == ROLL:
        if winner(s[0]) >= 0:
            return 0
        for a in range(6):
            out[base + a] = a
        return 6
    b = s[0]
    p = (s[1] >> 2) & 1
    k1, k2 = movable(b, p, (s[1] >> 3) & 7)
    c1 = cube_cell(b, p, k1) if k1 > 0 else GONE
    c2 = cube_cell(b, p, k2) if k2 > 0 else GONE
    if c2 < c1:
        c1, c2 = c2, c1
    n = 0
    if c1 != GONE:
        n = cube_moves(b, p, c1, out, base, n)
    if c2 != GONE:
        n = cube_moves(b, p, c2, out, base, n)
    return n


@hot
def place(b: int, p: int, a: int) -> int:
    """Board ``b`` with player ``p``'s cubes set up by permutation number ``a`` (lexicographic
    order of the permutations of 1..6, the j-th value on the j-th cell of the triangle)."""
    free = 0b1111110  # values 1..6 still unused, as bits
    rest = a
    for j in range(6):
        q = rest // FACT[j]
        rest = rest % FACT[j]
        v = 0
        for k in range(1, 7):
            if (free >> k) & 1:
                if q == 0:
                    v = k
                    break
                q -= 1
        free &= ~(1 << v)
        cell = BLACK_CELLS[j] if p == 0 else WHITE_CELLS[j]
        b = set_cube(b, p, v, cell)
    return b


@hot
def play(g, s, a):
    meta = s[1]
    phase = meta & 3
    if phase == SETUP_BLACK:
        return (place(s[0], 0, a), (meta & ~3) | SETUP_WHITE)
    if phase == SETUP_WHITE:
        return (place(s[0], 1, a), (meta & ~3) | ROLL)
    if phase == ROLL:
        return (s[0], (meta & 4) | ((a + 1) << 3) | MOVE)
    p = (meta >> 2) & 1
    cell = a // 12
    d = (a >> 1) % 6
    target = cell + 5 * DR[d] + DC[d]
    b = s[0]
    mover = 0
    for i in range(12):
        at = (b >> (5 * i)) & 31
        if at == target:
            b |= 31 << (5 * i)
        elif at == cell and i // 6 == p:
            mover = i
    b = (b & ~(31 << (5 * mover))) | (target << (5 * mover))
    return (b, ((1 - p) << 2) | ROLL)
