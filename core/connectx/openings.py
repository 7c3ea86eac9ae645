"""ConnectX's fixed suite of balanced openings (:meth:`core.connectx.game.ConnectX.opening_suite`),
which tournaments and tuning start its games from (:mod:`util.arena.openings`: why).

How the standard (6x7, 4 in a row) suite was chosen, once, from Pons' exact scores
(``data/pons/Test_L1_R3``, see its PROVENANCE.md):
  1. every position in that file with at most 4 plies and score 0 (a draw with perfect play:
     balanced in theory), plus the first move ``3`` (score 0 in PROVENANCE's first-move table);
  2. mirror images removed (``24`` and ``64`` are the same game mirrored), keeping the one that
     sorts first; ordered by length, then digits.
Command used: ``awk 'length($1)<=4 && $2==0' Test_L1_R3`` then the mirror dedupe above.
``tests/test_tournament.py`` checks every entry against the Pons file again.

Other shapes have no solved values here: their suite is every two-ply opening up to mirror
symmetry, centre columns first (balanced only by the seat swap).
"""
from __future__ import annotations

from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape

# Pons notation (1-based column digits); every entry is a solved draw on 6x7x4.
STANDARD_OPENINGS: tuple[str, ...] = (
    "3",
    "24", "34", "35",
    "213", "225", "242", "244", "263", "311", "312", "316", "334", "364", "366", "433", "526",
    "1431", "1615", "1634", "1664", "2435", "3222", "3456", "3523", "3775", "4233", "4355",
    "4572", "4773", "5417", "5444", "6634", "6664", "7636",
)


def suite(shape: Shape = STANDARD) -> list[tuple[int, ...]]:
    """The openings for ``shape`` as tuples of 0-based columns, in their fixed order."""
    if shape == STANDARD:
        return [tuple(int(ch) - 1 for ch in text) for text in STANDARD_OPENINGS]
    order = shape.center_order()
    seen: set[tuple[int, int]] = set()
    out: list[tuple[int, ...]] = []
    for a in order:
        for b in order:
            mirrored = (shape.columns - 1 - a, shape.columns - 1 - b)
            if (a, b) in seen or mirrored in seen:
                continue
            pos = Position.empty(shape).play(a)
            if pos.is_terminal() or not pos.can_play(b) or pos.play(b).is_terminal():
                continue
            seen.add((a, b))
            out.append((a, b))
    return out or [()]


def opening_for(index: int, shape: Shape = STANDARD) -> tuple[tuple[int, ...], int]:
    """Game ``index`` of a pairing: (opening, seat). Seat 0: the pair's first agent moves first.

    Games 2k and 2k+1 play opening k with the seats swapped; after the whole suite it repeats.
    """
    openings = suite(shape)
    return openings[(index // 2) % len(openings)], index % 2
