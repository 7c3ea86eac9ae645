"""Count-the-fours Connect Four on the kernel contract (:mod:`core.game`), over the Tromp/Pons
bitboards of :mod:`core.connectx.bitboard` (layout documented there).

Rules: gravity as in Connect Four, but nobody wins early: the game runs until the board is
full, and each player scores one point per distinct line of ``inarow`` cells of their colour
(vertical, horizontal, both diagonals; overlapping lines count separately). Player 0's return
is the score difference.

State: ``(current, mask)``: the side to move's stones and every stone. Player 0 moves first, so
the side to move is the parity of the stone count; the score depends only on the final board,
so the state needs nothing else. Action = column (0-based).
``g`` = ``[rows, columns, inarow, board, bits]`` (``board``: every playable cell; ``bits``:
``columns * (rows + 1)``, the width of a board with its sentinel row).
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import can_play, mirror_key, move_bit, popcount, position_key

ROWS, COLUMNS, INAROW, BOARD, BITS = 0, 1, 2, 3, 4  # slots of ``g``


@hot
def parity(x: int, bits: int) -> int:
    """Parity of the number of set bits of a non-negative ``x`` below ``2 ** bits``: folds
    (``log2(bits)`` shifts) instead of a popcount loop, since ``to_move`` runs at every node."""
    s = 1
    while s < bits:
        x ^= x >> s
        s <<= 1
    return x & 1


@hot
def count_lines(stones: int, rows: int, columns: int, inarow: int) -> int:
    """Distinct lines of ``inarow`` cells all in ``stones``, over the four directions.

    The sentinel row is never a stone, so shifted lines cannot wrap into the next column; a
    direction whose line spans the whole board width (``shift * (inarow - 1) >= bits``) holds
    none, which also keeps compiled shifts below 64.
    """
    h = rows + 1
    bits = h * columns
    total = 0
    for shift in (1, h, h - 1, h + 1):
        if shift * (inarow - 1) >= bits:
            continue
        m = stones
        for k in range(1, inarow):
            m &= stones >> (k * shift)
            if m == 0:
                break
        if m != 0:
            total += popcount(m)
    return total


@hot
def to_move(g, s) -> int:
    return parity(s[1], g[BITS])


@hot
def terminal(g, s) -> bool:
    return s[1] == g[BOARD]


@hot
def score(g, s) -> int:
    """Player 0's lines minus player 1's on the board as it stands (the return once full)."""
    other = s[0] ^ s[1]
    diff = count_lines(s[0], g[ROWS], g[COLUMNS], g[INAROW]) - count_lines(other, g[ROWS], g[COLUMNS], g[INAROW])
    return diff if to_move(g, s) == 0 else -diff


@hot
def outcome(g, s) -> float:
    return float(score(g, s))


@hot
def legal(g, s, out, base) -> int:
    if s[1] == g[BOARD]:
        return 0
    n = 0
    for col in range(g[COLUMNS]):
        if can_play(s[1], g[ROWS], col):
            out[base + n] = col
            n += 1
    return n


@hot
def play(g, s, a):
    return (s[0] ^ s[1], s[1] | move_bit(s[1], g[ROWS], a))


@hot
def key(g, s):
    """Canonical key: the smaller of the position's and its mirror image's
    :func:`core.connectx.bitboard.position_key` (side to move included, by the stone count), padded to
    a state's length. Mirror images have the same value, so a table serves both."""
    k = position_key(s[0], s[1], g[ROWS], g[COLUMNS])
    m = mirror_key(s[0], s[1], g[ROWS], g[COLUMNS])
    return (m if m < k else k, 0)


@hot
def bounds(g, s):
    """Proven bounds on the final score difference for the side to move: lines already made
    never go away, and a line can only still appear in a window the other side has no stone in."""
    rows = g[ROWS]
    columns = g[COLUMNS]
    inarow = g[INAROW]
    me = s[0]
    them = s[0] ^ s[1]
    board = g[BOARD]
    lo = count_lines(me, rows, columns, inarow) - count_lines(board & ~me, rows, columns, inarow)
    hi = count_lines(board & ~them, rows, columns, inarow) - count_lines(them, rows, columns, inarow)
    return float(lo), float(hi)


@hot
def order(g, s, out, base, n, params) -> None:
    """Centre columns first (stable insertion sort; ties keep the generated order)."""
    columns = g[COLUMNS]
    for i in range(1, n):
        a = out[base + i]
        da = abs(2 * a - (columns - 1))
        j = i
        while j > 0 and abs(2 * out[base + j - 1] - (columns - 1)) > da:
            out[base + j] = out[base + j - 1]
            j -= 1
        out[base + j] = a
