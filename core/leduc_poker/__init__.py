"""Leduc hold'em: two betting rounds and a public card, with hidden cards (rules in
:mod:`core.leduc_poker.kernels`)."""
from __future__ import annotations

from core.game import State
from core.hidden import CardGame
from core.leduc_poker import kernels as K

CARD_NAMES = ("J1", "J2", "Q1", "Q2", "K1", "K2")  # rank and suit of cards 0..5
BET_NAMES = ("fold", "call", "raise")


class LeducPoker(CardGame):
    """Leduc hold'em (J J Q Q K K, one public card, two raise rounds; OpenSpiel's rules and action numbers)."""

    name = "leduc_poker"
    words = 7
    num_actions = K.NUM_ACTIONS
    kernels = "core.leduc_poker.kernels"
    win_value = 13.0  # the most a player can put in: 1 + 2 * 2 + 2 * 4
    scores_by_returns = True  # chips: the arena reports the mean return a game
    card_names = CARD_NAMES
    bet_names = BET_NAMES
    states = 9_457  # every state, chance nodes and terminal ones included (tests/test_poker.py)

    def initial_words(self):
        return (K.NONE, K.NONE, K.NONE, 0, 0, 0, 0)

    def render(self, state: State) -> str:
        w = state.words
        name = lambda c: CARD_NAMES[c] if c != K.NONE else "-"
        rounds = []
        for bets, n in ((w[K.BETS1], w[K.N1]), (w[K.BETS2], w[K.N2])):
            rounds.append(" ".join("fcr"[(bets >> (2 * i)) & 3] for i in range(n)) or "-")
        return (f"player 0: {name(w[K.C0])} player 1: {name(w[K.C1])} public: {name(w[K.PUB])}\n"
                f"round 1: {rounds[0]}\nround 2: {rounds[1]}")
