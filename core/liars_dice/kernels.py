"""Liar's Dice, two players with one six-sided die each, on the kernel contract
(:mod:`core.game`) with its hidden-information hooks, with OpenSpiel's rules and action numbers
(``liars_dice``: ``players=2, numdice=1, dice_sides=6``, the ``reset-face`` bid order), so the two
replay side by side (``tests/test_poker_openspiel.py``).

Rules: chance rolls player 0's die, then player 1's (6 outcomes each; outcome ``i`` is the face
``i + 1``). Player 0 bids first, then the players alternate. A bid ``b`` (0..11) claims at least
``b // 6 + 1`` dice show the face ``b % 6 + 1``; each bid must be higher than the last. Instead of
bidding, the player to move may call ``LIAR`` (action 12) once a bid has been made; then both
dice are shown: a die matches when it shows the bid's face or a 6 (sixes are wild). The bidder
wins 1 from the caller when at least the bid's quantity of dice match, else the caller wins 1.

State, four words: ``(die0, die1, bids, called)``: each player's roll (``NONE`` before it), the
bids made as a bit mask (bids only rise, so the mask is the whole sequence: the ``k``-th lowest
bid was made by player ``k % 2``) and 1 once liar is called. ``g`` is unused. A player observes
its own die and every bid, never the other die.
"""
from __future__ import annotations

from base.jit import hot
from core.hidden import draw

CHANCE = -1  # core.game.CHANCE (a literal: numba reads module globals as constants)
NONE = 6  # a die not rolled yet
SIDES = 6
DICE = 2  # one die a player
BIDS = DICE * SIDES  # 12 bids: quantity 1 or 2 of faces 1..6
LIAR = BIDS  # action 12
NUM_ACTIONS = BIDS + 1
WILD = SIDES - 1  # the roll index of a six
D0, D1, MASK, CALLED = 0, 1, 2, 3  # the state's words


@hot
def count(mask: int) -> int:
    """How many bids the mask holds."""
    n = 0
    for b in range(BIDS):
        n += (mask >> b) & 1
    return n


@hot
def last_bid(mask: int) -> int:
    """The highest bid made, or -1 before the first."""
    top = -1
    for b in range(BIDS):
        if (mask >> b) & 1:
            top = b
    return top


@hot
def to_move(g, s) -> int:
    if s[D0] == NONE or s[D1] == NONE:
        return CHANCE
    return count(s[MASK]) % 2


@hot
def terminal(g, s) -> bool:
    return s[CALLED] == 1


@hot
def matches(s, face: int) -> int:
    """Dice showing the roll index ``face`` or a six."""
    n = 0
    for d in (s[D0], s[D1]):
        if d == face or d == WILD:
            n += 1
    return n


@hot
def outcome(g, s) -> float:
    if s[CALLED] == 0:
        return 0.0
    n = count(s[MASK])
    bid = last_bid(s[MASK])
    bidder = (n - 1) % 2
    bidder_wins = matches(s, bid % SIDES) >= bid // SIDES + 1
    winner = bidder if bidder_wins else 1 - bidder
    return 1.0 if winner == 0 else -1.0


@hot
def legal(g, s, out, base) -> int:
    if terminal(g, s):
        return 0
    n = 0
    if s[D0] == NONE or s[D1] == NONE:
        for face in range(SIDES):
            out[base + n] = face
            n += 1
        return n
    for b in range(last_bid(s[MASK]) + 1, BIDS):
        out[base + n] = b
        n += 1
    if s[MASK] != 0:
        out[base + n] = LIAR
        n += 1
    return n


@hot
def chance_prob(g, s, a) -> float:
    if s[D0] == NONE or s[D1] == NONE:
        return 1.0 / SIDES
    return 0.0


@hot
def play(g, s, a):
    if s[D0] == NONE:
        return (a, s[D1], s[MASK], s[CALLED])
    if s[D1] == NONE:
        return (s[D0], a, s[MASK], s[CALLED])
    if a == LIAR:
        return (s[D0], s[D1], s[MASK], 1)
    return (s[D0], s[D1], s[MASK] | (1 << a), s[CALLED])


@hot
def info_key(g, s, p):
    """(player, own die, dice rolled, bids, called): a roll is seen, not its face."""
    return (p, s[p], (s[D0] != NONE) + (s[D1] != NONE), s[MASK], s[CALLED])


@hot
def observe(g, s, p):
    """(own die, the last bid or -1, bids made, called)."""
    return (s[p], last_bid(s[MASK]), count(s[MASK]), s[CALLED])


@hot
def determinize(g, s, p, seed):
    """The other die, if rolled, drawn uniformly (the dice are independent)."""
    other = s[1 - p]
    if other != NONE:
        other = draw(seed, SIDES)
    if p == 0:
        return (s[D0], other, s[MASK], s[CALLED])
    return (other, s[D1], s[MASK], s[CALLED])
