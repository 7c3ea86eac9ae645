"""Alpha-beta's depth on 5×5 Quixo in a fixed time: the median depth reached per move over
seeded positions at several plies, for the agent as shipped and for variants measured in the
same run (the baseline: no move ordering; exact keys instead of canonical ones).

``python -m bench.quixo_depth --seconds 1 --positions 4 --plies 0,8,16,24``

A variant swaps one of Quixo's kernels (``order``, ``key``) in a module built here, so the
same search runs with and without it. Positions: random play from the empty board (seeded),
non-terminal, with at least one move that does not lose at once.
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import time
import types
from typing import Any

from base.cli import OneLineParser, check_writable, positive_int

VARIANTS = ("shipped", "no_order", "exact_key", "exact_key_no_order")


def variant_game(name: str, size: int):
    """A Quixo game whose kernel module differs from the shipped one as ``name`` says."""
    from core import kernel_defaults
    from core.quixo import Quixo
    from core.quixo import kernels as K

    if name == "shipped":
        return Quixo(size=size)
    modname = f"bench._quixo_kernels_{name}"
    if modname not in sys.modules:
        mod: Any = types.ModuleType(modname)  # the shipped kernels with hooks swapped: set by name
        for k, v in vars(K).items():
            if not k.startswith("__"):
                setattr(mod, k, v)
        if "no_order" in name:
            mod.order = kernel_defaults.order
        if "exact_key" in name:
            mod.key = K.exact_key
        sys.modules[modname] = mod
    cls = type(f"Quixo_{name}", (Quixo,), {"kernels": modname})
    return cls(size=size)


def positions(game, plies: list[int], count: int, seed: int) -> list[tuple[int, Any]]:  # (ply, core.game.State)
    out = []
    for p in plies:
        rng = random.Random(seed * 1000 + p)
        found = 0
        while found < count:
            s = game.initial()
            for _ in range(p):
                if s.is_terminal():
                    break
                s = s.apply(rng.choice(s.legal_actions()))
            if not s.is_terminal():
                out.append((p, s))
                found += 1
    return out


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m bench.quixo_depth", description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=1.0, help="time per move (default 1)")
    p.add_argument("--positions", type=positive_int, default=4, help="positions per ply count (default 4)")
    p.add_argument("--plies", default="0,8,16,24", help="random plies before each position (default 0,8,16,24)")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, from {', '.join(VARIANTS)}")
    p.add_argument("--heuristic", default="auto", help="alpha-beta's heuristic (default: the game's first)")
    p.add_argument("--seed", type=int, default=0, help="seed of the positions (default 0)")
    p.add_argument("--json", default="", help="also write the figures to this JSON file")
    args = p.parse_args(argv)
    check_writable(p, "--json", args.json)
    try:
        plies = [int(x) for x in args.plies.split(",") if x.strip()]
    except ValueError:
        p.error(f"--plies {args.plies!r}: write ply counts separated by commas, e.g. 0,8,16")
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    bad = [v for v in variants if v not in VARIANTS]
    if bad or not variants:
        p.error(f"--variants: unknown {', '.join(bad) or '(none)'}; choose from {', '.join(VARIANTS)}")
    if args.seconds <= 0:
        p.error("--seconds must be positive")
    from agents.engine.agents import AlphaBetaAgent

    report = {"seconds": args.seconds, "plies": plies, "variants": {}}
    for name in variants:
        game = variant_game(name, 5)
        agent = AlphaBetaAgent(game=game, heuristic=args.heuristic, tt_bits=20)
        agent.warm_up()
        rows = []
        for ply, state in positions(game, plies, args.positions, args.seed):
            agent.reset()
            t0 = time.perf_counter()
            agent.choose(state, t0 + args.seconds)
            info = agent.info()
            rows.append({"ply": ply, "depth": info["depth"], "nodes": info["nodes"], "seconds": info["seconds"]})
        by_ply = {q: statistics.median(r["depth"] for r in rows if r["ply"] == q) for q in plies}
        med = statistics.median(r["depth"] for r in rows)
        nps = statistics.median(r["nodes"] / max(r["seconds"], 1e-9) for r in rows)
        report["variants"][name] = {"median_depth": med, "by_ply": by_ply, "nodes_per_s": nps, "rows": rows}
        print(f"{name:20s} median depth {med:4.1f}  by ply " + " ".join(f"{q}:{d:g}" for q, d in by_ply.items())
              + f"  {nps / 1e6:.2f} M nodes/s", flush=True)
    base = report["variants"].get("no_order")
    if base and "shipped" in report["variants"]:
        print(f"shipped - no_order: {report['variants']['shipped']['median_depth'] - base['median_depth']:+.1f} plies (same run)")
    if args.json:
        from base.atomic import write_text

        write_text(args.json, json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
