"""ConnectX scored by Pons' score: the exact solver's view of the game (same rules and kernels).

A finished game is worth ``(cells + 2 - stones) // 2`` to its winner (``stones`` counted at the
end, the winning stone included; minus that to the loser, 0 for a draw): a quicker win scores
more. That is the score of Pons' test sets (``data/pons/``) and of the opening book. It is the
game constant ``g[5] = 1`` read by ``outcome`` and ``expand``; the ConnectX game (+-1) stays what
MCTS and the agents use. Solve with ``agents.engine.solver.Solver(PonsConnectX(...))``
(``scale = 1, step = 0``: values are these scores).
"""
from __future__ import annotations

from core.connectx.game import ConnectX


class PonsConnectX(ConnectX):
    """ConnectX whose outcomes are Pons' scores (see the module docstring)."""

    name = "connectx_pons"

    def validate(self) -> None:
        super().validate()
        cells = self.shape.cells
        self.win_value = float((cells + 2 - (2 * self.shape.inarow - 1)) // 2)  # the quickest win

    def constants(self) -> list[int]:
        return super().constants()[:5] + [1]
