"""Small games and a heuristic for the engine's search tests (not registered in core.games).

``coins``: a row of ``n`` cells with seeded values 0..6; players take cells from the ends and
score them. Actions: 0 take the left cell, 1 the right one, 2 both ends (a chance node follows
when ``dice``: a fair coin adds 1 to the mover's score or not), 3 take the left cell and move
again (only when it is even and two cells or more remain). The game ends when no cell is left;
``outcome`` = player 0's score minus player 1's. It has everything tic-tac-toe lacks: score
differences, a player moving twice, the same state at different plies, optional chance nodes.
State ``(left, right + 1, diff + OFFSET, mover)``; ``mover`` 2 or 3 is a chance node whose next
mover is ``mover - 2``.
"""
from __future__ import annotations

import random

from base.jit import hot
from base.params import Param, default_lists, table
from core.game import Game
from core.tictactoe.kernels import LINES, popcount9

OFFSET = 1000


@hot
def to_move(g, s) -> int:
    if s[3] >= 2:  # a chance node, or after the game ended on one: the player who would move next
        return -1 if s[0] < s[1] else s[3] - 2
    return s[3]


@hot
def terminal(g, s) -> bool:
    return s[0] >= s[1]


@hot
def outcome(g, s) -> float:
    return float(s[2] - OFFSET)


@hot
def chance_prob(g, s, a) -> float:
    if s[3] >= 2:
        return 0.5
    return 0.0


@hot
def legal(g, s, out, base) -> int:
    if s[0] >= s[1]:
        return 0
    if s[3] >= 2:
        out[base] = 0
        out[base + 1] = 1
        return 2
    out[base] = 0
    out[base + 1] = 1
    n = 2
    if s[1] - s[0] >= 2:
        out[base + n] = 2
        n += 1
        if g[2 + s[0]] % 2 == 0:
            out[base + n] = 3
            n += 1
    return n


@hot
def play(g, s, a):
    left, right, diff, mover = s[0], s[1], s[2], s[3]
    if mover >= 2:  # chance: a coin for the player who just took both ends
        nxt = mover - 2
        gain = a if nxt == 1 else -a  # the previous mover is 1 - nxt
        return (left, right, diff + gain, nxt)
    sign = 1 if mover == 0 else -1
    if a == 0:
        return (left + 1, right, diff + sign * g[2 + left], 1 - mover)
    if a == 1:
        return (left, right - 1, diff + sign * g[1 + right], 1 - mover)
    if a == 2:
        nxt = 1 - mover
        if g[1] != 0:
            nxt += 2
        return (left + 1, right - 1, diff + sign * (g[2 + left] + g[1 + right]), nxt)
    return (left + 1, right, diff + sign * g[2 + left], mover)


@hot
def evaluate_greedy(g, s, params) -> float:
    """Score lead for the side to move, plus the better end cell (test heuristic)."""
    lead = float(s[2] - OFFSET)
    if s[3] % 2 == 1:
        lead = -lead
    best = g[2 + s[0]]
    if s[1] > s[0] and g[1 + s[1]] > best:
        best = g[1 + s[1]]
    return params[0] * lead + float(best)


HEURISTICS = {"greedy": evaluate_greedy}
PARAMS = {"greedy": (Param("lead", 1000.0, -1.0e6, 1.0e6, "weight of a point of score lead (the best coin on offer adds to it)"),)}
DEFAULT_PARAMS = default_lists(PARAMS)


class Coins(Game):
    """Take cells from the ends of a row; return = score difference."""

    name = "coins"
    words = 4
    num_actions = 4
    kernels = "tests.engine_toys"
    heuristics = "tests.engine_toys"
    PARAMS = table(Param("n", 7, doc="cells"), Param("seed", 0, doc="values' seed"), Param("dice", 0, doc="1: chance after action 2"))

    def constants(self) -> list[int]:
        rng = random.Random(self.params["seed"])
        return [self.params["n"], self.params["dice"]] + [rng.randrange(7) for _ in range(self.params["n"])]

    def initial_words(self):
        return (0, self.params["n"], OFFSET, 0)

    @property
    def win_value(self) -> float:  # type: ignore[override]
        return float(6 * self.params["n"] + self.params["n"])

    def action_to_string(self, state, action: int) -> str:
        return "LRBA"[action] if not state.is_chance_node() else "HT"[action]

    def string_to_action(self, state, text: str) -> int:
        t = text.strip().upper()
        table = "HT" if state.is_chance_node() else "LRBA"
        if len(t) != 1 or t not in table:
            raise ValueError(f"{text!r} is not an action: one of {', '.join(table)}")
        return table.index(t)


# --- a heuristic for tic-tac-toe (core.tictactoe has none) -----------------------------------------
@hot
def evaluate_ttt_lines(g, s, params) -> float:
    """Open lines weighted by their stones, for the side to move minus the opponent's."""
    x, o = s[0], s[1]
    me, them = (x, o) if popcount9(x) == popcount9(o) else (o, x)
    score = 0.0
    for line in LINES:
        if line & them == 0:
            score += params[0] * (1 + 3 * popcount9(line & me))
        if line & me == 0:
            score -= params[0] * (1 + 2 * popcount9(line & them))
    return score
