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
        self.seconds = 0.0  # spent solving in this run
        self.book: dict[str, int] = {}
        if store is not None and store.is_file():
            for line in store.read_text().splitlines():
                moves, _col, score = line.split()[:3]
                pos = Position.from_moves("" if moves == "-" else moves, STANDARD)
                self.book[str(pos.symmetric_key())] = (int(score) > 0) - (int(score) < 0)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_text(self.path, json.dumps({"values": self.values, "scores": self.scores}))

    def value(self, position: Position, use_book: bool = False) -> int:
        """-1, 0 or 1 for the side to move (weak solve)."""
        key = str(position.symmetric_key())
        if use_book and key in self.book:
            return self.book[key]
        if key not in self.values:
            t = time.perf_counter()
            v = self.solver.solve(position, weak=True)
            self.seconds += time.perf_counter() - t
            assert v is not None
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
            children = {c: (1 if position.is_winning_move(c) else -self.cache.value(position.play(c), use_book=True))
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

def judge(moves: list[int], seat: int, cache: SolverCache, judge_from: int) -> dict:
    """Judge the moves of ``seat`` (1 or 2) in a finished game (see the module docstring)."""
    out: dict[str, Any] = {"kept": 0, "lost": [], "unjudged": 0, "won_position": False}
    pos = Position.empty(STANDARD)
    for ply, col in enumerate(moves):
        mover = 1 + ply % 2
        if mover == seat:
            if ply < judge_from:
                out["unjudged"] += 1
            else:
                before = cache.value(pos)
                if before == 1:
                    out["won_position"] = True
                after = -1 if pos.is_winning_move(col) else cache.value(pos.play(col))
                if -after == before:
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
    args = parser.parse_args(argv)
    check_writable(parser, "--cache", args.cache)
    if not Path(args.file).is_file():
        parser.error(f"no file {args.file}; build one with python build_submission.py --output {args.file}")
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
