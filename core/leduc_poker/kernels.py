"""Leduc hold'em on the kernel contract (:mod:`core.game`) with its hidden-information hooks,
with OpenSpiel's rules and action numbers (``leduc_poker``, two players), so the two replay side
by side (``tests/test_poker_openspiel.py``).

Rules: six cards, J J Q Q K K (card ``c`` has rank ``c // 2``); each player antes 1; chance
deals player 0's card (6 outcomes), player 1's (5), and after the first betting round a public
card (4), each uniform. Two betting rounds, player 0 first in each; actions 0 fold (only when
facing a bet), 1 call (or check), 2 raise (at most two a round; by 2 in round 1, by 4 in
round 2). A round ends on check, check or on a call after a raise. A fold loses what the folder
put in; at the showdown a pair with the public card wins, else the higher rank, else a split.

State, seven words: ``(card0, card1, public, bets1, n1, bets2, n2)``: the cards (``NONE``
before their deal) and each round's actions, action ``i`` at bits ``2i`` and ``2i + 1``, with
their count. The chips, raises and the player to move follow from the actions (:func:`scan`).
``g`` is unused. A player observes its own card, the public card and every action.
"""
from __future__ import annotations

from base.jit import hot
from core.hidden import draw

CHANCE = -1  # core.game.CHANCE (a literal: numba reads module globals as constants)
NONE = 6  # a card not dealt yet
FOLD, CALL, RAISE = 0, 1, 2
CARDS = 6
NUM_ACTIONS = 6  # the first deal has 6 outcomes; decisions use 0..2
MAX_RAISES = 2
RAISE_1, RAISE_2 = 2, 4
C0, C1, PUB, BETS1, N1, BETS2, N2 = 0, 1, 2, 3, 4, 5, 6  # the state's words


@hot
def scan(bets: int, n: int, raise_by: int, put0: int, put1: int):
    """A round's actions from chips ``put0``/``put1``: (put0, put1, raises, folder or -1, over)."""
    raises = 0
    calls = 0
    folder = -1
    for i in range(n):
        a = (bets >> (2 * i)) & 3
        top = max(put0, put1)
        if a == FOLD:
            folder = i % 2
        elif a == CALL:
            calls += 1
            if i % 2 == 0:
                put0 = top
            else:
                put1 = top
        else:
            raises += 1
            calls = 0
            if i % 2 == 0:
                put0 = top + raise_by
            else:
                put1 = top + raise_by
    over = folder >= 0 or (raises == 0 and calls == 2) or (raises > 0 and calls == 1)
    return put0, put1, raises, folder, over


@hot
def betting(s):
    """The betting so far: (put0, put1, round 1 or 2, raises this round, folder or -1, round over)."""
    put0, put1, raises, folder, over = scan(s[BETS1], s[N1], RAISE_1, 1, 1)
    if folder >= 0 or not over or s[PUB] == NONE:
        return put0, put1, 1, raises, folder, over
    put0, put1, raises, folder, over = scan(s[BETS2], s[N2], RAISE_2, put0, put1)
    return put0, put1, 2, raises, folder, over


@hot
def terminal(g, s) -> bool:
    if s[C1] == NONE:
        return False
    put0, put1, rnd, raises, folder, over = betting(s)
    return folder >= 0 or (rnd == 2 and over)


@hot
def to_move(g, s) -> int:
    if s[C1] == NONE:
        return CHANCE
    put0, put1, rnd, raises, folder, over = betting(s)
    if rnd == 1 and over and folder < 0:
        return CHANCE
    return (s[N1] if rnd == 1 else s[N2]) % 2


@hot
def strength(card: int, public: int) -> int:
    return 10 + card // 2 if card // 2 == public // 2 else card // 2


@hot
def outcome(g, s) -> float:
    put0, put1, rnd, raises, folder, over = betting(s)
    if folder == 0:
        return -float(put0)
    if folder == 1:
        return float(put1)
    a, b = strength(s[C0], s[PUB]), strength(s[C1], s[PUB])
    return float(put1) if a > b else -float(put0) if b > a else 0.0


@hot
def legal(g, s, out, base) -> int:
    if terminal(g, s):
        return 0
    n = 0
    if to_move(g, s) == CHANCE:
        for c in range(CARDS):
            if c != s[C0] and c != s[C1] and c != s[PUB]:
                out[base + n] = c
                n += 1
        return n
    put0, put1, rnd, raises, folder, over = betting(s)
    mine = put0 if to_move(g, s) == 0 else put1
    if mine < max(put0, put1):
        out[base + n] = FOLD
        n += 1
    out[base + n] = CALL
    n += 1
    if raises < MAX_RAISES:
        out[base + n] = RAISE
        n += 1
    return n


@hot
def chance_prob(g, s, a) -> float:
    if s[C0] == NONE:
        return 1.0 / 6.0
    if s[C1] == NONE:
        return 0.2
    return 0.25 if to_move(g, s) == CHANCE else 0.0


@hot
def play(g, s, a):
    if s[C0] == NONE:
        return (a, s[C1], s[PUB], s[BETS1], s[N1], s[BETS2], s[N2])
    if s[C1] == NONE:
        return (s[C0], a, s[PUB], s[BETS1], s[N1], s[BETS2], s[N2])
    if to_move(g, s) == CHANCE:
        return (s[C0], s[C1], a, s[BETS1], s[N1], s[BETS2], s[N2])
    if s[PUB] == NONE:
        return (s[C0], s[C1], s[PUB], s[BETS1] | (a << (2 * s[N1])), s[N1] + 1, s[BETS2], s[N2])
    return (s[C0], s[C1], s[PUB], s[BETS1], s[N1], s[BETS2] | (a << (2 * s[N2])), s[N2] + 1)


@hot
def info_key(g, s, p):
    """(player, own card, private cards dealt, public card, both rounds' actions and counts): a
    deal is seen, not its card."""
    return (p, s[p], (s[C0] != NONE) + (s[C1] != NONE), s[PUB], s[BETS1], s[N1], s[BETS2], s[N2])


@hot
def observe(g, s, p):
    """(own card, public card, chips of player 0 and player 1, round, raises this round)."""
    put0, put1, rnd, raises, folder, over = betting(s)
    return (s[p], s[PUB], put0, put1, rnd, raises)


@hot
def determinize(g, s, p, seed):
    """The other private card, if dealt, drawn among the cards ``p`` has not seen."""
    other = s[1 - p]
    if other != NONE:
        k = draw(seed, CARDS - (s[p] != NONE) - (s[PUB] != NONE))
        for c in range(CARDS):
            if c != s[p] and c != s[PUB]:
                if k == 0:
                    other = c
                    break
                k -= 1
    if p == 0:
        return (s[C0], other, s[PUB], s[BETS1], s[N1], s[BETS2], s[N2])
    return (other, s[C1], s[PUB], s[BETS1], s[N1], s[BETS2], s[N2])
