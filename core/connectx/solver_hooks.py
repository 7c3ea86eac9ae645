"""ConnectX's hooks for the game-generic exact solver (:mod:`agents.engine.solver` over
:mod:`agents.engine.negamax`): Pons' score bounds, and the fast win-cells test the hooks share.

``g`` = ``[rows, columns, inarow, board_mask, bottom_mask, pons]`` (:meth:`core.connectx.game.ConnectX.constants`).

:func:`bounds` is asked only of states that ``expand`` (:mod:`core.connectx.search_hooks`) did not
decide: the side to move cannot win at once, and it has a move after which the opponent cannot
win at once. With Pons' score (``g[5] == 1``: the winner gets ``(cells + 2 - stones) // 2``,
stones counted at the end) the mover's best is then a win by its second stone from here
(``stones + 3`` at the end) and its worst a loss to the opponent's second stone (``stones + 4``):
so ``[-((cells - 2 - stones) // 2), (cells - 1 - stones) // 2]``, which also makes a position
with two empty cells or fewer a draw (both bounds 0). Ideas from Pascal Pons' public write-up
(blog.gamesolver.org), written anew. With +-1 outcomes (``g[5] == 0``) the bounds say nothing
beyond the outcome's range.
"""
from __future__ import annotations

from base.jit import hot
from core.connectx.threats import popcnt


@hot
def bounds(g, s):
    """Proven bounds on the value of ``s`` (undecided by ``expand``) for its side to move."""
    if g[5] == 0:
        return -1, 1
    left = g[0] * g[1] - popcnt(s[1])
    return -(max(left - 2, 0) // 2), (left - 1) // 2  # ints: the exact solver compares them with ints


