"""Seconds per move of each engine agent on Quantik against the number of pieces on the board
(the seed's ``timer``): JSON and a PNG plot.

Each agent plays ``--games`` games against uniform random play, seats alternating, with
``--seconds`` per move; every move of the measured agent is timed (``choose`` wall clock) and
filed under the pieces on the board before it. One untimed move first compiles what the agent
compiles (reported apart). The baseline in the same run is the random agent's own time per move.

    python -m bench.quantik_timer
    python -m bench.quantik_timer --agents alphabeta,mcts,perfect --games 4 --seconds 0.5
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tqdm import tqdm  # noqa: E402

from agents import registry  # noqa: E402
from agents.registry import SpecError  # noqa: E402
from base.atomic import write_bytes, write_text  # noqa: E402
from base.cli import OneLineParser, check_writable, positive_int  # noqa: E402
from core.games import make_game  # noqa: E402

DEFAULT_AGENTS = "random,quantik_strategy,alphabeta,mcts,perfect"
OUT = Path(__file__).resolve().parent / "logs" / "quantik_timer.json"


def time_agent(spec: str, game, games: int, seconds: float, seed: int) -> tuple[dict[int, list[float]], float]:
    """Times per move of ``spec`` by pieces on the board, and its warm-up (compile) seconds."""
    agent = registry.make(spec, game)
    t0 = time.perf_counter()
    agent.choose(game.initial().apply(0), time.perf_counter() + max(60.0, seconds))  # compiles
    warm = time.perf_counter() - t0
    rng = random.Random(seed)
    by_pieces: dict[int, list[float]] = {}
    for i in tqdm(range(games), desc=spec, file=sys.stderr, leave=False):
        if hasattr(agent, "reset"):
            agent.reset()
        seat = i % 2
        s = game.initial()
        while not s.is_terminal():
            if s.current_player() == seat:
                t = time.perf_counter()
                a = agent.choose(s, t + seconds)
                by_pieces.setdefault(len(s.history), []).append(time.perf_counter() - t)
            else:
                a = rng.choice(s.legal_actions())
            s = s.apply(a)
    return by_pieces, warm


def plot(results: dict, path: Path, seconds: float) -> None:
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for spec, r in results.items():
        xs = sorted(int(k) for k in r["median"])
        ax.plot(xs, [max(1e-6, r["median"][str(x)]) for x in xs], marker="o", label=spec)
    ax.axhline(seconds, color="grey", linestyle=":", label=f"limit {seconds:g} s")
    ax.set_yscale("log")
    ax.set_xlabel("pieces on the board")
    ax.set_ylabel("seconds per move (median)")
    ax.set_title("Quantik: time per move")
    ax.legend(fontsize=8)
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_bytes(path, buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.quantik_timer", description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", default=DEFAULT_AGENTS, help="agent specs separated by commas (python -m core --list)")
    ap.add_argument("--games", type=positive_int, default=6, help="games per agent (seats alternate)")
    ap.add_argument("--seconds", type=float, default=1.0, help="time per move given to the agents")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random opponent")
    ap.add_argument("--out", default=str(OUT), help="JSON output; the plot goes beside it as .png")
    args = ap.parse_args(argv)
    check_writable(ap, "--out", args.out)
    check_writable(ap, "--out", Path(args.out).with_suffix(".png"))  # the plot beside it
    if not args.seconds > 0:
        ap.error(f"--seconds {args.seconds}: give a positive number of seconds per move")
    game = make_game("quantik")
    specs = [s.strip() for s in args.agents.split(";" if ";" in args.agents else ",") if s.strip()]
    for spec in specs:
        try:
            registry.make(spec, game)
        except SpecError as exc:
            ap.error(f"--agents: {exc}")
    results: dict[str, dict] = {}
    try:
        for spec in specs:
            by_pieces, warm = time_agent(spec, game, args.games, args.seconds, args.seed)
            results[spec] = {
                "warm_up_seconds": warm,
                "median": {str(k): statistics.median(v) for k, v in sorted(by_pieces.items())},
                "max": {str(k): max(v) for k, v in sorted(by_pieces.items())},
                "moves": {str(k): len(v) for k, v in sorted(by_pieces.items())},
            }
            cells = " ".join(f"{k}:{statistics.median(v) * 1e3:.0f}" for k, v in sorted(by_pieces.items()))
            print(f"{spec}: warm-up {warm:.1f} s; median ms by pieces {cells}", flush=True)
    except KeyboardInterrupt:
        print("interrupted: writing what was measured", file=sys.stderr)
    if "random" in results:
        base = statistics.median(results["random"]["median"].values())
        for spec, r in results.items():
            print(f"  {spec}: {statistics.median(r['median'].values()) / base:,.0f}x random's time per move")
    out = Path(args.out)
    meta = {"game": game.spec(), "seconds_per_move": args.seconds, "games": args.games, "seed": args.seed,
            "date": time.strftime("%Y-%m-%d"), "agents": results}
    write_text(out, json.dumps(meta, indent=1) + "\n")
    plot(results, out.with_suffix(".png"), args.seconds)
    print(f"wrote {out} and {out.with_suffix('.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
