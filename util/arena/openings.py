"""The fixed suite of balanced openings that tournaments and tuning start their games from.

Why: deterministic agents replay the same game from the empty board, so a hundred games would
measure one. Each game starts from an opening instead, and each opening is played twice with
the seats swapped, so neither agent gains from moving first.

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

Other games (:mod:`core.games`) have no suite: their openings are seeded random lines of a few
plies (:func:`random_opening`, the same for every pairing of a run), skipping lines that end the
game; chance outcomes on the way are drawn with their probabilities. Games with chance
(dice) default to no opening: the dice vary the games already.
"""
from __future__ import annotations

import hashlib
import random

from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape
from core.game import Game, State

DEFAULT_PLIES = 2  # random opening plies of games other than ConnectX (0 for games with chance)

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


def default_plies(game: Game) -> int:
    """Random opening plies when none are asked for: none for games with chance nodes."""
    return 0 if game.has_chance else DEFAULT_PLIES


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def sample_chance(state: State, rng: random.Random) -> int:
    """A chance outcome of ``state`` drawn with its probability from ``rng`` (one draw)."""
    outcomes = state.chance_outcomes()
    x, acc = rng.random(), 0.0
    for action, prob in outcomes:
        acc += prob
        if x < acc:
            return action
    return outcomes[-1][0]


def random_opening(game: Game, number: int, plies: int, seed: int = 0, tries: int = 50) -> tuple[int, ...]:
    """Opening ``number`` of ``game``: ``plies`` uniformly random decision moves (chance outcomes
    drawn with their probabilities and kept in the line) from a generator seeded by the game's
    spec, ``seed`` and ``number``. A line that ends the game is drawn again (``tries`` times,
    then with one ply fewer), so an opening always leaves a game to play."""
    for length in range(plies, -1, -1):
        for attempt in range(tries):
            rng = _rng(game.spec(), seed, number, length, attempt)
            state, line, made = game.initial(), [], 0
            while made < length and not state.is_terminal():
                if state.is_chance_node():
                    a = sample_chance(state, rng)
                else:
                    a = rng.choice(state.legal_actions())
                    made += 1
                line.append(a)
                state = state.apply(a)
            if not state.is_terminal():
                return tuple(line)
    return ()


def game_opening(game: Game, index: int, plies: int | None = None, seed: int = 0) -> tuple[tuple[int, ...], int]:
    """Game ``index`` of a pairing on any game: (opening actions, seat), as :func:`opening_for`.
    ConnectX plays its suite; other games random openings of ``plies`` (default
    :func:`default_plies`)."""
    if game.name == "connectx":
        return opening_for(index, game.shape)  # type: ignore[attr-defined]
    plies = default_plies(game) if plies is None else plies
    return random_opening(game, index // 2, plies, seed), index % 2
