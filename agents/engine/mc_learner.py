"""Every-visit Monte-Carlo value learning by epsilon-greedy self-play, for any two-player game
without chance (built for Quixo, issue 14: the seed's learner done right).

What is learnt: ``V(key)``, the mean return *for the side to move* of every state visited in
self-play, on the game's ``key`` (canonical under Quixo's 16 symmetries, so one entry serves
a whole class). A move is chosen greedily by the value of its child for the mover (``-V``
when the child's mover is the opponent; a finished game's own outcome), with probability
``epsilon`` uniformly at random; children never seen count ``unknown`` (0: neutral).

Why this shape (the seed kept a 5 GB pickle of Python dicts and reached 33% against random):
- the table is three numpy arrays, sorted ``int64`` keys, ``float32`` means and ``uint32``
  counts, saved as an ``.npz`` atomically (16 bytes a state, read back in a second);
- episodes run in compiled code (:func:`play_batch`, bound to the game's kernels like the
  engine's searches), in parallel on local processes or Ray tasks (:mod:`base.backends`);
- training goes in rounds: workers play a round's episodes against the table
  saved at the end of the previous round (they read its file: local processes, or Ray on
  this machine or a shared folder), and the driver merges their (key, return) sums into it,
  so every-visit means stay exact whatever the number of workers;
- ``--resume`` continues a saved table; Ctrl-C (or SIGTERM) stops within a round's jobs and
  keeps every finished round (the file is written after each round).

Keys: Quixo's canonical key is two planes (the mover's, the other's) packed exactly into one
int64 (``m | o << n*n``); other games get a 62-bit hash of their key words (two polynomial
hashes modulo 2**31 - 1: a collision merges two states, odds about 2**-62 a pair).

``python -m agents.engine.mc_learner train --game quixo:size=5 --episodes 100000 --workers 2 --out data/quixo_mc_5x5.npz``
"""
from __future__ import annotations

import io
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from agents.engine.info import SearchInfo
from agents.engine.spec import GENERIC_AGENT_SPEC
from base.cli import SEED
from base.jit import hot
from base.xorshift import rng_next
from core.kernel_defaults import key, legal, outcome, play, terminal, to_move

P31 = 2147483647
# ints settings
I_NKEYS, I_SHIFT, I_MAXSTEPS, I_MINCOUNT, I_BUF = 0, 1, 2, 3, 4
HEAD = 8
# floats settings
F_EPS, F_UNKNOWN, F_INVWIN = 0, 1, 2


@hot
def pack(k, shift: int) -> int:
    """One int64 for a key: exact two-plane packing when ``shift`` > 0, else a 62-bit hash."""
    if shift > 0:
        return k[0] | (k[1] << shift)
    h1 = 0
    h2 = 0
    for w in k:
        lo = w % P31
        hi = (w >> 31) % P31
        h1 = (h1 * 1000003 + lo) % P31
        h1 = (h1 * 1000003 + hi) % P31
        h2 = (h2 * 69069 + lo) % P31
        h2 = (h2 * 69069 + hi) % P31
    return (h1 << 31) | h2


@hot
def find(keys, n: int, x: int) -> int:
    """Index of ``x`` in the sorted ``keys[:n]``, or -1."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    if lo < n and keys[lo] == x:
        return lo
    return -1


@hot
def child_value(g, me: int, c, ints, floats, keys, vals, cnts) -> float:
    """Value for ``me`` (the mover) of the child ``c``: its outcome if finished, else its table
    mean (negated when the opponent moves there), else ``floats[F_UNKNOWN]``."""
    if terminal(g, c):
        o = outcome(g, c) * floats[F_INVWIN]
        return o if me == 0 else -o
    i = find(keys, ints[I_NKEYS], pack(key(g, c), ints[I_SHIFT]))
    if i < 0 or cnts[i] < ints[I_MINCOUNT]:
        return floats[F_UNKNOWN]
    v = vals[i]
    return v if to_move(g, c) == me else -v


@hot
def choose(g, s, ints, floats, keys, vals, cnts, rng: int):
    """(epsilon-greedy action, rng): ties among the best broken uniformly."""
    buf = ints[I_BUF]
    n = legal(g, s, ints, buf)
    rng = rng_next(rng)
    if (rng % 1000000) < floats[F_EPS] * 1000000.0:
        rng = rng_next(rng)
        return ints[buf + rng % n], rng
    me = to_move(g, s)
    best = -1.0e300
    pick = ints[buf]
    ties = 0
    for i in range(n):
        a = ints[buf + i]
        v = child_value(g, me, play(g, s, a), ints, floats, keys, vals, cnts)
        if v > best:
            best = v
            pick = a
            ties = 1
        elif v == best:
            ties += 1
            rng = rng_next(rng)
            if rng % ties == 0:
                pick = a
    return pick, rng


@hot
def play_batch(g, s0, episodes: int, ints, floats, keys, vals, cnts, out, rng: int):
    """Play ``episodes`` self-play games from ``s0``; write each visited state's packed key
    and the final return for its side to move to ``out`` = ``(out_keys, out_ret)``. Returns
    (entries written, player 0's summed return, rng)."""
    out_keys, out_ret = out
    shift = ints[I_SHIFT]
    cap = ints[I_MAXSTEPS]
    w = 0
    total = 0.0
    for _e in range(episodes):
        s = s0
        start = w
        steps = 0
        while not terminal(g, s) and steps < cap:
            out_keys[w] = pack(key(g, s), shift)
            out_ret[w] = float(to_move(g, s))  # the mover, replaced by its return below
            w += 1
            a, rng = choose(g, s, ints, floats, keys, vals, cnts, rng)
            s = play(g, s, a)
            steps += 1
        o = 0.0
        if terminal(g, s):
            o = outcome(g, s) * floats[F_INVWIN]
        total += o
        for t in range(start, w):
            out_ret[t] = o if out_ret[t] == 0.0 else -o
    return w, total, rng


# --- the table ---------------------------------------------------------------------------------
@dataclass
class ValueTable:
    """Sorted packed keys, mean returns for the side to move, visit counts (parallel arrays)."""

    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    values: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))
    game: str = ""  # the game spec it was learnt on
    episodes: int = 0  # self-play episodes merged so far

    def __len__(self) -> int:
        return len(self.keys)

    def merge(self, keys: np.ndarray, sums: np.ndarray, counts: np.ndarray) -> None:
        """Add ``counts`` returns summing to ``sums`` at ``keys`` (unique, any order)."""
        allk = np.concatenate([self.keys, keys.astype(np.int64)])
        uk, inv = np.unique(allk, return_inverse=True)
        n_old = len(self.keys)
        tot = np.zeros(len(uk), dtype=np.float64)
        cnt = np.zeros(len(uk), dtype=np.float64)
        np.add.at(tot, inv[:n_old], self.values.astype(np.float64) * self.counts)
        np.add.at(cnt, inv[:n_old], self.counts.astype(np.float64))
        np.add.at(tot, inv[n_old:], sums)
        np.add.at(cnt, inv[n_old:], counts.astype(np.float64))
        self.keys = uk
        self.values = (tot / np.maximum(cnt, 1.0)).astype(np.float32)
        self.counts = np.minimum(cnt, 2**32 - 1).astype(np.uint32)

    def save(self, path: str | Path) -> None:
        from base.atomic import write_bytes

        buf = io.BytesIO()
        np.savez(buf, keys=self.keys, values=self.values, counts=self.counts,
                 game=np.array(self.game), episodes=np.int64(self.episodes))
        write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> ValueTable:
        """The table in ``path``; ValueError of one line for a damaged or foreign file."""
        try:
            with np.load(path, allow_pickle=False) as z:
                keys, values, counts = z["keys"], z["values"], z["counts"]
                game, episodes = str(z["game"]), int(z["episodes"])
        except Exception as exc:  # a damaged or foreign file: BadZipFile, EOFError, KeyError, ...
            raise ValueError(f"cannot read table {path}: {exc}; train one with python -m agents.engine.mc_learner train") from None
        if keys.dtype != np.int64 or len(keys) != len(values) or len(keys) != len(counts):
            raise ValueError(f"{path} is not a table written by agents.engine.mc_learner")
        return cls(keys, values.astype(np.float32), counts.astype(np.uint32), game, episodes)


def key_shift(game: Any) -> int:
    """Exact packing of a two-plane canonical key (the game's ``key_plane_bits``), else 0 (hash)."""
    return int(game.key_plane_bits)


def aggregate(keys: np.ndarray, rets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    uk, inv = np.unique(keys, return_inverse=True)
    return uk, np.bincount(inv, weights=rets, minlength=len(uk)), np.bincount(inv, minlength=len(uk))


# --- workers ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    game: str  # game spec
    table: str  # path of the table to play against ("" for an empty one)
    episodes: int
    seed: int
    epsilon: float
    max_steps: int
    jit: bool | None = None


_LOADED: dict = {}  # worker process cache: path -> (mtime, table); read-only snapshots


def _table_for(path: str) -> ValueTable:
    if not path:
        return ValueTable()
    stamp = os.stat(path).st_mtime_ns
    hit = _LOADED.get(path)
    if hit is None or hit[0] != stamp:
        _LOADED.clear()
        _LOADED[path] = hit = (stamp, ValueTable.load(path))
    return hit[1]


class Player:
    """The compiled (or plain) episode kernel bound to one game, with its work arrays."""

    def __init__(self, game: Any, max_steps: int = 400, jit: bool | None = None) -> None:
        from core.game import bind, constants_array

        if game.has_chance:
            raise ValueError(f"{game.name} has chance nodes: the Monte-Carlo learner plays games without chance")
        self.game = game
        self.ns = bind(game, sys.modules[__name__], None, jit)
        self.jit = bool(self.ns.jit)
        self.g = constants_array(game, self.jit)
        self.max_steps = max_steps
        n_ints = HEAD + max(1, game.num_actions)
        ints = [0] * n_ints
        ints[I_SHIFT], ints[I_MAXSTEPS], ints[I_MINCOUNT], ints[I_BUF] = key_shift(game), max_steps, 1, HEAD
        floats = [0.0, 0.0, 1.0 / float(game.win_value)]
        self.ints = np.array(ints, dtype=np.int64) if self.jit else ints
        self.floats = np.array(floats, dtype=np.float64) if self.jit else floats

    def arrays(self, table: ValueTable):
        if self.jit:
            return table.keys, table.values, table.counts
        return table.keys.tolist(), table.values.astype(np.float64).tolist(), table.counts.tolist()

    def batch(self, table: ValueTable, episodes: int, epsilon: float, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
        """(visited keys, returns for their movers, player 0's mean return) of ``episodes`` games."""
        self.ints[I_NKEYS] = len(table)
        self.floats[F_EPS] = float(epsilon)
        cap = episodes * self.max_steps
        out_k = np.zeros(cap, dtype=np.int64) if self.jit else [0] * cap
        out_r = np.zeros(cap, dtype=np.float64) if self.jit else [0.0] * cap
        k, v, c = self.arrays(table)
        rng = (seed * 2654435761 + 12345) % 4294967295 + 1
        w, total, _ = self.ns.play_batch(self.g, tuple(int(x) for x in self.game.initial().words), int(episodes),
                                         self.ints, self.floats, k, v, c, (out_k, out_r), int(rng))
        return np.asarray(out_k[:w], dtype=np.int64), np.asarray(out_r[:w], dtype=np.float64), total / max(1, episodes)


_PLAYERS: dict = {}  # worker process cache: (game spec, max_steps, jit) -> Player (compiled once)


def run_job(job: Job) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A worker's part of a round: aggregated (keys, return sums, counts) and its episode count."""
    from core.games import parse_game

    ident = (job.game, job.max_steps, job.jit)
    if ident not in _PLAYERS:
        _PLAYERS[ident] = Player(parse_game(job.game), job.max_steps, job.jit)
    keys, rets, _ = _PLAYERS[ident].batch(_table_for(job.table), job.episodes, job.epsilon, job.seed)
    return (*aggregate(keys, rets), job.episodes)


def train(game: Any, episodes: int, out: str | Path, workers: int = 1, epsilon: float = 0.1,
          seed: int = 0, resume: bool = False, backend: str = "process", address: str | None = None,
          max_steps: int = 0, progress: bool = True, jit: bool | None = None, round_episodes: int = 5000) -> ValueTable:
    """Learn for ``episodes`` more episodes, saving ``out`` after every round; returns the table.

    Workers get a fresh table every round of ``max(round_episodes, episodes so far / 4)``
    episodes; ``max_steps``: plies after which an episode is a draw (0: the game's
    ``max_plies``, or 400)."""
    from tqdm import tqdm

    from base.backends import Runner

    out = Path(out)
    table = ValueTable.load(out) if resume and out.exists() else ValueTable(game=game.spec())
    if resume and table.game and table.game != game.spec():
        raise ValueError(f"{out} was learnt on {table.game}, not {game.spec()}")
    table.game = game.spec()
    steps = max_steps or int(game.params.get("max_plies", 0) or 400)
    bar = tqdm(total=episodes, desc="episodes", unit="ep", disable=not progress, file=sys.stderr)
    done = 0
    with Runner(workers, backend, address) as runner:
        while done < episodes:
            # Rounds grow with the table (a quarter of what it has seen): the file, rewritten
            # after each round, is then written O(log episodes) times.
            n = min(episodes - done, max(round_episodes, table.episodes // 4))
            snapshot = str(out) if out.exists() and (resume or done) else ""
            parts = [n // workers + (1 if i < n % workers else 0) for i in range(workers)]
            jobs = [Job(game.spec(), snapshot, k, seed * 1000003 + table.episodes * 31 + i, epsilon, steps, jit)
                    for i, k in enumerate(parts) if k]
            got = []
            for _job, res in runner.run(jobs, run_job):
                if isinstance(res, BaseException):
                    raise res
                got.append(res)
            for keys, sums, counts, _n in got:
                table.merge(keys, sums, counts)
            table.episodes += n
            table.save(out)
            done += n
            bar.update(n)
            bar.set_postfix(states=f"{len(table):,}")
    bar.close()
    return table


# --- the agent ---------------------------------------------------------------------------------
@dataclass
class MCLearnerAgent:
    """Plays greedily from a learnt table; in a position none of whose children is known, the
    fallback's move (by default one ply of the game's first heuristic)."""

    game: Any = None  # the core.game.Game played (set by the registry)
    table: str = ""  # the .npz written by ``train`` (Quixo's table defaults it to data/quixo_mc_<n>x<n>.npz: agents.quixo)
    min_count: int = 1  # entries seen fewer times count as unknown
    unknown: float = 0.0  # value of a child the table does not know, when some others are known
    fallback: str = field(default="alphabeta:max_depth=1", metadata=GENERIC_AGENT_SPEC)  # generic engine agent spec for positions the table does not know

    games: ClassVar[tuple[str, ...] | None] = None
    _t: Any = field(default=None, init=False, repr=False)
    _fb: Any = field(default=None, init=False, repr=False)
    _info: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        path = self.table
        if not path:
            raise ValueError("table: give the .npz written by python -m agents.engine.mc_learner train")
        if not Path(path).exists():
            raise ValueError(f"table {path} does not exist: train one with python -m agents.engine.mc_learner train --out {path}")
        self._t = ValueTable.load(path)
        if self.game is not None and self._t.game and self._t.game.split(",")[0] != self.game.spec().split(",")[0]:
            raise ValueError(f"table {path} was learnt on {self._t.game}, not {self.game.spec()}")
        self._shift = key_shift(self.game)

    def value_of(self, state: Any) -> float | None:
        k = state.key()
        x = pack(k, self._shift)
        i = int(np.searchsorted(self._t.keys, x))
        if i < len(self._t) and self._t.keys[i] == x and self._t.counts[i] >= self.min_count:
            return float(self._t.values[i])
        return None

    def choose(self, state: Any, deadline: float) -> int:
        me = state.current_player()
        values: dict[int, float] = {}
        known = 0
        for a in state.legal_actions():
            c = state.apply(a)
            if c.is_terminal():
                values[a] = c.returns()[me] / float(self.game.win_value)
                known += 1
                continue
            v = self.value_of(c)
            if v is None:
                values[a] = self.unknown
            else:
                values[a] = v if c.current_player() == me else -v
                known += 1
        if known == 0:
            if self._fb is None:
                from agents.engine.registry import make_generic

                self._fb = make_generic(self.fallback, self.game)
            action = self._fb.choose(state, deadline)
            self._info = {"fallback": self.fallback}
            return action
        action = max(values, key=lambda a: values[a])
        self._info = {"action_values": values, "value": values[action], "known": known}
        return action

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._info)


# --- CLI ---------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    from base.cli import OneLineParser, check_writable, exit_code, positive_int, signal_name, stop_on_signals
    from core.games import add_game_arguments, game_from_args

    p = OneLineParser(prog="python -m agents.engine.mc_learner",
                      description="Every-visit Monte-Carlo self-play learning on canonical keys (see the module docstring).")
    sub = p.add_subparsers(dest="cmd")
    t = sub.add_parser("train", help="learn (or continue with --resume) a value table")
    add_game_arguments(t, default="quixo:size=5")
    t.add_argument("--episodes", type=positive_int, required=True, help="self-play episodes to play")
    t.add_argument("--workers", type=positive_int, default=1, help="parallel workers (processes or Ray CPUs; default 1)")
    t.add_argument("--out", required=True, help=".npz table to write (after every round, atomically)")
    t.add_argument("--resume", action="store_true", help="continue the table in --out")
    t.add_argument("--epsilon", type=float, default=0.1, help="exploration: share of random moves (default 0.1)")
    t.add_argument("--round-episodes", type=positive_int, default=5000,
                   help="episodes of the first rounds (later: a quarter of those learnt so far; default 5000)")
    t.add_argument("--seed", type=SEED, default=0, help="seed, from 0 to 2**63 - 1 (default 0)")
    t.add_argument("--backend", choices=("process", "ray"), default="process", help="local processes (default) or Ray")
    t.add_argument("--address", default=None, help="Ray cluster address (a shared folder must hold --out)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.cmd != "train":
        p.error("give a command: train (python -m agents.engine.mc_learner train --help)")
    if not 0.0 <= args.epsilon <= 1.0:
        p.error(f"--epsilon {args.epsilon} must be within [0, 1]")
    if not args.out.endswith(".npz"):
        p.error(f"--out {args.out} must end in .npz")
    check_writable(p, "--out", args.out)
    game = game_from_args(p, args, "the learner plays games without chance")
    if args.resume and not Path(args.out).exists():
        p.error(f"--resume: {args.out} does not exist (drop --resume to start a new table)")
    from base.backends import missing

    why = missing(args.backend)
    if why:
        p.error(why)
    t0 = time.perf_counter()
    try:
        with stop_on_signals():
            table = train(game, args.episodes, args.out, args.workers, epsilon=args.epsilon, seed=args.seed,
                          resume=args.resume, backend=args.backend, address=args.address, progress=not args.quiet,
                          round_episodes=args.round_episodes)
    except KeyboardInterrupt as exc:
        print(f"{signal_name(exc)}: stopped; {args.out} keeps every finished round (continue with --resume)", file=sys.stderr)
        return exit_code(exc)
    except ValueError as exc:
        p.error(str(exc))
    print(f"{table.episodes:,} episodes in {args.out}: {len(table):,} states, "
          f"{os.path.getsize(args.out) / 1e6:.1f} MB, {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
