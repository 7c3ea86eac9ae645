"""One game (ConnectX by default) between two agents (``choose(state, deadline)``), no Kaggle
engine, as a :class:`GameResult`: for tests and benchmarks that hold agents rather than specs.

It is the arena's loop (:func:`util.arena.match.play`) underneath, so games are judged the same
way everywhere: an agent that raises, returns something that is not an int, returns a full or
out-of-range column, or runs past the hard time limit loses at once, and the reason is recorded.
Kaggle's own engine (kaggle-environments) is much slower and is used only to validate submissions.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.game import Game
from util.arena.match import TERMINATIONS, default_hard_limit  # noqa: F401  (re-exported: one owner)
from util.arena.players import HasGame, as_game


@dataclass
class GameResult:
    """How one game went. Marks follow Kaggle: 1 moved first, 2 second."""

    moves: list[int]  # every action played (ConnectX: 0-based columns), the opening's moves included
    winner: int  # 0 draw, 1 first player, 2 second player (also the winner by forfeit)
    termination: str  # "win" | "draw" | "illegal" | "error" | "timeout" (see TERMINATIONS)
    errors: dict[int, str] = field(default_factory=dict)  # mark -> why that side forfeited
    move_times: list[float] = field(default_factory=list)  # seconds per agent move (opening excluded)
    opening: tuple[int, ...] = ()  # forced moves played before the agents took over

    @property
    def plies(self) -> int:
        return len(self.moves)


def play_game(
    first: Any,
    second: Any,
    shape: Game | HasGame | None = None,
    time_per_move: float = 1.0,
    opening: Sequence[int] = (),
    hard_limit: float | None = None,
) -> GameResult:
    """Play one game of ``first`` (mark 1) against ``second`` (mark 2) and return its result.

    ``first``/``second``: agents choosing on the game's states (``choose(state, deadline)``,
    optional ``reset()``); the game is played by the arena's one loop (:func:`util.arena.match.play`),
    so it is judged exactly as tournaments judge it. ``shape``: the game, or a ConnectX board
    (None: :func:`util.arena.players.as_game`'s default, standard ConnectX). ``time_per_move``:
    seconds each move may use. ``opening``: 0-based columns played first, alternating from mark
    1 (raises ValueError when one is illegal). ``hard_limit``: seconds after which a move
    forfeits (default :func:`util.arena.match.default_hard_limit`).
    """
    from util.arena.match import play
    from util.arena.players import EnginePlayer

    game = as_game(shape)
    one = EnginePlayer(first)
    two = one if second is first else EnginePlayer(second)
    r = play(one, two, game, time_per_move, opening, hard_limit)
    return GameResult(r["moves"], r["winner"], r["termination"], r["errors"], r["move_times"], tuple(r["opening"]))
