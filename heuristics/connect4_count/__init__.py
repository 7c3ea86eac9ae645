"""Heuristics of count-the-fours Connect Four (:mod:`core.connect4_count`), for the side to move,
on the engine's ``evaluate(g, s, params)`` signature (``s = (current, mask)``, ``g`` starting
``[rows, columns, inarow, ...]``), in the game's own units: score points.

Every point is permanent (stones never move) and the board always fills, so the score so far
is a sure part of the final difference; what remains is which *open windows* (``inarow`` cells
holding none of the other side's stones) each side will complete. ``lines`` values an open
window with ``n`` of my stones (``1 <= n < inarow``) at
``open_weight * (n / (inarow - 1)) ** power``: a window one stone short is worth
``open_weight`` of a point, emptier ones less. Both sides' windows count, mine minus theirs,
so the value is antisymmetric and mirror symmetric.
"""
from __future__ import annotations

from base.jit import hot
from base.params import Param, default_lists
from core.connect4_count.kernels import count_lines
from heuristics.connectx.lines import direction, open_windows, popcnt, window_starts, windows_with


@hot
def open_value(me: int, them: int, board: int, rows: int, inarow: int, open_weight: float, power: float) -> float:
    """Sum over the open windows of ``me`` (no stone of ``them``) with ``1 <= n < inarow`` of
    ``me``'s stones of ``open_weight * (n / (inarow - 1)) ** power``, minus the same for ``them``."""
    total = 0.0
    for d in range(4):
        shift = direction(rows, d)
        starts = window_starts(board, shift, inarow)
        if starts == 0:
            continue
        mine = open_windows(starts, them, shift, inarow)
        theirs = open_windows(starts, me, shift, inarow)
        for n in range(1, inarow):
            c = 0
            if mine != 0:
                c += popcnt(windows_with(mine, me, shift, inarow, n))
            if theirs != 0:
                c -= popcnt(windows_with(theirs, them, shift, inarow, n))
            if c != 0:
                total += c * open_weight * (n / (inarow - 1)) ** power
    return total


@hot
def evaluate_lines(g, s, params) -> float:
    """Score so far (mine minus theirs) plus :func:`open_value` with ``params = [open_weight,
    power]``."""
    rows = g[0]
    columns = g[1]
    inarow = g[2]
    board = g[3]
    me = s[0]
    them = s[0] ^ s[1]
    diff = count_lines(me, rows, columns, inarow) - count_lines(them, rows, columns, inarow)
    return diff + open_value(me, them, board, rows, inarow, params[0], params[1])


@hot
def evaluate_score(g, s, params) -> float:
    """The score so far, mine minus theirs (``params`` unused): the baseline ``lines`` must beat."""
    return float(count_lines(s[0], g[0], g[1], g[2]) - count_lines(s[0] ^ s[1], g[0], g[1], g[2]))


# The first is the engine agents' "auto" choice.
HEURISTICS = {"lines": evaluate_lines, "score": evaluate_score}

# Each heuristic's parameters, in the order ``params`` holds them (base.params.Param). score
# takes none (searches still hand its kernel one unused number: base.params.defaults).
PARAMS = {
    "lines": (
        Param("open_weight", 0.5, -100.0, 100.0, "value in points of an open window one stone short (completed "
              "only if its last cell falls to its owner, so well under 1)"),
        Param("power", 2.0, 0.0, 8.0, "how fast emptier windows lose value: at 2, a window with 2 of 3 stones "
              "is worth 4/9 of one with 3"),
    ),
    "score": (),
}
DEFAULT_PARAMS = default_lists(PARAMS)
