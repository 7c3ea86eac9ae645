"""ConnectX's hooks for the game-generic Monte Carlo tree search (:mod:`agents.engine.mcts_kernels`),
imported by :mod:`core.connectx.kernels` so that :func:`core.game.bind` finds them.

- ``rollout``: a random playout on the bitboards (the free cells of every column in one word,
  one ``has_won`` per move), several times faster than the generic playout's
  ``terminal`` / ``legal`` / ``play`` round per move.

Not a ``bounds`` hook: the depth-first searches would take one (their ``use_bounds`` follows the
game's kernels) and pay for it at every node; decided positions reach MCTS through ``expand``.
"""
from __future__ import annotations

import numpy as np

from base.jit import hot
from base.xorshift import rng_next
from core.connectx.bitboard import has_won
from core.connectx.search_hooks import win_outcome
from core.connectx.threats import popcnt


@hot(inline=True)
def made_line(stones: int, rows: int, inarow: int) -> bool:
    """``has_won``, compiled into the playout's loop: four in a row as one expression (the four
    directions or-ed, one branch), other lengths by ``has_won``."""
    if inarow != 4:
        return has_won(stones, rows, inarow)
    h = rows + 1
    m1 = stones & (stones >> 1)
    m2 = stones & (stones >> h)
    m3 = stones & (stones >> rows)
    m4 = stones & (stones >> (h + 1))
    return ((m1 & (m1 >> 2)) | (m2 & (m2 >> (2 * h))) | (m3 & (m3 >> (2 * rows))) | (m4 & (m4 >> (2 * h + 2)))) != 0


PICK_COLUMNS = 8  # boards up to this wide pick a move by table (PICK); wider ones by a loop


def pick_table(columns: int) -> np.ndarray:
    """``[free * columns + k]``: the ``k``-th lowest set bit's index in the column set ``free``."""
    table = np.zeros((1 << columns) * columns, dtype=np.int64)
    for free in range(1 << columns):
        for k, col in enumerate(c for c in range(columns) if free >> c & 1):
            table[free * columns + k] = col
    return table


PICK = pick_table(PICK_COLUMNS)


@hot
def playout(current: int, mask: int, ply: int, rows: int, inarow: int, full: int, bottom: int, cells: int, rng: int):
    """Uniformly random moves from a position no one has won (``current``: the mover's stones,
    ``ply`` stones on the board) until a line or a full board: ``(moves played, whether the last
    one made a line, rng)``: the playout of every random rollout on ConnectX (:func:`rollout`).
    The ``k``-th free column (``k`` drawn below their number) is read from :data:`PICK` by the
    set of free columns, kept as one small word: no loop over the columns a move, and no branch
    on ``k`` to mispredict."""
    columns = cells // rows
    if columns > PICK_COLUMNS:
        return playout_wide(current, mask, ply, rows, inarow, full, bottom, cells, rng)
    h = rows + 1
    col_bits = (1 << rows) - 1
    free = 0
    for c in range(columns):
        free |= (1 - ((mask >> (c * h + rows - 1)) & 1)) << c
    played = 0
    while ply < cells:
        rng = rng_next(rng)
        c = int(PICK[free * PICK_COLUMNS + rng % popcnt(free)])
        shift = c * h
        move = (mask + bottom) & (col_bits << shift)
        mine = current | move
        played += 1
        if made_line(mine, rows, inarow):
            return played, True, rng
        mask |= move
        current = mine ^ mask
        free ^= ((mask >> (shift + rows - 1)) & 1) << c  # the column just filled
        ply += 1
    return played, False, rng


@hot
def playout_wide(current: int, mask: int, ply: int, rows: int, inarow: int, full: int, bottom: int, cells: int,
                 rng: int):
    """:func:`playout` on boards wider than :data:`PICK_COLUMNS`: the ``k``-th free cell by
    clearing ``k`` low bits (the same draws)."""
    played = 0
    while ply < cells:
        moves = (mask + bottom) & full
        rng = rng_next(rng)
        k = rng % popcnt(moves)
        m = moves
        for _ in range(k):
            m &= m - 1
        move = m & -m
        mine = current | move
        played += 1
        if made_line(mine, rows, inarow):
            return played, True, rng
        mask |= move
        current = mine ^ mask
        ply += 1
    return played, False, rng


@hot
def rollout(g, s, rng: int):
    """Uniformly random moves from ``s`` to the end: (player 0's outcome, moves played, rng).
    A terminal ``s`` returns its outcome after 0 moves. The winner's outcome is ``win_outcome``
    (1, or Pons' score on :class:`core.connectx.pons.PonsConnectX`); ``g[3]``, ``g[4]``: the
    board's and the bottom row's cells."""
    rows = g[0]
    inarow = g[2]
    current = s[0]
    mask = s[1]
    ply = popcnt(mask)
    first = ply & 1  # the player to move at s
    if has_won(current ^ mask, rows, inarow):  # the last mover (not ``first``) won
        w = win_outcome(g, ply)
        return (w if first == 1 else -w), 0, rng
    played, won, rng = playout(current, mask, ply, rows, inarow, g[3], g[4], rows * g[1], rng)
    if not won:
        return 0.0, played, rng
    winner = first if (played & 1) == 1 else 1 - first  # ``first`` moved at odd counts
    w = win_outcome(g, ply + played)
    return (w if winner == 0 else -w), played, rng
