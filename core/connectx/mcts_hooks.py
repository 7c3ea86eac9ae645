"""ConnectX's hooks for the game-generic Monte Carlo tree search (:mod:`agents.engine.mcts_kernels`),
imported by :mod:`core.connectx.kernels` so that :func:`core.game.bind` finds them.

- ``rollout``: a random playout on the bitboards (the free cells of every column in one word,
  one ``has_won`` per move), several times faster than the generic playout's
  ``terminal`` / ``legal`` / ``play`` round per move.

Not a ``bounds`` hook: the depth-first searches would take one (their ``use_bounds`` follows the
game's kernels) and pay for it at every node; decided positions reach MCTS through ``expand``.
"""
from __future__ import annotations

from base.jit import hot
from base.xorshift import rng_next
from core.connectx.bitboard import has_won
from core.connectx.search_hooks import win_outcome
from core.connectx.threats import popcnt


@hot
def playout(current: int, mask: int, ply: int, rows: int, inarow: int, full: int, bottom: int, cells: int, rng: int):
    """Uniformly random moves from a position no one has won (``current``: the mover's stones,
    ``ply`` stones on the board) until a line or a full board: ``(moves played, whether the last
    one made a line, rng)``: the playout of every random rollout on ConnectX (:func:`rollout`)."""
    played = 0
    while ply < cells:
        moves = (mask + bottom) & full
        n = popcnt(moves)
        rng = rng_next(rng)
        k = rng % n
        m = moves
        for _ in range(k):
            m &= m - 1
        move = m & -m
        mine = current | move
        played += 1
        if has_won(mine, rows, inarow):
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
