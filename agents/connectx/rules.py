"""A rule-based baseline: a fixed list of tactical rules, tried in order, no search beyond three plies.

It is the yardstick every search must beat, and a quick, deterministic-per-seed opponent for
tests. The rules, first match wins:

1. ``centre``: on an empty board, the centre column.
2. ``win``: a move that makes a line now.
3. ``block``: a cell where the opponent would make a line on its next move.
4. ``avoid`` (a filter): never play directly under an opponent's winning cell, since that hands
   the opponent the cell; ignored when every legal move is such a move.
5. ``create``: a move that makes a double threat: whatever the reply, we win on our next move
   (two plies after this move). Two playable winning cells, or one with another winning cell
   right above it, are the usual shapes; the test is exact (every reply is tried).
6. ``stop`` (a filter): drop moves after which the opponent can make such a double threat, i.e.
   force a win three plies after our move; ignored when no move avoids it.
7. ``extend``: the move whose cell lies on the longest *open* line (a window of ``inarow`` cells
   with no opponent stone) counting our stones; ties go to the most central column, then to
   the seeded random generator.

The kernels are hot functions (:mod:`base.jit`) on the position's ints, compiled by numba when
the board fits 63 bits.
"""
from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.connectx.base import PositionAgent
from agents.engine.info import SearchInfo
from base.jit import hot, kernels
from core.connectx.bitboard import possible_moves, winning_cells
from core.connectx.position import Position
from core.connectx.shape import Shape


@hot
def playable_wins(stones: int, mask: int, rows: int, columns: int, inarow: int) -> int:
    """Cells where ``stones`` make a line with a move playable now."""
    return winning_cells(stones, mask, rows, columns, inarow) & possible_moves(mask, rows, columns)


@hot
def forced_after(me: int, opp: int, mask: int, rows: int, columns: int, inarow: int) -> bool:
    """``me`` just moved, ``opp`` is to move: True when ``opp`` cannot win now and every reply
    leaves ``me`` a winning move (a double threat, of whatever shape)."""
    if playable_wins(opp, mask, rows, columns, inarow) != 0:
        return False
    replies = possible_moves(mask, rows, columns)
    if replies == 0:
        return False  # board full: a draw, not a win
    while replies != 0:
        r = replies & -replies
        replies ^= r
        if playable_wins(me, mask | r, rows, columns, inarow) == 0:
            return False
    return True


@hot
def double_threat_moves(current: int, mask: int, rows: int, columns: int, inarow: int) -> int:
    """Move cells after which the side to move wins on its next move whatever the reply
    (moves that win at once are left out: they are not threats but wins)."""
    out = 0
    moves = possible_moves(mask, rows, columns) & ~winning_cells(current, mask, rows, columns, inarow)
    opp = current ^ mask
    while moves != 0:
        m = moves & -moves
        moves ^= m
        if forced_after(current | m, opp, mask | m, rows, columns, inarow):
            out |= m
    return out


@hot
def moves_stopping_threats(current: int, mask: int, rows: int, columns: int, inarow: int) -> int:
    """Move cells after which the opponent can neither win at once nor make a double threat
    (no forced win within three plies of our move)."""
    out = 0
    moves = possible_moves(mask, rows, columns)
    opp = current ^ mask  # after our move the opponent is to move, with these stones
    while moves != 0:
        m = moves & -moves
        moves ^= m
        new_mask = mask | m
        if playable_wins(opp, new_mask, rows, columns, inarow) == 0 and double_threat_moves(opp, new_mask, rows, columns, inarow) == 0:
            out |= m
    return out


@hot
def open_line_length(me: int, opp: int, col: int, row: int, rows: int, columns: int, inarow: int) -> int:
    """Longest open line through cell (col, row) if ``me`` plays there: over every window of
    ``inarow`` cells through it with no ``opp`` stone, the most ``me`` stones plus this one;
    0 when no window is open."""
    h = rows + 1
    best = 0
    for d in range(4):
        dc = 0 if d == 0 else 1
        dr = 1 if d == 0 else (0 if d == 1 else (1 if d == 2 else -1))
        for k in range(inarow):  # window starts k cells before (col, row)
            c0 = col - k * dc
            r0 = row - k * dr
            c1 = c0 + (inarow - 1) * dc
            r1 = r0 + (inarow - 1) * dr
            if c0 < 0 or c1 >= columns or min(r0, r1) < 0 or max(r0, r1) >= rows:
                continue
            count = 1
            blocked = False
            for i in range(inarow):
                bit = 1 << ((c0 + i * dc) * h + r0 + i * dr)
                if opp & bit:
                    blocked = True
                    break
                if me & bit:
                    count += 1
            if not blocked and count > best:
                best = count
    return best


@dataclass
class RulesAgent(PositionAgent):
    """The rules in the module docstring, in that order."""

    seed: int | None = None  # tie-break randomness among equally central columns; None: fresh each game
    threats: bool = True  # apply the double-threat rules (create, stop); False: a cheaper, weaker agent
    jit: bool = True  # numba-compiled kernels when the board fits 63 bits; False: the same source in plain Python
    # What build_submission.py uses unless told otherwise: Kaggle plays every game in a fresh
    # process, where importing numba and compiling these kernels took 2.6 s (4.2 s on a loaded
    # machine) in the first move, over actTimeout, to save ~2 ms on each of ~20 moves.
    SUBMISSION_DEFAULTS: ClassVar[dict[str, Any]] = {"jit": False}
    _rng: random.Random = field(init=False, repr=False, compare=False)
    _rule: str = field(init=False, default="", repr=False, compare=False)
    _warm: Shape | None = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._rng = random.Random(self.seed)

    def info(self) -> SearchInfo:
        """``rule``: the rule that chose the last move (``extend`` when none of the others did)."""
        return SearchInfo(extra={"rule": self._rule})

    def choose_position(self, position: Position, deadline: float) -> int:
        s = position.shape
        k = self._kernels(s)
        rows, columns, inarow = s.rows, s.columns, s.inarow
        cur, mask = position.current, position.mask
        legal = k.possible_moves(mask, rows, columns)
        if legal == 0 or position.is_terminal():
            raise ValueError("no legal column: the game is over")
        if mask == 0:
            return self._pick("centre", legal, s)
        wins = k.playable_wins(cur, mask, rows, columns, inarow)
        if wins:
            return self._pick("win", wins, s)
        opp = cur ^ mask
        opp_cells = k.winning_cells(opp, mask, rows, columns, inarow)
        if opp_cells & legal:
            return self._pick("block", opp_cells & legal, s)
        candidates = legal & ~(opp_cells >> 1) or legal  # avoid: the cell above a move is opp's win
        if self.threats:
            create = k.double_threat_moves(cur, mask, rows, columns, inarow) & candidates
            if create:
                return self._pick("create", create, s)
            candidates = k.moves_stopping_threats(cur, mask, rows, columns, inarow) & candidates or candidates
        return self._extend(k, cur, opp, candidates, s)

    def _kernels(self, s: Shape) -> Any:
        """The kernels for shape ``s``. The first time, every compiled kernel is called once, so
        that numba compiles them all at once (a few seconds, once per process), in the first
        move of any kind (a warm-up move on the empty board) rather than in the middle of a game."""
        if not self.jit:
            return _PLAIN
        k = kernels(__name__, s.bits)
        if k is not _PLAIN and self._warm != s:
            r, c, n = s.rows, s.columns, s.inarow
            k.possible_moves(0, r, c)
            k.winning_cells(0, 0, r, c, n)
            k.playable_wins(0, 0, r, c, n)
            k.double_threat_moves(0, 0, r, c, n)
            k.moves_stopping_threats(0, 0, r, c, n)
            k.open_line_length(0, 0, 0, 0, r, c, n)
            self._warm = s
        return k

    def _extend(self, k: Any, me: int, opp: int, cells: int, s: Shape) -> int:
        h = s.height
        best, chosen = -1, 0
        for col in range(s.columns):
            column_cells = cells & (((1 << s.rows) - 1) << (col * h))
            if column_cells:
                row = column_cells.bit_length() - 1 - col * h
                score = k.open_line_length(me, opp, col, row, s.rows, s.columns, s.inarow)
                if score > best:
                    best, chosen = score, column_cells
                elif score == best:
                    chosen |= column_cells
        return self._pick("extend", chosen, s)

    def _pick(self, rule: str, cells: int, s: Shape) -> int:
        """The most central column holding one of ``cells`` (one move cell per column at most);
        equally central ones (left and right of the centre) are drawn with the seeded generator."""
        h = s.height
        cols = [c for c in range(s.columns) if (cells >> (c * h)) & ((1 << h) - 1)]
        mid2 = s.columns - 1  # twice the centre, to stay in ints
        nearest = min(abs(2 * c - mid2) for c in cols)
        ties = [c for c in cols if abs(2 * c - mid2) == nearest]
        self._rule = rule
        return ties[0] if len(ties) == 1 else ties[self._rng.randrange(len(ties))]


_PLAIN = sys.modules[__name__]  # this module itself: the plain-Python kernels
