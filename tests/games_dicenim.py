"""Dice Nim on the kernel contract (:mod:`core.game`): a dice game whose legal actions change
with every roll, for chance-node and open-loop MCTS.

A pile of stones; before each turn a die shows 1, 2 or 3 (probabilities ``PROBS``) and the mover
takes 1..min(roll, pile) stones; whoever takes the last stone wins. State
``(pile, player, roll)``, roll 0 at the chance node that starts each turn; action ``a`` takes
``a + 1`` stones (at a chance node: the roll ``a + 1``).
"""
from __future__ import annotations

from base.jit import hot
from base.params import Param, table
from core.game import CHANCE, Game

PROBS = (0.5, 0.3, 0.2)


@hot
def to_move(g, s) -> int:
    if s[0] > 0 and s[2] == 0:
        return CHANCE
    return s[1]


@hot
def terminal(g, s) -> bool:
    return s[0] == 0


@hot
def outcome(g, s) -> float:
    return 1.0 if s[1] == 1 else -1.0  # the player to move at an empty pile lost it


@hot
def chance_prob(g, s, a) -> float:
    return PROBS[a]


@hot
def legal(g, s, out, base) -> int:
    if s[0] == 0:
        return 0
    if s[2] == 0:
        for a in range(3):
            out[base + a] = a
        return 3
    n = min(s[2], s[0])
    for a in range(n):
        out[base + a] = a
    return n


@hot
def play(g, s, a):
    if s[2] == 0:
        return (s[0], s[1], a + 1)
    if a + 1 > min(s[2], s[0]):
        raise ValueError("illegal take")
    return (s[0] - a - 1, 1 - s[1], 0)


class DiceNim(Game):
    """Roll 1-3, take up to the roll; the last stone wins."""

    name = "dicenim"
    words = 3
    num_actions = 3
    kernels = "tests.games_dicenim"
    has_chance = True
    PARAMS = table(Param("pile", 12, doc="stones at the start"))

    def initial_words(self):
        return (self.params["pile"], 0, 0)
