"""Local tournaments: ``python -m util.tournament --agents random,rules,kaggle:negamax --games 20``.

Why this shape: games start from a fixed suite of balanced openings with seats swapped
(:mod:`util.openings`); each finished game is committed to SQLite at once by this driver
process alone (:mod:`util.store`), so an interrupted run loses only games in progress, and
rerunning the same command plays only what is missing. Ratings are a Bradley-Terry fit over
every game of the board shape in the store (:mod:`util.ratings`).

Exit codes: 0 done, 1 some games failed inside their worker (not recorded: rerun to retry them),
2 bad input (one line on stderr), 130 interrupted (rerun to resume).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.registry import SpecError
from core.shape import Shape
from util import backends, match, players
from util.ratings import Rating, rate, tables
from util.store import Store, StoreError

DEFAULT_DB = Path("results") / "tournament.sqlite"


class UsageError(ValueError):
    """Bad command-line input: printed as one line, exit code 2."""


def parse_shape(text: str) -> Shape:
    try:
        return Shape.parse(text)
    except ValueError as exc:
        raise UsageError(f"bad --shape {text!r}: {exc}") from None


def labels(store: Store, ids: Sequence[int]) -> dict[int, str]:
    """Player labels: the spec, plus ``@version`` when the store holds several versions of it."""
    known = store.players()
    specs = [known[i][0] for i in known]
    return {i: known[i][0] + (f"@{known[i][1][:6]}" if specs.count(known[i][0]) > 1 else "") for i in ids}


def standings(store: Store, shape: Shape) -> tuple[list[str], list[Rating], np.ndarray, np.ndarray]:
    """(labels, ratings strongest first, games table, scores table) over the store's games on
    ``shape``; table rows and columns follow ``labels``."""
    results = list(store.games(str(shape)))
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


def clock_report(store: Store, shape: Shape) -> str:
    """Per agent: moves timed, median and slowest move, and games forfeited (error, timeout,
    illegal move), so that "no timeout, every move inside actTimeout" can be read off."""
    results = list(store.games(str(shape)))
    ids = sorted({g.first for g in results} | {g.second for g in results})
    names = labels(store, ids)
    times: dict[int, list[float]] = {i: [] for i in ids}
    forfeits: dict[int, int] = {i: 0 for i in ids}
    for g in results:
        movers = (g.first, g.second)
        for k, t in enumerate(g.move_times):  # timed moves start after the opening
            times[movers[(len(g.opening) + k) % 2]].append(t)
        for mark in g.errors:
            forfeits[movers[int(mark) - 1]] += 1
    if not results:
        return ""
    width = max(len(names[i]) for i in ids)
    lines = [f"{'agent':<{width}}  {'moves':>6}  {'median s':>8}  {'slowest s':>9}  forfeits (error, timeout, illegal)"]
    for i in ids:
        ts = sorted(times[i])
        med = ts[len(ts) // 2] if ts else 0.0
        lines.append(f"{names[i]:<{width}}  {len(ts):>6}  {med:>8.3f}  {max(ts or [0.0]):>9.3f}  {forfeits[i]}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m util.tournament", description=__doc__.split("\n\n")[0],
                                epilog="Agent specs: our names with parameters (alphabeta:depth=6), kaggle:negamax, "
                                       "kaggle:random, a Kaggle agent file path, openspiel_mcts:sims=1000.")
    p.add_argument("--agents", help="comma-separated agent specs (see below)")
    p.add_argument("--games", type=int, default=10, help="games per pairing (even numbers keep seats balanced; default 10)")
    p.add_argument("--format", choices=match.FORMATS, default="round-robin", help="all pairs, or the first agent against each other")
    p.add_argument("--time", type=float, default=1.0, help="seconds per move (default 1.0; Kaggle gives 2)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="parallel games (default: CPU count; 1 = in this process)")
    p.add_argument("--db", default=str(DEFAULT_DB), help=f"SQLite store (default {DEFAULT_DB})")
    p.add_argument("--seed", type=int, default=0, help="seeds every game's randomness (default 0)")
    p.add_argument("--backend", choices=backends.BACKENDS, default="process", help="local process pool (default) or Ray tasks")
    p.add_argument("--address", default=None, help="Ray cluster address (with --backend ray; default: a fresh local instance)")
    p.add_argument("--engine", choices=match.ENGINES, default="direct", help="direct loop (fast, default) or kaggle-environments (full fidelity)")
    p.add_argument("--shape", default="6x7x4", help="board as ROWSxCOLUMNSxINAROW (default 6x7x4)")
    p.add_argument("--plot", metavar="DIR", help="write ratings.png and crosstable.png into DIR")
    p.add_argument("--replay", metavar="GAME_ID", type=int, nargs="+", help="write an HTML replay of these stored games (with --out) and exit")
    p.add_argument("--out", default="results/replays", help="folder for --replay files (default results/replays)")
    p.add_argument("--report", action="store_true", help="print the ratings of the games in the store and exit")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def play(args: argparse.Namespace, store: Store, shape: Shape) -> int:
    specs = [players.resolve(s) for s in players.split_specs(args.agents or "")]
    if len(specs) < 2:
        raise UsageError("--agents needs at least two agent specs, comma-separated")
    if len({s.text for s in specs}) < len(specs):
        raise UsageError("--agents lists the same agent twice; give each entry different parameters")
    for spec in specs:
        players.check_loads(spec, shape, args.time)
    jobs = match.schedule(specs, args.games, args.format, shape, args.time, args.engine, args.seed)
    done = store.done_keys()
    todo = [j for j in jobs if j.key not in done]
    ids = {s.text: store.player_id(s.text, s.version, dict(s.params)) for s in specs}
    print(f"{len(jobs)} games scheduled, {len(jobs) - len(todo)} already in {store.path}, {len(todo)} to play", file=sys.stderr)
    from tqdm import tqdm
    failed = 0
    bar = tqdm(total=len(todo), disable=args.quiet, unit="game", file=sys.stderr)
    try:
        for job, result in backends.run(todo, match.run_job, args.workers, args.backend, args.address):
            bar.update(1)
            if isinstance(result, BaseException):  # not the agents' fault: not recorded, retried next run
                failed += 1
                bar.write(f"game {job.key} failed in its worker ({type(result).__name__}: {result}); rerun to retry it")
                continue
            store.add_game(job.key, ids[job.first.text], ids[job.second.text], str(shape), result,
                           time_per_move=args.time, engine=args.engine, seed=job.seed, source="tournament")
    except KeyboardInterrupt:
        bar.close()
        print(f"interrupted: {store.count()} games are saved in {store.path}; rerun the same command to resume", file=sys.stderr)
        return 130
    bar.close()
    return 1 if failed else 0


def replay(args: argparse.Namespace, store: Store) -> int:
    from util.atomic import write_text
    from util.kaggle_play import replay_html
    for gid in args.replay:
        game = store.game(gid)
        if game is None:
            raise UsageError(f"no game {gid} in {store.path}")
        forfeit = next((int(m) for m in game.errors), 0) if game.termination in ("error", "timeout") else 0
        html = replay_html(game.moves, parse_shape(game.shape), forfeit)
        path = Path(args.out) / f"game_{gid}.html"
        write_text(path, html)
        print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    backends.interrupt_on_sigterm()
    try:
        shape = parse_shape(args.shape)
        for name in ("games", "workers"):
            if getattr(args, name) < 1:
                raise UsageError(f"--{name} must be at least 1")
        if args.time <= 0:
            raise UsageError("--time must be positive (seconds per move)")
        with Store(args.db) as store:
            if args.replay:
                return replay(args, store)
            code = 0 if args.report else play(args, store, shape)
            if code == 130:
                return code
            names, ratings, n, s = standings(store, shape)
            print(format_report(names, ratings, n, s))
            clocks = clock_report(store, shape)
            if clocks:
                print("\n" + clocks)
            if args.plot and ratings:
                from util.plots import crosstable_png, ratings_png
                ratings_png(ratings, Path(args.plot) / "ratings.png")
                order = [names.index(r.name) for r in ratings]  # strongest first, as printed
                crosstable_png([names[i] for i in order], n[order][:, order], s[order][:, order], Path(args.plot) / "crosstable.png")
                print(f"plots written to {args.plot}", file=sys.stderr)
            return code
    except (UsageError, SpecError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
