"""The direct game loop: two agents play one game on a :class:`core.Position`, no Kaggle engine.

Tournaments and benchmarks share this loop so that they judge games the same way: an agent
that raises, returns something that is not an int, returns a full or out-of-range column, or
runs past the hard time limit loses at once, and the reason is recorded. Kaggle's own engine
(kaggle-environments) is much slower and is used only to validate submissions.
"""
from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape

TERMINATIONS = ("win", "draw", "illegal", "error", "timeout")


@dataclass
class GameResult:
    """How one game went. Marks follow Kaggle: 1 moved first, 2 second."""

    moves: list[int]  # every column played (0-based), the opening's moves included
    winner: int  # 0 draw, 1 first player, 2 second player (also the winner by forfeit)
    termination: str  # "win" | "draw" | "illegal" | "error" | "timeout" (see TERMINATIONS)
    errors: dict[int, str] = field(default_factory=dict)  # mark -> why that side forfeited
    move_times: list[float] = field(default_factory=list)  # seconds per agent move (opening excluded)
    opening: tuple[int, ...] = ()  # forced moves played before the agents took over

    @property
    def plies(self) -> int:
        return len(self.moves)


def default_hard_limit(time_per_move: float) -> float:
    """Time after which a move forfeits: the budget plus a generous grace (at least 1 s, or
    as much again as the budget), so a noisy shared machine does not turn a slightly late
    move into a loss, while a hung agent still does."""
    return time_per_move + max(1.0, time_per_move)


def play_game(
    first: Any,
    second: Any,
    shape: Shape = STANDARD,
    time_per_move: float = 1.0,
    opening: Sequence[int] = (),
    hard_limit: float | None = None,
) -> GameResult:
    """Play one game of ``first`` (mark 1) against ``second`` (mark 2) and return its result.

    ``first``/``second``: agents (:mod:`agents.base`); ``reset()`` is called on each before the
    game if they have one. ``shape``: the board. ``time_per_move``: seconds each move may use;
    the agent gets ``deadline = perf_counter() + time_per_move``. ``opening``: 0-based columns
    played first, alternating from mark 1 (raises ValueError when one is illegal); the agents
    move from there. ``hard_limit``: seconds after which a move forfeits (default
    :func:`default_hard_limit`). An agent cannot be interrupted, so a slow move is judged once
    it returns.
    """
    if time_per_move <= 0:
        raise ValueError(f"time_per_move must be positive, got {time_per_move}")
    limit = default_hard_limit(time_per_move) if hard_limit is None else hard_limit
    opening = tuple(int(c) for c in opening)
    for agent in (first, second) if first is not second else (first,):
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset()

    pos = Position.empty(shape)
    moves: list[int] = []
    for i, col in enumerate(opening):
        if pos.is_terminal():
            raise ValueError(f"opening move {i + 1} ({col}) comes after the game has ended")
        if not pos.can_play(col):
            raise ValueError(f"opening move {i + 1} ({col}) is illegal: out of range 0..{shape.columns - 1} or full")
        pos = pos.play(col)
        moves.append(col)

    times: list[float] = []
    agents = (first, second)
    while True:
        if pos.ply and pos.last_player_won():
            return GameResult(moves, 2 - (pos.ply & 1), "win", {}, times, opening)
        if pos.is_full():
            return GameResult(moves, 0, "draw", {}, times, opening)
        mark = pos.side_to_move
        agent = agents[mark - 1]
        start = time.perf_counter()
        try:
            choice = agent.choose(pos, start + time_per_move)
        except Exception as exc:  # the agent's failure decides the game; it must not stop the caller
            times.append(time.perf_counter() - start)
            return _forfeit(moves, times, opening, mark, "error", f"{type(exc).__name__}: {exc}")
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        if elapsed > limit:
            return _forfeit(moves, times, opening, mark, "timeout", f"move took {elapsed:.3f} s, hard limit {limit:.3f} s")
        if isinstance(choice, bool) or not isinstance(choice, numbers.Integral):
            return _forfeit(moves, times, opening, mark, "illegal", f"returned {choice!r} ({type(choice).__name__}), not an int")
        col = int(choice)
        if not pos.can_play(col):
            why = "full" if 0 <= col < shape.columns else f"out of range 0..{shape.columns - 1}"
            return _forfeit(moves, times, opening, mark, "illegal", f"column {col} is {why}")
        pos = pos.play(col)
        moves.append(col)


def _forfeit(moves: list[int], times: list[float], opening: tuple[int, ...], mark: int, how: str, message: str) -> GameResult:
    return GameResult(moves, 3 - mark, how, {mark: message}, times, opening)
