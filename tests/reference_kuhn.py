"""Kuhn poker written from the rules (OpenSpiel's ``kuhn_poker``), independently of the kernels:
a mutable history of moves, the oracle ``tests/test_kuhn_poker.py`` checks them against."""
from __future__ import annotations


class Ref:
    def __init__(self) -> None:
        self.cards: list[int] = []  # dealt, player 0's first
        self.moves = ""  # "p"/"b" per betting action

    def copy(self) -> Ref:
        r = Ref()
        r.cards, r.moves = list(self.cards), self.moves
        return r

    def is_chance(self) -> bool:
        return len(self.cards) < 2

    def is_terminal(self) -> bool:
        return self.moves in ("pp", "bp", "bb", "pbp", "pbb")

    def player(self) -> int:
        return -1 if self.is_chance() else len(self.moves) % 2

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(3) if c not in self.cards]
        return [(c, 1.0 / len(left)) for c in left]

    def legal(self) -> list[int]:
        if self.is_terminal():
            return []
        return [c for c, _ in self.chance_outcomes()] if self.is_chance() else [0, 1]

    def apply(self, a: int) -> Ref:
        r = self.copy()
        if r.is_chance():
            r.cards.append(a)
        else:
            r.moves += "pb"[a]
        return r

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        pot = [1 + self.moves[0::2].count("b"), 1 + self.moves[1::2].count("b")]
        if self.moves.endswith("bp"):  # the last to act folded to a bet
            folder = (len(self.moves) - 1) % 2
            winner = 1 - folder
        else:
            winner = 0 if self.cards[0] > self.cards[1] else 1
        won = pot[1 - winner]
        return (float(won), -float(won)) if winner == 0 else (-float(won), float(won))

    def info(self, p: int) -> str:
        """The player and the cards dealt, then OpenSpiel's information state string: its card, then the bets."""
        return f"{p}|{len(self.cards)}|" + (str(self.cards[p]) if len(self.cards) > p else "") + self.moves
