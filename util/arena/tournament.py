"""Local tournaments: ``python -m util.arena.tournament --agents random,rules,kaggle:negamax --games 20``.

Why this shape: games start from a fixed suite of balanced openings with seats swapped
(:mod:`util.arena.openings`); each finished game is committed to SQLite at once by this driver
process alone (:mod:`util.arena.store`), so an interrupted run loses only games in progress, and
rerunning the same command plays only what is missing. Each game is claimed in the store
before it is played, so several runners pointed at one ``--db`` split the games; the claims of a
runner killed on this host are taken over by the next run at once, those of a runner on another
host when they expire (the start line says when). Ratings are
a Bradley-Terry fit (:mod:`util.arena.ratings`) over the games of one run (``--tag``, or the same
command), and every pairing gets game-pair (pentanomial) statistics (:mod:`util.arena.sprt`).
``--sprt`` plays a two-agent match pair by pair until the sequential test decides.

Any game of :mod:`core.games` (``--game NAME[:key=value,...]``, ``python -m core --list``):
ConnectX (the default; ``--shape`` is its board) starts from its opening suite and plays our
ConnectX agents, Kaggle's built-ins, agent files and OpenSpiel's MCTS as well as the engine
agents; other games play the engine agents (:mod:`agents.registry`) from seeded random
openings of ``--opening-plies`` plies. The store records each game's spec, and every report
groups games by it: two games, or two boards, are never rated together.

Exit codes: 0 done, 1 some games failed inside their worker (not recorded: rerun to retry them),
2 bad input or a store that cannot be written (one line on stderr), 130 interrupted (143 on SIGTERM; rerun to
resume).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.engine.spec import SpecError
from base import backends
from base.cli import MAX_ID, SEED, OneLineParser, exit_code, float_in, int_in, raise_if_signalled, seconds_in, stop_on_signals, unwritable
from base.clock import kaggle_overage
from core.game import Game
from core.games import DEFAULT_GAME, add_game_arguments
from util.arena import match, openings, players, sprt
from util.arena.players import HasGame
from util.arena.ratings import Rating, mean_interval, rate, tables
from util.arena.store import Store, StoreError, runner_id

DEFAULT_DB = Path("results") / "tournament.sqlite"
# Specs shown in --help (tests build each one): keep them valid.
EXAMPLE_SPECS = ("alphabeta:max_depth=6", "mcts:leaf=rollout", "kaggle:negamax", "kaggle:random", "openspiel_mcts:sims=1000")


class UsageError(ValueError):
    """Bad command-line input: printed as one line, exit code 2."""


def parse_game_args(game: str | None, shape: str | None) -> Game:
    """The game of ``--game`` (default connectx) and ``--shape`` (ConnectX's board shorthand),
    read by the one reader of every tool (:func:`core.games.game_from_text`), bad input as a
    :class:`UsageError` (the arena's commands report those as one line)."""
    from core.games import game_from_text
    try:
        return game_from_text(game, shape)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _spec(game: Game | HasGame | str) -> str:
    return match.game_spec(game)


def shape_text(game: Game) -> str:
    """What the store's ``shape`` column holds: the game's key from before games had specs
    (:meth:`core.game.Game.legacy_key`: ConnectX's board), '' for other games."""
    return game.legacy_key()


def labels(store: Store, ids: Sequence[int]) -> dict[int, str]:
    """Player labels: the spec, plus ``@version`` when ``ids`` hold several versions of it (a
    spec names different agents in different games: ConnectX's ``random`` is not the engine's)."""
    known = store.players()
    specs = [known[i][0] for i in set(ids)]
    return {i: known[i][0] + (f"@{known[i][1][:6]}" if specs.count(known[i][0]) > 1 else "") for i in ids}


def standings(store: Store, shape: Game | HasGame | str | None, runs: Sequence[int] | None = None) -> tuple[list[str], list[Rating], np.ndarray, np.ndarray]:
    """(labels, ratings strongest first, games table, scores table) over the store's games of
    one game (a :class:`core.game.Game`, its spec, or a ConnectX :class:`Shape`; None: every
    game spec pooled, e.g. one game's maps; of ``runs`` only, if given); table rows and columns
    follow ``labels``."""
    results = list(store.games(runs=runs, game=None if shape is None else _spec(shape)))
    ids = sorted({g.first for g in results} | {g.second for g in results})
    index = {pid: k for k, pid in enumerate(ids)}
    names = labels(store, ids)
    games = [(index[g.first], index[g.second], 1.0 if g.winner == 1 else 0.0 if g.winner == 2 else 0.5) for g in results]
    label_list = [names[i] for i in ids]
    n, s = tables(games, len(ids))
    return label_list, rate(label_list, games), n, s


def format_report(names: list[str], ratings: list[Rating], n: np.ndarray, s: np.ndarray) -> str:
    """The ranking and the cross-table as text."""
    if not ratings:
        return "no games in the store yet"
    width = max(len(x) for x in names)
    lines = [f"{'rank':>4}  {'agent':<{width}}  {'elo':>7}  {'95% interval':>17}  {'games':>5}  {'score':>6}"]
    for k, r in enumerate(ratings, 1):
        pct = 100.0 * r.score / r.games if r.games else 0.0
        lines.append(f"{k:>4}  {r.name:<{width}}  {r.elo:>7.0f}  [{r.low:>6.0f}, {r.high:>6.0f}]  {r.games:>5}  {pct:>5.1f}%")
    order = [names.index(r.name) for r in ratings]
    lines.append("")
    lines.append("cross-table: points of the row agent against the column agent / games")
    cells = [[("-" if i == j else f"{s[i, j]:g}/{n[i, j]:g}" if n[i, j] else "") for j in order] for i in order]
    cw = max([len(c) for row in cells for c in row] + [3]) + 1
    lines.append(" " * (width + 2) + "".join(f"{k:>{cw}}" for k in range(1, len(order) + 1)))
    for k, (i, row) in enumerate(zip(order, cells), 1):
        lines.append(f"{names[i]:<{width}}  " + "".join(f"{c:>{cw}}" for c in row) + f"   ({k})")
    return "\n".join(lines)


def pair_report(store: Store, shape: Game | HasGame | str, runs: Sequence[int] | None = None) -> str:
    """Per pairing: the first-listed agent's Elo against the other with its 95% interval, LOS,
    draw ratio and pentanomial counts, over game pairs (same opening, seats swapped); for games
    whose returns are scores (win_value above 1), the mean score difference too; for games scored
    by their returns (``Game.scores_by_returns``: chips) the first agent's mean return a game with
    its 95% interval."""
    spec = _spec(shape)
    results = list(store.games(runs=runs, game=spec))
    game = match.game_of(spec)
    scored, chips = game.win_value > 1 or game.scores_by_returns, game.scores_by_returns
    names = labels(store, sorted({g.first for g in results} | {g.second for g in results}))
    by_pair: dict[tuple[int, int], list[tuple[object, bool, float]]] = {}
    draws: dict[tuple[int, int], int] = {}
    margins: dict[tuple[int, int], list[float]] = {}
    for g in results:
        a, b = sorted((g.first, g.second))
        if g.returns is not None:  # a's return: player 0's when a moved first
            margins.setdefault((a, b), []).append(g.returns[0] if g.first == a else g.returns[1])
        points = 0.5 if g.winner == 0 else float((g.winner == 1) == (g.first == a))
        by_pair.setdefault((a, b), []).append((g.opening, g.first == a, points))
        draws[(a, b)] = draws.get((a, b), 0) + (g.winner == 0)
    lines = []
    for (a, b), games in sorted(by_pair.items()):
        pairs = sprt.pair_up(games)
        if pairs:
            # draws of paired games only are not known apart from the unpaired; count all games' draws
            summary = sprt.summarize(sprt.pentanomial(pairs), None)
            ratio = draws[(a, b)] / len(games)
            margin = margins.get((a, b))
            extra = f", mean score difference {sum(margin) / len(margin):+.2f} over {len(margin)} games" if scored and margin else ""
            if chips and margin:
                mean, low, high = mean_interval(margin)
                extra = f", the first agent's mean return {mean:+.3f} {_interval(low, high)} a game over {len(margin)} games"
            lines.append(f"{names[a]} vs {names[b]}: {summary.text()}, draw ratio {100 * ratio:.1f}% of {len(games)} games{extra}")
    return "\n".join(lines)


def _interval(low: float, high: float) -> str:
    return f"[{low:+.3f}, {high:+.3f}]" if math.isfinite(low) and math.isfinite(high) else "[-, -]"


def mean_returns(store: Store, shape: Game | HasGame | str, runs: Sequence[int] | None = None
                 ) -> list[tuple[str, int, float, float, float]]:
    """Per agent, best first: ``(label, games, mean return a game, low, high)`` (the 95% interval:
    :func:`util.arena.ratings.mean_interval`) over its games of one game whose rules ended them
    (a forfeit has no returns: it counts in the points, not here), either seat."""
    results = list(store.games(runs=runs, game=_spec(shape)))
    ids = sorted({g.first for g in results} | {g.second for g in results})
    names = labels(store, ids)
    got: dict[int, list[float]] = {i: [] for i in ids}
    for g in results:
        if g.returns is not None:
            got[g.first].append(float(g.returns[0]))
            got[g.second].append(float(g.returns[1]))
    rows = [(names[i], len(v), *mean_interval(v)) for i, v in got.items()]
    return sorted(rows, key=lambda r: (-(r[2] if r[1] else -math.inf), r[0]))


def returns_report(store: Store, shape: Game | HasGame | str, runs: Sequence[int] | None = None) -> str:
    """The table of :func:`mean_returns` as text ("" without games)."""
    rows = mean_returns(store, shape, runs)
    if not rows:
        return ""
    width = max(len(r[0]) for r in rows)
    lines = [f"{'agent':<{width}}  {'games':>5}  {'mean return':>11}  {'95% interval':>18}"]
    for name, n, mean, low, high in rows:
        lines.append(f"{name:<{width}}  {n:>5}  {mean:>+11.3f}  {_interval(low, high):>18}")
    return "\n".join(lines)


def clock_report(store: Store, shape: Game | HasGame | str, runs: Sequence[int] | None = None) -> str:
    """Per agent: moves timed, median and slowest move, and games forfeited (error, timeout,
    illegal move), so that "no timeout, every move inside actTimeout" can be read off."""
    results = list(store.games(runs=runs, game=_spec(shape)))
    ids = sorted({g.first for g in results} | {g.second for g in results})
    names = labels(store, ids)
    times: dict[int, list[float]] = {i: [] for i in ids}
    forfeits: dict[int, int] = {i: 0 for i in ids}
    for g in results:
        movers = (g.first, g.second)
        for mark, t in zip(g.mover_marks(), g.move_times):
            times[movers[mark - 1]].append(t)
        for side in g.errors:  # a mark as JSON text
            forfeits[movers[int(side) - 1]] += 1
    if not results:
        return ""
    width = max(len(names[i]) for i in ids)
    lines = [f"{'agent':<{width}}  {'moves':>6}  {'median s':>8}  {'slowest s':>9}  forfeits (error, timeout, illegal)"]
    for i in ids:
        ts = sorted(times[i])
        med = ts[len(ts) // 2] if ts else 0.0
        lines.append(f"{names[i]:<{width}}  {len(ts):>6}  {med:>8.3f}  {max(ts or [0.0]):>9.3f}  {forfeits[i]}")
    return "\n".join(lines)


MAX_GAMES = 1_000_000  # games per pairing
MAX_WORKERS = 256
MAX_OPENING_PLIES = 40  # random opening plies (a longer random start is not an opening)
MAX_OVERAGE = 3600.0  # seconds: an agent file's overage bank (Kaggle's is 60)


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m util.arena.tournament", description=__doc__.split("\n\n")[0],
                      epilog=f"Games: --game NAME[:key=value,...] (default {DEFAULT_GAME}); python -m core --list shows the games and "
                             "their parameters. "
                             f"Agent specs: our names with parameters ({EXAMPLE_SPECS[0]}, {EXAMPLE_SPECS[1]}), "
                             f"{EXAMPLE_SPECS[2]}, {EXAMPLE_SPECS[3]}, a Kaggle agent file path, {EXAMPLE_SPECS[4]}. "
                             "SPRT match: --agents NEW,OLD --sprt elo0=0,elo1=10,alpha=0.05,beta=0.05 --games 2000 "
                             "(stops when the test decides; --games is the most it plays). Other games: engine agents "
                             "(agents.registry), e.g. --game tictactoe --agents random,alphabeta:max_depth=4.")
    p.add_argument("--agents", help="comma-separated agent specs (see below)")
    p.add_argument("--games", type=int_in(1, MAX_GAMES), default=10,
                   help="games per pairing (even numbers keep seats balanced; default 10; with --sprt the most to play)")
    p.add_argument("--format", choices=match.FORMATS, default="round-robin", help="all pairs, or the first agent against each other")
    p.add_argument("--time", type=seconds_in(), default=1.0, help="seconds per move; per turn in games whose turn is several decisions, "
                   "such as reinforce_tactics (default 1.0; Kaggle gives 2 for ConnectX, 5 a turn for Reinforce Tactics)")
    p.add_argument("--overage", type=float_in(0.0, MAX_OVERAGE), default=None, metavar="SECONDS",
                   help="agent files play on Kaggle's clock: --time is the actTimeout they read, and each game gives them "
                        "this overage bank for moves past it (default Kaggle's: 60 s for ConnectX and Reinforce Tactics); "
                        "a move past actTimeout and what is left of the bank loses on time")
    p.add_argument("--workers", type=int_in(1, MAX_WORKERS), default=min(MAX_WORKERS, os.cpu_count() or 1),
                   help="parallel games (default: CPU count; 1 = in this process)")
    p.add_argument("--db", default=str(DEFAULT_DB), help=f"SQLite store (default {DEFAULT_DB}); several runners may share one")
    p.add_argument("--seed", type=SEED, default=0, help="seeds every game's randomness (default 0)")
    p.add_argument("--sprt", metavar="elo0=0,elo1=10,alpha=0.05,beta=0.05",
                   help="two agents only: play game pairs until the sequential probability ratio test accepts H0 "
                        "(the first agent is not elo1 stronger) or H1 (it is), or --games run out; add model=normalized for normalized Elo")
    p.add_argument("--tag", help="name of this run (default: a hash of what it schedules, so the same command continues "
                                 "the same run); with --report: the run to show")
    p.add_argument("--backend", choices=backends.BACKENDS, default="process", help="local process pool (default) or Ray tasks")
    p.add_argument("--address", default=None, help="Ray cluster address (with --backend ray; default: a fresh local instance)")
    p.add_argument("--engine", choices=match.ENGINES, default="direct", help="direct loop (fast, default) or kaggle-environments (full fidelity)")
    add_game_arguments(p, default=DEFAULT_GAME, note="with --report: only this game")
    p.add_argument("--opening-plies", type=int_in(0, MAX_OPENING_PLIES), default=None, metavar="N",
                   help="games other than ConnectX: random opening plies, each opening played twice with seats swapped "
                        f"(default {openings.DEFAULT_PLIES}, 0 for games with chance); ConnectX plays its opening suite")
    p.add_argument("--plot", metavar="DIR", help="write ratings.png and crosstable.png into DIR")
    p.add_argument("--replay", metavar="GAME_ID", type=int_in(1, MAX_ID), nargs="+", help="write an HTML replay of these stored games (with --out) and exit")
    p.add_argument("--out", default="results/replays", help="folder for --replay files (default results/replays)")
    p.add_argument("--report", action="store_true", help="print the ratings of the latest run in the store (or --tag's) and exit")
    p.add_argument("--all", action="store_true", help="with --report: pool every game in the store, all runs together")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def run_tag(specs: Sequence[players.PlayerSpec], args: argparse.Namespace) -> str:
    """The default name of a run: a hash of what it schedules, so that the same command (to
    resume, or from a second runner) joins the same run."""
    game = parse_game_args(args.game, args.shape)
    where = game.legacy_key() or game.spec()
    ident = [[s.text, s.version] for s in specs] + [args.games, args.format, args.time, args.engine, args.seed, where, args.sprt]
    if not game.legacy_key():
        ident.append(args.opening_plies)
    if args.overage is not None or any(s.kind == "file" for s in specs):  # as match.GameJob.key
        ident.append(["kaggle-clock", args.overage])
    return "run-" + hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:8]


LEASE_PLIES = 200  # plies of a long game of a game without a small bound (Game.max_plies), for claims' leases


def lease_seconds(game: Game | HasGame, time_per_move: float, bank: float = 0.0) -> float:
    """How long a claim on a game lasts without news from its runner: twice the longest game
    (:meth:`core.game.Game.max_plies`, ConnectX's cells; else :data:`LEASE_PLIES`) at the full time, plus a minute
    for starting processes, plus twice ``bank`` (the overage banks agent files may spend)."""
    plies = players.as_game(game).max_plies() or LEASE_PLIES
    return 60.0 + 2.0 * plies * time_per_move + 2.0 * bank


class SprtMatch:
    """The SPRT's view of a two-agent match: pair k is the games 2k and 2k+1 of the schedule;
    its counts come from the store, so games played by other runners count too."""

    def __init__(self, test: sprt.Sprt, jobs: list[match.GameJob], candidate: int) -> None:
        self.test = test
        self.candidate = candidate  # store id of the agent under test (the first listed)
        self.index = {j.key: j.index for j in jobs}
        self.points: dict[int, float] = {}  # game index -> candidate's points
        self.last_id = 0

    def update(self, store: Store) -> None:
        for g in store.games(since=self.last_id):
            self.last_id = max(self.last_id, g.id)
            k = self.index.get(g.key)
            if k is None or k in self.points:
                continue
            mark = 1 if g.first == self.candidate else 2
            self.points[k] = 0.5 if g.winner == 0 else float(g.winner == mark)

    def pentanomial(self) -> tuple[np.ndarray, int]:
        """Counts over the complete pairs, and the drawn games among them."""
        complete = [k for k in self.points if k % 2 == 0 and k + 1 in self.points]
        draws = sum((self.points[k] == 0.5) + (self.points[k + 1] == 0.5) for k in complete)
        return sprt.pentanomial(self.points[k] + self.points[k + 1] for k in complete), draws

    def llr(self) -> float:
        counts, _ = self.pentanomial()
        return float(self.test.llr(counts)) if counts.sum() else 0.0

    def decision(self) -> str | None:
        counts, _ = self.pentanomial()
        return self.test.decide(self.llr()) if counts.sum() else None

    def status(self) -> str:
        counts, _ = self.pentanomial()
        return f"LLR {self.llr():+.2f} ({self.test.lower:.2f}, {self.test.upper:.2f}) pairs {int(counts.sum())}"

    def verdict(self) -> str:
        counts, draws = self.pentanomial()
        value, d = self.llr(), self.decision()
        what = {"H1": f"H1 accepted (the first agent is at least {self.test.elo1:g} Elo stronger)",
                "H0": f"H0 accepted (the first agent is not {self.test.elo1:g} Elo stronger)"}.get(
            d or "", "no decision within the games played (raise --games to go on)")
        return (f"SPRT {self.test.text()}: {what}; LLR {value:+.2f}, bounds ({self.test.lower:.2f}, {self.test.upper:.2f})\n"
                f"  {sprt.summarize(counts, draws).text()}")


def play(args: argparse.Namespace, store: Store, game: Game) -> tuple[int, int, str]:
    """Play what the run still misses: (exit code, run id, run tag)."""
    specs = [players.resolve(s, game) for s in players.split_specs(args.agents or "")]
    if len(specs) < 2:
        raise UsageError("--agents needs at least two agent specs, comma-separated")
    if len({s.text for s in specs}) < len(specs):
        raise UsageError("--agents lists the same agent twice; give each entry different parameters")
    test = None
    if args.sprt:
        if len(specs) != 2:
            raise UsageError("--sprt tests one agent against another: give exactly two --agents (the new one first)")
        try:
            test = sprt.parse(args.sprt)
        except ValueError as exc:
            raise UsageError(f"--sprt: {exc}") from None
    if args.engine == "kaggle":
        engine_only = [s.text for s in specs if s.kind == "engine"]
        if not game.kaggle_board_env or engine_only:
            raise UsageError(f"--engine kaggle plays {', '.join(players.board_games())} with their own agents only"
                             + (f" ({engine_only[0]} is an engine agent)" if engine_only and game.kaggle_board_env else "")
                             + "; use --engine direct")
    for spec in specs:
        players.check_loads(spec, game, args.time)
    games = args.games + args.games % 2 if test else args.games
    jobs = match.schedule(specs, games, args.format, game, args.time, args.engine, args.seed, plies=args.opening_plies,
                          overage=args.overage)
    tag = args.tag or run_tag(specs, args)
    command = {"agents": [s.text for s in specs], "games": games, "format": args.format, "time": args.time,
               "engine": args.engine, "seed": args.seed, "shape": shape_text(game), "game": game.spec(), "sprt": args.sprt}
    if game.opening_suite() is None:
        command["opening_plies"] = openings.default_plies(game) if args.opening_plies is None else args.opening_plies
    files = [s for s in specs if s.kind == "file"]
    bank = (kaggle_overage(game.kaggle_env or game.kaggle_board_env) if args.overage is None else args.overage) if files else 0.0
    if files:
        command["overage"] = bank
    run = store.start_run(tag, command, [j.key for j in jobs])
    ids = {s.text: store.player_id(s.text, s.version, dict(s.params)) for s in specs}
    me = runner_id()
    lease = lease_seconds(game, args.time, bank)
    done = store.done_keys()
    todo = [j for j in jobs if j.key not in done]
    elsewhere = claims_note(store, me, [j.key for j in todo])
    print(f"run {tag}: {len(jobs)} games scheduled, {len(jobs) - len(todo)} already in {store.path}"
          + (f", {elsewhere[1]}" if elsewhere[0] else "") + f", {len(todo) - len(elsewhere[0])} to play", file=sys.stderr)
    state = SprtMatch(test, jobs, ids[specs[0].text]) if test else None
    if state:
        state.update(store)
    from tqdm import tqdm
    failed = 0
    bar = tqdm(total=len(todo) - len(elsewhere[0]), disable=args.quiet, unit="game", file=sys.stderr)

    def claimed():  # lazily, as workers free up: another runner may take the next one first
        for job in todo:
            if state and state.decision():
                return
            if store.claim(job.key, me, lease):
                yield job
            elif job.key not in elsewhere[0]:
                bar.total -= 1
                bar.refresh()

    try:
        if state:
            bar.set_postfix_str(state.status())
        for job, result in backends.run(claimed(), match.run_job, args.workers, args.backend, args.address):
            raise_if_signalled()  # a signal whose raise numba's compiler swallowed
            bar.update(1)
            store.renew(me, lease)
            if isinstance(result, BaseException):  # not the agents' fault: not recorded, retried next run
                failed += 1
                bar.write(f"game {job.key} failed in its worker ({type(result).__name__}: {result}); rerun to retry it")
                continue
            store.add_game(job.key, ids[job.first.text], ids[job.second.text], shape_text(game), result,
                           time_per_move=args.time, engine=args.engine, seed=job.seed, source="tournament", game=game.spec())
            if state:
                state.update(store)
                bar.set_postfix_str(state.status())
                if state.decision():
                    break  # leaving the loop stops the games in progress
    except KeyboardInterrupt as exc:  # base.cli.Interrupted: SIGINT or SIGTERM
        bar.close()
        _release(store, me)
        print(f"interrupted: {store.count()} games are saved in {store.path}; rerun the same command to resume", file=sys.stderr)
        return exit_code(exc), run, tag
    except BaseException:
        bar.close()
        _release(store, me)
        raise
    bar.close()
    _release(store, me)
    if state:
        state.update(store)
        print(state.verdict())
    return (1 if failed else 0), run, tag


def claims_note(store: Store, me: str, keys: list[str]) -> tuple[set[str], str]:
    """The games among ``keys`` that other live runners hold, and what to print about them:
    how many, and when their claims expire if those runners stop renewing them. Says which
    dead runners' games are taken over (their processes are gone from this host)."""
    for runner, n in store.dead_claims(keys).items():
        print(f"reclaiming {n} games claimed by runner {runner}: its process is gone", file=sys.stderr)
    held = store.claimed_elsewhere(me, keys)
    if not held:
        return set(), ""
    runners = sorted({r for r, _ in held.values()})
    last = max(e for _, e in held.values())
    when = time.strftime("%H:%M:%S", time.localtime(last))
    return set(held), (f"{len(held)} being played by another runner ({', '.join(runners[:3])}); if it has stopped, its claims "
                       f"expire by {when} (in {max(0.0, last - time.time()):.0f} s): rerun then to play them here")


def _release(store: Store, me: str) -> None:
    try:
        store.release(me)
    except StoreError:  # the store is failing already: the claims expire by themselves
        pass


def chosen_runs(args: argparse.Namespace, store: Store) -> tuple[list[int] | None, str]:
    """The runs ``--report`` shows (None: all games) and a line saying which."""
    runs = store.runs()
    if args.all or not runs:
        note = "all games in the store" if args.all else "all games in the store (stored before runs were recorded)"
        return None, note
    if args.tag:
        run = store.run_id(args.tag)
        if run is None:
            raise UsageError(f"no run tagged {args.tag!r} in {store.path}; tags: {', '.join(t for _, t, *_ in runs[:8])}")
        return [run], f"run {args.tag}"
    rid, tag, command, _, n = runs[0]
    others = "" if len(runs) == 1 else f"; {len(runs) - 1} other runs (--tag NAME shows one, --all pools all): " + \
        ", ".join(f"{t} ({' vs '.join(c.get('agents', [])[:3])}, {k} games)" for _, t, c, _, k in runs[1:4])
    return [rid], f"latest run {tag} ({', '.join(command.get('agents', []))}; {n} games){others}"


def report(args: argparse.Namespace, store: Store, games: Sequence[str], runs: list[int] | None, note: str) -> None:
    """The ratings, pair statistics and clock report of each game spec in ``games``, one after
    the other (never pooled); plots (``--plot``) of the first, or ``DIR/<game spec>/`` each
    when there are several."""
    print(note)
    if not games:
        print(format_report([], [], np.zeros((0, 0)), np.zeros((0, 0))))
    for k, spec in enumerate(games):
        names, ratings, n, s = standings(store, spec, runs)
        print(("\n" if k else "") + f"game {spec}")
        print(format_report(names, ratings, n, s))
        if match.game_of(spec).scores_by_returns:
            chips = returns_report(store, spec, runs)
            if chips:
                print("\nreturns a game (the game is scored by them: chips), either seat, forfeits left out\n" + chips)
        pairs = pair_report(store, spec, runs)
        if pairs:
            print("\ngame pairs (same opening, seats swapped): the first agent's Elo against the second\n" + pairs)
        clocks = clock_report(store, spec, runs)
        if clocks:
            print("\n" + clocks)
        if args.plot and ratings:
            from util.arena.plots import crosstable_png, ratings_png
            folder = Path(args.plot) if len(games) == 1 else Path(args.plot) / spec.replace(":", "_").replace(",", "_")
            ratings_png(ratings, folder / "ratings.png")
            order = [names.index(r.name) for r in ratings]  # strongest first, as printed
            crosstable_png([names[i] for i in order], n[order][:, order], s[order][:, order], folder / "crosstable.png")
            print(f"plots written to {folder}", file=sys.stderr)


def replay(args: argparse.Namespace, store: Store) -> int:
    from base.atomic import write_text
    for gid in args.replay:
        game = store.game(gid)
        if game is None:
            raise UsageError(f"no game {gid} in {store.path}")
        forfeit = next((int(m) for m in game.errors), 0) if game.termination in ("error", "timeout") else 0
        g = match.game_of(game.game)
        html = g.replay_html(game.moves, forfeit) or text_replay_html(g, game)
        path = Path(args.out) / f"game_{gid}.html"
        write_text(path, html)
        print(path)
    return 0


def text_replay_html(game: Game, stored: Any) -> str:
    """A plain HTML page of a stored game of any game: the state's text after each action."""
    import html

    state = game.initial()
    frames = [f"<h3>start</h3><pre>{html.escape(str(state))}</pre>"]
    chance = set(stored.chance)
    for i, a in enumerate(stored.moves):
        if state.is_terminal() or a not in state.legal_actions():
            break
        what = ("chance: " if i in chance else f"player {state.current_player() + 1}: ") + state.action_to_string(a)
        state = state.apply(a)
        frames.append(f"<h3>{i + 1}. {html.escape(what)}</h3><pre>{html.escape(str(state))}</pre>")
    end = {0: "draw", 1: "player 1 wins", 2: "player 2 wins"}[stored.winner] + f" ({stored.termination})"
    errors = "".join(f"<p>player {m}: {html.escape(str(e))}</p>" for m, e in stored.errors.items())
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(game.spec())} game {stored.id}</title></head>"
            f"<body><h2>{html.escape(game.spec())}: game {stored.id}</h2>{''.join(frames)}<p>{end}</p>{errors}</body></html>")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with stop_on_signals():  # SIGINT exits 130, SIGTERM 143, also mid-compile
        try:
            return _main(args)
        except KeyboardInterrupt as exc:  # before the games start (loading the agents): nothing to save
            print("interrupted", file=sys.stderr)
            return exit_code(exc)


def _main(args: argparse.Namespace) -> int:
    try:
        game = parse_game_args(args.game, args.shape)
        if args.opening_plies is not None and (args.opening_plies < 0 or game.opening_suite() is not None):
            raise UsageError("--opening-plies must be >= 0" if args.opening_plies < 0 else
                             f"{game.name} games start from its opening suite (core.game.Game.opening_suite); "
                             "--opening-plies is for other games")
        for name in ("games", "workers"):
            if getattr(args, name) < 1:
                raise UsageError(f"--{name} must be at least 1")
        if not args.time > 0 or not math.isfinite(args.time):
            raise UsageError("--time must be positive (seconds per move)")
        if args.all and not args.report:
            raise UsageError("--all goes with --report")
        if args.overage is not None and args.engine == "kaggle":
            raise UsageError("--overage sets agent files' bank in the direct loop; kaggle-environments gives its own (60 s): "
                             "drop --overage or use --engine direct")
        if args.replay:
            check_folder(Path(args.out), "--out")
        if args.plot:
            check_folder(Path(args.plot), "--plot")
        if not (args.report or args.replay) and backends.missing(args.backend):
            raise UsageError(backends.missing(args.backend))
        reading = bool(args.report or args.replay)
        with Store(args.db, create=not reading) as store:
            if args.replay:
                return replay(args, store)
            if args.report:
                runs, note = chosen_runs(args, store)
                specs = [game.spec()] if args.game or args.shape else store.game_specs(runs)
                report(args, store, specs, runs, note)
                return 0
            code, run, tag = play(args, store, game)
            if code > 128:  # interrupted
                return code
            report(args, store, [game.spec()], [run], f"run {tag}")
            return code
    except (UsageError, SpecError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a plot or a replay that cannot be written after all (a full disk)
        print(f"error: cannot write {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2


def check_folder(path: Path, flag: str) -> None:
    """Make sure files can be written into folder ``path`` (made if missing) before any work:
    a plot after an hour of games must not fail on the folder."""
    why = unwritable(path, folder=True)
    if why:
        raise UsageError(f"{flag} {why}; give a writable folder")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
