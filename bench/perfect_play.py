"""The perfect agent in whole 6x7 games: results, first-move and maximum move times, where its
moves came from (book, solver, fallback), and whether each move kept the game-theoretic value,
judged from outside the agent by a separate solver (positions from ``--judge-from-ply`` on;
earlier ones take too long to judge here and are counted as unchecked).

    python -m bench.perfect_play --games 2 --opponents kaggle:negamax,self

The first game of the run includes the agent's numba compile, as the first game of a
submission does. Times are wall-clock per ``choose`` call with the deadline ``--time`` seconds
ahead (1.75 s is what the Kaggle adapter gives for actTimeout 2 s).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.connectx.perfect import PerfectAgent  # noqa: E402
from agents.connectx.solver import Solver  # noqa: E402
from base.cli import OneLineParser
from core.connectx.position import Position  # noqa: E402
from core.connectx.shape import STANDARD  # noqa: E402


class _Recorder:
    """Wraps the perfect agent: times each move, notes its source, judges it."""

    def __init__(self, agent: PerfectAgent, judge: Solver, judge_from: int, judge_nodes: int, limit: float) -> None:
        self.agent, self.judge, self.judge_from, self.judge_nodes = agent, judge, judge_from, judge_nodes
        self.limit = limit  # a move longer than this is reported
        self.times: list[float] = []
        self.sources: dict[str, int] = {}  # "<seat>:<source>" -> moves
        self.seat = 1
        self.kept = self.lost_value = self.unchecked = 0

    def reset(self) -> None:
        self.agent.reset()

    def choose_position(self, position: Position, deadline: float) -> int:
        t0 = time.perf_counter()
        col = self.agent.choose_position(position, deadline)
        self.times.append(time.perf_counter() - t0)
        info = self.agent.info()
        src = f"{self.seat}:{info.get('source', '?')}"
        if src.startswith("1:fallback") or self.times[-1] > self.limit:
            print(f"    ply {position.ply}: {src}, {self.times[-1]:.3f} s, waited {info.get('waited', 0):.1f} s", flush=True)
        self.sources[src] = self.sources.get(src, 0) + 1
        self._judge(position, col)
        return col

    def _judge(self, position: Position, col: int) -> None:
        if position.ply < self.judge_from:
            self.unchecked += 1
            return
        scores = self.judge.child_scores(position, weak=True, node_limit=self.judge_nodes)
        if scores is None:
            self.unchecked += 1
            return
        best = max(s for s in scores if s is not None)
        if scores[col] == best:
            self.kept += 1
        else:
            self.lost_value += 1
            print(f"    value lost at ply {position.ply}: column {col} scores {scores}", flush=True)


def _opponent(spec: str, time_per_move: float, seed: int):
    if spec == "self":
        return PerfectAgent()
    from util.arena.players import build, resolve

    return build(resolve(spec), STANDARD, time_per_move, seed=seed)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.perfect_play", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--games", type=int, default=1, help="games per opponent and seat (default 1)")
    parser.add_argument("--opponents", default="kaggle:negamax,self", help="comma-separated: 'self' or util.arena.players specs (default kaggle:negamax,self)")
    parser.add_argument("--time", type=float, default=1.75, help="seconds per move (default 1.75)")
    parser.add_argument("--seats", default="1,2", help="our marks to play: 1, 2 or 1,2 (default 1,2)")
    parser.add_argument("--judge-from-ply", type=int, default=14, help="judge our moves from this ply on (default 14)")
    parser.add_argument("--judge-nodes", type=int, default=200_000_000, help="node limit of one judged child (default 2e8)")
    args = parser.parse_args(argv)
    try:
        seats = [int(s) for s in args.seats.split(",")]
        if not seats or any(s not in (1, 2) for s in seats) or args.games < 1 or args.time <= 0:
            raise ValueError
    except ValueError:
        print("perfect_play: error: --seats takes 1 and/or 2, --games >= 1, --time > 0", file=sys.stderr)
        return 2
    from util.arena.game import play_game

    judge = Solver(tt_size=1 << 23)
    me = _Recorder(PerfectAgent(), judge, args.judge_from_ply, args.judge_nodes, args.time)
    first_move = None
    for spec in [s.strip() for s in args.opponents.split(",") if s.strip()]:
        for seat in seats:
            for g in range(args.games):
                opp = _opponent(spec, args.time, seed=g + 1)
                first, second = (me, opp) if seat == 1 else (opp, me)
                me.seat = seat
                n0 = len(me.times)
                result = play_game(first, second, STANDARD, args.time, hard_limit=args.time + 60.0)
                times = me.times[n0:]
                if first_move is None and times:
                    first_move = times[0]
                outcome = "win" if result.winner == seat else ("draw" if result.winner == 0 else "LOSS")
                moves = "".join(str(c + 1) for c in result.moves)
                print(f"vs {spec:16} as {seat}: {outcome:4} ({result.termination}) in {result.plies} plies; "
                      f"our max move {max(times) if times else 0:.3f} s; {moves}", flush=True)
                if result.errors:
                    print(f"    errors: {result.errors}", flush=True)
    print(f"first move of the run (compile included): {first_move:.3f} s; max move {max(me.times):.3f} s; "
          f"max after the first {max(me.times[1:] or [0]):.3f} s; moves {len(me.times)}")
    print(f"sources (seat:source): {dict(sorted(me.sources.items()))}")
    print(f"judged kept {me.kept}, lost {me.lost_value}, unchecked (ply < {args.judge_from_ply} or too slow) {me.unchecked}")
    return 1 if me.lost_value else 0


if __name__ == "__main__":
    sys.exit(main())
