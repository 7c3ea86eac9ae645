"""Core speed: plays and win tests per second in random games, numba against pure Python.

Three paths play random games on one shape, each ply being one play and one win test:
- ``numba``: :func:`random_games` (a hot loop over core.connectx.bitboard's kernels) compiled with
  :func:`base.jit.compiled`;
- ``python``: the very same source, run as plain Python;
- ``Position``: the object API (``legal_columns``, ``is_winning_move``, ``play``) that tools
  and tests use.
Each figure is the median of several repeats, all measured in this one run, so the ratios hold
on a noisy machine even when the absolute figures do not.
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable

from base.cli import OneLineParser, positive_int
from base.jit import hot, kernels, numba_enabled
from core.connectx.bitboard import can_play, has_won, move_bit
from core.connectx.cli import shape_type
from core.connectx.position import Position
from core.connectx.shape import Shape


@hot
def random_games(rows: int, columns: int, inarow: int, games: int, seed: int) -> int:
    """Play ``games`` random games; return the number of plies (each one play + one win test).

    A 31-bit linear congruential generator picks the moves so that the compiled and the plain
    run play exactly the same games (and numba needs no random module).
    """
    x = seed & 0x7FFFFFFF
    plies = 0
    cells = rows * columns
    for _ in range(games):
        current = 0
        mask = 0
        for _ply in range(cells):
            n_legal = 0
            for col in range(columns):
                if can_play(mask, rows, col):
                    n_legal += 1
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            k = (x >> 8) % n_legal
            col = 0
            while True:
                if can_play(mask, rows, col):
                    if k == 0:
                        break
                    k -= 1
                col += 1
            new_mask = mask | move_bit(mask, rows, col)
            mover = current | (new_mask ^ mask)
            plies += 1
            if has_won(mover, rows, inarow):
                break
            current = mover ^ new_mask  # the other side's stones: it moves next
            mask = new_mask
    return plies


def position_games(shape: Shape, games: int, seed: int) -> int:
    """The same kind of games through the Position object API; returns the number of plies."""
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        pos = Position.empty(shape)
        while True:
            col = rng.choice(pos.legal_columns())
            plies += 1
            won = pos.is_winning_move(col)
            pos = pos.play(col)
            if won or pos.is_full():
                break
    return plies


def measure(run: Callable[[], int], repeats: int) -> float:
    """Median plies per second of ``run`` over ``repeats`` runs."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        plies = run()
        rates.append(plies / (time.perf_counter() - start))
    return statistics.median(rates)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.core_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--shape", type=shape_type, default=Shape(), help="ROWSxCOLUMNSxINAROW (default 6x7x4)")
    parser.add_argument("--repeats", type=positive_int, default=5, help="repeats per path; the median is shown (default 5)")
    parser.add_argument("--games", type=positive_int, default=1000, help="games per repeat in pure Python (default 1000)")
    parser.add_argument("--numba-games", type=positive_int, default=200000, help="games per repeat compiled (default 200000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games (default 1)")
    args = parser.parse_args(argv)
    s, module = args.shape, sys.modules[__name__]
    rows = []
    plain = measure(lambda: random_games(s.rows, s.columns, s.inarow, args.games, args.seed), args.repeats)
    if numba_enabled(s.bits):
        fast = kernels(module, s.bits).random_games
        start = time.perf_counter()
        same = fast(s.rows, s.columns, s.inarow, args.games, args.seed) == random_games(s.rows, s.columns, s.inarow, args.games, args.seed)
        compile_s = time.perf_counter() - start
        if not same:
            print("core_speed: the compiled and the plain loop played different games (a bug)", file=sys.stderr)
            return 1
        numba_rate = measure(lambda: fast(s.rows, s.columns, s.inarow, args.numba_games, args.seed), args.repeats)
        rows.append((f"numba (compile {compile_s:.1f} s)", numba_rate))
    else:
        numba_rate = None
    rows.append(("pure Python, same source", plain))
    rows.append(("Position object API", measure(lambda: position_games(s, args.games, args.seed), args.repeats)))

    print(f"core speed on {s} ({s.bits} bits): random games, one play + one win test per ply;"
          f" median of {args.repeats} repeats")
    print(f"{'path':<28}{'plays+wins/s':>14}{'ns/ply':>10}{'vs python':>11}")
    for name, r in rows:
        print(f"{name:<28}{r:>14,.0f}{1e9 / r:>10,.0f}{r / plain:>10.1f}x")
    if numba_rate is None:
        print(f"numba: not used ({'board over 63 bits' if s.bits > 63 else 'numba unavailable or CONNECTX_NUMBA=0'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
