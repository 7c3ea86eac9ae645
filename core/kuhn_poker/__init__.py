"""Kuhn poker: the smallest poker, with hidden cards (rules in :mod:`core.kuhn_poker.kernels`)."""
from __future__ import annotations

from core.game import State
from core.hidden import CardGame
from core.kuhn_poker import kernels as K

CARD_NAMES = ("J", "Q", "K")
BET_NAMES = ("pass", "bet")


class KuhnPoker(CardGame):
    """Kuhn poker (J, Q, K; ante 1, one bet of 1; OpenSpiel's rules and action numbers)."""

    name = "kuhn_poker"
    words = 4
    num_actions = K.NUM_ACTIONS
    kernels = "core.kuhn_poker.kernels"
    win_value = 2.0
    scores_by_returns = True  # chips: the arena reports the mean return a game
    card_names = CARD_NAMES
    bet_names = BET_NAMES
    states = 58  # every state, chance nodes and terminal ones included (tests/test_poker.py)

    def initial_words(self):
        return (K.NONE, K.NONE, 0, 0)

    def render(self, state: State) -> str:
        c0, c1, n, bets = state.words
        cards = " ".join(f"player {p}: {CARD_NAMES[c] if c != K.NONE else '-'}" for p, c in ((0, c0), (1, c1)))
        line = " ".join("pb"[(bets >> i) & 1] for i in range(n))
        return f"{cards}\nbets: {line or '-'}"
