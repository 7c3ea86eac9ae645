"""Scheduled games as plain data (:class:`GameJob`) and the worker function that plays one.

A job holds everything that defines its game (player specs with code versions, shape, time,
engine, opening index, seat, seed), so any worker (a local process or a Ray task) plays the
same game from it, and its ``key`` (a hash of those fields) tells the store whether the game
was already played. The worker never touches the store: it returns a result dict.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from core.position import Position
from core.shape import Shape
from util import openings
from util.game import play_game
from util.players import PlayerSpec, build

ENGINES = ("direct", "kaggle")
FORMATS = ("round-robin", "gauntlet")


@dataclass(frozen=True)
class GameJob:
    a: PlayerSpec  # the pairing's first agent
    b: PlayerSpec  # the pairing's second agent
    index: int  # game number within the pairing: opening index // 2, seats swapped on odd
    shape: Shape
    time_per_move: float  # seconds per move
    engine: str  # "direct" (util.game loop) or "kaggle" (kaggle-environments)
    seed: int  # seeds the players' randomness for this game

    @property
    def opening(self) -> tuple[int, ...]:
        return openings.opening_for(self.index, self.shape)[0]

    @property
    def first(self) -> PlayerSpec:
        return self.a if openings.opening_for(self.index, self.shape)[1] == 0 else self.b

    @property
    def second(self) -> PlayerSpec:
        return self.b if self.first is self.a else self.a

    @property
    def key(self) -> str:
        ident = [self.a.text, self.a.version, self.b.text, self.b.version, self.index, str(self.shape),
                 self.time_per_move, self.engine, self.seed]
        return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:20]


def game_seed(base: int, a: str, b: str, index: int) -> int:
    """A stable per-game seed from the tournament seed and the pairing."""
    digest = hashlib.sha256(json.dumps([base, a, b, index]).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def schedule(specs: list[PlayerSpec], games: int, fmt: str, shape: Shape, time_per_move: float, engine: str, seed: int,
             seed_names: list[str] | None = None) -> list[GameJob]:
    """Every game of the tournament, pairing by pairing. ``fmt``: ``round-robin`` (all pairs)
    or ``gauntlet`` (the first spec against each other one); ``games``: games per pairing;
    ``seed_names``: names the game seeds are derived from, one per spec (default: the specs'
    text). Tuning names its candidate the same in every trial, so that every trial plays
    with the same seeds and differs only by its parameters (common random numbers)."""
    names = dict(zip((s.text for s in specs), seed_names or [s.text for s in specs]))
    if fmt == "round-robin":
        pairs = [(specs[i], specs[j]) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    elif fmt == "gauntlet":
        pairs = [(specs[0], other) for other in specs[1:]]
    else:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    return [GameJob(a, b, k, shape, time_per_move, engine, game_seed(seed, names[a.text], names[b.text], k))
            for k in range(games) for a, b in pairs]


# Specs already warmed up in this process (a cache of what was compiled, not agent state).
_WARM: set[tuple[str, str]] = set()


def warm_up(spec: PlayerSpec, shape: Shape, time_per_move: float) -> None:
    """Let a throwaway player make one move, once per process and spec, so that one-time costs
    (numba compiling on first call, imports) do not count against a game's first move. The
    game itself then uses fresh players, so warming up changes no result."""
    if (spec.text, str(shape)) in _WARM or spec.kind == "file":  # a file loads in its own process per game
        return
    _WARM.add((spec.text, str(shape)))
    try:
        player = build(spec, shape, time_per_move, 0)
        try:
            # The empty board and a middle-game position: agents often special-case the first.
            for moves in ((), openings.suite(shape)[-1]):
                pos = Position.from_moves(list(moves), shape)
                if not pos.is_terminal():
                    player.choose(pos, time.perf_counter() + time_per_move)
        finally:
            player.close()
    except Exception:  # a broken agent shows its failure in the game, where it is recorded
        pass


def run_job(job: GameJob) -> dict[str, Any]:
    """Play ``job``'s game and return its result (moves, winner, termination, errors,
    move_times, opening). A player that fails to build forfeits; nothing is raised."""
    players: list[Any] = []
    for spec in (job.first, job.second):
        warm_up(spec, job.shape, job.time_per_move)
    try:
        for mark, spec in ((1, job.first), (2, job.second)):
            try:
                players.append(build(spec, job.shape, job.time_per_move, job.seed + mark))
            except Exception as exc:  # e.g. an agent file that no longer loads: that side loses
                return {"moves": list(job.opening), "winner": 3 - mark, "termination": "error",
                        "errors": {mark: f"failed to start: {type(exc).__name__}: {exc}"}, "move_times": [], "opening": list(job.opening)}
        if job.engine == "kaggle":
            from util.kaggle_play import play_kaggle
            return play_kaggle(players[0], players[1], job.shape, job.time_per_move, job.opening)
        r = play_game(players[0], players[1], job.shape, job.time_per_move, job.opening)
        if r.termination == "error" and any(m.startswith("TimeoutError") for m in r.errors.values()):
            r.termination = "timeout"  # an agent file that stopped answering: a timeout, as Kaggle calls it
        return {"moves": r.moves, "winner": r.winner, "termination": r.termination, "errors": r.errors,
                "move_times": r.move_times, "opening": list(r.opening)}
    finally:
        for player in players:
            try:
                player.close()
            except Exception:
                pass
