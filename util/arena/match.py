"""Scheduled games as plain data (:class:`GameJob`), the arena's game loop (:func:`play`), and
the worker function that plays one job (:func:`run_job`).

A job holds everything that defines its game (player specs with code versions, the game's spec,
time, engine, opening index, seat, seeds), so any worker (a local process or a Ray task) plays
the same game from it, and its ``key`` (a hash of those fields) tells the store whether the game
was already played. The worker never touches the store: it returns a result dict.

One loop for every game (:mod:`core.games`): players choose on :class:`core.game.State`
(ConnectX's own players through :func:`util.arena.players.state_player`), and the loop judges them the
same way on every game: an agent that raises, returns something that is not a legal action, or
runs past the hard time limit loses at once, and the reason is recorded (an agent file is timed
by Kaggle's clock instead, its overage bank included: :func:`play`). Chance outcomes (dice)
are drawn by the loop from a generator seeded per game pair, so both games of a pair roll the
same dice as far as the moves allow; they are stored among the actions, their indices in
``chance``.
"""
from __future__ import annotations

import functools
import hashlib
import json
import numbers
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.game import CHANCE, Game, State
from core.games import parse_game
from util.arena import openings
from util.arena.players import HasGame, PlayerSpec, as_game, build, state_player

ENGINES = ("direct", "kaggle")
FORMATS = ("round-robin", "gauntlet")
TERMINATIONS = ("win", "draw", "illegal", "error", "timeout")


@functools.lru_cache(maxsize=32)
def game_of(spec: str) -> Game:
    """The game of a spec (cached: a game is an immutable value; parsing imports its kernels)."""
    return parse_game(spec)


def game_spec(game: Game | HasGame | str) -> str:
    """``Game.spec()`` of a game, what stands for one (a ConnectX shape), or a spec (canonicalized)."""
    if isinstance(game, str):
        return game_of(game).spec()
    return as_game(game).spec()


@dataclass(frozen=True)
class GameJob:
    a: PlayerSpec  # the pairing's first agent
    b: PlayerSpec  # the pairing's second agent
    index: int  # game number within the pairing: opening index // 2, seats swapped on odd
    game: str  # the game's spec (core.game.Game.spec()), e.g. connectx:rows=6,columns=7,inarow=4
    time_per_move: float  # seconds per move (per turn in a game whose turn is several decisions: match.play)
    engine: str  # "direct" (this module's loop) or "kaggle" (kaggle-environments: core.game.Game.play_kaggle)
    seed: int  # seeds the players' randomness for this game
    plies: int | None = None  # random opening plies of games without an opening suite (None: the game's default)
    base_seed: int = 0  # the tournament's seed: openings and dice of game pair index // 2 come from it
    overage: float | None = None  # seconds in an agent file's bank (None: Kaggle's for the game, base.clock.kaggle_overage)

    @property
    def game_obj(self) -> Game:
        return game_of(self.game)

    def _opening(self) -> tuple[tuple[int, ...], int]:
        return openings.game_opening(self.game_obj, self.index, self.plies, self.base_seed)

    @property
    def opening(self) -> tuple[int, ...]:
        return self._opening()[0]

    @property
    def first(self) -> PlayerSpec:
        return self.a if self._opening()[1] == 0 else self.b

    @property
    def second(self) -> PlayerSpec:
        return self.b if self.first is self.a else self.a

    @property
    def chance_seed(self) -> int:
        """Seed of the dice: the same for both games of a pair (and every pairing)."""
        return game_seed(self.base_seed, "chance", self.game, self.index // 2)

    @property
    def key(self) -> str:
        legacy = self.game_obj.legacy_key()
        if legacy:  # a game of the store from before games had specs (core.game.Game.legacy_key): its keys as then
            ident = [self.a.text, self.a.version, self.b.text, self.b.version, self.index, legacy,
                     self.time_per_move, self.engine, self.seed]
        else:
            ident = [self.a.text, self.a.version, self.b.text, self.b.version, self.index, self.game,
                     self.time_per_move, self.engine, self.seed, self.plies, self.base_seed]
        if "file" in (self.a.kind, self.b.kind) or self.overage is not None:
            # Agent files play on Kaggle's clock since this field exists: their games of the
            # arena's former clock are not these games; other keys stay as they were.
            ident.append(["kaggle-clock", self.overage])
        return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:20]


def game_seed(base: int, a: str, b: str, index: int) -> int:
    """A stable per-game seed from the tournament seed and the pairing."""
    digest = hashlib.sha256(json.dumps([base, a, b, index]).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def schedule(specs: list[PlayerSpec], games: int, fmt: str, game: Game | HasGame | str, time_per_move: float, engine: str,
             seed: int, seed_names: list[str] | None = None, plies: int | None = None,
             overage: float | None = None) -> list[GameJob]:
    """Every game of the tournament, pairing by pairing. ``fmt``: ``round-robin`` (all pairs)
    or ``gauntlet`` (the first spec against each other one); ``games``: games per pairing;
    ``game``: the game (a ConnectX shape stands for ConnectX on that board); ``plies``: random
    opening plies (games without an opening suite; None: the game's default); ``seed_names``: names
    the game seeds are derived from, one per spec (default: the specs' text); ``overage``: the bank
    of agent files (None: Kaggle's, :class:`util.arena.players.FilePlayer`). Tuning names its
    candidate the same in every trial, so that every trial plays with the same seeds and
    differs only by its parameters (common random numbers)."""
    spec = game_spec(game)
    names = dict(zip((s.text for s in specs), seed_names or [s.text for s in specs]))
    if fmt == "round-robin":
        pairs = [(specs[i], specs[j]) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    elif fmt == "gauntlet":
        pairs = [(specs[0], other) for other in specs[1:]]
    else:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    return [GameJob(a, b, k, spec, time_per_move, engine, game_seed(seed, names[a.text], names[b.text], k), plies, seed, overage)
            for k in range(games) for a, b in pairs]


# --- the game loop ---------------------------------------------------------------------------
def default_hard_limit(time_per_move: float) -> float:
    """Time after which a move forfeits: the budget plus a generous grace (at least 1 s, or
    as much again as the budget), so a noisy shared machine does not turn a slightly late
    move into a loss, while a hung agent still does."""
    return time_per_move + max(1.0, time_per_move)


class TurnClock:
    """The arena's time control: ``time_per_move`` seconds a move, or a *turn* in a game whose
    turn is several decisions (:attr:`core.game.Game.end_turn_action`), as Kaggle's ``actTimeout``
    is: every decision of the mover until the turn ends (a new :meth:`core.game.Game.turn_index`
    or mover) shares it; what the agent spent on the turn's earlier decisions is taken off the
    next one's deadline (chance outcomes and the loop's own work between decisions do not count)."""

    def __init__(self, game: Game, time_per_move: float) -> None:
        self.game, self.time_per_move = game, time_per_move
        self.turn: tuple[int, int] | None = None  # (turn index, mover) of the turn being timed
        self.used = 0.0  # seconds the mover's agent spent on this turn's earlier decisions

    def deadline(self, state: State, start: float) -> float:
        """The deadline of the decision at ``state`` that starts at ``start`` (perf_counter)."""
        if self.game.end_turn_action is None:
            return start + self.time_per_move
        turn = (self.game.turn_index(state), state.current_player())
        if turn != self.turn:
            self.turn, self.used = turn, 0.0
        return start + self.time_per_move - self.used

    def spend(self, elapsed: float) -> tuple[float, str]:
        """Count a decision's ``elapsed`` seconds; returns the time the hard limit judges (the
        move's, or the turn's so far) and what it is ("move" or "turn")."""
        if self.turn is None:
            return elapsed, "move"
        self.used += elapsed
        return self.used, "turn" if self.used != elapsed else "move"


def play(first: Any, second: Any, game: Game, time_per_move: float = 1.0, opening: Sequence[int] = (),
         hard_limit: float | None = None, chance_seed: int = 0) -> dict[str, Any]:
    """Play one game of ``first`` (player 0, mark 1) against ``second`` (player 1, mark 2).

    Players have ``choose(state, deadline)`` (``deadline = perf_counter() + time_per_move``) and
    optionally ``reset()``, called before the game. In a game whose turn is several decisions
    ``time_per_move`` is the time of a whole turn (:class:`TurnClock`), and the hard limit
    applies to the turn's total. A player with a ``kaggle_clock`` (a :class:`base.clock.KaggleBank`:
    an agent file) is judged by Kaggle's clock instead: a move (turn) may overrun ``actTimeout``
    by what is left of its bank, which pays for the overrun; past that it loses on time. ``opening``: actions (chance outcomes
    included) played first; raises ValueError when one is illegal. ``hard_limit``: seconds
    after which a move forfeits (default :func:`default_hard_limit`); an agent cannot
    be interrupted, so a slow move is judged once it returns. ``chance_seed``: seeds the draws
    of chance outcomes.

    Returns the stored fields: ``moves`` (every action, opening and chance outcomes included),
    ``chance`` (indices in ``moves`` of chance outcomes), ``winner`` (0 draw, 1 or 2: the mark
    that won, also by forfeit), ``termination`` (see :data:`TERMINATIONS`), ``errors`` (mark ->
    why it forfeited), ``move_times`` and ``movers`` (seconds and mark of each agent move),
    ``opening``, ``returns`` (both players' returns when the rules ended the game, e.g. a score
    difference; None after a forfeit)."""
    if time_per_move <= 0:
        raise ValueError(f"time_per_move must be positive, got {time_per_move}")
    limit = default_hard_limit(time_per_move) if hard_limit is None else hard_limit
    opening = tuple(int(a) for a in opening)
    for agent in (first, second) if first is not second else (first,):
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset()
    state: State = game.initial()
    moves: list[int] = []
    chance: list[int] = []
    for i, a in enumerate(opening):
        if state.is_terminal():
            raise ValueError(f"opening move {i + 1} ({a}) comes after the game has ended")
        if state.is_chance_node():
            chance.append(len(moves))
        try:
            state = state.apply(a)
        except ValueError:
            raise ValueError(f"opening move {i + 1} ({a}) is illegal; legal: {state.legal_text()}") from None
        moves.append(a)
    rng = random.Random(chance_seed)
    times: list[float] = []
    movers: list[int] = []
    agents = (first, second)
    clock = TurnClock(game, time_per_move)

    def result(winner: int, how: str, errors: dict[int, str], returns: Any = None) -> dict[str, Any]:
        return {"moves": moves, "chance": chance, "winner": winner, "termination": how, "errors": errors,
                "move_times": times, "movers": movers, "opening": list(opening), "returns": returns}

    while True:
        if state.is_terminal():
            r = state.returns()
            winner = 1 if r[0] > 0 else 2 if r[0] < 0 else 0
            return result(winner, "win" if winner else "draw", {}, list(r))
        player = state.current_player()
        if player == CHANCE:
            chance.append(len(moves))
            a = openings.sample_chance(state, rng)
            state = state.apply(a)
            moves.append(a)
            continue
        mark = player + 1
        start = time.perf_counter()
        try:
            choice = agents[mark - 1].choose(state, clock.deadline(state, start))
        except Exception as exc:  # the agent's failure decides the game; it must not stop the caller
            times.append(time.perf_counter() - start)
            movers.append(mark)
            # an agent file that stopped answering (TimeoutError) lost on time, as Kaggle calls it
            return result(3 - mark, "timeout" if isinstance(exc, TimeoutError) else "error", {mark: f"{type(exc).__name__}: {exc}"})
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        movers.append(mark)
        used, what = clock.spend(elapsed)
        late = _late(agents[mark - 1], used, what, limit)
        if late:
            return result(3 - mark, "timeout", {mark: late})
        if isinstance(choice, bool) or not isinstance(choice, numbers.Integral):
            return result(3 - mark, "illegal", {mark: f"returned {choice!r} ({type(choice).__name__}), not an int"})
        action = int(choice)
        try:
            state = state.apply(action)  # checks legality
        except ValueError:
            return result(3 - mark, "illegal", {mark: game.illegal_action_text(state, action)})
        moves.append(action)


def _late(agent: Any, used: float, what: str, limit: float) -> str:
    """Why a move (``what``: "move" or "turn", ``used`` seconds so far) lost on time, or "": past
    ``limit``, or for an agent with a ``kaggle_clock`` past Kaggle's (the bank is charged here)."""
    bank = getattr(agent, "kaggle_clock", None)
    if bank is None:
        return f"{what} took {used:.3f} s, hard limit {limit:.3f} s" if used > limit else ""
    if bank.spend(used, first=what == "move"):
        return ""
    return (f"{what} took {used:.3f} s: past actTimeout {bank.act_timeout:g} s and the {bank.started_with:.3f} s "
            "left in its overage bank (Kaggle's clock)")


# --- workers ---------------------------------------------------------------------------------
# Specs already warmed up in this process (a cache of what was compiled, not agent state).
_WARM: set[tuple[str, str]] = set()


def warm_up(spec: PlayerSpec, game: Game, time_per_move: float) -> None:
    """Let a throwaway player make one move, once per process, spec and game, so that one-time
    costs (numba compiling on first call, imports) do not count against a game's first move.
    The game itself then uses fresh players, so warming up changes no result."""
    if (spec.text, game.spec()) in _WARM or spec.kind == "file":  # a file loads in its own process per game
        return
    _WARM.add((spec.text, game.spec()))
    try:
        player = state_player(spec, game, time_per_move, 0)
        try:
            compile_now(player, game)
            # The initial state and a middle-game one: agents often special-case the first.
            suite = game.opening_suite()
            later = suite[-1] if suite else openings.random_opening(game, 0, 4)
            state = game.initial()
            for line in ((), later):
                for a in line:
                    state = state.apply(a)
                if not state.is_terminal() and not state.is_chance_node():
                    player.choose(state, time.perf_counter() + time_per_move)
        finally:
            player.close()
    except Exception:  # a broken agent shows its failure in the game, where it is recorded
        pass


def compile_now(player: Any, game: Game) -> None:
    """Call the player's agent's ``warm_up`` if it has one: it compiles before it returns, where a
    first move may only start a background compile (agents that compile in the background play
    their first moves on the plain path, and a game's first move would then be weaker than the
    rest). Every agent's takes no argument (ConnectX's own compile for the board of their game)."""
    fn = getattr(getattr(player, "agent", None), "warm_up", None)
    if callable(fn):
        fn()


def run_job(job: GameJob) -> dict[str, Any]:
    """Play ``job``'s game and return its result (see :func:`play`). A player that fails to
    build forfeits; nothing is raised."""
    game = job.game_obj
    opening = job.opening
    players: list[Any] = []
    for spec in (job.first, job.second):
        warm_up(spec, game, job.time_per_move)
    try:
        for mark, spec in ((1, job.first), (2, job.second)):
            try:
                if job.engine == "kaggle":
                    players.append(build(spec, game, job.time_per_move, job.seed + mark, job.overage))
                else:
                    players.append(state_player(spec, game, job.time_per_move, job.seed + mark, job.overage))
            except Exception as exc:  # e.g. an agent file that no longer loads: that side loses
                return {"moves": list(opening), "chance": [], "winner": 3 - mark, "termination": "error",
                        "errors": {mark: f"failed to start: {type(exc).__name__}: {exc}"}, "move_times": [], "movers": [],
                        "opening": list(opening), "returns": None}
        if job.engine == "kaggle":
            r = job.game_obj.play_kaggle(players[0], players[1], job.time_per_move, opening)
            r["movers"] = [1 + (len(opening) + k) % 2 for k in range(len(r["move_times"]))]
            r["chance"] = []
            r["returns"] = None if r["errors"] else [float(v) for v in {0: (0, 0), 1: (1, -1), 2: (-1, 1)}[r["winner"]]]
            return r
        return play(players[0], players[1], game, job.time_per_move, opening, chance_seed=job.chance_seed)
    finally:
        for player in players:
            try:
                player.close()
            except Exception:
                pass
