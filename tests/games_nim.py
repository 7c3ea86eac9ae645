"""Nim with an optional extra turn, on the kernel contract (:mod:`core.game`): the engine's test
game for a player moving twice in a row and for a win by leaving the opponent no legal move.

State ``(pile, player)``. Actions 0, 1, 2 take 1, 2, 3 stones (no more than the pile). The
player to move at an empty pile has no legal move and loses (normal play). With ``bonus`` = k
(1..3), taking exactly k stones gives the mover another turn at once, even at an empty pile,
where it then loses: so the side to move never follows from a ply count.
"""
from __future__ import annotations

from base.jit import hot
from base.params import Param, table
from core.game import Game


@hot
def to_move(g, s) -> int:
    return s[1]


@hot
def terminal(g, s) -> bool:
    return s[0] == 0


@hot
def outcome(g, s) -> float:
    return 1.0 if s[1] == 1 else -1.0  # the player to move at an empty pile loses


@hot
def legal(g, s, out, base) -> int:
    n = 0
    for a in range(3):
        if a + 1 <= s[0]:
            out[base + n] = a
            n += 1
    return n


@hot
def play(g, s, a):
    take = a + 1
    if take > s[0]:
        raise ValueError("illegal take")
    if take == g[0]:
        return (s[0] - take, s[1])
    return (s[0] - take, 1 - s[1])


class Nim(Game):
    """Take 1-3 stones; no move loses; taking exactly ``bonus`` stones moves again."""

    name = "nim"
    words = 2
    num_actions = 3
    kernels = "tests.games_nim"
    PARAMS = table(Param("pile", 7, doc="stones at the start"), Param("bonus", 0, doc="a take of this size moves again (0: never)"))

    def validate(self) -> None:
        if self.params["pile"] < 0 or not 0 <= self.params["bonus"] <= 3:
            raise ValueError("pile must be >= 0 and bonus in 0..3")

    def constants(self) -> list[int]:
        return [self.params["bonus"]]

    def initial_words(self):
        return (self.params["pile"], 0)
