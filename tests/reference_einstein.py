"""A plain 2-D EinStein würfelt nicht!, written from the rules text (not from the kernels), as
the oracle of ``core/einstein/kernels.py``: a 5×5 list of lists holding ``None`` or
``(player, cube)``, the set-ups from :func:`itertools.permutations` (lexicographic), the moves
by scanning the board. Same action numbers as the kernels (OpenSpiel's)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

PERMS = list(itertools.permutations(range(1, 7)))  # lexicographic order, as std::next_permutation
STEPS = {0: [(1, 1), (1, 0), (0, 1)], 1: [(-1, 0), (-1, -1), (0, -1)]}  # per player, direction order
DIR_BASE = {0: 0, 1: 3}
GOAL = {0: (4, 4), 1: (0, 0)}


@dataclass
class Ref:
    board: list = field(default_factory=lambda: [[None] * 5 for _ in range(5)])
    stage: str = "setup0"  # setup0, setup1, roll, move, over
    player: int = 1  # who rolls next / who moves
    die: int = 0
    won_by: int = -1

    def copy(self) -> Ref:
        return Ref([row[:] for row in self.board], self.stage, self.player, self.die, self.won_by)

    # queries
    def is_chance(self) -> bool:
        return self.stage in ("setup0", "setup1", "roll")

    def is_terminal(self) -> bool:
        return self.stage == "over"

    def returns(self) -> tuple[float, float]:
        if self.won_by < 0:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.won_by == 0 else (-1.0, 1.0)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.stage in ("setup0", "setup1"):
            return [(i, 1 / 720) for i in range(720)]
        if self.stage == "roll":
            return [(i, 1 / 6) for i in range(6)]
        return []

    def cubes(self, p: int) -> dict[int, tuple[int, int]]:
        return {v[1]: (r, c) for r in range(5) for c in range(5) if (v := self.board[r][c]) and v[0] == p}

    def legal(self) -> list[int]:
        if self.stage == "over":
            return []
        if self.is_chance():
            return [a for a, _ in self.chance_outcomes()]
        mine = self.cubes(self.player)
        if self.die in mine:
            chosen = [self.die]
        else:
            lower = [k for k in mine if k < self.die]
            higher = [k for k in mine if k > self.die]
            chosen = ([max(lower)] if lower else []) + ([min(higher)] if higher else [])
        out = []
        for r, c in sorted(mine[k] for k in chosen):
            for i, (dr, dc) in enumerate(STEPS[self.player]):
                r2, c2 = r + dr, c + dc
                if 0 <= r2 < 5 and 0 <= c2 < 5:
                    cap = 1 if self.board[r2][c2] is not None else 0
                    out.append((((r * 5 + c) * 6) + DIR_BASE[self.player] + i) * 2 + cap)
        return out

    # moves
    def apply(self, a: int) -> Ref:
        assert a in self.legal(), (a, self.legal())
        s = self.copy()
        if s.stage in ("setup0", "setup1"):
            p = 0 if s.stage == "setup0" else 1
            cells = [(r, c) for r in range(5) for c in range(5) if (r + c <= 2 if p == 0 else r + c >= 6)]
            for (r, c), v in zip(cells, PERMS[a]):
                s.board[r][c] = (p, v)
            s.stage = "setup1" if p == 0 else "roll"
            return s
        if s.stage == "roll":
            s.die, s.stage = a + 1, "move"
            return s
        rest, cap = divmod(a, 2)
        cell, d = divmod(rest, 6)
        r, c = divmod(cell, 5)
        dr, dc = STEPS[s.player][d - DIR_BASE[s.player]]
        r2, c2 = r + dr, c + dc
        assert (s.board[r2][c2] is not None) == bool(cap)
        s.board[r2][c2], s.board[r][c] = s.board[r][c], None
        opp = 1 - s.player
        if (r2, c2) == GOAL[s.player] or not s.cubes(opp):
            s.won_by, s.stage = s.player, "over"
        else:
            s.stage = "roll"
        s.player, s.die = opp, 0
        return s

    def picture(self) -> str:
        return "".join("".join(f"|{'bw'[v[0]]}{v[1]}|" if v else "|__|" for v in row) for row in self.board)
