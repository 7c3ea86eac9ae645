"""A one-roll dice game on the kernel contract (:mod:`core.game`), with a known expected value,
for chance-node and open-loop MCTS (:mod:`tests.games_dicenim` is the other dice game).

**OneRoll**: player 0 stands (``STAND`` points) or rolls an unfair die
(face ``d`` with probability ``PROBS[d]``); after a roll player 1 picks the result: ``A[d]``,
or ``B[d]`` on even faces only (so legal actions depend on the roll). Player 1 minimizes, so
rolling is worth ``sum(PROBS[d] * min(A[d], B[d] if d even))``: :func:`roll_value`.
State ``(stage, face, result + 100)``, stage 0: player 0, 1: chance, 2: player 1, 3: over.
"""
from __future__ import annotations

from base.jit import hot
from core.game import CHANCE, Game

PROBS = (0.1, 0.25, 0.15, 0.2, 0.05, 0.25)
A = (4, -6, 8, 5, -2, 9)
B = (-3, 0, 2, 0, -8, 0)  # used on even faces only
STAND = 1


def roll_value() -> float:
    """Player 0's expected outcome after rolling (player 1 picking the lower result)."""
    return sum(p * (min(a, b) if d % 2 == 0 else a) for d, (p, a, b) in enumerate(zip(PROBS, A, B)))


@hot
def to_move(g, s) -> int:
    if s[0] == 1:
        return CHANCE
    if s[0] == 2:
        return 1
    return 0 if s[0] == 0 else 1


@hot
def terminal(g, s) -> bool:
    return s[0] == 3


@hot
def outcome(g, s) -> float:
    return float(s[2] - 100)


@hot
def chance_prob(g, s, a) -> float:
    return PROBS[a]


@hot
def legal(g, s, out, base) -> int:
    if s[0] == 0:
        out[base] = 0
        out[base + 1] = 1
        return 2
    if s[0] == 1:
        for d in range(6):
            out[base + d] = d
        return 6
    if s[0] == 2:
        out[base] = 0
        if s[1] % 2 == 0:
            out[base + 1] = 1
            return 2
        return 1
    return 0


@hot
def play(g, s, a):
    if s[0] == 0:
        if a == 0:
            return (3, 0, STAND + 100)
        return (1, 0, 100)
    if s[0] == 1:
        return (2, a, 100)
    if a == 1 and s[1] % 2 != 0:
        raise ValueError("illegal choice on an odd face")
    return (3, s[1], (A[s[1]] if a == 0 else B[s[1]]) + 100)


class OneRoll(Game):
    """Stand or roll an unfair die; after a roll the opponent picks the result."""

    name = "oneroll"
    words = 3
    num_actions = 6
    kernels = "tests.games_dice"
    win_value = 10.0
    has_chance = True

    def initial_words(self):
        return (0, 0, 100)

