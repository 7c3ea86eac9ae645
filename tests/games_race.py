"""A race on the kernel contract: the engine's test game for the urgency problem (issue 15).

State ``(need0, need1, player)``: the steps each player still needs. Actions 0, 1, 2 move the
mover that many steps (0: wait). Whoever needs nothing more has won. A player far ahead wins
nearly every random playout whatever it does, so an agent that does not prefer quick wins
wanders (waits, steps by one); the quickest win steps by two every move.
"""
from __future__ import annotations

from base.jit import hot
from base.params import Param, table
from core.game import Game


@hot
def to_move(g, s) -> int:
    return s[2]


@hot
def terminal(g, s) -> bool:
    return s[0] == 0 or s[1] == 0


@hot
def outcome(g, s) -> float:
    if s[0] == 0:
        return 1.0
    if s[1] == 0:
        return -1.0
    return 0.0


@hot
def legal(g, s, out, base) -> int:
    if terminal(g, s):
        return 0
    for a in range(3):
        out[base + a] = a
    return 3


@hot
def play(g, s, a):
    if s[2] == 0:
        return (max(0, s[0] - a), s[1], 1)
    return (s[0], max(0, s[1] - a), 0)


class Race(Game):
    """Each player needs ``need0`` / ``need1`` steps; move 0, 1 or 2 a turn; first there wins."""

    name = "race"
    words = 3
    num_actions = 3
    kernels = "tests.games_race"
    PARAMS = table(Param("need0", 10, doc="steps player 0 needs"), Param("need1", 30, doc="steps player 1 needs"))

    def initial_words(self):
        return (self.params["need0"], self.params["need1"], 0)
