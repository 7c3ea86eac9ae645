"""Liar's Dice written from the rules (OpenSpiel's ``liars_dice``: two players, one six-sided die
each, sixes wild, bids in ``reset-face`` order), independently of the kernels: a mutable list of
rolls and bids, the oracle ``tests/test_liars_dice.py`` checks them against."""
from __future__ import annotations

SIDES = 6
LIAR = 2 * SIDES


class Ref:
    def __init__(self) -> None:
        self.rolls: list[int] = []  # faces 1..6, player 0's first
        self.bids: list[int] = []  # (quantity - 1) * 6 + face - 1, then LIAR when called

    def copy(self) -> Ref:
        r = Ref()
        r.rolls, r.bids = list(self.rolls), list(self.bids)
        return r

    def is_chance(self) -> bool:
        return len(self.rolls) < 2

    def is_terminal(self) -> bool:
        return bool(self.bids) and self.bids[-1] == LIAR

    def player(self) -> int:
        return -1 if self.is_chance() else len(self.bids) % 2

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, 1.0 / SIDES) for i in range(SIDES)]

    def legal(self) -> list[int]:
        if self.is_terminal():
            return []
        if self.is_chance():
            return list(range(SIDES))
        lowest = self.bids[-1] + 1 if self.bids else 0
        return list(range(lowest, LIAR)) + ([LIAR] if self.bids else [])

    def apply(self, a: int) -> Ref:
        r = self.copy()
        if r.is_chance():
            r.rolls.append(a + 1)
        else:
            r.bids.append(a)
        return r

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        claim = self.bids[-2]
        quantity, face = claim // SIDES + 1, claim % SIDES + 1
        shown = sum(1 for f in self.rolls if f == face or f == SIDES)
        bidder = (len(self.bids) - 2) % 2
        winner = bidder if shown >= quantity else 1 - bidder
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def info(self, p: int) -> str:
        """The player and how many dice were rolled, then OpenSpiel's information state string:
        its roll, then the bids (``1-4 2-4 Liar``)."""
        own = str(self.rolls[p]) if len(self.rolls) > p else ""
        words = ["Liar" if b == LIAR else f"{b // SIDES + 1}-{b % SIDES + 1}" for b in self.bids]
        return f"{p}|{len(self.rolls)}|" + " ".join([own] + words)
