"""Leduc hold'em written from the rules (OpenSpiel's ``leduc_poker``, two players), independently
of the kernels: chips, stakes and call counts kept as OpenSpiel's C++ keeps them, the oracle
``tests/test_poker.py`` checks the kernels against."""
from __future__ import annotations


class Ref:
    def __init__(self) -> None:
        self.private: list[int] = []  # dealt cards, player 0's first
        self.public = -1
        self.put = [1, 1]  # chips in the pot (the antes)
        self.stakes = 1  # what a player must have put in to stay
        self.round = 1
        self.raises = 0
        self.calls = 0
        self.player_to_act = 0
        self.folded = -1
        self.history: list[list[int]] = [[], []]  # each round's actions

    def copy(self) -> Ref:
        r = Ref()
        r.__dict__.update({k: (list(v) if isinstance(v, list) else v) for k, v in self.__dict__.items()})
        r.history = [list(h) for h in self.history]
        return r

    def is_chance(self) -> bool:
        return not self.is_terminal() and (len(self.private) < 2 or (self.round == 2 and self.public < 0))

    def is_terminal(self) -> bool:
        return self.folded >= 0 or self.round == 3

    def player(self) -> int:
        return -1 if self.is_chance() else self.player_to_act

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(6) if c not in self.private and c != self.public]
        return [(c, 1.0 / len(left)) for c in left]

    def legal(self) -> list[int]:
        if self.is_terminal():
            return []
        if self.is_chance():
            return [c for c, _ in self.chance_outcomes()]
        moves = [0] if self.stakes > self.put[self.player_to_act] else []
        moves.append(1)
        if self.raises < 2:
            moves.append(2)
        return moves

    def apply(self, a: int) -> Ref:
        r = self.copy()
        if r.is_chance():
            if len(r.private) < 2:
                r.private.append(a)
            else:
                r.public = a
            return r
        me = r.player_to_act
        r.history[r.round - 1].append(a)
        if a == 0:
            r.folded = me
            return r
        if a == 2:
            r.raises += 1
            r.calls = 0
            r.stakes += 2 if r.round == 1 else 4
        else:
            r.calls += 1
        r.put[me] = r.stakes
        if (r.raises == 0 and r.calls == 2) or (r.raises > 0 and r.calls == 1):
            r.round += 1
            r.raises = r.calls = 0
            r.player_to_act = 0
        else:
            r.player_to_act = 1 - me
        return r

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        if self.folded >= 0:
            winner = 1 - self.folded
        else:
            def rank(p: int) -> int:
                mine = self.private[p] // 2
                return 100 + mine if mine == self.public // 2 else mine
            r0, r1 = rank(0), rank(1)
            if r0 == r1:
                return (0.0, 0.0)
            winner = 0 if r0 > r1 else 1
        won = float(self.put[1 - winner])
        return (won, -won) if winner == 0 else (-won, won)

    def info(self, p: int) -> str:
        """OpenSpiel-like information state: own card, the cards dealt, public card, each round's actions."""
        own = self.private[p] if len(self.private) > p else -1
        return f"{p}|{own}|{len(self.private)}|{self.public}|{self.history[0]}|{self.history[1]}"
