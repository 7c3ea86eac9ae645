"""A Reinforce Tactics agent's strength against fixed opponents on every built-in map: per map
and opponent its wins / draws / losses, its share of the points (a draw is half a point) with a
95% interval (Wilson's, on the points), the games it lost on time or by error, the median
seconds of its decisions and its longest turn.

    python -m bench.rt_strength --agent greedy --opponents kaggle:aggressive,random --games 4 --time 0.5
    python -m bench.rt_strength --fog --agent pimc --opponents pimc:view=seen,greedy:cheat=1 --games 2 --time 0.5

``--fog``: the game under fog of war (``reinforce_tactics:fog=1``; docs/hidden-information.md):
``pimc`` (greedy on determinizations) against the same search on what it sees as if it were
all (``pimc:view=seen``) and against ``greedy:cheat=1``, which the arena hands the true state (the
ceiling; without ``cheat=1`` the arena refuses an agent that reads the whole state under fog).

The games are the arena's (:func:`util.arena.match.schedule`, :func:`util.arena.match.run_job`:
per-turn clock, hard limit, forfeits recorded), seats alternating (give an even ``--games``),
played by ``--workers`` processes, no store. The issue's goal (issue 27, point 4): at least 90%
of the points against ``kaggle:aggressive`` on every map, every game won against ``random``,
none lost on time or by error. Ends with a ``FIGURES`` line (:mod:`bench.figures`): per
opponent the points share over all maps and the smallest map share.
"""
from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from base.backends import run
from base.cli import OneLineParser, positive_int
from bench import figures
from core.reinforce_tactics import maps
from util.arena import match, players
from util.arena.ratings import wilson

FAULTS = ("timeout", "error", "illegal")  # terminations in which the side named in ``errors`` forfeited


def turn_seconds(times: list[float], movers: list[int], mark: int) -> list[float]:
    """The total seconds of each of ``mark``'s turns: its runs of consecutive decisions (the
    other side's decisions separate turns; chance outcomes are not in ``movers``)."""
    out: list[float] = []
    prev = 0
    for t, m in zip(times, movers):
        if m == mark:
            if prev == mark:
                out[-1] += t
            else:
                out.append(t)
        prev = m
    return out


def tally(results: list[tuple[match.GameJob, dict[str, Any]]], agent: str) -> dict[str, Any]:
    """One map and opponent's figures from its games' results, for ``agent`` (a spec's text)."""
    w = d = lo = faults = 0
    decisions: list[float] = []
    turns: list[float] = []
    notes: list[str] = []
    for job, r in results:
        mark = 1 if job.first.text == agent else 2
        if isinstance(r, BaseException):
            raise SystemExit(f"a game failed in its worker: {type(r).__name__}: {r}")
        won, drawn = r["winner"] == mark, r["winner"] == 0
        w, d, lo = w + won, d + drawn, lo + (not won and not drawn)
        if r["termination"] in FAULTS:
            who = "agent" if mark in r["errors"] else "opponent"
            faults += who == "agent"
            notes.append(f"{r['termination']} by the {who}: {next(iter(r['errors'].values()), '')[:120]}")
        decisions += [t for t, m in zip(r["move_times"], r["movers"]) if m == mark]
        turns += turn_seconds(r["move_times"], r["movers"], mark)
    n = w + d + lo
    points = w + 0.5 * d
    return {"wins": w, "draws": d, "losses": lo, "n": n, "points": points, "share": points / n if n else 0.0,
            "interval": wilson(points, n), "faults": faults, "notes": notes,
            "decision_s": statistics.median(decisions) if decisions else 0.0, "max_turn_s": max(turns, default=0.0)}


def row(name: str, opponent: str, t: dict[str, Any]) -> None:
    """Print one map and opponent's line of :func:`tally`'s figures, and its forfeits."""
    lo, hi = t["interval"]
    print(f"{name:18} {opponent[:18]:18} {t['wins']:>2}/{t['draws']}/{t['losses']:<2} {t['share']:6.3f} [{lo:.2f}, {hi:.2f}] "
          f"{t['faults']:>6} {1000 * t['decision_s']:7.1f} {t['max_turn_s']:10.2f}", flush=True)
    for note in t["notes"]:
        print(f"    {note}")


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.rt_strength", description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="greedy", help="the agent measured, an arena spec (default greedy)")
    ap.add_argument("--opponents", default="kaggle:aggressive,random",
                    help="comma-separated arena specs (default kaggle:aggressive,random)")
    ap.add_argument("--maps", default="all", help="comma-separated map names, or all (default)")
    ap.add_argument("--games", type=positive_int, default=4, help="games per map and opponent, seats alternating (default 4)")
    ap.add_argument("--time", type=float, default=0.5, help="seconds a turn (default 0.5; Kaggle's actTimeout is 5)")
    ap.add_argument("--steps", type=positive_int, default=200, help="Kaggle's episodeSteps (default 200)")
    ap.add_argument("--workers", type=positive_int, default=2, help="worker processes (default 2, at most 2 on the shared VM)")
    ap.add_argument("--seed", type=int, default=0, help="seeds the games (players' and chance's randomness)")
    ap.add_argument("--fog", action="store_true", help="the game under fog of war (reinforce_tactics:fog=1)")
    args = ap.parse_args(argv)
    fog = ",fog=1" if args.fog else ""
    names = maps.map_names() if args.maps == "all" else [m.strip() for m in args.maps.split(",") if m.strip()]
    unknown = [m for m in names if m not in maps.map_names()]
    if unknown:
        ap.error(f"unknown map {unknown[0]!r}; valid: {', '.join(maps.map_names())}")
    if args.steps < 2 or not 0 < args.time <= 60:
        ap.error("--steps must be >= 2 and --time in (0, 60] seconds")
    try:
        game0 = match.game_of(f"reinforce_tactics:map={names[0]},episode_steps={args.steps}{fog}")
        agent = players.resolve(args.agent, game0)
        opponents = [players.resolve(s, game0) for s in players.split_specs(args.opponents)]
    except ValueError as exc:
        ap.error(f"{exc}")
    jobs: list[match.GameJob] = []
    for name in names:
        spec = f"reinforce_tactics:map={name},episode_steps={args.steps}{fog}"
        for opp in opponents:
            jobs += match.schedule([agent, opp], args.games, "gauntlet", spec, args.time, "direct", args.seed)
    by: dict[tuple[str, str], list[tuple[match.GameJob, dict[str, Any]]]] = {}
    print(f"{agent.text} against {', '.join(o.text for o in opponents)}{' under fog' if fog else ''}: "
          f"{args.games} games a map and opponent, "
          f"seats alternating, {args.time:g} s a turn, episodeSteps {args.steps}, {args.workers} workers", flush=True)
    t0 = time.perf_counter()
    header = f"{'map':18} {'opponent':18} {'W/D/L':>8} {'points [95%]':>19} {'faults':>6} {'dec ms':>7} {'max turn s':>10}"
    print(header, flush=True)
    for job, result in run(jobs, match.run_job, args.workers):
        key = (match.game_of(job.game).params["map"], job.b.text)
        by.setdefault(key, []).append((job, result))
        if len(by[key]) == args.games:  # the pair's games are in: its row now (the summary repeats it)
            row(key[0], key[1], tally(by[key], agent.text))
    print("\nsummary, by opponent")
    print(header)
    figs: dict[str, float] = {}
    for opp in opponents:
        total = {"points": 0.0, "n": 0, "faults": 0}
        shares = []
        for name in names:
            t = tally(by.get((name, opp.text), []), agent.text)
            row(name, opp.text, t)
            total["points"] += t["points"]
            total["n"] += t["n"]
            total["faults"] += t["faults"]
            shares.append(t["share"])
        lo, hi = wilson(total["points"], total["n"])
        share = total["points"] / total["n"] if total["n"] else 0.0
        low_maps = [n for n, s in zip(names, shares) if s < 0.9]
        print(f"{'all maps':18} {opp.text[:18]:18} {share:.3f} [{lo:.3f}, {hi:.3f}] of {total['n']} games, "
              f"{total['faults']} lost on time/error; maps under 0.9: {', '.join(low_maps) or 'none'}", flush=True)
        tag = opp.text.replace("kaggle:", "kaggle_").split(":")[0]
        figs[f"{tag}_share"] = share
        figs[f"{tag}_min_map_share"] = min(shares)
        figs[f"{tag}_faults"] = total["faults"]
    print(f"({time.perf_counter() - t0:.0f} s)")
    figures.emit(figs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
