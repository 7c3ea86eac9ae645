"""Regret minimization on games small enough to enumerate: CFR / CFR+ (:class:`CFR`, hot loops
in :mod:`agents.engine.cfr_kernels`) over the game tree laid out flat once, with its exact best
responses and NashConv / exploitability (:class:`agents.engine.game_tree.GameTree`).

Generic: the tree asks the game only through :class:`core.game.State` and
:meth:`core.game.Game.information_state` (a perfect-information game's information state is
the state itself, so CFR there converges to the minimax value). Two players, zero-sum.

Figures these reproduce (OpenSpiel's tests): the uniform policy's NashConv is 11/12 in Kuhn
poker and 4.7472 in Leduc hold'em; Kuhn's value for player 0 is -1/18.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from agents.engine import cfr_kernels as CK
from agents.engine.game_tree import MAX_NODES, GameTree, kernels


class CFR:
    """Tabular CFR (``plus=False``: regret matching, alternating updates, uniform averaging) or
    CFR+ (``plus=True``: regrets floored at zero, alternating updates, linear averaging), as
    OpenSpiel's ``CFRSolver`` and ``CFRPlusSolver``."""

    def __init__(self, tree: GameTree, plus: bool = True, jit: bool | None = None) -> None:
        self.tree = tree
        self.plus = plus  # CFR+ (else vanilla CFR)
        self.k = kernels(jit)
        self.policy = tree.uniform_policy()  # the current policy (regret matching's)
        self.regret = np.zeros(tree.slots)  # cumulative counterfactual regrets
        self.total = np.zeros(tree.slots)  # the average policy's sums
        self.work = np.zeros((len(tree.nodes), CK.WORK.size))
        self.iterations = 0

    def run(self, iterations: int) -> None:
        t = self.tree
        for _ in range(iterations):
            self.iterations += 1
            self.k.iterate(t.nodes, t.edges, t.infosets, self.policy, self.work, self.regret, self.total,
                           self.iterations, self.plus)

    def average_policy(self) -> np.ndarray:
        """The average policy (what converges to an equilibrium); uniform where never reached."""
        out = self.tree.uniform_policy()
        for slot, k in self.tree.infosets[:, :CK.GS_PLAYER]:
            s = self.total[slot:slot + k].sum()
            if s > 0:
                out[slot:slot + k] = self.total[slot:slot + k] / s
        return out


def report_points(iterations: int) -> list[int]:
    """1, 2, 5, 10, 20, 50, ... below ``iterations``, then ``iterations``."""
    out: list[int] = []
    step = 1
    while step < iterations:
        out.extend(k * step for k in (1, 2, 5) if k * step < iterations)
        step *= 10
    return out + [iterations]


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.engine.cfr --game kuhn_poker --iterations 200``: CFR+ (or CFR, or
    external- or outcome-sampling MCCFR) on a small game, a line per report point: iterations, exploitability and NashConv of the average
    policy, its value for player 0, and the seconds of iterating so far."""
    import sys
    import time

    from base.cli import Interrupted, OneLineParser, exit_code, int_in, stop_on_signals
    from core.games import add_game_arguments, game_from_args

    parser = OneLineParser(prog="python -m agents.engine.cfr",
                           description="CFR+ (or vanilla CFR, or sampling MCCFR) on a game small enough to enumerate, with the "
                           "exact exploitability of its average policy.")
    add_game_arguments(parser, default=None)
    parser.add_argument("--iterations", type=int_in(1, 10_000_000), default=200, help="iterations (default 200)")
    parser.add_argument("--method", choices=("cfr+", "cfr", "external", "outcome"), default="cfr+",
                        help="CFR+ (default), vanilla CFR, or external- or outcome-sampling Monte Carlo CFR (agents/engine/mccfr.py)")
    parser.add_argument("--seed", type=int_in(0, 2 ** 31 - 1), default=0, help="the samplings' seed (default 0)")
    parser.add_argument("--max-states", type=int_in(1, MAX_NODES), default=1_000_000,
                        help="refuse a game with more states (default 1,000,000)")
    parser.add_argument("--no-jit", action="store_true", help="plain Python kernels (no numba compile)")
    args = parser.parse_args(argv)
    game = game_from_args(parser, args)
    jit = False if args.no_jit else None
    try:
        with stop_on_signals():
            tree = GameTree.build(game, args.max_states)
            print(f"{game.spec()}: {len(tree.nodes)} states, {len(tree.keys)} information states; "
                  f"uniform policy NashConv {tree.nash_conv(tree.uniform_policy(), jit):.6f}")
            start = time.perf_counter()
            CFR(tree, jit=jit).run(1)  # numba's compile (or its cache), outside the iterations' seconds
            print(f"kernels ready in {time.perf_counter() - start:.2f} s")
            solver: Any = CFR(tree, plus=args.method == "cfr+", jit=jit)
            if args.method in ("external", "outcome"):
                from agents.engine.mccfr import ExternalSamplingMCCFR, OutcomeSamplingMCCFR

                solver = (ExternalSamplingMCCFR if args.method == "external" else OutcomeSamplingMCCFR)(tree, args.seed)
            print("iterations exploitability nash_conv value0 seconds")
            spent = 0.0
            for point in report_points(args.iterations):
                start = time.perf_counter()
                solver.run(point - solver.iterations)
                spent += time.perf_counter() - start
                avg = solver.average_policy()
                conv = tree.nash_conv(avg, jit)
                print(f"{point} {conv / 2:.6g} {conv:.6g} {tree.policy_value(avg, jit):.6f} {spent:.2f}", flush=True)
    except (KeyboardInterrupt, Interrupted) as exc:
        print("interrupted", file=sys.stderr)
        return exit_code(exc)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
