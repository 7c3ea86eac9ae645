"""The MCTS opening cache: grow a tree from the empty board, prune it, save plain arrays.

``python -m agents.connectx.mcts_cache grow --seconds 600`` runs one long MCTS from the empty board (the
tree plays both sides: self-play), keeps the nodes with at least ``--min-visits`` visits and
writes ``data/mcts_cache_<leaf>_<rows>x<columns>x<inarow>.npz``. ``show FILE`` prints a
cache's size and its first moves (columns 1-based, as people write them). ``--seconds`` is the
growing time (numba's compile comes before it, reported apart). What was grown is saved
(atomically: a reader sees the old file or the new one) every ``--save-every`` seconds of
growth and when Ctrl-C or SIGTERM stops a grow (within a second, between two batches; exit
130 or 143); a signal before the growth began (during the compile) leaves the file as it was.
An output path that cannot be written is an error before the growth, not after.

The file holds packed plain arrays, sorted by position key with transpositions merged (a
position reached by two move orders sums its statistics): ``keys`` (int64, exact
:func:`core.connectx.bitboard.position_key`), ``visits`` (int64), ``values`` (float32, summed rewards for
the player who moved into the position), ``lo`` and ``hi`` (int8 proven bounds on the value for
the side to move: -1 loss, 0 draw, 1 win), ``shape`` and a JSON ``meta`` string. This is the
stored-statistics convention of the engine's MCTS (:mod:`agents.engine.mcts_kernels`, its
``collect`` and ``graft`` kernels; a key is the ConnectX ``key`` hook's word, Pons'
``current + mask + bottom``), so files grown on ConnectX's former own kernel load as they are.
An agent grafts the entries below each new tree's root (:func:`graft`); a submission receives
the same dict through ``use_data``. Only boards within 63 bits (int64 keys) can have a cache.
The agents (:mod:`agents.connectx.mcts`) import this module, never the other way round.
"""
from __future__ import annotations

import argparse
import importlib
import io
import json
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np

from agents.engine import mcts_kernels as K
from agents.engine.params import heuristic_array
from base.atomic import write_bytes
from base.bounds import SECONDS_MAX
from base.cli import OneLineParser, exit_code, float_in, int_in, signal_name, signalled, signals_at_checkpoints, stop_on_signals, unwritable
from base.jit import numba_available
from core.connectx.cli import shape_type
from core.connectx.game import ConnectX
from core.connectx.position import Position
from core.connectx.shape import STANDARD, Shape
from core.game import bind, search_constants

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
FIELDS = ("keys", "visits", "values", "lo", "hi")
BATCH_SECONDS = 0.1  # a batch of simulations takes about this long: --seconds and Ctrl-C hold within it
SAVE_EVERY = 60.0  # grow saves what it has grown this often (seconds of growth), and on Ctrl-C


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


@overload
def load(path: str | Path, missing_ok: Literal[False] = False) -> dict: ...
@overload
def load(path: str | Path, missing_ok: bool) -> dict | None: ...
def load(path: str | Path, missing_ok: bool = False) -> dict | None:
    """Read a cache file (validated). A missing file is None when ``missing_ok``, else an error."""
    path = Path(path)
    if not path.exists():
        if missing_ok:
            return None
        raise CacheError(f"cache file {path} does not exist; grow one with `python -m agents.connectx.mcts_cache grow`")
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
    arrays: dict[str, Any] = to_file_arrays(validate(data))  # numpy's stub would take a **dict[str, ndarray] for allow_pickle too
    np.savez_compressed(buf, **arrays)
    blob = buf.getvalue()
    write_bytes(path, blob)
    return len(blob)


def fits(data: dict, game: Any) -> bool:
    """Whether the cache is for ``game``'s board (and that board has int64 keys)."""
    s = game.shape
    return tuple(data["shape"]) == (s.rows, s.columns, s.inarow) and s.fits_int64


def holds(data: dict, state: Any) -> bool:
    """Whether the cache holds ``state`` (a ConnectX :class:`core.game.State`)."""
    if not fits(data, state.game):
        return False
    k = int(state.key()[0])
    i = int(np.searchsorted(data["keys"], k))
    return i < len(data["keys"]) and int(data["keys"][i]) == k


def _bound(search: Any, jit: bool) -> Any:
    """The engine's kernels bound to ``search``'s game (and leaf heuristic), compiled or plain."""
    return search.bound_kernels(jit)


def _collector(game: Any, jit: bool) -> Any:
    """The kernels whose ``collect`` reads a tree: bound without a leaf heuristic (``collect``
    evaluates nothing), so that the warm-up and :func:`extract` share one compiled copy
    whatever the agent's leaves."""
    return bind(game, K, None, jit=jit)


def graft(search: Any, tree: Any, words: tuple, data: dict, limit: int, jit: bool) -> int:
    """Graft ``data`` (a validated cache) below node 0 of ``tree`` (an
    :class:`agents.engine.mcts.Tree` of the engine agent ``search``, whose root is the position
    ``words``; :func:`agents.engine.mcts_kernels.graft`): at most ``limit`` nodes; returns the
    nodes added."""
    game = search.game
    return int(_bound(search, jit).graft(search_constants(game, jit), tree.ints, tree.floats, heuristic_array(search, jit), 0,
                                         tuple(int(w) for w in words), data["keys"], data["visits"], data["values"],
                                         data["lo"], data["hi"], int(limit)))


def graft_compiled(search: Any) -> bool:
    """Whether the compiled graft is ready (compiling it inside a move would take seconds:
    the agents compile it in their warm-up, :func:`warm_up_graft`)."""
    return numba_available() and search.compiled_possible() and len(_bound(search, True).graft.signatures) > 0


def warm_up_graft(search: Any) -> None:
    """Compile the graft and collect kernels for ``search``'s game, on a tiny tree."""
    from agents.engine.mcts import Tree

    game = search.game
    tree = Tree(game.num_actions, 64, True)
    search.write_settings(tree.floats)
    ns, g, words = _bound(search, True), search_constants(game, True), tuple(int(w) for w in game.initial_words())
    ns.new_tree(g, tree.ints, tree.floats, words, 1)
    one = {"keys": np.zeros(1, np.int64), "visits": np.ones(1), "values": np.zeros(1), "lo": np.full(1, -1, np.int8),
           "hi": np.ones(1, np.int8)}
    graft(search, tree, words, one, 1, True)
    _collector(game, True).collect(g, tree.ints, tree.floats, 0, words, 0.0, np.empty(64, np.int64), np.empty(64),
                                   np.empty(64), np.empty(64, np.int8), np.empty(64, np.int8))


def extract(tree: Any, root: Position, min_visits: float) -> dict:
    """The cache dict of a grown tree (an :class:`agents.engine.mcts.Tree` whose node 0 is
    ``root``; :func:`agents.engine.mcts_kernels.collect`): nodes with at least ``min_visits``
    visits, reachable through such nodes, transpositions merged."""
    s = root.shape
    if not s.fits_int64:
        raise CacheError(f"a {s} board takes {s.bits} bits: caches need int64 keys (63 bits at most)")
    game = ConnectX(rows=s.rows, columns=s.columns, inarow=s.inarow)
    jit = bool(tree.numpy) and numba_available()
    n = max(1, tree.used)
    keys, visits, values = np.empty(n, np.int64), np.empty(n), np.empty(n)
    lo, hi = np.empty(n, np.int8), np.empty(n, np.int8)
    count = _collector(game, jit).collect(search_constants(game, jit), tree.ints, tree.floats, 0,
                                                 (root.current, root.mask), float(min_visits), keys, visits, values, lo, hi)
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


@dataclass
class Grown:
    """What :func:`grow` did: its tree (an :class:`agents.engine.mcts.Tree`), the simulations
    run, and its clock in growing seconds (checkpoints left out): when the last batch started
    and when the growth stopped (the end of that batch, or the first reading at or past the
    time given if that came between batches)."""

    tree: Any
    sims: int = 0
    last_start: float = 0.0
    last_end: float = 0.0


def grow(agent: Any, shape: Shape = STANDARD, sims: int = 0, seconds: float = 0.0, prune_visits: float = 2.0,
         log: Any = None, on_batch: Any = None, stop: Any = None, checkpoint: Any = None,
         checkpoint_every: float = 0.0) -> Grown:
    """Grow ``agent``'s tree (a :class:`agents.connectx.mcts.TreeSearch`, its cache unused) from the
    empty board for ``sims`` simulations or ``seconds`` (whichever is given; both: the first
    reached). When the tree fills up, nodes under ``prune_visits`` are dropped (the rest is
    collected and grafted into a fresh tree) and growth goes on.

    The clock starts after the kernels are compiled (call ``agent.warm_up(shape)`` first to
    keep that out of ``seconds``; the CLI does). Simulations run in batches sized to take
    about ``BATCH_SECONDS``; growth stops at the first batch boundary at or after ``seconds``
    (compiled code runs no Python signal handler: a signal is seen between batches).
    Between batches: ``on_batch(sims, nodes)`` (progress); ``stop()`` true ends the growth;
    ``checkpoint(tree, sims)`` every ``checkpoint_every`` seconds (0: never), its time left
    out of ``seconds``."""
    if sims <= 0 and seconds <= 0:
        raise ValueError("give a number of simulations or of seconds")
    from agents.engine.mcts import Tree, seed_state

    search = agent.search(shape)
    game = search.game
    jit = search.compiled_possible()
    ns = _bound(search, jit)
    g, hp = search_constants(game, jit), heuristic_array(search, jit)
    root = Position.empty(shape)
    words = (root.current, root.mask)
    tree = Tree(game.num_actions, agent.capacity, jit)
    search.write_settings(tree.floats)
    ns.new_tree(g, tree.ints, tree.floats, words, seed_state(agent.seed))
    out = Grown(tree)
    paused = 0.0  # seconds spent in checkpoints: off the growing clock
    t0 = time.perf_counter()
    saved_at = 0.0
    limit = seconds if seconds > 0 else float("inf")
    batch = 16
    while sims <= 0 or out.sims < sims:
        if ns.root_done(tree.ints, tree.floats, 0) or (stop and stop()):
            break
        start = time.perf_counter() - t0 - paused
        if start >= limit:  # crossed between batches (progress, pruning): the growth stopped at `start`
            out.last_end = start  # later than the last batch's end, which was under the limit
            break
        if sims > 0:
            batch = min(batch, sims - out.sims)
        ran = int(ns.run(g, tree.ints, tree.floats, hp, 0, words, batch))
        out.sims += ran
        out.last_start, out.last_end = start, time.perf_counter() - t0 - paused
        rate = ran / max(out.last_end - start, 1e-6)
        batch = int(min(max(rate * min(BATCH_SECONDS, (limit - out.last_end) / 4), 16), 1_000_000))
        if on_batch:
            on_batch(out.sims, tree.used)
        if tree.used >= agent.capacity and not _prune(search, ns, g, tree, root, prune_visits, agent.capacity, jit, out.sims, log):
            break
        if out.last_end >= limit:
            break
        if checkpoint and checkpoint_every > 0 and out.last_end - saved_at >= checkpoint_every:
            t = time.perf_counter()
            checkpoint(tree, out.sims)
            paused += time.perf_counter() - t
            saved_at = out.last_end
    return out


def _prune(search: Any, ns: Any, g: Any, tree: Any, root: Position, prune_visits: float, capacity: int, jit: bool,
           done: int, log: Any) -> bool:
    """Drop the nodes under ``prune_visits`` visits from a full tree (collect the rest, graft
    them into a fresh tree); False when that freed too little room to go on."""
    words = (root.current, root.mask)
    kept_data = extract(tree, root, float(prune_visits))
    ns.new_tree(g, tree.ints, tree.floats, words, int(tree.ints[K.I_RNG]))
    kept = 1 + graft(search, tree, words, kept_data, len(kept_data["keys"]), jit)
    if log:
        log(f"tree full at {done} simulations: pruned to {kept} nodes (visits >= {prune_visits})")
    if kept > 0.9 * capacity:
        if log:
            log("pruning freed too little room; stopping")
        return False
    return True


def _main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m agents.connectx.mcts_cache", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    g = sub.add_parser("grow", help="grow, prune and save a cache")
    g.add_argument("--seconds", type=float_in(0.0, SECONDS_MAX), default=0.0,
                   help="time to grow (seconds), held within 0.1 s; numba's compile (5-15 s, once) comes before it and is reported apart")
    g.add_argument("--sims", type=int_in(0, 10 ** 12), default=0, help="simulations to run (instead of, or with, --seconds)")
    g.add_argument("--min-visits", type=float_in(1.0, 1e12), default=50.0, help="keep nodes with at least this many visits")
    g.add_argument("--agent", default="mcts", help="agent spec whose search grows the tree, e.g. mcts:leaf=rollout,c=1")
    g.add_argument("--shape", type=shape_type, default=STANDARD, help="ROWSxCOLUMNSxINAROW (default 6x7x4)")
    g.add_argument("--out", default="", help="output file (default: the agent's cache path, data/mcts_cache_<leaf>_<shape>.npz)")
    g.add_argument("--save-every", type=float_in(0.0, SECONDS_MAX), default=SAVE_EVERY,
                   help=f"save what was grown so far every this many seconds of growth (default {SAVE_EVERY:g}; 0: only at the end)")
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
    except KeyboardInterrupt as exc:  # before the growth (the compile): nothing grown
        print(f"interrupted ({signal_name(exc)}) before growing: nothing written, the output file is as it was",
              file=sys.stderr)
        return exit_code(exc)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _grow(args: argparse.Namespace) -> int:
    # By name at run time: a submission bundling this module (the builder follows import
    # statements) carries neither ConnectX's table nor the registry.
    make_from_spec = importlib.import_module("agents.connectx.registry").make_from_spec  # not in submissions

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
    why = unwritable(Path(out))
    if why:  # before minutes of growing
        raise ValueError(f"--out {why}; give a writable file")
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
        bar.n = min(time.perf_counter() - t0, args.seconds) if by_time else sims
        bar.set_postfix_str(f"{sims:,} sims, {nodes:,} nodes")

    def checkpoint(tree: Any, sims: int) -> None:
        _save_grown(out, tree, shape, args, sims, time.perf_counter() - t0, None)

    with signals_at_checkpoints():  # a signal ends the growth between batches; what was grown is saved
        with bar:
            grown = grow(agent, shape, args.sims, args.seconds, max(2.0, args.min_visits / 4),
                         lambda msg: bar.write(msg, file=sys.stderr), on_batch, signalled, checkpoint, args.save_every)
        positions, size = _save_grown(out, grown.tree, shape, args, grown.sims, grown.last_end, grown) if grown.sims else (0, 0)
        if signalled():
            print(f"interrupted ({signal.Signals(signalled()).name}): "
                  + (f"kept {positions} positions from {grown.sims} simulations ({grown.last_end:.1f} s of growth) in {out}"
                     if grown.sims else "nothing grown yet, the output file is as it was") + "; rerun to grow again",
                  file=sys.stderr)
            return 128 + signalled()
        print(f"{out}: {positions} positions from {grown.tree.used} nodes, {grown.sims} simulations, {size} bytes; "
              f"grew {grown.last_end:.1f} s (compile {compile_s:.1f} s before)")
        return 0


def _save_grown(out: str, tree: Any, shape: Shape, args: argparse.Namespace, sims: int, seconds: float,
                grown: Grown | None) -> tuple[int, int]:
    """Save the tree's cache (atomically) with its meta: (positions, bytes). ``grown``: the
    finished growth (its clock goes in the meta), None for a checkpoint on the way."""
    data = extract(tree, Position.empty(shape), args.min_visits)
    meta = {"agent": args.agent, "sims": sims, "min_visits": args.min_visits, "seconds": round(seconds, 3),
            "tree_nodes": tree.used}
    if grown is not None:
        meta.update(last_batch_start=float(grown.last_start), last_batch_end=float(grown.last_end))  # unrounded: a start at 1.99996 s read 2.0
    else:
        meta["partial"] = True
    data["meta"] = json.dumps(meta)
    return len(data["keys"]), save(out, data)


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
