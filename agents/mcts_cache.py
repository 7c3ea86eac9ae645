"""The MCTS opening cache: grow a tree from the empty board, prune it, save plain arrays.

``python -m agents.mcts_cache grow --seconds 600`` runs one long MCTS from the empty board (the
tree plays both sides: self-play), keeps the nodes with at least ``--min-visits`` visits and
writes ``data/mcts_cache_<leaf>_<rows>x<columns>x<inarow>.npz``. ``show FILE`` prints a
cache's size and its first moves (columns 1-based, as people write them). ``--seconds`` is the
growing time (numba's compile comes before it, reported apart); Ctrl-C or SIGTERM stops a grow
within a second (exit 130 or 143) and leaves the output file as it was.

The file holds packed plain arrays, sorted by position key with transpositions merged (a
position reached by two move orders sums its statistics): ``keys`` (int64, exact
:func:`core.connectx.bitboard.position_key`), ``visits`` (int64), ``values`` (float32, summed rewards for
the player who moved into the position), ``lo`` and ``hi`` (int8 proven bounds on the value for
the side to move), ``shape`` and a JSON ``meta`` string. An agent grafts the entries below a
new tree's root (:func:`graft`, on the generic MCTS tree of :mod:`agents.engine.mcts_kernels`);
a submission receives the same dict through ``use_data``. Only boards within 63 bits (int64
keys) can have a cache. The hot functions here know the generic tree's layout and ConnectX's
bitboards (the cache is ConnectX's own); the agents (:mod:`agents.mcts`) import this module,
never the other way round.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.engine import mcts_kernels as K
from agents.engine.mcts_kernels import (FHEADER, I_CAP, I_NODES, I_USED, N_ACTION, N_DIST, N_FIRST, N_NKIDS,
                                        N_NLEGAL, N_PLAYER, N_SIB, N_UNTRIED, N_XP, NF, NI, V_AUX, V_HI, V_LO,
                                        V_PHER, V_VALUE, V_VISITS, attach, find_child)
from core.connectx.bitboard import can_play, move_bit, popcount, position_key
from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape
from util.atomic import write_bytes
from util.jit import compiled, hot, numba_available
from util.cli import OneLineParser, exit_code, raise_if_signalled, shape_type, signal_name, stop_on_signals

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
FIELDS = ("keys", "visits", "values", "lo", "hi")
BATCH_SECONDS = 0.1  # a batch of simulations takes about this long: --seconds and Ctrl-C hold within it


class CacheError(ValueError):
    """A cache file or data dict that cannot be used: the message says why."""


def default_path(leaf: str, heuristic: str = "oddeven", shape: Shape = STANDARD) -> Path:
    """``data/mcts_cache_<rollout | heuristic name | mixed_heuristic name>_<shape>.npz``."""
    name = "rollout" if leaf == "rollout" else heuristic if leaf == "heuristic" else f"mixed_{heuristic}"
    return DATA_DIR / f"mcts_cache_{name}_{shape.rows}x{shape.columns}x{shape.inarow}.npz"


def validate(data: Any) -> dict:
    """Check a cache dict and return it with the dtypes the kernels take (keys int64, visits
    and values float64, bounds int8). Raises CacheError naming the problem."""
    if not isinstance(data, dict):
        raise CacheError(f"cache data must be a dict, got {type(data).__name__}")
    missing = [f for f in (*FIELDS, "shape") if f not in data]
    if missing:
        raise CacheError(f"cache data lacks {', '.join(missing)}")
    keys = np.asarray(data["keys"])
    n = len(keys)
    if any(np.asarray(data[f]).shape != (n,) for f in FIELDS):
        raise CacheError(f"cache arrays {', '.join(FIELDS)} must be 1-d and of one length")
    if keys.dtype.kind not in "iu" or (n > 1 and not np.all(keys[1:] > keys[:-1])):
        raise CacheError("cache keys must be integers, sorted and unique")
    shape = tuple(int(x) for x in np.asarray(data["shape"]).ravel())
    if len(shape) != 3:
        raise CacheError(f"cache shape must be (rows, columns, inarow), got {shape}")
    return {
        "shape": shape,
        "keys": keys.astype(np.int64),
        "visits": np.asarray(data["visits"]).astype(np.float64),
        "values": np.asarray(data["values"]).astype(np.float64),
        "lo": np.asarray(data["lo"]).astype(np.int8),
        "hi": np.asarray(data["hi"]).astype(np.int8),
        "meta": str(data.get("meta", "{}")),
    }


def load(path: str | Path, missing_ok: bool = False) -> dict | None:
    """Read a cache file (validated). A missing file is None when ``missing_ok``, else an error."""
    path = Path(path)
    if not path.exists():
        if missing_ok:
            return None
        raise CacheError(f"cache file {path} does not exist; grow one with `python -m agents.mcts_cache grow`")
    try:
        with np.load(path, allow_pickle=False) as z:
            raw = {k: z[k] for k in z.files}
    except Exception as exc:  # a damaged or foreign file
        raise CacheError(f"cannot read cache file {path}: {exc}") from None
    if "meta" in raw:
        raw["meta"] = str(raw["meta"])
    return validate(raw)


def to_file_arrays(data: dict) -> dict[str, np.ndarray]:
    """The packed arrays as stored: visits int64, values float32."""
    return {
        "keys": np.asarray(data["keys"], np.int64),
        "visits": np.asarray(data["visits"]).round().astype(np.int64),
        "values": np.asarray(data["values"]).astype(np.float32),
        "lo": np.asarray(data["lo"], np.int8),
        "hi": np.asarray(data["hi"], np.int8),
        "shape": np.asarray(data["shape"], np.int64),
        "meta": np.asarray(str(data.get("meta", "{}"))),
    }


def save(path: str | Path, data: dict) -> int:
    """Write ``data`` atomically as a compressed npz; returns the file's size in bytes."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **to_file_arrays(validate(data)))
    blob = buf.getvalue()
    write_bytes(path, blob)
    return len(blob)


@hot
def find_key(keys, key: int) -> int:
    """Index of ``key`` in the sorted array ``keys``, or -1."""
    low = 0
    high = keys.shape[0]
    while low < high:
        mid = (low + high) // 2
        if keys[mid] < key:
            low = mid + 1
        else:
            high = mid
    if low < keys.shape[0] and keys[low] == key:
        return low
    return -1


@hot
def graft_kernel(ints, floats, root: int, root_cur: int, root_mask: int, rows: int, columns: int, keys,
                 cache_visits, cache_values, cache_lo, cache_hi, queue, queue_cur, queue_mask, limit: int,
                 tau0: float) -> int:
    """Graft the cached statistics below ``root`` of a generic MCTS tree (breadth first, until
    the tree is full or ``limit`` nodes are added). The root takes its own cached statistics;
    bounds are intersected, never widened (the cache's are the side to move's, the tree's player
    0's). A grafted node's actions come from ``expand`` or ``legal`` at its first expansion
    (``N_XP`` 0: its children are not assumed to have passed ``expand``). Returns the nodes
    added; scratch ``queue*`` arrays as long as the tree."""
    nb = ints[I_NODES]
    i = find_key(keys, position_key(root_cur, root_mask, rows, columns))
    if i >= 0:
        f = FHEADER + root * NF
        lo = float(cache_lo[i])
        hi = float(cache_hi[i])
        if ints[nb + root * NI + N_PLAYER] == 1:
            lo, hi = -hi, -lo
        floats[f + V_VISITS] = cache_visits[i]
        floats[f + V_VALUE] = cache_values[i]
        floats[f + V_LO] = max(floats[f + V_LO], lo)
        floats[f + V_HI] = min(floats[f + V_HI], hi)
    capacity = ints[I_CAP]
    added = 0
    queue[0] = root
    queue_cur[0] = root_cur
    queue_mask[0] = root_mask
    head = 0
    tail = 1
    while head < tail and ints[I_USED] < capacity and added < limit:
        n = queue[head]
        cur = queue_cur[head]
        mask = queue_mask[head]
        head += 1
        for col in range(columns):
            if ints[I_USED] >= capacity or added >= limit or not can_play(mask, rows, col):
                continue
            if find_child(ints, n, col) >= 0:
                continue
            new_mask = mask | move_bit(mask, rows, col)
            new_cur = cur ^ mask
            i = find_key(keys, position_key(new_cur, new_mask, rows, columns))
            if i < 0:
                continue
            child = ints[I_USED]
            ints[I_USED] = child + 1
            b = nb + child * NI
            p = popcount(new_mask) & 1
            ints[b + N_FIRST] = -1
            ints[b + N_SIB] = -1
            ints[b + N_ACTION] = col
            ints[b + N_PLAYER] = p
            ints[b + N_NKIDS] = 0
            ints[b + N_NLEGAL] = -1
            ints[b + N_DIST] = 0
            ints[b + N_UNTRIED] = 0
            ints[b + N_XP] = 0
            f = FHEADER + child * NF
            lo = float(cache_lo[i])
            hi = float(cache_hi[i])
            if p == 1:
                lo, hi = -hi, -lo
            floats[f + V_VISITS] = cache_visits[i]
            floats[f + V_VALUE] = cache_values[i]
            floats[f + V_LO] = lo
            floats[f + V_HI] = hi
            floats[f + V_AUX] = 1.0
            floats[f + V_PHER] = tau0
            attach(ints, n, child)
            added += 1
            if tail < queue.shape[0]:
                queue[tail] = child
                queue_cur[tail] = new_cur
                queue_mask[tail] = new_mask
                tail += 1
    return added


@hot
def collect_kernel(ints, floats, root: int, root_cur: int, root_mask: int, rows: int, columns: int,
                   min_visits: float, out_keys, out_visits, out_values, out_lo, out_hi, stack, stack_cur,
                   stack_mask) -> int:
    """Write ``(position key, visits, value, bounds for the side to move)`` of every node
    reachable from ``root`` through nodes with at least ``min_visits`` visits into the ``out_*``
    arrays (duplicates from transpositions included). Returns the count. Scratch ``stack*``
    arrays and outputs as long as the tree."""
    nb = ints[I_NODES]
    count = 0
    stack[0] = root
    stack_cur[0] = root_cur
    stack_mask[0] = root_mask
    sp = 1
    while sp > 0:
        sp -= 1
        n = stack[sp]
        cur = stack_cur[sp]
        mask = stack_mask[sp]
        f = FHEADER + n * NF
        lo = floats[f + V_LO]
        hi = floats[f + V_HI]
        if ints[nb + n * NI + N_PLAYER] == 1:
            lo, hi = -hi, -lo
        out_keys[count] = position_key(cur, mask, rows, columns)
        out_visits[count] = floats[f + V_VISITS]
        out_values[count] = floats[f + V_VALUE]
        out_lo[count] = int(lo)
        out_hi[count] = int(hi)
        count += 1
        ch = ints[nb + n * NI + N_FIRST]
        while ch >= 0:
            if floats[FHEADER + ch * NF + V_VISITS] >= min_visits:
                stack[sp] = ch
                stack_cur[sp] = cur ^ mask
                stack_mask[sp] = mask | move_bit(mask, rows, ints[nb + ch * NI + N_ACTION])
                sp += 1
            ch = ints[nb + ch * NI + N_SIB]
    return count


def _kernels(jit: bool) -> Any:
    """This module's hot functions: compiled (numba) or plain."""
    import agents.mcts_cache as me

    return compiled(me) if jit and numba_available() else me


def graft_compiled() -> bool:
    """Whether :func:`graft`'s compiled kernel is ready (compiling it inside a move would take
    seconds: agents call :func:`warm_up_graft` in their warm-up instead)."""
    return numba_available() and len(_kernels(True).graft_kernel.signatures) > 0


def warm_up_graft() -> None:
    """Compile the graft and collect kernels on a tiny tree."""
    from agents.engine.mcts import Tree

    k = _kernels(True)
    tree = Tree(7, 16, True)
    nb = int(tree.ints[I_NODES])
    tree.ints[I_USED] = 1  # one root node without children
    tree.ints[nb + N_FIRST] = tree.ints[nb + N_SIB] = -1
    z = np.zeros(1, np.int64)
    k.graft_kernel(tree.ints, tree.floats, 0, 0, 0, 6, 7, z, np.zeros(1), np.zeros(1), np.zeros(1, np.int8),
                   np.zeros(1, np.int8), z.copy(), z.copy(), z.copy(), 1, 0.0)
    k.collect_kernel(tree.ints, tree.floats, 0, 0, 0, 6, 7, 0.0, z.copy(), np.zeros(1), np.zeros(1),
                     np.zeros(1, np.int8), np.zeros(1, np.int8), z.copy(), z.copy(), z.copy())


def graft(tree: Any, words: tuple, shape: Shape, data: dict, limit: int, jit: bool, tau0: float = 0.0) -> int:
    """Graft ``data`` (a validated cache) below node 0 of ``tree`` (an
    :class:`agents.engine.mcts.Tree` whose root is the position ``words``): at most ``limit``
    nodes; returns the nodes added."""
    n = max(1, min(len(data["keys"]), tree.capacity))
    k = _kernels(jit)
    return int(k.graft_kernel(tree.ints, tree.floats, 0, int(words[0]), int(words[1]), shape.rows, shape.columns,
                              data["keys"], data["visits"], data["values"], data["lo"], data["hi"],
                              np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), int(limit),
                              float(tau0)))


def holds(data: dict, words: tuple, shape: Shape) -> bool:
    """Whether the cache holds the position ``words``."""
    if tuple(data["shape"]) != (shape.rows, shape.columns, shape.inarow) or not shape.fits_int64:
        return False
    key = position_key(int(words[0]), int(words[1]), shape.rows, shape.columns)
    return find_key(data["keys"], key) >= 0


def extract(tree: Any, root: Position, min_visits: float) -> dict:
    """The cache dict of a grown tree (node 0 at ``root``): nodes with at least ``min_visits``
    visits, reachable through such nodes, transpositions merged."""
    s = root.shape
    if not s.fits_int64:
        raise CacheError(f"a {s} board takes {s.bits} bits: caches need int64 keys (63 bits at most)")
    k = _kernels(bool(tree.numpy))
    n = max(1, tree.used)
    keys, visits, values = np.empty(n, np.int64), np.empty(n), np.empty(n)
    lo, hi = np.empty(n, np.int8), np.empty(n, np.int8)
    count = k.collect_kernel(tree.ints, tree.floats, 0, root.current, root.mask, s.rows, s.columns,
                             float(min_visits), keys, visits, values, lo, hi,
                             np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64))
    uniq, inverse = np.unique(keys[:count], return_inverse=True)
    m = len(uniq)
    out_v, out_w = np.zeros(m), np.zeros(m)
    out_lo, out_hi = np.full(m, -1, np.int8), np.full(m, 1, np.int8)
    np.add.at(out_v, inverse, visits[:count])
    np.add.at(out_w, inverse, values[:count])
    np.maximum.at(out_lo, inverse, lo[:count])  # true bounds of one position: intersect them
    np.minimum.at(out_hi, inverse, hi[:count])
    return {"shape": (s.rows, s.columns, s.inarow), "keys": uniq, "visits": out_v, "values": out_w,
            "lo": out_lo, "hi": out_hi}


def grow(agent: Any, shape: Shape = STANDARD, sims: int = 0, seconds: float = 0.0, prune_visits: float = 2.0,
         log: Any = None, on_batch: Any = None) -> tuple[Any, int]:
    """Grow ``agent``'s tree (a :class:`agents.mcts.TreeSearch`, its cache unused) from the
    empty board for ``sims`` simulations or ``seconds`` (whichever is given; both: the first
    reached). When the tree fills up, nodes under ``prune_visits`` are dropped (the rest is
    extracted and grafted into a fresh tree) and growth goes on. Returns (tree, simulations run).

    The clock starts after the kernels are compiled (call ``agent.warm_up(shape)`` first to
    keep that out of ``seconds``; the CLI does). Simulations run in batches sized to take
    about ``BATCH_SECONDS``, so ``seconds`` holds within one batch and a signal (Ctrl-C) is
    seen between batches: compiled code runs no Python signal handler. ``on_batch(sims, nodes)``
    is called after each batch (progress)."""
    if sims <= 0 and seconds <= 0:
        raise ValueError("give a number of simulations or of seconds")
    from agents.engine.mcts import Tree, seed_state
    from core.game import bind, constants_array

    search = agent.search(shape)
    game = search.game
    jit = search._compiled_possible()
    ns = bind(game, K, search._hfn, jit=jit)
    g, hp = constants_array(game, jit), search._hp_array(jit)
    root = Position.empty(shape)
    words = (root.current, root.mask)
    tree = Tree(game.num_actions, agent.capacity, jit)
    search._settings(tree.floats)
    ns.new_tree(g, tree.ints, tree.floats, words, seed_state(agent.seed))
    end = time.perf_counter() + seconds if seconds > 0 else float("inf")
    done, batch = 0, 16
    while sims <= 0 or done < sims:
        node = tree.node(0)
        if node["lo"] == node["hi"]:
            break
        left = end - time.perf_counter()
        if left <= 0:
            break
        if sims > 0:
            batch = min(batch, sims - done)
        t = time.perf_counter()
        ran = int(ns.run(g, tree.ints, tree.floats, hp, 0, words, batch))
        dt = time.perf_counter() - t
        done += ran
        rate = ran / max(dt, 1e-6)
        batch = int(min(max(rate * min(BATCH_SECONDS, left / 4), 16), 1_000_000))
        if on_batch:
            on_batch(done, tree.used)
        if tree.used >= agent.capacity:
            kept_data = extract(tree, root, float(prune_visits))
            ns.new_tree(g, tree.ints, tree.floats, words, int(tree.ints[K.I_RNG]))
            kept = 1 + graft(tree, words, shape, kept_data, len(kept_data["keys"]), jit, float(tree.floats[K.F_TAU0]))
            if log:
                log(f"tree full at {done} simulations: pruned to {kept} nodes (visits >= {prune_visits})")
            if kept > 0.9 * agent.capacity:
                if log:
                    log("pruning freed too little room; stopping")
                break
    return tree, done


def _main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m agents.mcts_cache", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    g = sub.add_parser("grow", help="grow, prune and save a cache")
    g.add_argument("--seconds", type=float, default=0.0,
                   help="time to grow (seconds), held within 0.1 s; numba's compile (5-15 s, once) comes before it and is reported apart")
    g.add_argument("--sims", type=int, default=0, help="simulations to run (instead of, or with, --seconds)")
    g.add_argument("--min-visits", type=float, default=50.0, help="keep nodes with at least this many visits")
    g.add_argument("--agent", default="mcts", help="agent spec whose search grows the tree, e.g. mcts:leaf=rollout,c=1")
    g.add_argument("--shape", type=shape_type, default=STANDARD, help="ROWSxCOLUMNSxINAROW (default 6x7x4)")
    g.add_argument("--out", default="", help="output file (default: the agent's cache path, data/mcts_cache_<leaf>_<shape>.npz)")
    g.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="progress bar on stderr (default auto: when stderr is a terminal)")
    s = sub.add_parser("show", help="print a cache's size and root statistics")
    s.add_argument("file")
    args = parser.parse_args(argv)
    try:
        if args.command == "show":
            return _show(args.file)
        with stop_on_signals():
            return _grow(args)
    except KeyboardInterrupt as exc:
        print(f"interrupted ({signal_name(exc)}): nothing written, the output file is as it was; rerun to grow again",
              file=sys.stderr)
        return exit_code(exc)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _grow(args: argparse.Namespace) -> int:
    from agents.registry import make_from_spec

    if args.seconds <= 0 and args.sims <= 0:
        raise ValueError("give --seconds or --sims (a positive amount of growing)")
    if args.min_visits < 1:
        raise ValueError(f"--min-visits must be at least 1, got {args.min_visits}")
    shape = args.shape
    if not shape.fits_int64:
        raise ValueError(f"a {shape} board takes {shape.bits} bits: caches need 63 bits at most")
    agent = make_from_spec(args.agent)
    if not hasattr(agent, "search"):
        raise ValueError(f"agent {args.agent!r} is not a tree search (use mcts or ant_colony)")
    from tqdm import tqdm

    out = args.out or str(default_path(agent.leaf, agent.heuristic, shape))
    disable = {"auto": None, "on": False, "off": True}[args.progress]
    t_compile = time.perf_counter()
    if not disable:
        print("compiling the tree kernels (numba, once)...", file=sys.stderr, flush=True)
    agent.warm_up(shape)
    compile_s = time.perf_counter() - t_compile
    by_time = args.sims <= 0
    bar = tqdm(total=args.seconds if by_time else args.sims, unit="s" if by_time else " sims", file=sys.stderr,
               disable=disable, dynamic_ncols=True, desc="growing", bar_format=None if not by_time else
               "{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.0f} s{postfix}")
    t0 = time.perf_counter()

    def on_batch(sims: int, nodes: int) -> None:
        raise_if_signalled()
        bar.n = min(time.perf_counter() - t0, args.seconds) if by_time else sims
        bar.set_postfix_str(f"{sims:,} sims, {nodes:,} nodes")

    with bar:
        tree, done = grow(agent, shape, args.sims, args.seconds, max(2.0, args.min_visits / 4),
                          lambda msg: bar.write(msg, file=sys.stderr), on_batch)
    grew = time.perf_counter() - t0
    data = extract(tree, Position.empty(shape), args.min_visits)
    data["meta"] = json.dumps({"agent": args.agent, "sims": done, "min_visits": args.min_visits,
                               "seconds": round(grew, 1), "tree_nodes": tree.used})
    size = save(out, data)
    print(f"{out}: {len(data['keys'])} positions from {tree.used} nodes, {done} simulations, {size} bytes; "
          f"grew {grew:.1f} s (compile {compile_s:.1f} s before, save {time.perf_counter() - t0 - grew:.1f} s after)")
    return 0


def _show(path: str) -> int:
    data = load(path)
    size = Path(path).stat().st_size
    rows, columns, inarow = data["shape"]
    shape = Shape(rows, columns, inarow)
    root = Position.empty(shape)
    print(f"{path}: {len(data['keys'])} positions, {size} bytes, shape {shape}, meta {data['meta']}")
    keys = data["keys"]
    for col in root.legal_columns():
        child = root.play(col)
        i = int(np.searchsorted(keys, child.key()))
        if i < len(keys) and keys[i] == child.key():
            v = data["visits"][i]
            print(f"  column {col + 1}: {int(v)} visits, mean {data['values'][i] / v:+.3f} for the mover,"
                  f" bounds [{int(data['lo'][i])}, {int(data['hi'][i])}] for the side to move")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
