"""The Monte-Carlo learner's learning curve on Quixo: win rate of its greedy agent against
random and against alpha-beta at depth 2 after N self-play episodes, as JSON and a PNG.

``python -m bench.quixo_learning_curve --size 5 --checkpoints 1000,10000,100000 --games 100 --workers 2 --out results/quixo_mc``

Training continues one table from checkpoint to checkpoint (``agents.engine.mc_learner.train``
with resume); after each, ``--games`` games per opponent with seats swapped (half as first
player), 0.5 counted for a draw, with a Wilson 95% interval. The seed's learner reached 33%
against random after a million episodes (5 GB pickle): that is the baseline to beat.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from base.cli import OneLineParser, check_writable, positive_int
from util.arena.ratings import wilson


def match(game, table: str, opponent: str, games: int, seed: int, seconds: float, fallback: str = "random") -> dict:
    from agents.engine.mc_learner import MCLearnerAgent
    from agents.registry import make
    from util.arena.match import play

    me = MCLearnerAgent(game=game, table=table, fallback=fallback)
    score, wins, draws = 0.0, 0, 0
    for i in range(games):
        spec = f"{opponent}:seed={seed + i}" if opponent == "random" else opponent
        other = make(spec, game)
        first = i % 2 == 0
        r = play(me, other, game, seconds) if first else play(other, me, game, seconds)
        mine = 1 if first else 2
        if r["winner"] == mine:
            score, wins = score + 1, wins + 1
        elif r["winner"] == 0:
            score, draws = score + 0.5, draws + 1
    lo, hi = wilson(score, games)
    return {"opponent": opponent, "games": games, "wins": wins, "draws": draws, "score": score / games, "lo": lo, "hi": hi}


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m bench.quixo_learning_curve", description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, choices=(3, 4, 5), default=5, help="board side (default 5)")
    p.add_argument("--checkpoints", default="1000,10000,100000", help="episode counts to evaluate at (increasing)")
    p.add_argument("--games", type=positive_int, default=100, help="games per opponent per checkpoint (default 100)")
    p.add_argument("--opponents", default="random,alphabeta:max_depth=2", help="comma-separated engine agent specs")
    p.add_argument("--workers", type=positive_int, default=1, help="training workers (default 1)")
    p.add_argument("--epsilon", type=float, default=0.1, help="training exploration (default 0.1)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--seconds", type=float, default=1.0, help="time per move in evaluation games (default 1; the opponents here do not use it up)")
    p.add_argument("--out", default="results/quixo_mc", help="prefix of the .npz table, .json and .png (default results/quixo_mc)")
    p.add_argument("--fallback", default="random",
                   help="the learner's move where the table knows no child (default random: the curve measures the table alone)")
    p.add_argument("--resume", action="store_true", help="continue the table at OUT.npz (checkpoints count its episodes)")
    args = p.parse_args(argv)
    try:
        checkpoints = [int(x) for x in args.checkpoints.split(",") if x.strip()]
    except ValueError:
        p.error(f"--checkpoints {args.checkpoints!r}: write increasing episode counts separated by commas, e.g. 1000,10000")
    if not checkpoints or checkpoints != sorted(set(checkpoints)) or checkpoints[0] <= 0:
        p.error(f"--checkpoints {args.checkpoints!r}: give increasing positive episode counts, e.g. 1000,10000")
    from agents.engine.mc_learner import ValueTable, train
    from base.atomic import write_text
    from core.games import make_game

    game = make_game("quixo", size=args.size)
    out = Path(args.out)
    for suffix in (".npz", ".json", ".png"):  # the three files of the prefix, before any episode
        check_writable(p, "--out", out.with_suffix(suffix))
    table_path = out.with_suffix(".npz")
    have = ValueTable.load(table_path).episodes if args.resume and table_path.exists() else 0
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    rows = []
    t0 = time.perf_counter()
    for cp in checkpoints:
        if cp > have:
            train(game, cp - have, table_path, workers=args.workers, epsilon=args.epsilon, seed=args.seed,
                  resume=have > 0, progress=True)
            have = cp
        table = ValueTable.load(table_path)
        row: dict[str, Any] = {"episodes": table.episodes, "states": len(table), "mb": table_path.stat().st_size / 1e6,
               "train_seconds": time.perf_counter() - t0, "results": []}
        for opp in opponents:
            row["results"].append(match(game, str(table_path), opp, args.games, args.seed, args.seconds, args.fallback))
        rows.append(row)
        print(f"{row['episodes']:>9,} episodes, {row['states']:>11,} states, {row['mb']:7.1f} MB: "
              + "  ".join(f"vs {r['opponent']} {r['score']:.0%} [{r['lo']:.0%}, {r['hi']:.0%}]" for r in row["results"]),
              flush=True)
        report = {"game": game.spec(), "epsilon": args.epsilon, "fallback": args.fallback, "games": args.games, "rows": rows}
        write_text(out.with_suffix(".json"), json.dumps(report, indent=1))
        plot(report, out.with_suffix(".png"))
    return 0


def plot(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import io

    import matplotlib.pyplot as plt

    from base.atomic import write_bytes

    fig, ax = plt.subplots(figsize=(6, 4))
    eps = [r["episodes"] for r in report["rows"]]
    for k, opp in enumerate(r["opponent"] for r in report["rows"][0]["results"]):
        ys = [r["results"][k] for r in report["rows"]]
        ax.errorbar(eps, [y["score"] for y in ys], yerr=[[max(0.0, y["score"] - y["lo"]) for y in ys], [max(0.0, y["hi"] - y["score"]) for y in ys]],
                    marker="o", capsize=3, label=f"vs {opp}")
    ax.axhline(0.33, color="grey", ls="--", lw=1, label="seed: 33% vs random after 1M")
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("self-play episodes")
    ax.set_ylabel("score (win 1, draw 0.5)")
    ax.set_title(f"Monte-Carlo learner, {report['game']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_bytes(path, buf.getvalue())


if __name__ == "__main__":
    raise SystemExit(main())
