"""A built submission in kaggle-environments, every move judged from outside by our solver.

    python build_submission.py --output submissions/submission.py --no-validate
    python -m bench.perfect_kaggle submissions/submission.py --opponents perfect,kaggle:negamax --games 2

Each game starts from the empty board and runs through kaggle-environments at ``--time``
seconds a move (Kaggle's 2 s by default), the file in its own process as on Kaggle (a fresh
process per game: every game pays numba's compile again). For each game the bench reports:
- the result, the file's first-move and maximum move time (must stay under actTimeout);
- every move of the file whose position's value is known (a weak solve: win, draw or loss)
  is judged: it must keep that value. Positions before ``--judge-from-ply`` are not judged
  (their solves take minutes; ply 0 is the published result: the centre wins);
- "converted": whenever the opponent's move left the file a won position, the file must win.

``perfect`` is a perfect opponent: a strong solver that plays a move of the best exact score
(the fastest win, the slowest loss), ties broken at random by the game's seed, so that games
differ. Before ``--strong-from-ply`` (default 3) it plays a random move of the best weak value
(for the second player's first reply every move loses, so any is perfect in the weak sense:
strong solves of those seven positions would take most of an hour here). Its solves take up to minutes, which kaggle-environments' clock would not allow, so
each game is first played in the direct loop, where the opponent thinks outside the clock,
to learn its choices; then the same game is played in kaggle-environments with those choices
cached (a position the file reaches only there is solved and the game replayed). Solver
results are kept in ``--cache`` (JSON), so a rerun is quick.

The exit code is 1 when a judged move lost value, a won position was not converted, the file
lost as first player to anyone, or a move of the file timed out or failed; else 0.
"""
from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.connectx.base import PositionAgent  # noqa: E402
from agents.connectx.solver import Solver  # noqa: E402
from base.atomic import write_text  # noqa: E402
from base.cli import OneLineParser, check_writable  # noqa: E402
from core.connectx.position import Position  # noqa: E402
from core.connectx.shape import STANDARD  # noqa: E402
from util.arena.players import StatelessPlayer  # noqa: E402


class SolverCache:
    """Weak values (by symmetric key) and strong child scores (by key), computed once, kept on
    disk. ``book`` holds the values the opening book's store recorded: the perfect opponent may
    read them (its early choices), the judge never does (the file under test plays from them)."""

    def __init__(self, path: Path, store: Path | None = None) -> None:
        self.path = path
        self.solver = Solver(STANDARD, tt_size=1 << 24)
        data = json.loads(path.read_text()) if path.is_file() else {}
        self.values: dict[str, int] = data.get("values", {})
        self.scores: dict[str, list] = data.get("scores", {})
        self.hard: dict[str, int] = data.get("hard", {})  # positions a weak solve of that many nodes did not finish
        self.seconds = 0.0  # spent solving in this run
        self.book: dict[str, int] = {}
        if store is not None and store.is_file():
            for line in store.read_text().splitlines():
                moves, _col, score = line.split()[:3]
                pos = Position.from_moves("" if moves == "-" else moves, STANDARD)
                self.book[str(pos.symmetric_key())] = (int(score) > 0) - (int(score) < 0)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_text(self.path, json.dumps({"values": self.values, "scores": self.scores, "hard": self.hard}))

    def solved(self, position: Position, use_book: bool = False) -> int:
        """:meth:`value` without a node limit: always an answer."""
        v = self.value(position, use_book)
        assert v is not None  # no node limit: the solve finishes
        return v

    def value(self, position: Position, use_book: bool = False, node_limit: int | None = None) -> int | None:
        """-1, 0 or 1 for the side to move (weak solve); None when ``node_limit`` nodes did not
        solve it (remembered in ``hard``, so that a rerun with the same limit does not try again)."""
        key = str(position.symmetric_key())
        if use_book and key in self.book:
            return self.book[key]
        if key not in self.values:
            if node_limit is not None and self.hard.get(key, 0) >= node_limit:
                return None
            t = time.perf_counter()
            v = self.solver.solve(position, weak=True, node_limit=node_limit)
            self.seconds += time.perf_counter() - t
            if v is None:
                self.hard[key] = max(self.hard.get(key, 0), node_limit or 0)
                self.save()
                return None
            self.values[key] = (v > 0) - (v < 0)
            self.save()
        return self.values[key]

    def child_scores(self, position: Position) -> list:
        """Exact score of each column (None: full), for the side to move."""
        key = str(position.key())
        if key not in self.scores:
            t = time.perf_counter()
            scores = self.solver.child_scores(position)
            if scores is None:  # never: the solver runs with no node limit
                raise RuntimeError(f"{key}: no scores")
            self.scores[key] = scores
            self.seconds += time.perf_counter() - t
            self.save()
        return self.scores[key]


class PerfectOpponent(PositionAgent, StatelessPlayer):
    """Plays a move of the best exact score, ties broken by ``seed`` (see the module docstring).
    With ``cached_only`` a position not in the cache is noted in ``missed`` (and solved anyway)."""

    def __init__(self, cache: SolverCache, seed: int, strong_from: int, cached_only: bool = False) -> None:
        self.cache, self.seed, self.strong_from, self.cached_only = cache, seed, strong_from, cached_only
        self.missed: list[Position] = []

    def choose_position(self, position: Position, deadline: float) -> int:
        if position.ply < self.strong_from:
            children = {c: (1 if position.is_winning_move(c) else -self.cache.solved(position.play(c), use_book=True))
                        for c in position.legal_columns()}
            scores = [children.get(c) for c in range(position.shape.columns)]
        else:
            if self.cached_only and str(position.key()) not in self.cache.scores:
                self.missed.append(position)
            scores = self.cache.child_scores(position)
        best = max(s for s in scores if s is not None)
        ties = [c for c, s in enumerate(scores) if s == best]
        return random.Random(f"{self.seed}:{position.key()}").choice(ties)

    def kaggle_agent(self, obs: Any, config: Any) -> int:
        return self.choose_position(Position.from_board(list(obs["board"]), STANDARD), 0.0)



def _conversion(won_position: bool, outcome: str) -> str:
    if not won_position:
        return "never in a won position"
    return "won position converted" if outcome == "win" else "WON POSITION NOT CONVERTED"

def judge(moves: list[int], seat: int, cache: SolverCache, judge_from: int, opening: int = 0,
          node_limit: int | None = None) -> dict:
    """Judge the moves of ``seat`` (1 or 2) in a finished game (see the module docstring); the
    first ``opening`` moves were the arena's opening, nobody's choice: neither judged nor counted.
    With ``node_limit`` a move whose positions a weak solve of that many nodes does not finish
    is counted in ``too_hard`` (by ply), not judged."""
    out: dict[str, Any] = {"kept": 0, "lost": [], "unjudged": 0, "won_position": False, "too_hard": []}
    pos = Position.empty(STANDARD)
    for ply, col in enumerate(moves):
        mover = 1 + ply % 2
        if mover == seat and ply >= opening:
            if ply < judge_from:
                out["unjudged"] += 1
            else:
                wins = pos.is_winning_move(col)
                before = 1 if wins else cache.value(pos, node_limit=node_limit)
                if before == 1:
                    out["won_position"] = True
                after = -1 if wins else None if before is None else cache.value(pos.play(col), node_limit=node_limit)
                if before is None or after is None:
                    out["too_hard"].append(ply)
                elif -after == before:
                    out["kept"] += 1
                else:
                    out["lost"].append((ply, col, before, -after))
        pos = pos.play(col)
        if pos.is_terminal():
            break
    return out


def _player(spec: str, time_per_move: float, seed: int) -> Any:
    from util.arena.players import build, resolve

    return build(resolve(spec), STANDARD, time_per_move, seed=seed)


def play_one(path: str, spec: str, seat: int, seed: int, time_per_move: float, cache: SolverCache,
             strong_from: int) -> dict:
    """One kaggle-environments game of the file at ``path`` in ``seat`` against ``spec``."""
    from core.connectx.kaggle_play import play_kaggle
    from util.arena.game import play_game

    learned: list[int] | None = None
    if spec == "perfect":  # learn the opponent's choices outside the clock
        me, opp = _player(path, time_per_move, seed), PerfectOpponent(cache, seed, strong_from)
        try:
            first, second = (me, opp) if seat == 1 else (opp, me)
            learned = list(play_game(first, second, STANDARD, time_per_move, hard_limit=3600.0).moves)
        finally:
            me.close()
    for attempt in range(4):  # noqa: B007 (read after the loop)
        me = _player(path, time_per_move, seed)
        opp = PerfectOpponent(cache, seed, strong_from, cached_only=True) if spec == "perfect" else _player(spec, time_per_move, seed)
        try:
            first, second = (me, opp) if seat == 1 else (opp, me)
            result = play_kaggle(first, second, STANDARD, time_per_move)
        finally:
            me.close()
            opp.close()
        if spec != "perfect" or not opp.missed:
            break  # a cached-only opponent that missed solved the position: replay the game
    result["attempts"] = attempt + 1
    result["same_as_learned"] = learned is None or learned == result["moves"]
    result["my_times"] = result["move_times"][seat - 1::2]
    return result


# --- the arena on Kaggle's clock ---------------------------------------------------------------
def arena_games(file: str, opponent: str, games: int, time_per_move: float, workers: int, db: Path, seed: int) -> tuple[list, list[int]]:
    """Play (or resume) ``games`` games of the file against ``opponent`` in the arena
    (:mod:`util.arena.tournament`: the arena's openings, seats swapped, every agent file in a
    fresh process per game on Kaggle's clock, its 60 s bank included); returns the stored games
    of that run, the file's player id and the opponent's."""
    from util.arena import tournament
    from util.arena.players import resolve
    from util.arena.store import Store

    tag = f"perfect-arena:{Path(file).resolve()}:{opponent}:{games}:{time_per_move:g}:{seed}"
    code = tournament.main(["--agents", f"{file},{opponent}", "--games", str(games), "--time", f"{time_per_move:g}",
                            "--workers", str(workers), "--db", str(db), "--seed", str(seed), "--tag", tag, "--quiet"])
    if code != 0:
        raise SystemExit(code)
    mine = resolve(file)
    with Store(db, create=False) as store:
        run = store.run_id(tag)
        ids = [i for i, (spec, version) in store.players().items() if spec == mine.text and version == mine.version]
        return [g for g in store.games(runs=[run] if run is not None else []) if g.first in ids or g.second in ids], ids


def judge_arena(stored: list, ids: list[int], cache: SolverCache, judge_from: int, node_limit: int | None) -> dict:
    """Every stored game judged: the file's points, its moves that kept the value (weak solves,
    from ``judge_from`` on and after the opening), its moves that lost it, per game lines."""
    total: dict[str, Any] = {"points": 0.0, "games": 0, "kept": 0, "lost": [], "unjudged": 0, "too_hard": [], "lines": [],
                             "first_moves": [], "slowest": 0.0}
    for g in stored:
        seat = 1 if g.first in ids else 2
        j = judge(list(g.moves), seat, cache, judge_from, opening=len(g.opening), node_limit=node_limit)
        times = [t for t, m in zip(g.move_times, g.mover_marks()) if m == seat]
        points = 1.0 if g.winner == seat else 0.5 if g.winner == 0 else 0.0
        total["points"] += points
        total["games"] += 1
        total["kept"] += j["kept"]
        total["unjudged"] += j["unjudged"]
        total["too_hard"] += j["too_hard"]
        total["lost"] += [(g.id, *lost) for lost in j["lost"]]
        total["first_moves"].append(times[0] if times else 0.0)
        total["slowest"] = max([total["slowest"], *times])
        opening = "".join(str(c + 1) for c in g.opening) or "-"
        bad = ", ".join(f"ply {ply} col {col + 1} ({before:+d}->{after:+d})" for ply, col, before, after in j["lost"])
        total["lines"].append(f"game {g.id}: opening {opening:5} as {seat}: {points:g} point ({g.termination}); kept "
                              f"{j['kept']}, lost {len(j['lost'])}{': ' + bad if bad else ''}, too hard to judge {len(j['too_hard'])}, "
                              f"before ply {judge_from} {j['unjudged']}; "
                              f"first move {times[0] if times else 0:.2f} s, slowest {max(times or [0]):.2f} s")
    return total


def arena_main(args: Any) -> int:
    stored, ids = arena_games(args.file, args.arena, args.games, args.time, args.workers, args.db, args.seed)
    if not stored:
        print(f"no stored games of {args.file} in {args.db}")
        return 1
    cache = SolverCache(args.cache)
    from core.connectx.openings import suite

    for line in suite(STANDARD):  # every opening of the arena's suite is a solved draw (core.connectx.openings)
        cache.values.setdefault(str(Position.from_moves("".join(str(c + 1) for c in line), STANDARD).symmetric_key()), 0)
    limit = int(args.judge_nodes) or None
    t = judge_arena(stored, ids, cache, args.judge_from_ply, limit)
    for line in t["lines"]:
        print(line)
    judged = t["kept"] + len(t["lost"])
    share = t["kept"] / judged if judged else 0.0
    plies = sorted(ply for _gid, ply, *_ in t["lost"])
    print(f"{args.file} vs {args.arena} in the arena at --time {args.time:g} (Kaggle's clock, 60 s bank): "
          f"{t['points']:g} / {t['games']} points; optimal (value-keeping) moves {t['kept']} / {judged} = {share:.1%} "
          f"(judged from ply {args.judge_from_ply}, after the opening; {t['unjudged']} earlier moves unjudged; "
          f"{len(t['too_hard'])} moves too hard for a {limit or 'unlimited'}-node weak solve, at plies "
          f"{dict(sorted(Counter(t['too_hard']).items())) or 'none'}); "
          f"value lost at plies {plies or 'none'}; first move median {sorted(t['first_moves'])[len(t['first_moves']) // 2]:.2f} s, "
          f"slowest move {t['slowest']:.2f} s; solver time in this run {cache.seconds:.0f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.perfect_kaggle", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("file", help="the built submission file")
    parser.add_argument("--opponents", default="perfect,kaggle:negamax",
                        help="comma-separated: 'perfect' or tournament specs (default perfect,kaggle:negamax)")
    parser.add_argument("--games", type=int, default=1, help="games per opponent and seat (default 1)")
    parser.add_argument("--seats", default="1,2", help="the file's marks: 1, 2 or 1,2 (default 1,2)")
    parser.add_argument("--time", type=float, default=2.0, help="actTimeout in seconds (default 2)")
    parser.add_argument("--judge-from-ply", type=int, default=2, help="judge the file's moves from this ply on (default 2)")
    parser.add_argument("--cache", type=Path, default=Path("results/perfect_kaggle_cache.json"),
                        help="solver results kept between runs (default results/perfect_kaggle_cache.json)")
    parser.add_argument("--strong-from-ply", type=int, default=3, help="the perfect opponent's strong play from this ply (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.add_argument("--arena", metavar="OPPONENT", default=None,
                        help="play in the arena instead (util.arena.tournament: its openings, seats swapped, agent files on "
                             "Kaggle's clock) against this spec or agent file, --games games in all, and judge every move of the file")
    parser.add_argument("--judge-nodes", type=float, default=2e7,
                        help="with --arena: a position whose weak solve needs more nodes is not judged (default 2e7; 0: no limit)")
    parser.add_argument("--workers", type=int, default=2, help="with --arena: parallel games (default 2)")
    parser.add_argument("--db", type=Path, default=Path("results/perfect_arena.sqlite"),
                        help="with --arena: the tournament store (default results/perfect_arena.sqlite; a rerun resumes)")
    args = parser.parse_args(argv)
    check_writable(parser, "--cache", args.cache)
    if not Path(args.file).is_file():
        parser.error(f"no file {args.file}; build one with python build_submission.py --output {args.file}")
    if args.arena is not None:
        check_writable(parser, "--db", args.db)
        if args.games < 1 or args.time <= 0 or args.workers < 1:
            parser.error("--games >= 1, --time > 0 and --workers >= 1")
        return arena_main(args)
    try:
        seats = [int(s) for s in args.seats.split(",")]
        if not seats or any(s not in (1, 2) for s in seats) or args.games < 1 or args.time <= 0:
            raise ValueError
    except ValueError:
        parser.error("--seats takes 1 and/or 2, --games >= 1 and --time > 0")
    try:
        cache = SolverCache(args.cache, Path(__file__).resolve().parents[1] / "data" / "book_6x7x4.store")
    except (OSError, ValueError) as exc:
        parser.error(f"cannot read the cache {args.cache} ({exc}); delete it or pass --cache NEW.json")
    failures, first_moves, all_times = 0, [], []
    for spec in [s.strip() for s in args.opponents.split(",") if s.strip()]:
        for seat in seats:
            for g in range(args.games):
                seed = args.seed + g
                r = play_one(args.file, spec, seat, seed, args.time, cache, args.strong_from_ply)
                j = judge(r["moves"], seat, cache, args.judge_from_ply)
                times = r["my_times"]
                first_moves.append(times[0] if times else 0.0)
                all_times += times
                outcome = "win" if r["winner"] == seat else ("draw" if r["winner"] == 0 else "LOSS")
                bad = bool(r["errors"].get(seat)) or bool(j["lost"]) or (seat == 1 and outcome == "LOSS") \
                    or (j["won_position"] and outcome != "win") or any(t >= args.time for t in times)
                failures += bad
                moves = "".join(str(c + 1) for c in r["moves"])
                print(f"vs {spec:14} as {seat} seed {seed}: {outcome:4} ({r['termination']}) in {len(r['moves'])} plies; "
                      f"first move {times[0] if times else 0:.2f} s, max {max(times or [0]):.2f} s; judged kept "
                      f"{j['kept']}, lost {len(j['lost'])}, unjudged {j['unjudged']}; "
                      f"{_conversion(j['won_position'], outcome)}"
                      f"{'' if r['same_as_learned'] else ' (differs from the learning game)'}; {moves}"
                      f"{'  <-- FAIL' if bad else ''}", flush=True)
                for ply, col, before, after in j["lost"]:
                    print(f"    ply {ply}: column {col + 1} turned value {before} into {after}")
                if r["errors"]:
                    print(f"    errors: {r['errors']}")
    print(f"games {len(first_moves)}, failed {failures}; first move median {sorted(first_moves)[len(first_moves) // 2]:.2f} s, "
          f"max {max(first_moves):.2f} s; max move {max(all_times or [0]):.2f} s (actTimeout {args.time} s); "
          f"solver time in this run {cache.seconds:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
