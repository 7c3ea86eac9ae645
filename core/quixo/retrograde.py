"""Quixo on 3×3 and 4×4 solved by retrograde analysis over every state; the table; its CLI.

``python -m core.quixo.retrograde --size 4 --out data/quixo_4x4.npz``

States are taken from the mover's side (the symbol swap is built in): ``(m, o)``, the planes of
the player to move and of the other, indexed in base 3, ``index = B3(m) + 2 B3(o)`` where
``B3`` reads a plane's bits as base-3 digits (3^16 = 43 M states on 4×4, every pair of
disjoint planes, reachable or not). A state where the mover has a line is won (the opponent
made it, whatever else it made), else one where the opponent has a line is lost.

Backward induction with successor counts: terminal states go into a FIFO queue; popping a
state, each predecessor edge (found by undoing a push: :func:`unpush`) either wins the
predecessor (the popped state is lost for its mover) or decrements its count of moves not yet
known to lose; at zero it is lost. FIFO order makes ``dist`` the plies to the end under
optimal play (quickest win, slowest loss). What is never reached can cycle forever: a draw.
No symmetry is used while solving, so the table's invariance under the 8 board maps is an
independent check (:func:`check_and_pack`); the packed table keeps only the canonical state
of each class (the least index of its images), so it compresses to little.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from base.jit import hot
from core.quixo.kernels import G_ACT, G_N, G_NACT, constants, has_line, symmetry_maps

DRAW, WIN, LOSS = 0, 1, 2  # val for the side to move; DRAW also means "not known yet" while solving
CHUNK = 1 << 19  # states per compiled call (well under a second): progress and Ctrl-C between calls


def byte_table() -> np.ndarray:
    """B3 of each byte: its bits read as base-3 digits."""
    return np.array([sum(3 ** i for i in range(8) if (v >> i) & 1) for v in range(256)], dtype=np.int64)


def perm_tables(n: int) -> np.ndarray:
    """``pt[k, j, v]``: the image under symmetry ``k`` of byte ``j`` of a plane holding ``v``."""
    nbytes = (n * n + 7) // 8
    pt = np.zeros((8, nbytes, 256), dtype=np.int64)
    for k, perm in enumerate(symmetry_maps(n)):
        for j in range(nbytes):
            for v in range(256):
                pt[k, j, v] = sum(1 << perm[8 * j + i] for i in range(8) if (v >> i) & 1 and 8 * j + i < n * n)
    return pt


@hot
def b3(p: int, tab, nbytes: int) -> int:
    idx = 0
    mul = 1
    for k in range(nbytes):
        idx += tab[(p >> (8 * k)) & 255] * mul
        mul *= 6561
    return idx


@hot
def decode(idx: int, nn: int):
    m = 0
    o = 0
    for c in range(nn):
        d = idx % 3
        idx //= 3
        if d == 1:
            m |= 1 << c
        elif d == 2:
            o |= 1 << c
    return m, o


@hot
def init_range(g, val, cnt, dist, queue, tail: int, lo: int, hi: int, nn: int) -> int:
    """Values of the terminal states in ``[lo, hi)`` (queued), move counts of the others."""
    nact = g[G_NACT]
    for idx in range(lo, hi):
        m, o = decode(idx, nn)
        if has_line(g, m):
            val[idx] = WIN
        elif has_line(g, o):
            val[idx] = LOSS
        else:
            c = 0
            for a in range(nact):
                src = g[G_ACT + 6 * a]
                if src != 0 and (o & src) == 0:
                    c += 1
            cnt[idx] = c
            continue
        dist[idx] = 0
        queue[tail] = idx
        tail += 1
    return tail


@hot
def unpush(g, a: int, p: int) -> int:
    """Plane ``p`` before action ``a`` pushed its row or column (the source cell left empty,
    the end cell's cube removed): the cells between them move back one step."""
    b = G_ACT + 6 * a
    keep, mv, shl, shr = g[b + 1], g[b + 2], g[b + 3], g[b + 4]
    moved = (mv << shl) >> shr
    return (p & keep) | (((p & moved) << shr) >> shl)


@hot
def propagate(g, val, cnt, dist, queue, head: int, tail: int, limit: int, tab):
    """Pop up to ``limit`` states; returns the new (head, tail)."""
    nn = g[G_N] * g[G_N]
    nbytes = (nn + 7) // 8
    nact = g[G_NACT]
    end = head + limit
    while head < tail and head < end:
        idx = queue[head]
        head += 1
        a_pl, b_pl = decode(idx, nn)  # a_pl: the mover here; b_pl: who just moved
        v = val[idx]
        d = dist[idx] + 1
        for a in range(nact):
            base = G_ACT + 6 * a
            src = g[base]
            if src == 0 or (b_pl & g[base + 5]) == 0:
                continue  # never legal, or the end cell does not hold the last mover's cube
            mp = unpush(g, a, b_pl)
            op_ = unpush(g, a, a_pl)
            ib = b3(op_, tab, nbytes) * 2
            for option in range(2):  # the source cube was blank, or already the mover's
                p = b3(mp | (src * option), tab, nbytes) + ib
                if val[p] != DRAW:
                    continue
                if v == LOSS:
                    val[p] = WIN
                elif cnt[p] == 1:
                    val[p] = LOSS
                else:
                    cnt[p] -= 1
                    continue
                dist[p] = d
                queue[tail] = p
                tail += 1
    return head, tail


@hot
def canonical_index(m: int, o: int, pt, tab, nbytes: int) -> int:
    best = b3(m, tab, nbytes) + 2 * b3(o, tab, nbytes)
    for k in range(1, 8):
        pm = 0
        po = 0
        for j in range(nbytes):
            pm |= pt[k, j, (m >> (8 * j)) & 255]
            po |= pt[k, j, (o >> (8 * j)) & 255]
        i = b3(pm, tab, nbytes) + 2 * b3(po, tab, nbytes)
        if i < best:
            best = i
    return best


@hot
def check_and_pack(val, dist, code, lo: int, hi: int, pt, tab, nbytes: int, nn: int) -> int:
    """``code`` of the canonical states in ``[lo, hi)`` (0 draw, 1 + 2 dist win, 2 + 2 dist
    loss; 0 elsewhere); returns how many states disagree with their canonical image."""
    bad = 0
    for idx in range(lo, hi):
        m, o = decode(idx, nn)
        c = canonical_index(m, o, pt, tab, nbytes)
        if val[c] != val[idx] or dist[c] != dist[idx]:
            bad += 1
        if c == idx:
            v = val[idx]
            if v == WIN:
                code[idx] = 1 + 2 * dist[idx]
            elif v == LOSS:
                code[idx] = 2 + 2 * dist[idx]
    return bad


@dataclass
class Solution:
    n: int
    val: np.ndarray  # uint8 per state index: DRAW, WIN, LOSS for the side to move
    dist: np.ndarray  # uint16: plies to the end under optimal play (0 for draws)
    seconds: float

    def initial(self) -> tuple[int, int]:
        return int(self.val[0]), int(self.dist[0])


def solve(n: int, jit: bool = True, progress: bool = False) -> Solution:
    """Every state of the n×n game (n = 3 or 4) with its value and distance to the end."""
    from base import jit as J

    if n not in (3, 4):
        raise ValueError(f"retrograde solves n = 3 or 4, not {n} (5×5 has 2·3^25 states)")
    t0 = time.perf_counter()
    nn = n * n
    total = 3 ** nn
    ns = J.compiled(sys.modules[__name__]) if jit else sys.modules[__name__]
    g = np.asarray(constants(n, 0), dtype=np.int64) if jit else constants(n, 0)
    tab = byte_table() if jit else [int(v) for v in byte_table()]
    val = np.zeros(total, dtype=np.uint8)
    cnt = np.zeros(total, dtype=np.uint8)
    dist = np.zeros(total, dtype=np.uint16)
    queue = np.zeros(total, dtype=np.int32)
    bar = _bar(progress, total, "states")
    tail = 0
    for lo in range(0, total, CHUNK):
        hi = min(total, lo + CHUNK)
        tail = ns.init_range(g, val, cnt, dist, queue, tail, lo, hi, nn)
        bar.update(hi - lo)
    bar.close()
    bar = _bar(progress, total, "propagate")
    head = 0
    while head < tail:
        new_head, tail = ns.propagate(g, val, cnt, dist, queue, head, tail, CHUNK, tab)
        bar.update(new_head - head)
        head = new_head
    bar.close()
    return Solution(n, val, dist, time.perf_counter() - t0)


def pack(sol: Solution, jit: bool = True, progress: bool = False) -> tuple[np.ndarray, int]:
    """The uint8 code table (canonical states only) and the count of symmetry mismatches."""
    from base import jit as J

    if int(sol.dist.max()) > 126:
        raise ValueError(f"a distance of {int(sol.dist.max())} plies does not fit the 8-bit code")
    n = sol.n
    nn = n * n
    ns = J.compiled(sys.modules[__name__]) if jit else sys.modules[__name__]
    pt, tab = perm_tables(n), byte_table()
    if not jit:
        tab = tab.tolist()
    code = np.zeros(len(sol.val), dtype=np.uint8)
    bad = 0
    bar = _bar(progress, len(sol.val), "check+pack")
    for lo in range(0, len(sol.val), CHUNK):
        hi = min(len(sol.val), lo + CHUNK)
        bad += int(ns.check_and_pack(sol.val, sol.dist, code, lo, hi, pt, tab, (nn + 7) // 8, nn))
        bar.update(hi - lo)
    bar.close()
    return code, bad


def _bar(progress: bool, total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="st", unit_scale=True, disable=not progress, file=sys.stderr, leave=False)


# --- the packed table, for agents ---------------------------------------------------------
class Table:
    """A solved board's values: ``value(words)`` is (+1 win / 0 draw / -1 loss for the side
    to move, plies to the end). Loaded from the npz the CLI writes."""

    def __init__(self, path: str | Path | BinaryIO) -> None:
        with np.load(path) as z:
            self.n = int(z["n"])
            self.code = z["code"]
        nn = self.n * self.n
        self._maps = symmetry_maps(self.n)
        self._pow = [3 ** c for c in range(nn)]

    def index(self, m: int, o: int) -> int:
        nn = self.n * self.n
        images = []
        for perm in self._maps:
            i = 0
            for c in range(nn):
                if (m >> c) & 1:
                    i += self._pow[perm[c]]
                elif (o >> c) & 1:
                    i += 2 * self._pow[perm[c]]
            images.append(i)
        return min(images)

    def value(self, words) -> tuple[int, int]:
        t = words[2] & 1
        c = int(self.code[self.index(words[t], words[1 - t])])
        if c == 0:
            return 0, 0
        return (1 if c % 2 else -1), (c - 1) // 2

    def best_action(self, state) -> tuple[int, dict]:
        """The best legal action of ``state`` (quickest win, else a draw, else slowest loss)
        and each action's (value, plies) for the side to move."""
        scores = {}
        for a in state.legal_actions():
            v, d = self.value(state.apply(a).words)
            scores[a] = (-v, d + 1)

        def rank(a):
            v, d = scores[a]
            return (v, -d if v > 0 else d)

        return max(scores, key=rank), scores


# --- CLI --------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    from base.atomic import write_bytes
    from base.cli import OneLineParser, check_writable, exit_code, stop_on_signals

    p = OneLineParser(prog="python -m core.quixo.retrograde",
                      description="Solve n×n Quixo (n = 3, 4) by retrograde analysis and write the packed table.")
    p.add_argument("--size", type=int, default=4, help="board side: 3 or 4 (default 4)")
    p.add_argument("--out", default=None, help="npz to write (default: data/quixo_NxN.npz); written atomically at the end")
    p.add_argument("--no-jit", action="store_true", help="plain Python (slow: for 3×3 only)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    if args.size not in (3, 4):
        p.error(f"--size {args.size} is not solvable here; use 3 or 4")
    out = Path(args.out or f"data/quixo_{args.size}x{args.size}.npz")
    if out.suffix != ".npz":
        p.error(f"--out {out} must end in .npz")
    check_writable(p, "--out", out)
    try:
        with stop_on_signals():
            sol = solve(args.size, jit=not args.no_jit, progress=not args.quiet)
            t1 = time.perf_counter()
            code, bad = pack(sol, jit=not args.no_jit, progress=not args.quiet)
            t_pack = time.perf_counter() - t1
    except KeyboardInterrupt as exc:
        print(f"interrupted: nothing written to {out} (a new run starts again from scratch; 4×4 takes a few minutes)", file=sys.stderr)
        return exit_code(exc)
    v, d = sol.initial()
    counts = np.bincount(sol.val, minlength=3)
    print(f"{args.size}x{args.size}: {len(sol.val):,} states solved in {sol.seconds:.1f} s "
          f"(+{t_pack:.1f} s symmetry check and packing): "
          f"{counts[WIN]:,} wins, {counts[LOSS]:,} losses, {counts[DRAW]:,} draws for the side to move; "
          f"longest forced end {int(sol.dist.max())} plies")
    print(f"initial position: {['draw', 'first player wins', 'first player loses'][v]}"
          + (f" in {d} plies" if v else ""))
    if bad:
        print(f"ERROR: {bad:,} states differ from their symmetric images: table not written", file=sys.stderr)
        return 1
    import io

    buf = io.BytesIO()
    np.savez_compressed(buf, code=code, n=np.int64(args.size))
    write_bytes(out, buf.getvalue())
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB): symmetry check passed on every state")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
