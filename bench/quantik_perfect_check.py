"""Audit a stored Quantik tournament run of ``perfect`` with the exact solver (issue 13).

Quantik is a second-player win, so ``perfect`` must win every game it plays second; playing
first it starts lost and may lose, but only to an opponent that never lets the win go: if the
solver finds a position where ``perfect`` was to move in a won position and still lost (or it
played a move that threw a win away), that is a bug. Forfeits (timeouts, errors) are listed
apart: they judge the clock, not the play. Prints one line per opponent, then every game the
solver faults; exit code 1 when there is one. ``--agent mcts`` (or any name) audits another
agent the same way: where it threw a proven win away.

    python -m bench.quantik_perfect_check --db results/quantik_issue13_clean.sqlite --tag q13-perfect-c
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tqdm import tqdm  # noqa: E402

from agents.engine.solver import Solver  # noqa: E402
from base.cli import OneLineParser  # noqa: E402
from core.games import make_game  # noqa: E402
from util.arena.store import Store  # noqa: E402


def solved(solver: Solver, state) -> float:
    """``state``'s exact value for the side to move (the solver runs with no limit: never None)."""
    value = solver.value(state)
    if value is None:
        raise RuntimeError("the solver gave no value")
    return value


def audit(solver: Solver, game, moves: tuple[int, ...], perfect_mark: int) -> list[str]:
    """Solver findings against ``perfect`` (mark 1 or 2) in one game: each of its moves that
    turned a won position into a lost one, or a won position it was in and did not convert."""
    problems = []
    s = game.initial()
    for ply, a in enumerate(moves):
        if s.current_player() + 1 == perfect_mark:
            v = solved(solver, s)
            after = s.apply(a)
            if v > 0:
                w = after.returns()[perfect_mark - 1] if after.is_terminal() else -solved(solver, after)
                if w <= 0:
                    problems.append(f"ply {ply + 1}: {s.action_to_string(a)} throws a won position away")
        s = s.apply(a)
    return problems


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m bench.quantik_perfect_check", description=__doc__.split("\n\n")[0])
    p.add_argument("--db", default="results/tournament.sqlite", help="the tournament store (default util.arena.tournament's)")
    p.add_argument("--tag", required=True, help="the run to audit (util.arena.tournament --tag)")
    p.add_argument("--agent", default="perfect", help="name (spec prefix) of the audited agent (default perfect)")
    args = p.parse_args(argv)
    if not Path(args.db).exists():
        p.error(f"--db {args.db}: no such store; give the file util.arena.tournament wrote")
    game = make_game("quantik")
    with Store(args.db, create=False) as store:
        run = store.run_id(args.tag)
        if run is None:
            p.error(f"--tag {args.tag}: no such run in {args.db}; see python -m util.arena.tournament --report")
        names = {pid: spec for pid, (spec, _) in store.players().items()}
        games = list(store.games(runs=[run]))
    solver = Solver(game, tt_bits=22)
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    bad: list[str] = []
    for gm in tqdm(games, desc="games", file=sys.stderr):
        marks = [m for m, pid in ((1, gm.first), (2, gm.second)) if names[pid].split(":")[0] == args.agent]
        if len(marks) != 1:
            continue
        mark = marks[0]
        other = names[gm.second if mark == 1 else gm.first]
        seat = "first" if mark == 1 else "second"
        row = rows[other]
        row[f"{seat} games"] += 1
        if gm.termination in ("timeout", "error", "illegal"):
            row[f"{seat} forfeits by {'perfect' if str(mark) in gm.errors else 'opponent'}"] += 1
            continue
        row[f"{seat} {'wins' if gm.winner == mark else 'losses'}"] += 1
        if gm.winner != mark or seat == "second":
            found = audit(solver, game, gm.moves, mark)
            if found or (seat == "second" and gm.winner != mark):
                bad.append(f"game {gm.id} ({seat} against {other}): " + ("; ".join(found) or "lost as second player"))
            if gm.winner != mark and not found:
                row["first losses to flawless play (solver-checked)"] += 1
    for other, row in sorted(rows.items()):
        print(f"{args.agent} vs {other}: " + ", ".join(f"{k} {v}" for k, v in sorted(row.items())))
    print(f"{len(bad)} game(s) where the solver faults {args.agent}" + (":" if bad else ""))
    for line in bad:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
