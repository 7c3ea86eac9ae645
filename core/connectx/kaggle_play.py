"""ConnectX games through kaggle-environments (:meth:`core.connectx.game.ConnectX.play_kaggle`,
:meth:`~core.connectx.game.ConnectX.replay_html`, the arena's hooks): full-fidelity play (``--engine kaggle``) and HTML replays.

Kaggle's engine judges time (``actTimeout`` plus the overage bank), invalid columns and
exceptions exactly as the competition does, at a fraction of the direct loop's speed
(``bench/loop_speed.py``). Openings are forced by wrapping each agent: while the step is inside
the opening the wrapper returns the opening's column instead of asking the agent.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from core.connectx.shape import Shape


def _env(shape: Shape, time_per_move: float) -> Any:
    from base.kaggle_import import kaggle_environments

    make = kaggle_environments().make
    config = {"rows": shape.rows, "columns": shape.columns, "inarow": shape.inarow, "actTimeout": time_per_move}
    return make("connectx", configuration=config, debug=False)


def _moves(steps: list, shape: Shape) -> list[int]:
    """Columns played, read from the boards of consecutive steps."""
    out = []
    for before, after in zip(steps, steps[1:]):
        b0, b1 = before[0].observation.board, after[0].observation.board
        changed = [i for i in range(len(b0)) if b0[i] != b1[i]]
        if changed:
            out.append(changed[0] % shape.columns)
    return out


TERMINATION = {"ERROR": "error", "TIMEOUT": "timeout", "INVALID": "illegal"}


def play_kaggle(first: Any, second: Any, shape: Shape, time_per_move: float, opening: Sequence[int] = ()) -> dict[str, Any]:
    """One game in kaggle-environments of ``first`` (mark 1) and ``second`` (players with a
    ``kaggle_agent(obs, config)``); returns the fields of :func:`util.arena.match.play`'s result."""
    opening = tuple(opening)
    times: list[float] = []
    raised: dict[int, str] = {}  # mark -> the exception Kaggle turns into status ERROR

    def wrap(player: Any) -> Callable[[Any, Any], int]:
        def agent(obs: Any, config: Any) -> int:
            if obs.step < len(opening):
                return opening[obs.step]
            start = time.perf_counter()
            try:
                return player.kaggle_agent(obs, config)
            except Exception as exc:
                raised[obs.mark] = f"{type(exc).__name__}: {exc}"
                raise
            finally:
                times.append(time.perf_counter() - start)
        return agent

    env = _env(shape, time_per_move)
    steps = env.run([wrap(first), wrap(second)])
    last = steps[-1]
    moves = _moves(steps, shape)
    errors: dict[int, str] = {}
    termination, winner = "draw", 0
    for mark, state in ((1, last[0]), (2, last[1])):
        if state.status not in ("DONE", "ACTIVE", "INACTIVE"):
            errors[mark] = f"kaggle status {state.status}" + (f": {raised[mark]}" if mark in raised else "")
            termination, winner = TERMINATION.get(state.status, "error"), 3 - mark
    if not errors:
        if last[0].reward == 1:
            termination, winner = "win", 1
        elif last[1].reward == 1:
            termination, winner = "win", 2
    return {"moves": moves, "winner": winner, "termination": termination, "errors": errors,
            "move_times": times, "opening": list(opening)}


def replay_html(moves: Sequence[int], shape: Shape, forfeit_mark: int = 0, width: int = 500, height: int = 450) -> str:
    """kaggle-environments' HTML player of a recorded game. ``forfeit_mark``: the side that
    lost by error or timeout after the recorded moves (replayed as an error on its turn)."""
    moves = list(moves)

    def scripted(obs: Any, config: Any) -> int:
        if obs.step < len(moves):
            return moves[obs.step]
        raise RuntimeError("forfeited here (see the store for the error)")

    env = _env(shape, 1.0)
    env.run([scripted, scripted])
    return env.render(mode="html", width=width, height=height)
