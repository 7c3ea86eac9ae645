"""The fixed suite of balanced openings that tournaments and tuning start their games from.

Why: deterministic agents replay the same game from the empty board, so a hundred games would
measure one. Each game starts from an opening instead, and each opening is played twice with
the seats swapped, so neither agent gains from moving first.

ConnectX plays its fixed suite of balanced openings (:mod:`core.connectx.openings`, chosen once
from Pons' exact scores): any game may declare one (:meth:`core.game.Game.opening_suite`).

Games without a suite (:mod:`core.games`): their openings are seeded random lines of a few
plies (:func:`random_opening`, the same for every pairing of a run), skipping lines that end the
game; chance outcomes on the way are drawn with their probabilities. Games with chance
(dice) default to no opening: the dice vary the games already.
"""
from __future__ import annotations

import hashlib
import random

from core.game import Game, State

DEFAULT_PLIES = 2  # random opening plies of games without an opening suite (0 for games with chance)


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
    """Game ``index`` of a pairing on any game: (opening actions, seat; seat 0: the pair's first
    agent moves first). Games 2k and 2k+1 play opening k with the seats swapped: a game's own
    suite (:meth:`core.game.Game.opening_suite`, repeated after its end) or else random openings
    of ``plies`` (default :func:`default_plies`)."""
    suite = game.opening_suite()
    if suite is not None:
        return suite[(index // 2) % len(suite)], index % 2
    plies = default_plies(game) if plies is None else plies
    return random_opening(game, index // 2, plies, seed), index % 2
