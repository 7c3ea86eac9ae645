"""ConnectX on the kernel contract (:mod:`core.game`), over the Tromp/Pons bitboards of
:mod:`core.connectx.bitboard` (layout documented there).

State: ``(current, mask)``: the side to move's stones and every stone. Player 0 moves first, so
the side to move is the parity of the stone count. Action = column (0-based). ``g`` =
``[rows, columns, inarow, board_mask, bottom_mask, pons]``. The game ends when the last mover
made a line or the board is full; ``outcome`` is +-1, or Pons' score with ``pons = 1``
(:mod:`core.connectx.pons`). The depth-first searches' hooks ``expand`` and ``key`` are in
:mod:`core.connectx.search_hooks`.
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.bitboard import can_play, has_won, move_bit
from core.connectx.mcts_hooks import rollout  # noqa: F401 (the generic MCTS's playout hook)
from core.connectx.search_hooks import expand, key, order, win_outcome  # noqa: F401 (hooks of the depth-first searches)
from core.connectx.solver_hooks import bounds  # noqa: F401 (the exact solver's Pons bounds)
from core.connectx.threats import popcnt


@hot
def to_move(g, s) -> int:
    return popcnt(s[1]) & 1


@hot
def last_won(g, s) -> bool:
    return has_won(s[0] ^ s[1], g[0], g[2])


@hot
def terminal(g, s) -> bool:
    return s[1] == g[3] or last_won(g, s)  # g[3]: the board mask


@hot
def outcome(g, s) -> float:
    if last_won(g, s):
        w = win_outcome(g, popcnt(s[1]))
        return -w if to_move(g, s) == 0 else w  # the player who just moved won
    return 0.0


@hot
def legal(g, s, out, base) -> int:
    if terminal(g, s):
        return 0
    n = 0
    for col in range(g[1]):
        if can_play(s[1], g[0], col):
            out[base + n] = col
            n += 1
    return n


@hot
def play(g, s, a):
    # int(a): a search on the plain path may pass a numpy int read back from its arrays (it
    # searches in the compiled path's arrays while numba compiles); mixed into the words, it met
    # the threat code's Python ints over 63 bits (OverflowError). Compiled, int() is a no-op.
    mask = s[1] | move_bit(s[1], g[0], int(a))
    return (s[0] ^ s[1], mask)
