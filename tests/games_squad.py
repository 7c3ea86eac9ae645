"""Squad: a toy game of turns of many moves on the kernel contract, for the turn searches
(:mod:`agents.engine.macro_kernels`): each player moves three units on a line of cells.

State ``(cell of each unit: player 0's three then player 1's, steps used this turn by the
mover's units (two bits each), score 0, score 1, player to move, turns left)``. A turn: each of
the mover's units may step left or right (action ``2 * unit + side``) up to twice, onto a free
cell of the line; ``END`` (6) ends the turn, and the mover scores the values (``g``) of the cells
its units stand on. The game ends when no turn is left; player 0's return is the score
difference. A unit on a good cell may have to step onto a worse one to reach the best, and a
unit may have to wait for another to clear the way: one-step greedy play misses such turns,
and the best turn (known by brute force over every turn) needs a search.
"""
from __future__ import annotations

from base.jit import hot
from base.params import Param, table
from core.game import Game

UNITS = 3
STEPS = 2  # steps a unit may take in one turn
P_STEPS = 2 * UNITS  # the state's words after the cells
P_SCORE = P_STEPS + 1
P_PLAYER = P_SCORE + 2
P_LEFT = P_PLAYER + 1
WORDS = P_LEFT + 1
END = 2 * UNITS
G_LEN = 0  # g: the line's length, then each cell's value
G_VALUES = 1


@hot
def to_move(g, s) -> int:
    return s[P_PLAYER]


@hot
def terminal(g, s) -> bool:
    return s[P_LEFT] == 0


@hot
def outcome(g, s) -> float:
    return float(s[P_SCORE] - s[P_SCORE + 1])


@hot
def free(g, s, c: int) -> bool:
    if c < 0 or c >= g[G_LEN]:
        return False
    for i in range(2 * UNITS):
        if s[i] == c:
            return False
    return True


@hot
def legal(g, s, out, base) -> int:
    if terminal(g, s):
        return 0
    p = s[P_PLAYER]
    n = 0
    for k in range(UNITS):
        if (s[P_STEPS] >> (2 * k)) & 3 < STEPS:
            c = s[p * UNITS + k]
            for side in range(2):
                if free(g, s, c - 1 + 2 * side):
                    out[base + n] = 2 * k + side
                    n += 1
    out[base + n] = END
    return n + 1


@hot
def cell_sum(g, s, p: int) -> int:
    t = 0
    for k in range(UNITS):
        t += g[G_VALUES + s[p * UNITS + k]]
    return t


@hot
def play(g, s, a):
    p = s[P_PLAYER]
    c0, c1, c2, c3, c4, c5 = s[0], s[1], s[2], s[3], s[4], s[5]
    steps, sc0, sc1, left = s[P_STEPS], s[P_SCORE], s[P_SCORE + 1], s[P_LEFT]
    if a == END:
        if p == 0:
            sc0 += cell_sum(g, s, 0)
        else:
            sc1 += cell_sum(g, s, 1)
        return (c0, c1, c2, c3, c4, c5, 0, sc0, sc1, 1 - p, left - 1)
    k, d = a // 2, 2 * (a % 2) - 1
    i = p * UNITS + k
    if i == 0:
        c0 += d
    elif i == 1:
        c1 += d
    elif i == 2:
        c2 += d
    elif i == 3:
        c3 += d
    elif i == 4:
        c4 += d
    else:
        c5 += d
    return (c0, c1, c2, c3, c4, c5, steps + (1 << (2 * k)), sc0, sc1, p, left)


@hot
def actor(g, s, a) -> int:
    return a // 2


@hot
def evaluate(g, s, params) -> float:
    """For the side to move: the score difference plus the cells its units stand on minus the
    opponent's (what the next turn's end would score)."""
    p = s[P_PLAYER]
    return float(s[P_SCORE + p] - s[P_SCORE + 1 - p] + cell_sum(g, s, p) - cell_sum(g, s, 1 - p))


class Squad(Game):
    """Three units a side on a line of ``values`` (cell values separated by "/"); ``turns``
    turns in all; ``start`` the six units' cells (player 0's first)."""

    name = "squad"
    words = WORDS
    num_actions = END + 1
    kernels = "tests.games_squad"
    end_turn_action = END
    win_value = 100.0
    PARAMS = table(Param("values", "5/0/0/9/1/0/7/0/0/3", doc="each cell's value, '/'-separated"),
                   Param("start", "0/2/4/6/7/9", doc="the units' cells, player 0's three first"),
                   Param("turns", 6, doc="turns in all (both players')"))

    def validate(self) -> None:
        v = [int(x) for x in self.params["values"].split("/")]
        c = [int(x) for x in self.params["start"].split("/")]
        if len(c) != 2 * UNITS or len(set(c)) != len(c) or not all(0 <= x < len(v) for x in c):
            raise ValueError("start must name six distinct cells of the line")

    def constants(self) -> list[int]:
        v = [int(x) for x in self.params["values"].split("/")]
        return [len(v)] + v

    def initial_words(self):
        c = [int(x) for x in self.params["start"].split("/")]
        return tuple(c) + (0, 0, 0, 0, self.params["turns"])
