"""The game: shapes, positions and bitboard kernels."""
from core.position import Position
from core.shape import STANDARD, Shape

__all__ = ["Position", "Shape", "STANDARD"]
