"""One dispatcher for every heuristic, so a compiled search calls any of them by integer id."""
from __future__ import annotations

from base.jit import hot
from heuristics.connectx.bitsquares import bitsquares
from heuristics.connectx.gameovers import gameovers
from heuristics.connectx.liberties import liberties
from heuristics.connectx.oddeven import oddeven


@hot
def evaluate(kind: int, current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    """Score of the position for the side to move by heuristic ``kind`` (ids in
    :data:`heuristics.connectx.params.HEURISTIC_IDS`; -1 or unknown: 0). ``params`` as :func:`heuristics.connectx.params.params_array`."""
    if kind == 1:
        return bitsquares(current, mask, rows, columns, inarow, params)
    if kind == 0:
        return gameovers(current, mask, rows, columns, inarow, params)
    if kind == 2:
        return oddeven(current, mask, rows, columns, inarow, params)
    if kind == 3:
        return liberties(current, mask, rows, columns, inarow, params)
    return 0.0


# One-heuristic stand-ins for ``evaluate`` with its signature: a search compiled against one
# of them compiles only that heuristic (numba compiles every function a caller may reach, and
# the full dispatcher costs several times the compile time of one heuristic).
@hot
def evaluate_none(kind: int, current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    return 0.0


@hot
def evaluate_gameovers(kind: int, current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    return gameovers(current, mask, rows, columns, inarow, params)


@hot
def evaluate_bitsquares(kind: int, current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    return bitsquares(current, mask, rows, columns, inarow, params)


@hot
def evaluate_oddeven(kind: int, current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    return oddeven(current, mask, rows, columns, inarow, params)


@hot
def evaluate_liberties(kind: int, current: int, mask: int, rows: int, columns: int, inarow: int, params) -> float:
    return liberties(current, mask, rows, columns, inarow, params)
