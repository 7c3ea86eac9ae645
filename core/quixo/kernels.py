"""Quixo on the kernel contract (:mod:`core.game`): shifts and masks on two bitboards.

State ``(x, o, meta)``: ``x`` and ``o`` are the n×n planes of crosses (player 0, who moves
first) and circles (player 1), cell ``(col, row)`` at bit ``row * n + col`` (row 0 on top);
``meta = to_move | ply << 1``. The side to move cannot be read from the board (a move may
add no cube), hence its bit. Every word stays below ``2 ** 51`` on 5×5.

Action ``a = ring * 4 + side`` in ``[0, 16 (n - 1))``: ``ring`` indexes the border cells in
row-major order (:func:`ring_cells`), ``side`` is where the cube is pushed back in, as in the
course harness's ``Move``: 0 TOP (row 0 of its column), 1 BOTTOM, 2 LEFT (column 0 of its
row), 3 RIGHT. Actions whose end is the cube's own cell are never legal: 8 + 12 (n - 2)
actions remain from the empty board, 44 on 5×5.

The rules' quirk lives in :func:`outcome`: after a move, a line of the player now to move wins
for that player even if the mover made their own line too (making the opponent's line loses).
A ply cap (``g[G_MAXPLY]`` > 0) ends the game as a draw; there is no repetition rule.

``g`` layout (built by :func:`constants`): ``n``, the cap, the action count, the line count,
the full-board mask; the line masks from ``G_LINES``; six ints per action from ``G_ACT``
(source bit, or 0 for an action that is never legal; keep mask; moving cells; left shift; right
shift; destination bit); then the 8 cell permutations of the board's symmetries (from
``g[G_SYMBASE]``); then the same maps by rows (from ``g[G_ROWBASE]``: for symmetry ``k``, row
``r`` and the row's bits ``v``, the image plane at ``(k * n + r) * 2**n + v``), so that
:func:`permute` costs n lookups instead of a loop over the n² cells (canonical keys run it up
to 14 times a node).
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import popcount

G_N, G_MAXPLY, G_NACT, G_NLINES, G_FULL, G_SYMBASE, G_ROWBASE = 0, 1, 2, 3, 4, 5, 6
G_LINES = 8  # up to 2 * 5 + 2 = 12 line masks
G_ACT = 20  # 6 ints per action
SIDES = ("TOP", "BOTTOM", "LEFT", "RIGHT")


def ring_cells(n: int) -> list[tuple[int, int]]:
    """The border cells ``(col, row)`` in row-major order: ring index -> cell."""
    return [(c, r) for r in range(n) for c in range(n) if r in (0, n - 1) or c in (0, n - 1)]


def end_cell(n: int, col: int, row: int, side: int) -> tuple[int, int]:
    """Where a cube taken at ``(col, row)`` ends when pushed in from ``side``."""
    return ((col, 0), (col, n - 1), (0, row), (n - 1, row))[side]


def symmetry_maps(n: int) -> list[list[int]]:
    """The 8 board symmetries as cell permutations (cell -> image cell), identity first."""
    maps = []
    for k in range(8):
        perm = []
        for cell in range(n * n):
            c, r = cell % n, cell // n
            if k & 4:  # transpose first
                c, r = r, c
            for _ in range(k & 3):  # quarter turns clockwise
                c, r = n - 1 - r, c
            perm.append(r * n + c)
        maps.append(perm)
    return maps


def constants(n: int, max_plies: int) -> list[int]:
    """The ``g`` of an n×n game with a ply cap (0: none)."""
    cells = ring_cells(n)
    nact = 4 * len(cells)
    lines = [sum(1 << (r * n + c) for c in range(n)) for r in range(n)]
    lines += [sum(1 << (r * n + c) for r in range(n)) for c in range(n)]
    lines += [sum(1 << (i * n + i) for i in range(n)), sum(1 << (i * n + n - 1 - i) for i in range(n))]
    full = (1 << (n * n)) - 1
    g = [0] * (G_ACT + 6 * nact + 8 * n * n + 8 * n * (1 << n))
    g[G_N], g[G_MAXPLY], g[G_NACT], g[G_NLINES], g[G_FULL] = n, max_plies, nact, len(lines), full
    g[G_SYMBASE] = G_ACT + 6 * nact
    g[G_ROWBASE] = g[G_SYMBASE] + 8 * n * n
    g[G_LINES:G_LINES + len(lines)] = lines
    for ring, (c, r) in enumerate(cells):
        for side in range(4):
            ec, er = end_cell(n, c, r, side)
            base = G_ACT + 6 * (ring * 4 + side)
            if (ec, er) == (c, r):
                continue  # the cube may not go back where it came from
            # the cells strictly between the end and the source, plus the end: they move one step
            if side < 2:
                step = 1 if er < r else -1  # toward the source, in rows
                seg = [(c, y) for y in range(min(er, r), max(er, r) + 1)]
                shift = n * step
            else:
                step = 1 if ec < c else -1
                seg = [(x, r) for x in range(min(ec, c), max(ec, c) + 1)]
                shift = step
            clear = sum(1 << (y * n + x) for x, y in seg)
            src, dst = 1 << (r * n + c), 1 << (er * n + ec)
            g[base:base + 6] = [src, full & ~clear, clear & ~src, max(shift, 0), max(-shift, 0), dst]
    for k, perm in enumerate(symmetry_maps(n)):
        g[g[G_SYMBASE] + k * n * n:g[G_SYMBASE] + (k + 1) * n * n] = perm
        for r in range(n):
            for v in range(1 << n):
                g[g[G_ROWBASE] + (k * n + r) * (1 << n) + v] = sum(1 << perm[r * n + c] for c in range(n) if (v >> c) & 1)
    return g


@hot
def has_line(g, b: int) -> bool:
    for i in range(g[G_NLINES]):
        line = g[G_LINES + i]
        if b & line == line:
            return True
    return False


@hot
def to_move(g, s) -> int:
    return s[2] & 1


@hot
def ply(g, s) -> int:
    return s[2] >> 1


@hot
def terminal(g, s) -> bool:
    if has_line(g, s[0]) or has_line(g, s[1]):
        return True
    return g[G_MAXPLY] > 0 and (s[2] >> 1) >= g[G_MAXPLY]


@hot
def winner(g, s) -> int:
    """0 or 1, or -1 for none: the side to move's line wins first (both-lines rule)."""
    t = s[2] & 1
    if has_line(g, s[t]):
        return t
    if has_line(g, s[1 - t]):
        return 1 - t
    return -1


@hot
def outcome(g, s) -> float:
    w = winner(g, s)
    if w == 0:
        return 1.0
    if w == 1:
        return -1.0
    return 0.0


@hot
def legal(g, s, out, base) -> int:
    if terminal(g, s):
        return 0
    opp = s[1 - (s[2] & 1)]
    n = 0
    for a in range(g[G_NACT]):
        src = g[G_ACT + 6 * a]
        if src != 0 and (opp & src) == 0:
            out[base + n] = a
            n += 1
    return n


@hot
def push(g, mover: int, opp: int, a: int):
    """The planes after the mover's action ``a`` (no legality check): (mover, opponent)."""
    b = G_ACT + 6 * a
    keep, mv, shl, shr = g[b + 1], g[b + 2], g[b + 3], g[b + 4]
    m2 = (mover & keep) | (((mover & mv) << shl) >> shr) | g[b + 5]
    o2 = (opp & keep) | (((opp & mv) << shl) >> shr)
    return m2, o2


@hot
def play(g, s, a):
    t = s[2] & 1
    meta = (1 - t) | (((s[2] >> 1) + 1) << 1)
    if t == 0:
        m2, o2 = push(g, s[0], s[1], a)
        return (m2, o2, meta)
    m2, o2 = push(g, s[1], s[0], a)
    return (o2, m2, meta)


@hot
def permute(g, b: int, k: int) -> int:
    """Plane ``b`` under the board symmetry ``k`` (0..7): one table lookup per row."""
    n = g[G_N]
    width = 1 << n
    mask = width - 1
    base = g[G_ROWBASE] + k * n * width
    out = 0
    for r in range(n):
        out |= g[base + r * width + ((b >> (r * n)) & mask)]
    return out


@hot
def permute_cells(g, b: int, k: int) -> int:
    """:func:`permute` cell by cell from the permutation itself (the tables' oracle in tests)."""
    nn = g[G_N] * g[G_N]
    base = g[G_SYMBASE] + k * nn
    out = 0
    for c in range(nn):
        if (b >> c) & 1:
            out |= 1 << g[base + c]
    return out


@hot
def exact_key(g, s):
    """The state without its ply count: equal keys, equal positions and side to move."""
    return (s[0], s[1], s[2] & 1)


@hot
def key(g, s):
    """Canonical image under the 8 board symmetries and the symbol swap: the swap makes the
    side to move player 0, so the key is the least image of (mover's plane, opponent's plane).
    Values for the side to move are the same across the class. The third word is the ply
    count under a cap (the plies left decide whether a win is in reach before the draw: the
    key contract in :mod:`core.game`), else 0 (the value does not depend on it)."""
    t = s[2] & 1
    m, o = s[t], s[1 - t]
    bm, bo = m, o
    for k in range(1, 8):
        pm = permute(g, m, k)
        if pm > bm:
            continue
        po = permute(g, o, k)
        if pm < bm or po < bo:
            bm, bo = pm, po
    return (bm, bo, (s[2] >> 1) if g[G_MAXPLY] > 0 else 0)




ORDER_WIN = 1 << 14  # order's score of a move that wins at once (above any line score)


@hot
def move_score(g, m: int, o: int, a: int) -> int:
    """How promising the mover's action ``a`` looks, for move ordering: 0 when it makes the
    opponent's line (it loses), :data:`ORDER_WIN` when it makes only the mover's, else
    ``8192 + sum over lines of 4**mine - 4**theirs`` (counts after the push, at most n - 1)."""
    m2, o2 = push(g, m, o, a)
    if has_line(g, o2):
        return 0
    if has_line(g, m2):
        return ORDER_WIN
    s = 8192
    for i in range(g[G_NLINES]):
        line = g[G_LINES + i]
        s += (1 << (2 * popcount(m2 & line))) - (1 << (2 * popcount(o2 & line)))
    return s


@hot
def order(g, s, out, base, n, params) -> None:
    """Search hook: the ``n`` actions at ``out[base:]`` best first by :func:`move_score`
    (a win first, moves that complete the opponent's line last), ties in generation order.
    Each entry is packed as ``score << 12 | (63 - i) << 6 | action`` and insertion-sorted
    in place (no allocation); actions are below 64 on every size."""
    t = s[2] & 1
    m, o = s[t], s[1 - t]
    for i in range(n):
        a = out[base + i]
        out[base + i] = (move_score(g, m, o, a) << 12) | ((63 - i) << 6) | a
    for i in range(1, n):
        v = out[base + i]
        j = i - 1
        while j >= 0 and out[base + j] < v:
            out[base + j + 1] = out[base + j]
            j -= 1
        out[base + j + 1] = v
    for i in range(n):
        out[base + i] = out[base + i] & 63
