"""ConnectX (Connect Four on any ``rows x columns``, ``inarow`` to win): the Tromp/Pons bitboards
(:mod:`.bitboard`), the fast agents' :class:`Position` and :class:`Shape`, the engine kernels
(:mod:`.kernels`) and the engine's :class:`core.connectx.game.ConnectX`.

This face stays light (no engine import): a submission file carries only what it uses.
"""
from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape

__all__ = ["Position", "Shape", "STANDARD"]
