"""Simulations per second of our MCTS against OpenSpiel's C++ MCTS, side by side in one run.

Both search the same positions for the same number of simulations from a fresh tree: the
empty board and opening positions from Pons' Test_L1_R2 (4-14 plies played, at least 28 to
go, so neither solver stops early on a proof: a search that does measures other work, cheap
simulations into a proven tree, and the benchmark says so on stderr). OpenSpiel: ``pyspiel.MCTSBot`` with a
``RandomRolloutEvaluator`` (one rollout per leaf), ``uct_c`` as given, solver off (a solved
root would stop it early and inflate its rate). Ours: pure MCTS (random rollouts; our solver
cannot be switched off, and only the simulations actually run count), then the heuristic
leaves for reference; through the agent's ``choose``, timed from outside, so a move's set-up
counts: ``*_sims_per_s`` is an agent's second search (a game's later moves, in the tree arrays
it has), ``*_first_move_sims_per_s`` a fresh agent's (allocating them). Each figure is the
median of ``--repeats`` runs; the ratio column is ours / OpenSpiel's.

    python -m bench.mcts_speed [--sims 200000] [--positions 4] [--repeats 3]
"""
from __future__ import annotations

import random
import statistics
import sys
import time

from agents.connectx.mcts import MCTSAgent, _forced_move  # the agent's rule, so the filter cannot drift from it
from base.cli import OneLineParser
from bench.figures import emit
from core.connectx.pons_data import PONS  # noqa: E402
from core.connectx.position import Position


def _quiet(moves: str) -> bool:
    """The agent searches here: its own shortcut (a win in one, a forced block) finds nothing."""
    pos = Position.from_moves(moves)
    return _forced_move(pos, pos.legal_columns()) is None


def positions(n: int, seed: int) -> list[tuple[str, str]]:
    """(label, Pons move string): the empty board, then ``n`` opening positions."""
    lines = (PONS / "Test_L1_R2").read_text().split("\n")
    # only positions the agent searches: no win in one for either side (else it plays at once)
    picks = random.Random(seed).sample([m for m in (ln.split()[0] for ln in lines if ln.strip()) if _quiet(m)], n)
    return [("empty", "")] + [(f"open{len(m)}", m) for m in picks]


def ours_rates(leaf: str, c: float, moves: str, sims: int) -> tuple[float, float]:
    """(first move, later move): simulations per second of a search of ``sims`` simulations from
    the position, through the agent's public API (``choose``, timed from outside: set-up
    included), with no cache and no reuse. The first search is a fresh agent's, which allocates
    its tree (``sims + 64`` nodes) as a game's first move does; the second is the same agent's
    next search, in the arrays it already has, as every later move of a game."""
    agent = MCTSAgent(leaf=leaf, c=c, cache="", capacity=sims + 64, max_sims=sims, reuse=False, seed=1,
                      background_compile=False)
    pos = Position.from_moves(moves)
    rates = []
    for _ in range(2):
        t = time.perf_counter()
        agent.choose_position(pos, t + 1e6)
        elapsed = time.perf_counter() - t
        info = agent.info()
        if info.get("reason") != "search":
            raise RuntimeError(f"position {moves!r}: the agent did not search ({info.get('reason')})")
        done = info.simulations or 0  # a search's info always holds its simulations
        if done < sims:  # a proof stopped it: its simulations/s would measure other work
            print(f"note: position {moves!r}: root proven after {done} simulations", file=sys.stderr)
        rates.append(done / elapsed)
    return rates[0], rates[1]


def openspiel_rate(pyspiel, moves: str, sims: int, c: float) -> float:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    for ch in moves:
        state.apply_action(int(ch) - 1)
    # solve=False: a solved root would end its search early and inflate sims / time.
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), c, sims, 4000, False, 1, False)
    t = time.perf_counter()
    bot.step(state)
    return sims / (time.perf_counter() - t)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.mcts_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=200_000, help="simulations per search")
    parser.add_argument("--positions", type=int, default=4, help="opening positions besides the empty board")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--c", type=float, default=2.0, help="exploration constant for both (rewards in [-1, 1])")
    parser.add_argument("--seed", type=int, default=0, help="seed for the choice of positions")
    args = parser.parse_args(argv)
    if args.sims < 1000 or args.repeats < 1 or args.positions < 0:
        print("error: --sims must be >= 1000, --repeats >= 1, --positions >= 0", file=sys.stderr)
        return 2
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("OpenSpiel not installed (pip install open_spiel): measuring ours only")
    t = time.perf_counter()
    MCTSAgent(leaf="rollout", c=args.c, cache="").warm_up()
    MCTSAgent(leaf="heuristic", c=args.c, cache="").warm_up()
    print(f"numba compile (both leaves): {time.perf_counter() - t:.1f} s")
    print(f"{'position':10} {'ours pure/s':>12} {'openspiel/s':>12} {'ratio':>6} {'ours heur/s':>12} {'ratio':>6}")
    ratios = []
    figures = {}
    for label, moves in positions(args.positions, args.seed):
        ours, theirs, heuristic, firsts = [], [], [], []
        for _ in range(args.repeats):  # interleaved, so load changes hit both alike
            first, later = ours_rates("rollout", args.c, moves, args.sims)
            ours.append(later)
            firsts.append(first)
            if pyspiel is not None:
                theirs.append(openspiel_rate(pyspiel, moves, args.sims, args.c))
            heuristic.append(ours_rates("heuristic", args.c, moves, args.sims)[1])
        o, h = statistics.median(ours), statistics.median(heuristic)
        figures[f"{label}_rollout_sims_per_s"], figures[f"{label}_heuristic_sims_per_s"] = o, h
        figures[f"{label}_rollout_first_move_sims_per_s"] = statistics.median(firsts)
        if theirs:
            th = statistics.median(theirs)
            ratios.append(o / th)
            print(f"{label:10} {o:12,.0f} {th:12,.0f} {o / th:6.2f} {h:12,.0f} {h / th:6.2f}")
        else:
            print(f"{label:10} {o:12,.0f} {'-':>12} {'-':>6} {h:12,.0f} {'-':>6}")
    emit(figures)
    if ratios:
        print(f"pure MCTS / OpenSpiel, median over positions: {statistics.median(ratios):.2f}x"
              f" (target >= 1: {'met' if min(ratios) >= 1 else 'NOT met on every position'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
