"""Liar's Dice, one die each: bids on both hidden dice (rules in :mod:`core.liars_dice.kernels`)."""
from __future__ import annotations

from core.game import State
from core.hidden import CardGame
from core.liars_dice import kernels as K

FACE_NAMES = tuple(str(f) for f in range(1, K.SIDES + 1))  # a roll's outcome i shows face i + 1
BID_NAMES = tuple(f"{b // K.SIDES + 1}-{b % K.SIDES + 1}" for b in range(K.BIDS)) + ("liar",)


class LiarsDice(CardGame):
    """Liar's Dice, two players, one six-sided die each, sixes wild (OpenSpiel's ``liars_dice``
    rules and action numbers: bid ``b`` is quantity ``b // 6 + 1`` of face ``b % 6 + 1``; 12 calls liar)."""

    name = "liars_dice"
    words = 4
    num_actions = K.NUM_ACTIONS
    kernels = "core.liars_dice.kernels"
    win_value = 1.0
    card_names = tuple(f"roll {f}" for f in FACE_NAMES)
    bet_names = BID_NAMES
    states = 294_883  # every state, chance nodes and terminal ones included (tests/test_liars_dice.py)

    def initial_words(self):
        return (K.NONE, K.NONE, 0, 0)

    def action_to_string(self, state: State, action: int) -> str:
        if state.is_chance_node():
            return self.card_names[action]
        return self.bet_names[action]

    def render(self, state: State) -> str:
        d0, d1, mask, called = state.words
        dice = " ".join(f"player {p}: {FACE_NAMES[d] if d != K.NONE else '-'}" for p, d in ((0, d0), (1, d1)))
        bids = [BID_NAMES[b] for b in range(K.BIDS) if (mask >> b) & 1] + (["liar"] if called else [])
        return f"{dice}\nbids: {' '.join(bids) or '-'}"
