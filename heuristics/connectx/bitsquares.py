"""bitsquares: every open line with ``n`` stones scores ``n ** power``; mine minus theirs.

Exactly antisymmetric (swapping the two sides' stones negates it) and mirror symmetric, since
it is a sum over all windows of a function of the window's contents.
"""
from __future__ import annotations

from base.jit import hot
from heuristics.connectx.lines import line_diff


@hot
def bitsquares(current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    """params: (power,)."""
    other = current ^ mask
    power = params[0]
    return line_diff(current, other, rows, columns, inarow, power, -1.0, True)
