"""Quixo heuristics on the engine's ``evaluate(g, s, params)`` signature (side to move's view).

``lines``: for every line (rows, columns, both diagonals) the mover's cube count ``k`` scores
``params[k]`` and the opponent's count scores ``-params[k]``; long lines dominate when the
weights grow geometrically. Opponent cubes do not "block" a line as in tic-tac-toe (pushes move
them out), so both counts are taken in every line. The sum is divided by its largest possible
size and multiplied by ``params[5]`` so that it stays inside ``(-params[5], params[5])``, well
inside the game's ``win_value`` (1.0) that terminal states score.

``longest``: the course-style minimax's leaf (:class:`agents.quixo.harness.CourseMinimaxPlayer`):
the mover's longest line (most own cubes in one line) minus the opponent's, an integer in
``[-(n - 1), n - 1]`` at non-terminal states (no parameters). Kept so that the
``course_minimax`` agent replays that player's values on the compiled search.
"""
from __future__ import annotations

from base.jit import hot
from base.params import Param, default_lists
from core.connectx.bitboard import popcount
from core.quixo.kernels import G_LINES, G_NLINES


@hot
def evaluate_lines(g, s, params) -> float:
    t = s[2] & 1
    m, o = s[t], s[1 - t]
    total = 0.0
    top = 0.0
    for i in range(g[G_NLINES]):
        line = g[G_LINES + i]
        km = min(popcount(m & line), 4)
        ko = min(popcount(o & line), 4)
        total += params[km] - params[ko]
    for k in range(5):
        top = max(top, abs(params[k]))
    if top == 0.0:
        return 0.0
    return params[5] * total / (g[G_NLINES] * top)


@hot
def evaluate_longest(g, s, params) -> float:
    t = s[2] & 1
    m, o = s[t], s[1 - t]
    bm = 0
    bo = 0
    for i in range(g[G_NLINES]):
        line = g[G_LINES + i]
        bm = max(bm, popcount(m & line))
        bo = max(bo, popcount(o & line))
    return float(bm - bo)


HEURISTICS = {"lines": evaluate_lines, "longest": evaluate_longest}

# Each heuristic's parameters, in the order ``params`` holds them (base.params.Param); longest
# takes none.
PARAMS = {
    "lines": tuple(Param(f"w{k}", float(w), -1.0e6, 1.0e6, f"weight of a line holding {k}{' (or more)' * (k == 4)} "
                         "of a player's cubes (relative: the sum is scaled by the largest)")
                   for k, w in enumerate((0.0, 1.0, 4.0, 16.0, 64.0)))
    + (Param("top", 0.5, 0.0, 1.0, "the largest |score| (below the win value 1.0)"),),
    "longest": (),
}
DEFAULT_PARAMS = default_lists(PARAMS)
