"""Two Reinforce Tactics agents head to head at equal time a turn, on several maps: per map the
first agent's wins / draws / losses, its share of the points (a draw is half a point) with a
95% interval (Wilson's, on the points), the games each side lost on time or by error and each
side's longest turn; then all maps pooled, with the median turn at which each side's wins ended
(a turn is one player's: Kaggle's step) and the share of draws.

    python -m bench.rt_turn_searches --agent macro_mcts --opponent mcts:leaf=heuristic \\
        --maps beginner,skirmish,cavalry_charge --games 4 --time 0.5 --steps 40

The games are the arena's (:func:`util.arena.match.schedule`, :func:`util.arena.match.run_job`:
the per-turn clock :class:`util.arena.match.TurnClock`, the hard limit, forfeits recorded), the
same random opening played twice with seats swapped (give an even ``--games``), both agents of a
game in one worker process (equal time is fair on a loaded machine only so), no store. Issue 27's
goal for macro-move MCTS against sub-action MCTS: at least 65% of the points. Ends with a
``FIGURES`` line (:mod:`bench.figures`): the pooled share, its interval and the forfeits.
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
from util.arena import sprt as S
from util.arena.ratings import wilson

FAULTS = ("timeout", "error", "illegal")  # terminations in which the side named in ``errors`` forfeited


def longest_turn(times: list[float], movers: list[int], mark: int) -> float:
    """The most seconds ``mark`` spent on one turn (a run of its consecutive decisions)."""
    best = run_s = 0.0
    prev = 0
    for t, m in zip(times, movers):
        if m == mark:
            run_s = run_s + t if prev == mark else t
            best = max(best, run_s)
        prev = m
    return best


def turns_played(moves: list[int], end_turn: int) -> int:
    """How many turns (both players', Kaggle's steps) a game's ``moves`` reached: the turns ended
    by ``end_turn`` and the one in which the game ended."""
    return sum(1 for a in moves if a == end_turn) + 1


def tally(results: list[tuple[match.GameJob, Any]], agent: str, end_turn: int = -1) -> dict[str, Any]:
    """One map's figures for ``agent`` (a spec's text) from its games' results; ``end_turn``:
    the game's end-of-turn action, to count the turn at which each win ended."""
    w = d = lo = mine = theirs = 0
    win_turns: list[int] = []
    loss_turns: list[int] = []
    turn_a = turn_b = 0.0
    notes: list[str] = []
    for job, r in results:
        if isinstance(r, BaseException):
            raise SystemExit(f"a game failed in its worker: {type(r).__name__}: {r}")
        mark = 1 if job.first.text == agent else 2
        won, drawn = r["winner"] == mark, r["winner"] == 0
        w, d, lo = w + won, d + drawn, lo + (not won and not drawn)
        if r["winner"] and r["termination"] not in FAULTS:
            (win_turns if won else loss_turns).append(turns_played(r["moves"], end_turn))
        if r["termination"] in FAULTS:
            ours = mark in r["errors"]
            mine, theirs = mine + ours, theirs + (not ours)
            notes.append(f"{r['termination']} by the {'agent' if ours else 'opponent'}: "
                         f"{next(iter(r['errors'].values()), '')[:120]}")
        turn_a = max(turn_a, longest_turn(r["move_times"], r["movers"], mark))
        turn_b = max(turn_b, longest_turn(r["move_times"], r["movers"], 3 - mark))
    n = w + d + lo
    points = w + 0.5 * d
    return {"wins": w, "draws": d, "losses": lo, "n": n, "points": points, "share": points / n if n else 0.0,
            "interval": wilson(points, n), "faults": mine, "opp_faults": theirs, "notes": notes,
            "turn_a": turn_a, "turn_b": turn_b, "win_turns": win_turns, "loss_turns": loss_turns}


def progress(name: str, job: match.GameJob, result: Any, agent: str, done: int, total: int, seconds: float) -> None:
    """One line on stderr as each game ends (so that a long run stopped early still says what it saw)."""
    if isinstance(result, BaseException):
        outcome = f"failed: {type(result).__name__}"
    else:
        mark = 1 if job.first.text == agent else 2
        outcome = {mark: "won", 3 - mark: "lost", 0: "drawn"}[result["winner"]] + f" ({result['termination']}, " \
            f"{len(result['moves'])} actions)"
        outcome += f", seat {mark}"
    print(f"[{done}/{total} {seconds:.0f} s] {name} game {job.index}: the agent {outcome}", file=sys.stderr, flush=True)


def median_text(turns: list[int]) -> str:
    """The median of ``turns`` and how many there are, or "no wins"."""
    return f"{statistics.median(turns):g} (of {len(turns)} wins)" if turns else "no wins"


def pair_points(results: list[tuple[match.GameJob, Any]], agent: str) -> list[float]:
    """``agent``'s points in each complete game pair (games 2k and 2k+1 of a map: one opening,
    seats swapped), over the maps of ``results``."""
    pairs: dict[tuple[str, int], list[float]] = {}
    for job, r in results:
        mark = 1 if job.first.text == agent else 2
        points = 1.0 if r["winner"] == mark else 0.5 if r["winner"] == 0 else 0.0
        pairs.setdefault((job.game, job.index // 2), []).append(points)
    return [sum(p) for p in pairs.values() if len(p) == 2]


def sprt_line(test: S.Sprt, results: list[tuple[match.GameJob, Any]], agent: str) -> str:
    """The SPRT's line: pentanomial, LLR, its bounds and the verdict."""
    penta = S.pentanomial(pair_points(results, agent))
    if not penta.sum():
        return f"SPRT {test.text()}: no complete game pair"
    value = float(S.llr(penta, test.elo0, test.elo1, test.model))
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}[test.decide(value)]
    return (f"SPRT {test.text()}: {int(penta.sum())} pairs, pentanomial {'/'.join(str(int(c)) for c in penta)}, "
            f"LLR {value:.2f} in [{test.lower:.2f}, {test.upper:.2f}]: {verdict}")


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.rt_turn_searches", description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="macro_mcts", help="the agent measured, an arena spec (default macro_mcts)")
    ap.add_argument("--opponent", default="mcts:leaf=heuristic",
                    help="its opponent, an arena spec (default mcts:leaf=heuristic: sub-action MCTS)")
    ap.add_argument("--maps", default="beginner,skirmish,cavalry_charge",
                    help="comma-separated map names (default beginner,skirmish,cavalry_charge: 6x6, 8x8, 20x20)")
    ap.add_argument("--games", type=positive_int, default=4, help="games per map, seats swapped in pairs (default 4)")
    ap.add_argument("--time", type=float, default=0.5, help="seconds a turn for both (default 0.5)")
    ap.add_argument("--steps", type=positive_int, default=40, help="Kaggle's episodeSteps (default 40: short games)")
    ap.add_argument("--workers", type=positive_int, default=2, help="worker processes (default 2, at most 2 on the shared VM)")
    ap.add_argument("--seed", type=int, default=0, help="seeds the games (openings, players' and chance's randomness)")
    ap.add_argument("--sprt", default="", metavar="elo0=0,elo1=10,alpha=0.05,beta=0.05",
                    help="also the SPRT's log-likelihood ratio of every map's game pairs pooled (util.arena.sprt) "
                         "and its verdict after all of them: H1, H0 or undecided (a fixed sample: it does not stop early)")
    args = ap.parse_args(argv)
    try:
        test = S.parse(args.sprt) if args.sprt else None
    except ValueError as exc:
        ap.error(str(exc))
    names = [m.strip() for m in args.maps.split(",") if m.strip()]
    unknown = [m for m in names if m not in maps.map_names()]
    if not names or unknown:
        ap.error(f"unknown map {unknown[0] if unknown else ''!r}; valid: {', '.join(maps.map_names())}")
    if args.steps < 2 or not 0 < args.time <= 60:
        ap.error("--steps must be >= 2 and --time in (0, 60] seconds")
    try:
        game0 = match.game_of(f"reinforce_tactics:map={names[0]},episode_steps={args.steps}")
        agent = players.resolve(args.agent, game0)
        opponent = players.resolve(args.opponent, game0)
    except ValueError as exc:
        ap.error(f"{exc}")
    if agent.text == opponent.text:
        ap.error("--agent and --opponent are the same spec; give two different agents")
    jobs: list[match.GameJob] = []
    for name in names:
        spec = f"reinforce_tactics:map={name},episode_steps={args.steps}"
        jobs += match.schedule([agent, opponent], args.games, "round-robin", spec, args.time, "direct", args.seed)
    print(f"{agent.text} against {opponent.text}: {args.games} games a map, seats swapped, {args.time:g} s a turn, "
          f"episodeSteps {args.steps}, {args.workers} workers", flush=True)
    t0 = time.perf_counter()
    by: dict[str, list[tuple[match.GameJob, Any]]] = {}
    for job, result in run(jobs, match.run_job, args.workers):
        name = match.game_of(job.game).params["map"]
        by.setdefault(name, []).append((job, result))
        progress(name, job, result, agent.text, len(sum(by.values(), [])), len(jobs), time.perf_counter() - t0)
    print(f"{'map':16} {'W/D/L':>8} {'points [95%]':>19} {'forfeits':>9} {'max turn s':>12}")
    total: dict[str, Any] = {"points": 0.0, "n": 0, "draws": 0, "faults": 0, "opp_faults": 0,
                             "win_turns": [], "loss_turns": []}
    end_turn = game0.end_turn_action
    for name in names:
        t = tally(by.get(name, []), agent.text, -1 if end_turn is None else end_turn)
        lo, hi = t["interval"]
        print(f"{name:16} {t['wins']:>2}/{t['draws']}/{t['losses']:<2} {t['share']:6.3f} [{lo:.2f}, {hi:.2f}] "
              f"{t['faults']:>4}/{t['opp_faults']:<4} {t['turn_a']:5.2f}/{t['turn_b']:<5.2f}", flush=True)
        for note in t["notes"]:
            print(f"    {note}")
        for k in total:
            total[k] += t[k]
    lo, hi = wilson(total["points"], total["n"])
    share = total["points"] / total["n"] if total["n"] else 0.0
    print(f"{'all maps':16} {share:.3f} [{lo:.3f}, {hi:.3f}] of {total['n']} games; forfeits {agent.text} "
          f"{total['faults']}, {opponent.text} {total['opp_faults']} ({time.perf_counter() - t0:.0f} s)")
    draw_share = total["draws"] / total["n"] if total["n"] else 0.0
    print(f"{'':16} draws {total['draws']} ({draw_share:.1%}); median turn of a win (Kaggle's step): "
          f"{agent.text} {median_text(total['win_turns'])}, {opponent.text} {median_text(total['loss_turns'])}")
    if test is not None:
        print(sprt_line(test, [r for rs in by.values() for r in rs], agent.text))
    figures.emit({"share": share, "share_lo": lo, "share_hi": hi, "games": total["n"], "draw_share": draw_share,
                  "win_turn_median": statistics.median(total["win_turns"]) if total["win_turns"] else 0.0,
                  "agent_forfeits": total["faults"], "opponent_forfeits": total["opp_faults"]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
