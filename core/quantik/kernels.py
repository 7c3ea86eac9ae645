"""Quantik on the kernel contract (:mod:`core.game`): bitboards, rules and canonical keys.

Board: 16 cells, ``cell = 4 * row + col`` (row 0 is the top row, printed first); four 2x2 zones.
A *plane* is a 16-bit set of cells. State: five words ``(w0, w1, w2, w3, t)``:
``w[k] = P0[k] | P1[k] << 16`` where ``Pc[k]`` is the plane of colour ``c``'s pieces of shape ``k``
(so every word is below ``2 ** 32``), and ``t`` the side to move (0 or 1). Inventories follow from
the planes (two pieces per shape per player). Either colour may start: the side to move is state.

Action ``a = 16 * shape + cell`` (shape-major, so a shape's moves are one plane), 64 actions.

Rules: a player places one of their remaining pieces on an empty cell whose row, column and zone
hold no *opponent* piece of that shape. Whoever completes a row, column or zone holding four
different shapes (any colours) wins; a player with no legal placement loses. Both ends leave the
loser to move, so at a terminal state the side to move has lost: no draws, ``outcome`` is
``+1`` when player 1 is to move there, else ``-1``.

``g`` (built by :meth:`core.quantik.Quantik.constants`): ``g[0]`` = 1 when :func:`key` is the
canonical key (0: the exact state), ``g[1]`` = the first player, then ``128 * 4 * 16`` nibble
tables of the board symmetries (:data:`TABLES`): ``g[TABLES + 64 * b + 16 * i + v]`` is the image
under board symmetry ``b`` of the cells of row ``i`` given by the 4-bit value ``v``; then, from
:data:`TIES`, three words per occupied plane ``o`` (``g[TIES + 3 * o + j]``, 43 bits each): the
board symmetries whose image of ``o`` is least, as a 128-bit set (see :func:`canonical`).
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import popcount as popcount16  # the one popcount (hot: compiled copies swap in)

PLANE = 0xFFFF
TABLES = 2  # offset of the symmetry tables in g
NUM_BOARD_SYMS = 128
TIES = TABLES + NUM_BOARD_SYMS * 64  # offset of the least-occupancy symmetry sets in g
TIE_BITS = 43  # symmetries per word of a set (3 words, each below 2**43)


@hot
def spread(o: int) -> int:
    """Cells sharing a row, a column or a zone with a cell of plane ``o`` (bit-parallel)."""
    r = ((o | (o >> 1) | (o >> 2) | (o >> 3)) & 0x1111) * 0xF
    c = ((o | (o >> 4) | (o >> 8) | (o >> 12)) & 0xF) * 0x1111
    z = (o | (o >> 1)) & 0x5555  # any of the column pair, at its even column
    z = ((z | (z >> 4)) & 0x0505) * 0x33  # any of the row pair, then the whole 2x2 zone
    return r | c | z


@hot
def complete(s) -> bool:
    """A row, column or zone holds four different shapes (each shape present, four cells)."""
    rows = 0x1111
    cols = 0xF
    zones = 0x0505
    for k in range(4):
        p = (s[k] | (s[k] >> 16)) & PLANE
        rows &= p | (p >> 1) | (p >> 2) | (p >> 3)
        cols &= p | (p >> 4) | (p >> 8) | (p >> 12)
        z = (p | (p >> 1)) & 0x5555
        zones &= z | (z >> 4)
    return (rows | cols | zones) != 0


@hot
def occupied(s) -> int:
    o = s[0] | s[1] | s[2] | s[3]
    return (o | (o >> 16)) & PLANE


@hot
def shape_moves(s, k: int, empty: int) -> int:
    """Cells where the side to move may place shape ``k`` (0 when none is left)."""
    sh = 16 * s[4]
    own = (s[k] >> sh) & PLANE
    if popcount16(own) >= 2:
        return 0
    opp = (s[k] >> (16 - sh)) & PLANE
    return empty & ~spread(opp) & PLANE


@hot
def has_move(s) -> bool:
    empty = ~occupied(s) & PLANE
    for k in range(4):
        if shape_moves(s, k, empty):
            return True
    return False


@hot
def to_move(g, s) -> int:
    return s[4]


@hot
def terminal(g, s) -> bool:
    return complete(s) or not has_move(s)


@hot
def outcome(g, s) -> float:
    """Player 0's return at a terminal state: the side to move there has lost."""
    return 1.0 if s[4] == 1 else -1.0


@hot
def legal(g, s, out, base) -> int:
    if complete(s):
        return 0
    empty = ~occupied(s) & PLANE
    n = 0
    for k in range(4):
        m = shape_moves(s, k, empty)
        c = 0
        while m:
            if m & 1:
                out[base + n] = 16 * k + c
                n += 1
            m >>= 1
            c += 1
    return n


@hot
def play(g, s, a):
    k = a >> 4
    b = 1 << ((a & 15) + 16 * s[4])
    return (s[0] | b if k == 0 else s[0], s[1] | b if k == 1 else s[1],
            s[2] | b if k == 2 else s[2], s[3] | b if k == 3 else s[3], 1 - s[4])


@hot
def wins_now(g, s, a) -> bool:
    """Action ``a`` (legal) completes a line: the mover wins at once."""
    return complete(play(g, s, a))


LINES = (0x000F, 0x00F0, 0x0F00, 0xF000, 0x1111, 0x2222, 0x4444, 0x8888, 0x0033, 0x00CC, 0x3300, 0xCC00)


@hot
def win_planes(s):
    """For each shape, the empty cells where it would complete a line (the line's one empty
    cell, its three pieces the three other shapes), whoever places it."""
    occ = occupied(s)
    p0 = (s[0] | (s[0] >> 16)) & PLANE
    p1 = (s[1] | (s[1] >> 16)) & PLANE
    p2 = (s[2] | (s[2] >> 16)) & PLANE
    p3 = (s[3] | (s[3] >> 16)) & PLANE
    w0 = w1 = w2 = w3 = 0
    for line in LINES:
        e = line & ~occ
        if e == 0 or (e & (e - 1)) != 0:
            continue
        m = (1 if p0 & line else 0) | (2 if p1 & line else 0) | (4 if p2 & line else 0) | (8 if p3 & line else 0)
        if m == 14:
            w0 |= e
        elif m == 13:
            w1 |= e
        elif m == 11:
            w2 |= e
        elif m == 7:
            w3 |= e
    return w0, w1, w2, w3


@hot
def can_win_now(s) -> bool:
    """The side to move has a placement that completes a line (it wins at once)."""
    w0, w1, w2, w3 = win_planes(s)
    if (w0 | w1 | w2 | w3) == 0:
        return False
    empty = ~occupied(s) & PLANE
    if w0 != 0 and (shape_moves(s, 0, empty) & w0) != 0:
        return True
    if w1 != 0 and (shape_moves(s, 1, empty) & w1) != 0:
        return True
    if w2 != 0 and (shape_moves(s, 2, empty) & w2) != 0:
        return True
    return w3 != 0 and (shape_moves(s, 3, empty) & w3) != 0


@hot
def bounds(g, s):
    """Proven value bounds for the side to move (the solver's cut-offs): +1 when it can win
    at once; else the full range."""
    if not complete(s) and can_win_now(s):
        return 1.0, 1.0
    return -1.0, 1.0


PAIR = (1, 0, 3, 2)  # the mirror strategy's shape pairing (agents/quantik/strategy.py)


@hot
def mirror_plane(p: int) -> int:
    """Plane ``p`` with every cell moved diagonally across its zone (``cell ^ 5``)."""
    p = ((p & 0x5555) << 1) | ((p >> 1) & 0x5555)
    return ((p & 0x0F0F) << 4) | ((p >> 4) & 0x0F0F)


@hot
def mirror_targets(s, k: int) -> int:
    """Cells where the side to move's shape ``k`` would mirror an opponent piece of the paired
    shape that has no mirror yet (the second-player strategy's reply)."""
    sh = 16 * s[4]
    j = PAIR[k]
    opp = (s[j] >> (16 - sh)) & PLANE
    mine = (s[k] >> sh) & PLANE
    return mirror_plane(opp & ~mirror_plane(mine))


@hot
def opens_win(c, cell: int) -> bool:
    """In ``c`` (just after a piece went on ``cell``) the side to move can complete a line
    through ``cell``: the three lines there, not the whole board (cheap, for ordering)."""
    occ = occupied(c)
    empty = ~occ & PLANE
    for t in range(3):
        if t == 0:
            line = 0xF << (cell & 12)
        elif t == 1:
            line = 0x1111 << (cell & 3)
        else:
            line = 0x33 << (cell & 10)
        e = line & empty
        if e == 0 or (e & (e - 1)) != 0:
            continue
        for k in range(4):
            if ((c[k] | (c[k] >> 16)) & line) == 0:  # a missing shape: a win if the three others are there
                m = 0
                for j in range(4):
                    if ((c[j] | (c[j] >> 16)) & line) != 0:
                        m += 1
                if m == 3 and (shape_moves(c, k, empty) & e) != 0:
                    return True
                break
    return False


@hot
def partition(g, s, out, base, lo: int, hi: int, kind: int) -> int:
    """Move the actions of ``out[base+lo:base+hi]`` that have property ``kind`` to the front of
    that range, keeping both groups' order; return how many. ``kind`` 0: wins at once or opens
    the opponent no win on its own lines (:func:`opens_win`); 1: a mirror reply; 2: wins at once."""
    front = lo
    for i in range(lo, hi):
        a = out[base + i]
        if kind == 1:
            yes = (mirror_targets(s, a >> 4) >> (a & 15)) & 1 != 0
        elif kind == 3:
            k = a >> 4
            yes = ((s[k] | (s[k] >> 16)) & PLANE) == 0
        else:
            c = play(g, s, a)
            yes = complete(c) or (kind == 0 and not opens_win(c, a & 15))
        if yes:
            for j in range(i, front, -1):
                out[base + j] = out[base + j - 1]
            out[base + front] = a
            front += 1
    return front - lo


@hot
def order(g, s, out, base, n, params) -> None:
    """Move ordering for the searches: winning moves, then mirror replies (the second-player
    strategy: they refute most first-player moves), then the other moves that open the
    opponent no win on their own lines (those placing a shape not yet on the board first:
    it cut the solver's nodes on the 2- and 3-piece classes by 3.5x), then the rest; each
    group in generation order."""
    front = partition(g, s, out, base, 0, n, 0)
    wins = partition(g, s, out, base, 0, front, 2)
    mir = partition(g, s, out, base, wins, front, 1)
    partition(g, s, out, base, wins + mir, front, 3)


@hot
def exact_key(g, s):
    return s


@hot
def map_plane(g, b: int, p: int) -> int:
    """Plane ``p`` under board symmetry ``b``."""
    t = TABLES + 64 * b
    return g[t + (p & 15)] | g[t + 16 + ((p >> 4) & 15)] | g[t + 32 + ((p >> 8) & 15)] | g[t + 48 + ((p >> 12) & 15)]


@hot
def map_word(g, b: int, w: int) -> int:
    return map_plane(g, b, w & PLANE) | (map_plane(g, b, w >> 16) << 16)


@hot
def swap_colours(w: int) -> int:
    return ((w & PLANE) << 16) | (w >> 16)


@hot
def canonical(g, s):
    """The least image of ``s`` under the game's 6,144 symmetries (board x shapes x colours).

    Colours are normalised so that the side to move owns the low halves (the key's side to move
    is always 0: a key keeps the value *for the side to move*, not player 0's). Images are
    ordered by their occupied plane first, then by the four shape words sorted (the least
    relabelling). A table in ``g`` gives, for each occupied plane, the board maps with the
    least image of it, so only those (one or two in most positions) are tried."""
    w0, w1, w2, w3 = s[0], s[1], s[2], s[3]
    if s[4] == 1:
        w0, w1, w2, w3 = swap_colours(w0), swap_colours(w1), swap_colours(w2), swap_colours(w3)
    at = TIES + 3 * occupied(s)
    k0 = k1 = k2 = k3 = 1 << 40
    for j in range(3):
        m = g[at + j]
        b = TIE_BITS * j
        while m:
            if m & 1:
                a0, a1, a2, a3 = map_word(g, b, w0), map_word(g, b, w1), map_word(g, b, w2), map_word(g, b, w3)
                # sorting network on four values: the least shape relabelling
                if a0 > a1:
                    a0, a1 = a1, a0
                if a2 > a3:
                    a2, a3 = a3, a2
                if a0 > a2:
                    a0, a2 = a2, a0
                if a1 > a3:
                    a1, a3 = a3, a1
                if a1 > a2:
                    a1, a2 = a2, a1
                if a0 < k0 or (a0 == k0 and (a1 < k1 or (a1 == k1 and (a2 < k2 or (a2 == k2 and a3 < k3))))):
                    k0, k1, k2, k3 = a0, a1, a2, a3
            m >>= 1
            b += 1
    return (k0, k1, k2, k3, 0)


@hot
def key(g, s):
    """Transposition key: :func:`canonical` when ``g[0]`` (default), else the exact state."""
    if g[0]:
        return canonical(g, s)
    return s
