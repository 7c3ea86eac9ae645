"""This project's exact ConnectX solver beside bitbully (a C++ solver, AGPL: an outside referee,
installed here into its own venv, never in the project's requirements nor imported by shipped
code), on the same Pons positions, interleaved, both pinned to one core.

    python -m bench.referee_bitbully                                  # 20 of L1_R2, 2 rounds
    python -m bench.referee_bitbully --sets L1_R3 --limit 20 --rounds 2 --core 1

The first run makes ``~/.cache/connectx-bench/bitbully-venv`` (``python -m venv`` then ``pip
install bitbully``; ``--venv`` elsewhere). Each engine is one process (``bench/referee_worker.py``)
started once under ``taskset -c CORE``; the positions go to them one at a time, the order of the
two alternating from position to position, each solved from an empty table (emptied outside the
timing). Per round: each engine's total nodes, CPU seconds (its own process's: what load on a
shared machine disturbs least) and wall seconds; printed: the medians over the rounds of nodes/s
and positions/s by CPU time, and ours / bitbully. Every score is checked against Pons'. The load
average is printed before and after: on a loaded machine the ratio, not the rate, is the figure,
and instruction counts (``bench.instructions``) decide before/after changes.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from base.cli import OneLineParser, int_in, positive_int
from bench.figures import emit
from core.connectx.pons_data import pons_lines

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "bench" / "referee_worker.py"
DEFAULT_VENV = Path.home() / ".cache" / "connectx-bench" / "bitbully-venv"
ENGINES = ("ours", "bitbully")


def venv_python(venv: Path, install: bool) -> Path:
    """The venv's python with bitbully importable, made first when ``install`` (else SystemExit)."""
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import bitbully.bitbully_core"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    if not install:
        raise SystemExit(f"referee: no bitbully in {venv}; run without --no-install to make it")
    print(f"referee: making {venv} (python -m venv; pip install bitbully)", file=sys.stderr)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "bitbully"], check=True)
    if subprocess.run(check, capture_output=True).returncode != 0:
        raise SystemExit(f"referee: bitbully does not import in {venv}")
    return python


def start(engine: str, python: Path, core: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [str(python), str(WORKER), engine]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", str(core), *cmd]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    if _read(proc) != "ready":
        raise SystemExit(f"referee: the {engine} worker did not start")
    return proc


def _read(proc: subprocess.Popen) -> str:
    out: IO[str] | None = proc.stdout
    assert out is not None
    return out.readline().strip()


def ask(proc: subprocess.Popen, moves: str) -> tuple[int, int, float, float]:
    """``(score, nodes, wall s, cpu s)`` of one position."""
    stdin: IO[str] | None = proc.stdin
    assert stdin is not None
    stdin.write(moves + "\n")
    stdin.flush()
    score, nodes, wall, cpu = _read(proc).split()
    return int(score), int(nodes), float(wall), float(cpu)


def one_round(procs: dict[str, subprocess.Popen], cases: list[tuple[str, int]], flip: int) -> dict[str, Any]:
    totals: dict[str, Any] = {e: {"nodes": 0, "wall": 0.0, "cpu": 0.0, "wrong": 0} for e in ENGINES}
    for i, (moves, expected) in enumerate(cases):
        order = ENGINES if (i + flip) % 2 == 0 else ENGINES[::-1]
        for engine in order:
            score, nodes, wall, cpu = ask(procs[engine], moves)
            t = totals[engine]
            t["nodes"] += nodes
            t["wall"] += wall
            t["cpu"] += cpu
            t["wrong"] += score != expected
    return totals


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m bench.referee_bitbully", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="L1_R2", help="Pons' sets, comma-separated (default L1_R2)")
    ap.add_argument("--limit", type=positive_int, default=20, help="positions a set (default 20)")
    ap.add_argument("--rounds", type=int_in(1, 100), default=2, help="rounds over the positions (default 2)")
    ap.add_argument("--core", type=int_in(0, 1023), default=1, help="the CPU both engines are pinned to (default 1)")
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV, help=f"bitbully's venv (default {DEFAULT_VENV})")
    ap.add_argument("--no-install", action="store_true", help="fail instead of making the venv")
    args = ap.parse_args(argv)
    cases: list[tuple[str, int]] = []
    for name in args.sets.split(","):
        try:
            cases += pons_lines(name.strip())[: args.limit]
        except OSError:
            ap.error(f"no Pons set {name.strip()!r} (L3_R1, L2_R1, L2_R2, L1_R1, L1_R2, L1_R3)")
    python = venv_python(args.venv, not args.no_install)
    load0 = os.getloadavg()
    procs = {"ours": start("ours", Path(sys.executable), args.core), "bitbully": start("bitbully", python, args.core)}
    try:
        rounds = [one_round(procs, cases, r) for r in range(args.rounds)]
    finally:
        for p in procs.values():
            p.kill()
            p.wait()
    load1 = os.getloadavg()
    print(f"{len(cases)} positions of {args.sets}, {args.rounds} rounds, pinned to core {args.core}; "
          f"load {load0[0]:.1f} before, {load1[0]:.1f} after")
    rate = {e: statistics.median(r[e]["nodes"] / r[e]["cpu"] for r in rounds) for e in ENGINES}
    pos = {e: statistics.median(len(cases) / r[e]["cpu"] for r in rounds) for e in ENGINES}
    print(f"{'engine':9} {'wrong':>5} {'nodes':>14} {'cpu s':>9} {'wall s':>9} {'Mnodes/s cpu':>12} {'pos/s cpu':>10}")
    for e in ENGINES:
        last = rounds[-1][e]
        print(f"{e:9} {sum(r[e]['wrong'] for r in rounds):>5} {last['nodes']:>14,} {statistics.median(r[e]['cpu'] for r in rounds):>9.2f} "
              f"{statistics.median(r[e]['wall'] for r in rounds):>9.2f} {rate[e] / 1e6:>12.2f} {pos[e]:>10.2f}")
    print(f"ours / bitbully: nodes/s {rate['ours'] / rate['bitbully']:.2f}x, positions/s {pos['ours'] / pos['bitbully']:.2f}x, "
          f"nodes {rounds[-1]['ours']['nodes'] / rounds[-1]['bitbully']['nodes']:.2f}x")
    emit({"nodes_per_s_ratio": rate["ours"] / rate["bitbully"], "positions_per_s_ratio": pos["ours"] / pos["bitbully"]})
    wrong = sum(r[e]["wrong"] for r in rounds for e in ENGINES)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
