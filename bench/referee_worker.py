"""One engine of :mod:`bench.referee_bitbully`, run as its own process (pinned by the caller):
reads ``<moves> <score>`` lines (Pons' notation: 1-based column digits) on stdin, solves each
from an empty table (emptied outside the timing), and writes ``<score> <nodes> <seconds> <cpu seconds>`` a line.

    python bench/referee_worker.py ours < positions        # this project's solver (PYTHONPATH: the repo)
    VENV/bin/python bench/referee_worker.py bitbully < positions   # bitbully, from its own venv

A plain file, not a module of the project: the bitbully venv has neither numba nor the
project, and the project never imports bitbully (AGPL: a referee outside, never shipped).
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable

Engine = tuple[Callable[[], None], Callable[[str], tuple[int, int]]]  # (empty the table, solve: score and nodes)


def ours() -> Engine:
    from agents.connectx.solver import Solver
    from core.connectx.position import Position

    solver = Solver()
    solver.warm_up()

    def solve(moves: str) -> tuple[int, int]:
        score = solver.solve(Position.from_moves(moves))
        assert score is not None
        return int(score), int(solver.nodes)

    return solver.reset, solve


def bitbully() -> Engine:
    import bitbully.bitbully_core as bbc  # only in the referee's venv

    solver = bbc.BitBullyCore()

    def reset() -> None:
        solver.resetTranspositionTable()
        solver.resetNodeCounter()

    def solve(moves: str) -> tuple[int, int]:
        board = bbc.BoardCore()
        if not board.play("".join(str(int(c) - 1) for c in moves)):
            raise ValueError(f"bitbully refused the moves {moves}")
        score = solver.mtdf(board, first_guess=0)
        return int(score), int(solver.getNodeCounter())

    return reset, solve


def main(argv: list[str]) -> int:
    engines = {"ours": ours, "bitbully": bitbully}
    if len(argv) != 1 or argv[0] not in engines:
        print(f"usage: referee_worker.py {{{'|'.join(engines)}}} < positions", file=sys.stderr)
        return 2
    reset, solve = engines[argv[0]]()
    print("ready", flush=True)
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        reset()  # an empty table for each position (Pons' protocol), outside the timing
        t0, c0 = time.perf_counter(), time.process_time()
        score, nodes = solve(fields[0])
        print(score, nodes, f"{time.perf_counter() - t0:.6f}", f"{time.process_time() - c0:.6f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
