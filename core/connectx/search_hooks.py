"""ConnectX's hooks for the game-generic depth-first searches (:mod:`agents.engine.negamax`,
:mod:`agents.engine.solver`): its tricks as game code, not branches of the searches.

``g`` = ``[rows, columns, inarow, board_mask, bottom_mask, pons]`` (:meth:`core.connectx.game.ConnectX.constants`);
``pons = 1`` (:class:`core.connectx.pons.PonsConnectX`) scores a finished game by Pons' score
(``(cells + 2 - stones) // 2`` for the winner, ``stones`` counted at the end) instead of +-1,
which is what an exact solver of ConnectX reports.

:func:`expand` (contract: :mod:`core.kernel_expand`), proved in the comments:
- at the root only: a move that wins at once is played (decided, ``d = 1``);
- a full board is a draw (``d = 0``);
- the opponent's *threat cells* (empty cells where its next stone makes a line): two it can play
  lose (``d = 2``); one it can play must be blocked (any other move lets it win at once: the
  block is worth at least that loss); a move right under one lets it win at once, so it is left
  out (and if nothing else is left, ``d = 2``). So no child of an expanded node starts with a
  win for its side to move, and below the root the "win at once" test is never needed;
- order (when the search asks for one): by the number of threat cells the move creates, then
  centre first; otherwise centre first.
:func:`key`: one word, ``current + mask + bottom`` (Pons' key: exact, side to move included).
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.threats import popcnt, win_cells


@hot(inline=True)  # one add: cheap enough for the exact solver to prefetch its table slots with it
def key(g, s):
    return (s[0] + s[1] + g[4],)


@hot
def column_of(bit: int, rows: int) -> int:
    """Column of a single-bit board."""
    col = 0
    h = rows + 1
    while bit >= (1 << h):
        bit >>= h
        col += 1
    return col


@hot
def win_outcome(g, stones: int) -> float:
    """The winner's outcome of a game that ends with ``stones`` stones: 1, or Pons' score."""
    if g[5] == 0:
        return 1.0
    return float((g[0] * g[1] + 2 - stones) // 2)


@hot(inline=True)  # compiled into expand's callers: no call passing g, s and the array struct
def order(g, s, out, base, n, params) -> None:
    """Sort the columns at ``out[base:base + n]`` by the number of threat cells the move creates,
    then centre first (a stable insertion sort: ties keep the order given, so columns given in
    centre order come out as Shape.center_order breaks ties). No "win at once first": ``expand``
    decides such positions before anything is ordered (a caller ordering the legal columns of
    any position puts game-ending ones first itself). Cheap enough for every node of a solve,
    and only paid by nodes the table does not settle: a search may ask ``expand`` for the
    unordered list and call this after its table probe."""
    rows = g[0]
    columns = g[1]
    h = rows + 1
    col_bits = (1 << rows) - 1
    current = s[0]
    mask = s[1]
    possible = (mask + g[4]) & g[3]
    for i in range(n):
        col = out[base + i]
        bit = possible & (col_bits << (col * h))
        score = columns - abs(2 * col - (columns - 1))  # centre first (0 .. columns)
        score += popcnt(win_cells(current | bit, mask | bit, rows, columns, g[2], g[3])) * 64
        j = i  # insertion sort, descending, stable
        while j > 0 and (out[base + j - 1] >> 8) < score:
            out[base + j] = out[base + j - 1]
            j -= 1
        out[base + j] = (score << 8) | col
    for i in range(n):
        out[base + i] &= 255


@hot(inline=True)
def expand(g, s, depth, ply, sort, out, base, params):
    rows = g[0]
    columns = g[1]
    board = g[3]
    current = s[0]
    mask = s[1]
    possible = (mask + g[4]) & board
    if ply == 0:
        # Below the root never true: a parent plays only moves after which its opponent has no
        # playable threat cell (see below), and no parent can win at once either.
        wins = win_cells(current, mask, g[0], g[1], g[2], g[3]) & possible
        if wins != 0:
            out[base] = column_of(wins & -wins, rows)
            return -2, win_outcome(g, popcnt(mask) + 1)
    if possible == 0:
        return -1, 0.0
    threats = win_cells(current ^ mask, mask, g[0], g[1], g[2], g[3])
    forced = threats & possible
    if forced != 0:
        if forced & (forced - 1) != 0:
            # Two cells the opponent can play to win: whatever we block, it plays the other.
            if ply == 0:  # the move to play anyway: only a root's is read (core.kernel_expand)
                out[base] = column_of(forced & -forced, rows)
            return -3, -win_outcome(g, popcnt(mask) + 2)
        possible = forced
    losing = possible & (threats >> 1)
    candidates = possible & ~losing
    if candidates == 0:
        if ply == 0:
            out[base] = column_of(losing & -losing, rows)
        return -3, -win_outcome(g, popcnt(mask) + 2)
    h = rows + 1
    if candidates & (candidates - 1) == 0:  # one move (often a forced block): its column, no loop
        out[base] = popcnt(candidates - 1) // h
        return 1, 0.0
    n = 0
    col_bits = (1 << rows) - 1
    col = (columns - 1) // 2  # centre first, then outwards, left first on ties (Shape.center_order)
    turn = 1 if columns % 2 == 0 else -1
    for i in range(columns):
        if candidates & (col_bits << (col * h)) != 0:
            out[base + n] = col
            n += 1
        col += turn * (i + 1)
        turn = -turn
    if sort:
        order(g, s, out, base, n, params)
    return n, 0.0
