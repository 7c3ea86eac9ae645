"""Kuhn poker on the kernel contract (:mod:`core.game`) with its hidden-information hooks, with
OpenSpiel's rules and action numbers (``kuhn_poker``), so the two replay side by side
(``tests/test_poker_openspiel.py``).

Rules: three cards J, Q, K (0, 1, 2); each player antes 1; chance deals player 0's card (3
outcomes, 1/3 each) then player 1's (the 2 left, 1/2 each). Player 0 acts first; actions 0 pass
(check or fold) and 1 bet (bet 1 or call). ``pp``: showdown for 1; ``bp`` and ``pbp``: the bettor
wins 1; ``bb`` and ``pbb``: showdown for 2. The higher card wins a showdown.

State, four words: ``(card0, card1, n, bets)``: each player's card (``NONE`` before the deal),
the number ``n`` of betting actions and the actions, action ``i`` at bit ``i``. ``g`` is unused.
A player observes its own card and every bet, never the other card.
"""
from __future__ import annotations

from base.jit import hot
from core.hidden import draw

CHANCE = -1  # core.game.CHANCE (a literal: numba reads module globals as constants)
NONE = 3  # a card not dealt yet
PASS, BET = 0, 1
CARDS = 3
NUM_ACTIONS = 3  # a deal's outcomes are the cards; decisions use 0 and 1
PB = 2  # the bets word of pass, bet: the one two-action history that goes on


@hot
def to_move(g, s) -> int:
    if s[0] == NONE or s[1] == NONE:
        return CHANCE
    return s[2] % 2


@hot
def terminal(g, s) -> bool:
    return s[2] == 3 or (s[2] == 2 and s[3] != PB)


@hot
def outcome(g, s) -> float:
    sign = 1.0 if s[0] > s[1] else -1.0
    n, bets = s[2], s[3]
    if n == 2 and bets == 0:  # pass, pass
        return sign
    if n == 2 and bets == 1:  # bet, pass: player 1 folds
        return 1.0
    if n == 3 and bets == PB:  # pass, bet, pass: player 0 folds
        return -1.0
    return 2.0 * sign  # a bet called


@hot
def legal(g, s, out, base) -> int:
    if terminal(g, s):
        return 0
    n = 0
    if s[0] == NONE or s[1] == NONE:
        for c in range(CARDS):
            if c != s[0]:
                out[base + n] = c
                n += 1
        return n
    out[base] = PASS
    out[base + 1] = BET
    return 2


@hot
def chance_prob(g, s, a) -> float:
    if s[0] == NONE:
        return 1.0 / 3.0
    if s[1] == NONE:
        return 0.5
    return 0.0


@hot
def play(g, s, a):
    if s[0] == NONE:
        return (a, s[1], s[2], s[3])
    if s[1] == NONE:
        return (s[0], a, s[2], s[3])
    return (s[0], s[1], s[2] + 1, s[3] | (a << s[2]))


@hot
def info_key(g, s, p):
    """(player, own card, cards dealt, bets made, the bets): a deal is seen, not its card."""
    return (p, s[p], (s[0] != NONE) + (s[1] != NONE), s[2], s[3])


@hot
def observe(g, s, p):
    """(own card, chips player 0 and player 1 put in)."""
    c0 = 1
    c1 = 1
    for i in range(s[2]):
        if (s[3] >> i) & 1:
            if i % 2 == 0:
                c0 += 1
            else:
                c1 += 1
    return (s[p], c0, c1)


@hot
def determinize(g, s, p, seed):
    """The other card, if dealt, drawn among the cards ``p`` does not hold."""
    other = s[1 - p]
    if other != NONE:
        k = draw(seed, CARDS - 1 if s[p] != NONE else CARDS)
        other = k if s[p] == NONE or k < s[p] else k + 1
    if p == 0:
        return (s[0], other, s[2], s[3])
    return (other, s[1], s[2], s[3])
