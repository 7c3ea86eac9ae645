"""Self-play data and the learned evaluation's fit (issue 38):
``python -m util.rt_train selfplay|fit|loop|league``.

``selfplay DIR``: games between ``--agents`` (agent specs, each side drawn per game) on every
built-in map in turn with Kaggle's seed-driven terrain flips, the compiled core when numba is
importable. Game ``i`` is fixed by ``--seed`` and ``i`` (map, flips, the two specs, the greedy
weights' jitter), so a run is reproducible and resumable: games are written in shards of
``--shard`` games (``DIR/shard-00000.npz``, atomically) and a run skips the shards already
there. A shard holds, per kept position (each decision state with probability ``--keep``): its
features ``x`` (:mod:`heuristics.reinforce_tactics.learned_features`), the outcome ``z`` for the
side to move (1 won, -1 lost, 0 drawn), the map's index in ``maps`` and the step, the mover's
hand value at its next turns (``ahead``), and the features of every turn's first state
(``start_x``) with each position's next turns among them (``ahead_i``): ``fit --bootstrap
gen-n.npz`` values those turns by the last generation (TD targets that move with it).

``fit DIR... --out M.npz``: a one-hidden-layer MLP (:mod:`heuristics.reinforce_tactics.learned`)
fitted in numpy (minibatch Adam on the squared error of ``tanh(y)`` against ``z``; no PyTorch),
every tenth game held out; a checkpoint after each epoch (``M.npz.ckpt.npz``) from which a run
with the same arguments resumes. Prints the held-out error and the share of decisive positions
whose winner the sign predicts, beside the hand heuristic's (feature ``hand``).

``--workers N`` plays N games at once in worker processes, ``--backend ray`` as Ray tasks (on a
cluster with ``--address``; Ray is an optional extra): the same games, the same shards, only
sooner (each game is fixed by its index; the driver alone writes the shards).

``--store DB`` records every self-play game in an arena store (players by spec and version, the
weights' bytes included); ``--league DB`` adds that store's past players whose weights are
unchanged on disk to the sides a game draws from; ``league DB`` prints the league's table
(:mod:`util.rt_league`).

``loop DIR``: generations, each fitted on every game so far, the games of the next played by the
hand ``greedy`` and greedy with the last model (:func:`loop`).

SIGINT and SIGTERM stop any of them at once (:func:`base.cli.stop_on_signals`): what was written is
whole (shards, checkpoints), the next run resumes from it.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

from base.backends import BACKENDS, missing, run
from base.cli import Interrupted, OneLineParser, exit_code, float_in, int_in, signal_name, stop_on_signals, unwritable
from core.reinforce_tactics.layout import H_STEP
from heuristics.reinforce_tactics import learned as L
from heuristics.reinforce_tactics.learned_features import F_HAND, HAND, NF
from heuristics.reinforce_tactics.params import P_TOP

HAND_TOP = HAND[P_TOP]  # the hand heuristic's top in feature ``hand`` (its default weights)
AHEAD = 8  # the mover's next turns whose hand value a shard stores per position (TD targets)

JITTER = ("w_material", "w_gold", "w_income", "w_hq", "w_advance", "w_capture", "scale")  # greedy's weights varied per game


# --- self-play -------------------------------------------------------------------------------
def game_setup(i: int, seed: int, names: list[str], specs: list[str], jitter: float) -> tuple[str, int, list[str], list[str]]:
    """(map, flips seed, the two sides' specs as played, the same before the jitter) of game
    ``i`` of a run seeded ``seed``."""
    rng = random.Random(seed * 1_000_003 + i)
    name = names[i % len(names)]
    flips = rng.randrange(1 << 30)
    bases, sides = [], []
    for _ in range(2):
        bases.append(rng.choice(specs))
        sides.append(_jittered(bases[-1], rng, jitter))
    return name, flips, sides, bases


def _jittered(spec: str, rng: random.Random, jitter: float) -> str:
    """``spec`` with greedy's tuned weights each scaled by ``exp(N(0, jitter))`` (a league of
    slightly different players; none when ``jitter`` is 0 or the agent has no such weights)."""
    from agents.engine.spec import parse_spec
    from heuristics.reinforce_tactics.params import Weights

    name, params = parse_spec(spec)
    if jitter <= 0 or name != "greedy" or params.get("heuristic", "standard") != "standard":
        return spec
    defaults = Weights()
    extra = [f"{k}={float(getattr(defaults, k)) * math.exp(rng.gauss(0.0, jitter)):.6g}" for k in JITTER if k not in params]
    return spec + ("," if ":" in spec else ":") + ",".join(extra)


def play_game(i: int, args: argparse.Namespace, names: list[str], featurize: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """One game's kept positions (features, outcome for the mover, map index, step, and the
    mover's hand value at the start of each of its next ``AHEAD`` turns: :func:`ahead_values`),
    and its record for a store (:func:`util.arena.match.play`'s result, its game's spec and the
    sides' base specs under ``spec`` and ``bases``)."""
    from agents.registry import make
    from core.reinforce_tactics import ReinforceTactics
    from util.arena.match import play

    name, flips, sides, bases = game_setup(i, args.seed, names, args.agents, args.jitter)
    g = ReinforceTactics(map=name, seed=flips, episode_steps=args.episode_steps)
    agents = [make(spec, g) for spec in sides]
    r = play(agents[0], agents[1], g, time_per_move=args.time, chance_seed=args.seed * 7919 + i)
    winner = r["winner"] - 1  # -1: a draw
    rng = random.Random(args.seed * 31 + i)
    xs, zs, steps, kept = [], [], [], []
    starts: list[tuple[int, int, float]] = []  # (move index, mover, its hand value / top) of each turn's first state
    start_xs: list[np.ndarray] = []  # the features of each turn's first state (TD targets of another model)
    s = g.initial()
    last = -1
    for j, a in enumerate(r["moves"]):
        if not s.is_chance_node():
            mover = s.current_player()
            x = None
            if mover != last:
                x = featurize(g, s)
                starts.append((j, mover, float(x[F_HAND]) / HAND_TOP))
                start_xs.append(x)
                last = mover
            if rng.random() < args.keep:
                xs.append(featurize(g, s) if x is None else x)
                zs.append(0 if winner < 0 else (1 if winner == mover else -1))
                steps.append(s.words[H_STEP])
                kept.append((j, mover))
        s = s.apply(a)
    n = len(xs)
    data: dict[str, np.ndarray] = {"x": np.array(xs, np.float32).reshape(n, NF), "z": np.array(zs, np.int8),
            "map": np.full(n, names.index(name), np.int16), "step": np.array(steps, np.int16),
            "game": np.full(n, i, np.int32), "ahead": ahead_values(kept, starts, zs),
            "start_x": np.array(start_xs, np.float32).reshape(len(start_xs), NF), "ahead_i": ahead_index(kept, starts)}
    return data, {**r, "spec": g.spec(), "bases": bases}


def ahead_values(kept: list[tuple[int, int]], starts: list[tuple[int, int, float]], zs: list[int]) -> np.ndarray:
    """Per kept position ``(move index, mover)``: the mover's hand value over ``top`` at the
    first state of each of its next :data:`AHEAD` turns (after the position), its outcome
    (``zs``) for the turns the game did not reach: TD(lambda) targets (:func:`targets`)."""
    idx = ahead_index(kept, starts)
    vals = np.array([v for _, _, v in starts] or [0.0], np.float32)
    return np.where(idx >= 0, vals[np.maximum(idx, 0)], np.asarray(zs, np.float32).reshape(-1, 1)).astype(np.float32)


def ahead_index(kept: list[tuple[int, int]], starts: list[tuple[int, int, float]]) -> np.ndarray:
    """Per kept position: the indices in ``starts`` (the game's turn-start states) of the
    mover's next :data:`AHEAD` turns after it, -1 past the game's end (:func:`ahead_values`'s
    turns, so that another model can value them: :func:`targets`)."""
    out = np.full((len(kept), AHEAD), -1, np.int32)
    for r, (j, mover) in enumerate(kept):
        later = [t for t, (k, m, _) in enumerate(starts) if k > j and m == mover][:AHEAD]
        out[r, :len(later)] = later
    return out


def merge_games(games: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Games' (or shards') arrays concatenated, ``ahead_i`` shifted to index the joined
    ``start_x`` (-1 kept)."""
    out = {key: np.concatenate([gm[key] for gm in games]) for key in games[0]}
    if "ahead_i" in out:
        base = np.cumsum([0] + [len(gm["start_x"]) for gm in games[:-1]])
        out["ahead_i"] = np.concatenate([np.where(gm["ahead_i"] >= 0, gm["ahead_i"] + b, -1).astype(np.int32)
                                         for gm, b in zip(games, base)])
    return out


def targets(data: dict[str, np.ndarray], target: str, lam: float, boot: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """The fit's target per position, in outcome units: ``outcome`` the game's result for the
    mover; ``td`` the lambda-return over the mover's next turns,
    ``(1 - lam) sum_k lam^(k-1) u_k + lam^K z`` (``u_k`` the hand value at its k-th next turn,
    ``K`` = :data:`AHEAD`): lam 1 is the outcome, lam 0 the hand value one turn on. With
    ``boot`` (a model: the last generation), ``u_k`` is that model's value of the turn's first
    state instead of the hand value: each generation bootstraps from the one before."""
    z = data["z"].astype(np.float64)
    if target == "outcome":
        return z
    if boot is not None:
        if "ahead_i" not in data:
            raise ValueError("--bootstrap needs shards with turn-start features ('start_x'): play them with this build")
        sx = data["start_x"].astype(np.float64)
        v = L.value_np(boot, sx, hand_q(sx)) if len(sx) else np.zeros(0)
        idx = data["ahead_i"]
        u = np.where(idx >= 0, v[np.maximum(idx, 0)] if len(v) else 0.0, z[:, None])
    elif "ahead" not in data:
        raise ValueError("target td needs shards with look-ahead values ('ahead'): play them with this build")
    else:
        u = data["ahead"].astype(np.float64)
    k = u.shape[1]
    w = (1.0 - lam) * lam ** np.arange(k)
    return u @ w + lam ** k * z


def hand_q(x: np.ndarray) -> np.ndarray:
    """``z / scale`` of the hand heuristic (default weights) from its feature ``hand``
    (``top * z / (scale + |z|)``): a residual model's base in the fit."""
    u = np.clip(np.asarray(x, np.float64)[:, F_HAND] / HAND_TOP, -1 + 1e-9, 1 - 1e-9)
    return u / (1.0 - np.abs(u))


_FEATURIZE: list[Any] = []  # this process's featurizer, made by its first game (workers make their own)


def play_job(job: tuple[int, argparse.Namespace, list[str]]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Self-play game ``i`` of the run described by ``args`` (a backend's job: picklable, module level)."""
    i, args, names = job
    if not _FEATURIZE:
        _FEATURIZE.append(featurizer())
    return play_game(i, args, names, _FEATURIZE[0])


def featurizer() -> Any:
    """``featurize(game, state) -> features``: the compiled kernel when numba is importable."""
    from base import jit as J
    from core.game import constants_array
    from heuristics.reinforce_tactics import learned_features as LF

    jit = J.numba_available()
    k = J.compiled(LF) if jit else LF

    def featurize(g: Any, s: Any) -> np.ndarray:
        out = np.zeros(NF)
        k.features(constants_array(g, jit), np.asarray(s.words, np.int64) if jit else s.words, out)
        return out

    return featurize


def selfplay(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from core.reinforce_tactics import maps

    names = list(args.maps) if args.maps else maps.map_names()
    unknown = [n for n in names if n not in maps.map_names()]
    if unknown:
        return fail(f"unknown map {unknown[0]!r}; valid: {', '.join(maps.map_names())}")
    out = Path(args.dir)
    why = unwritable(out, folder=True) or missing(args.backend) or (args.store and unwritable(Path(args.store)))
    if why:
        return fail(why)
    from agents.engine.spec import SpecError
    from agents.registry import make
    from core.reinforce_tactics import ReinforceTactics

    for spec in args.agents:  # every spec checked before the first game
        try:
            make(spec, ReinforceTactics(map=names[0]))
        except SpecError as exc:
            return fail(str(exc))
    if args.league:
        from util import rt_league

        past = rt_league.newcomers(args.league, args.agents, ReinforceTactics(map=names[0]))
        args.agents = [*args.agents, *past]
        print(f"league: {len(past)} past players from {args.league}" + "".join(f"\n  {p}" for p in past), file=sys.stderr)
    shards = -(-args.games // args.shard)
    todo = [k for k in range(shards) if not (out / f"shard-{k:05d}.npz").exists()]
    jobs = [(i, args, names) for k in todo for i in range(k * args.shard, min(args.games, (k + 1) * args.shard))]
    waiting: dict[int, dict[int, dict[str, np.ndarray]]] = {k: {} for k in todo}  # shard -> game -> its data
    from util import rt_league

    tag = rt_league.run_tag(args)
    recorder = rt_league.Recorder(args.store, tag, {"command": "rt_train selfplay", "dir": str(out)},
                                  [rt_league.game_key(tag, i) for i, _, _ in jobs]) if args.store else None
    with tqdm(total=len(jobs), unit="game", disable=args.quiet, file=sys.stderr) as bar:  # closed before a stop's line
        for (i, _, _), played in run(jobs, play_job, args.workers, args.backend, args.address):
            if isinstance(played, BaseException):
                return fail(f"game {i} failed in its worker: {type(played).__name__}: {played}")
            result, record = played
            if recorder:
                recorder.add(rt_league.game_key(tag, i), record, args.time, args.seed, args.jitter)
            bar.update(1)
            k = i // args.shard
            waiting[k][i] = result
            if len(waiting[k]) == min(args.shard, args.games - k * args.shard):  # the shard is whole: write it
                shard = waiting.pop(k)
                games = [shard[j] for j in sorted(shard)]
                data = merge_games(games)
                data["maps"] = np.array(names)
                L.write_npz(out / f"shard-{k:05d}.npz", data)
    if recorder:
        recorder.close()
    print(f"{args.games} games in {shards} shards under {out} ({len(todo)} written now)"
          + (f"; their games in {args.store}" if args.store else ""))
    return 0



# --- fit ---------------------------------------------------------------------------------------
def load_data(dirs: list[str]) -> dict[str, np.ndarray]:
    """Every shard under ``dirs``, concatenated (``game`` made unique across folders); ``ahead``
    when every shard has it."""
    parts: list[dict[str, np.ndarray]] = []
    for d in dirs:
        files = sorted(Path(d).glob("shard-*.npz"))
        if not files:
            raise ValueError(f"no shard-*.npz under {d}")
        for f in files:
            try:
                with np.load(f, allow_pickle=False) as z:
                    part = {k: np.asarray(z[k]) for k in ("x", "z", "game")}
                    part.update({k: np.asarray(z[k]) for k in ("ahead", "start_x", "ahead_i") if k in z.files})
            except (OSError, ValueError, KeyError) as exc:
                raise ValueError(f"{f} is not a self-play shard ({type(exc).__name__})") from None
            if part["x"].ndim != 2 or part["x"].shape[1] != NF:
                raise ValueError(f"{f} holds features of another layout ({part['x'].shape[1:]} words, this build {NF})")
            part["game"] = part["game"].astype(np.int64) + 10_000_000 * len(parts)
            parts.append(part)
    keys = ["x", "z", "game"] + [k for k in ("ahead", "start_x", "ahead_i") if all(k in p for p in parts)]
    if "ahead_i" in keys and "start_x" not in keys:
        keys.remove("ahead_i")
    return merge_games([{k: p[k] for k in keys} for p in parts])


def split(data: dict[str, np.ndarray], hold: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the training and held-out positions: every ``hold``-th game held out."""
    test = data["game"] % hold == 0
    return np.flatnonzero(~test), np.flatnonzero(test)


def fit_model(x: np.ndarray, z: np.ndarray, hidden: int, epochs: int, seed: int, lr: float = 3e-3,
              batch: int = 256, l2: float = 1e-4, state: dict | None = None, on_epoch: Any = None,
              q: np.ndarray | None = None, ignore: np.ndarray | None = None, shrink: float = 0.0) -> dict:
    """Minibatch Adam on ``mean((v - z)^2) + l2 |W|^2``, ``v`` the model's value over ``top``
    (``tanh(y)``, or with ``q`` given a residual model's ``squash(q + y)``: ``q`` the hand
    advantage over its scale per row, :func:`hand_q`); returns the training state (the model,
    Adam's moments, the epoch, the generator): ``state`` resumes one. ``on_epoch(state)`` after
    each epoch (a checkpoint). ``ignore``: indices of features the model does not read (their
    input weights kept at 0). ``shrink``: ``+ shrink * mean(y^2)``, a residual's correction
    kept small (the base's ranking kept where the data does not tell)."""
    x = np.asarray(x, np.float64)
    z = np.asarray(z, np.float64)
    if state is None:
        mean, scale = x.mean(0), x.std(0)
        scale = np.where(scale > 1e-9, scale, 1.0)
        model = L.init_model(hidden, seed, mean, scale, kind="absolute" if q is None else "residual")
        if ignore is not None:
            model["w1"][:, ignore] = 0.0
        keys = ("w1", "b1", "w2", "b2")
        state = {"model": model, "m": {k: np.zeros_like(model[k]) for k in keys},
                 "v": {k: np.zeros_like(model[k]) for k in keys}, "t": 0, "epoch": 0,
                 "rng": np.random.default_rng(seed).bit_generator.state}
    rng = np.random.default_rng()
    rng.bit_generator.state = state["rng"]
    m = state["model"]
    xn = (x - m["mean"]) / m["scale"]
    while state["epoch"] < epochs:
        order = rng.permutation(len(z))
        for start in range(0, len(z), batch):
            idx = order[start:start + batch]
            grads = gradients(m, xn[idx], z[idx], l2, None if q is None else q[idx], shrink)
            if ignore is not None:
                grads["w1"][:, ignore] = 0.0
            adam(state, grads, lr)
        state["epoch"] += 1
        state["rng"] = rng.bit_generator.state
        if on_epoch is not None:
            on_epoch(state)
    return state


def gradients(m: dict, xn: np.ndarray, z: np.ndarray, l2: float, q: np.ndarray | None = None,
              shrink: float = 0.0) -> dict[str, np.ndarray]:
    """The loss's gradients at standardised inputs ``xn`` (backpropagation by hand); ``q``: a
    residual model's base (:func:`fit_model`)."""
    a = xn @ m["w1"].T + m["b1"]
    h = np.tanh(a)
    y = h @ m["w2"] + m["b2"][0]
    if q is None:
        p = np.tanh(y)
        slope = 1.0 - p * p
    else:
        t = q + y
        p = t / (1.0 + np.abs(t))
        slope = 1.0 / (1.0 + np.abs(t)) ** 2
    dy = (2.0 * (p - z) * slope + 2.0 * shrink * y) / len(z)
    da = np.outer(dy, m["w2"]) * (1.0 - h * h)
    return {"w2": h.T @ dy + 2 * l2 * m["w2"], "b2": np.array([dy.sum()]),
            "w1": da.T @ xn + 2 * l2 * m["w1"], "b1": da.sum(0)}


def adam(state: dict, grads: dict[str, np.ndarray], lr: float, b1: float = 0.9, b2: float = 0.999) -> None:
    state["t"] += 1
    t = state["t"]
    for k, gk in grads.items():
        state["m"][k] = b1 * state["m"][k] + (1 - b1) * gk
        state["v"][k] = b2 * state["v"][k] + (1 - b2) * gk * gk
        mh = state["m"][k] / (1 - b1 ** t)
        vh = state["v"][k] / (1 - b2 ** t)
        state["model"][k] = state["model"][k] - lr * mh / (np.sqrt(vh) + 1e-8)


def report(model: dict, x: np.ndarray, z: np.ndarray, target: np.ndarray | None = None) -> dict[str, float]:
    """Held-out squared error against the outcome ``z`` (and the fit's ``target``), beside the
    hand heuristic's own value (feature ``hand`` over its top), and the share of decisive
    positions whose winner the sign of the model (and of the hand heuristic) predicts."""
    p = L.value_np(model, x, hand_q(x))
    decisive = z != 0
    hand = x[:, F_HAND] / HAND_TOP
    t = z if target is None else target
    return {"positions": float(len(z)), "mse": float(np.mean((p - z) ** 2)), "mse_zero": float(np.mean(z.astype(float) ** 2)),
            "mse_hand": float(np.mean((hand - z) ** 2)),
            "target_mse": float(np.mean((p - t) ** 2)), "target_mse_hand": float(np.mean((hand - t) ** 2)),
            "accuracy": float(np.mean(np.sign(p[decisive]) == z[decisive])) if decisive.any() else math.nan,
            "hand_accuracy": float(np.mean(np.sign(hand[decisive]) == z[decisive])) if decisive.any() else math.nan}


def save_state(path: Path, state: dict, meta: dict) -> None:
    arrays: dict[str, Any] = {f"model_{k}": v for k, v in state["model"].items()}
    arrays.update({f"m_{k}": v for k, v in state["m"].items()})
    arrays.update({f"v_{k}": v for k, v in state["v"].items()})
    arrays.update(t=np.array(state["t"]), epoch=np.array(state["epoch"]),
                  rng=np.frombuffer(repr(state["rng"]).encode(), np.uint8), meta=np.frombuffer(repr(meta).encode(), np.uint8))
    L.write_npz(path, arrays)


def load_state(path: Path, meta: dict) -> dict | None:
    """The checkpoint at ``path`` when it was written by a run of the same ``meta`` (else None)."""
    import ast

    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            a = {k: np.asarray(z[k]) for k in z.files}
        if ast.literal_eval(a["meta"].tobytes().decode()) != meta:
            return None
        return {"model": {k[6:]: v for k, v in a.items() if k.startswith("model_")},
                "m": {k[2:]: v for k, v in a.items() if k.startswith("m_")},
                "v": {k[2:]: v for k, v in a.items() if k.startswith("v_")},
                "t": int(a["t"]), "epoch": int(a["epoch"]), "rng": ast.literal_eval(a["rng"].tobytes().decode())}
    except (OSError, ValueError, KeyError, SyntaxError):
        raise ValueError(f"checkpoint {path} is damaged: remove it to start again") from None


def fit(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    out = Path(args.out)
    why = unwritable(out)
    if why:
        return fail(why)
    try:
        data = load_data(args.dirs)
        train_idx, test_idx = split(data)
        if len(train_idx) == 0 or len(test_idx) == 0:
            return fail(f"too few games to hold some out ({len(np.unique(data['game']))} games): play at least 11")
        meta = {"dirs": [str(d) for d in args.dirs], "positions": int(len(data["z"])), "hidden": args.hidden,
                "seed": args.seed, "lr": args.lr, "batch": args.batch}
        if args.model != "absolute" or args.target != "outcome":  # format 1's runs keep their checkpoints
            meta.update(model=args.model, target=args.target, lam=args.lam, l2=args.l2)
        boot = None
        if args.bootstrap:
            if args.target != "td":
                return fail("--bootstrap values the next turns of --target td: give --target td")
            boot = L.read_model(args.bootstrap)
            meta["bootstrap"] = hashlib.sha256(Path(args.bootstrap).read_bytes()).hexdigest()[:16]
        ckpt = out.with_name(out.name + ".ckpt.npz")
        state = load_state(ckpt, meta)  # a checkpoint of the same run only (its bootstrap model included)
        goal = targets(data, args.target, args.lam, boot)
        ignore = ignored(args.ignore)
        if ignore is not None:
            meta["ignore"] = [int(i) for i in ignore]
        if args.shrink:
            meta["shrink"] = args.shrink
    except ValueError as exc:
        return fail(str(exc))
    x, z = data["x"].astype(np.float64), data["z"].astype(np.float64)
    q = hand_q(x) if args.model == "residual" else None
    with tqdm(total=args.epochs, initial=min(args.epochs, state["epoch"]) if state else 0, unit="epoch",
              disable=args.quiet, file=sys.stderr) as bar:

        def on_epoch(st: dict) -> None:
            save_state(ckpt, st, meta)
            bar.update(1)

        state = fit_model(x[train_idx], goal[train_idx], args.hidden, args.epochs, args.seed, args.lr, args.batch,
                          l2=args.l2, state=state, on_epoch=on_epoch, q=None if q is None else q[train_idx],
                          ignore=ignore, shrink=args.shrink)
    L.save(out, state["model"])
    r = report(L.read_model(str(out)), x[test_idx], z[test_idx], goal[test_idx])
    print(f"{out}: {args.model} model, target {args.target}" + (f" lam {args.lam:g}" if args.target == "td" else "")
          + f"; {len(train_idx)} training positions, {int(r['positions'])} held out: mse {r['mse']:.4f} "
          f"(predicting 0: {r['mse_zero']:.4f}, the hand value: {r['mse_hand']:.4f}), target's mse {r['target_mse']:.4f} "
          f"(hand {r['target_mse_hand']:.4f}), winner's sign right {r['accuracy']:.3f} (hand heuristic {r['hand_accuracy']:.3f})")
    return 0


# --- command line ------------------------------------------------------------------------------
def fail(message: str) -> int:
    print(f"train: error: {message}", file=sys.stderr)
    return 2


def ignored(names: str) -> np.ndarray | None:
    """Indices of the comma-separated feature ``names`` (ValueError in one line for an unknown one)."""
    from heuristics.reinforce_tactics.learned_features import NAMES

    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in NAMES]
    if unknown:
        raise ValueError(f"unknown feature {unknown[0]!r} in --ignore; valid: {', '.join(NAMES)}")
    return np.array([NAMES.index(n) for n in wanted], np.int64) if wanted else None


def fit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", choices=sorted(L.KINDS), default="absolute",
                   help="absolute: tanh of the network; residual: the hand heuristic corrected by it (starts equal to it)")
    p.add_argument("--target", choices=("outcome", "td"), default="outcome",
                   help="outcome: the game's result; td: the lambda-return of the mover's next turns' hand values")
    p.add_argument("--lam", type=float_in(0.0, 1.0), default=0.8, help="lambda of --target td")
    p.add_argument("--l2", type=float_in(0.0, 10.0), default=1e-4, help="weight decay")
    p.add_argument("--shrink", type=float_in(0.0, 1e6), default=0.0,
                   help="penalty on the squared network output (a residual's correction kept small)")
    p.add_argument("--ignore", default="", metavar="NAME,...",
                   help="features the model does not read (e.g. me_ready,opp_ready: they change inside a turn)")


def league_options(p: argparse.ArgumentParser) -> None:
    """The league in the arena's store (:mod:`util.rt_league`)."""
    p.add_argument("--store", default=None, metavar="DB", help="record every self-play game in this arena store (SQLite)")
    p.add_argument("--league", default=None, metavar="DB",
                   help="also draw sides from this store's past players whose weights are unchanged on disk")


def backend_options(p: argparse.ArgumentParser) -> None:
    """Where self-play's games run (:mod:`base.backends`): this process, a pool, or Ray."""
    p.add_argument("--workers", type=int_in(1, 1024), default=1,
                   help="games at once: processes (process; 1 plays them here) or CPUs asked of Ray (default 1)")
    p.add_argument("--backend", choices=BACKENDS, default="process", help="process (default) or ray (optional extra)")
    p.add_argument("--address", default=None, help="with --backend ray: a cluster's address (auto: the one `ray start` made)")


def parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m util.rt_train", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    sp = sub.add_parser("selfplay", help="play games and store their positions")
    sp.add_argument("dir", help="folder of the shards (made; existing shards are kept and skipped)")
    sp.add_argument("--games", type=int_in(1, 10_000_000), default=100)
    sp.add_argument("--shard", type=int_in(1, 100_000), default=20, help="games a shard")
    sp.add_argument("--agents", nargs="+", default=["greedy"], help="agent specs; each side of a game draws one")
    sp.add_argument("--maps", nargs="*", default=None, help="built-in maps (default: all)")
    sp.add_argument("--seed", type=int_in(0, 2 ** 62), default=0)
    sp.add_argument("--time", type=float_in(1e-3, 600.0), default=1.0, help="seconds a turn")
    sp.add_argument("--keep", type=float_in(1e-6, 1.0), default=0.25, help="share of decision states stored")
    sp.add_argument("--jitter", type=float_in(0.0, 2.0), default=0.2, help="log-scale spread of greedy's weights per game")
    sp.add_argument("--episode-steps", type=int_in(2, 10_000), default=200)
    backend_options(sp)
    league_options(sp)
    sp.add_argument("--quiet", action="store_true")
    fp = sub.add_parser("fit", help="fit the value model to stored positions")
    fp.add_argument("dirs", nargs="+", help="self-play folders")
    fp.add_argument("--out", required=True, help="the weights file to write (.npz); its checkpoint beside it")
    fp.add_argument("--hidden", type=int_in(1, L.MAX_HIDDEN), default=32)
    fp.add_argument("--epochs", type=int_in(1, 100_000), default=30)
    fp.add_argument("--lr", type=float_in(1e-6, 1.0), default=3e-3)
    fp.add_argument("--batch", type=int_in(1, 1 << 20), default=256)
    fp.add_argument("--seed", type=int_in(0, 2 ** 62), default=0)
    fit_options(fp)
    fp.add_argument("--bootstrap", default=None, metavar="W.npz",
                    help="with --target td: value the next turns by this model (the last generation), not the hand heuristic")
    fp.add_argument("--quiet", action="store_true")
    lp = sub.add_parser("loop", help="generations: self-play with the last model, fit the next on every game so far")
    lp.add_argument("dir", help="folder of the generations (games-N/ and gen-N.npz; made)")
    lp.add_argument("--generations", type=int_in(1, 1000), default=2)
    lp.add_argument("--games", type=int_in(11, 10_000_000), default=190, help="games a generation")
    lp.add_argument("--shard", type=int_in(1, 100_000), default=19)
    lp.add_argument("--maps", nargs="*", default=None)
    lp.add_argument("--seed", type=int_in(0, 2 ** 62), default=0)
    lp.add_argument("--time", type=float_in(1e-3, 600.0), default=1.0)
    lp.add_argument("--episode-steps", type=int_in(2, 10_000), default=200)
    lp.add_argument("--hidden", type=int_in(1, L.MAX_HIDDEN), default=32)
    lp.add_argument("--epochs", type=int_in(1, 100_000), default=30)
    fit_options(lp)
    lp.add_argument("--bootstrap-last", action="store_true",
                    help="with --target td: generation n > 1 values the next turns by generation n-1 (fit --bootstrap)")
    backend_options(lp)
    league_options(lp)
    rp = sub.add_parser("league", help="the league's table: each stored player's Elo, games and score, maps pooled")
    rp.add_argument("store", metavar="DB", help="an arena store written by selfplay --store")
    lp.add_argument("--quiet", action="store_true")
    return ap


def loop(args: argparse.Namespace) -> int:
    """Generation n (``gen-n.npz``) is fitted on the games of generations 0..n-1; the games of
    generation k are played by the hand ``greedy`` and greedy with ``gen-k.npz`` (a league of
    the last model and the hand heuristic; generation 0: the hand heuristic alone). Each step
    resumes (shards, checkpoints) and a generation whose model exists is skipped. With
    ``--store DB --league DB`` every game is recorded there and every earlier generation still
    on disk plays too (:mod:`util.rt_league`)."""
    root = Path(args.dir)
    common = ["--quiet"] if args.quiet else []
    maps = ["--maps", *args.maps] if args.maps else []
    where = ["--workers", str(args.workers), "--backend", args.backend] + (["--address", args.address] if args.address else [])
    where += (["--store", args.store] if args.store else []) + (["--league", args.league] if args.league else [])
    for n in range(1, args.generations + 1):
        model = root / f"gen-{n}.npz"
        if model.exists():
            continue
        prev = root / f"gen-{n - 1}.npz"
        agents = ["greedy"] + ([f"greedy:heuristic=learned,weights={prev}"] if n > 1 else [])
        games = root / f"games-{n - 1}"
        sp = parser().parse_args(["selfplay", str(games), "--games", str(args.games), "--shard", str(args.shard),
                                  "--seed", str(args.seed + n - 1), "--time", str(args.time),
                                  "--episode-steps", str(args.episode_steps), "--agents", *agents, *maps, *where, *common])
        code = selfplay(sp)
        if code:
            return code
        fp = parser().parse_args(["fit", *[str(root / f"games-{k}") for k in range(n)], "--out", str(model),
                                  "--hidden", str(args.hidden), "--epochs", str(args.epochs), "--seed", str(args.seed),
                                  "--model", args.model, "--target", args.target, "--lam", str(args.lam),
                                  "--l2", str(args.l2), "--ignore", args.ignore, "--shrink", str(args.shrink), *common,
                                  *(["--bootstrap", str(prev)] if args.bootstrap_last and n > 1 else [])])
        code = fit(fp)
        if code:
            return code
    print(f"generations 1..{args.generations} under {root}")
    return 0


def league(args: argparse.Namespace) -> int:
    """Print the league's table (:func:`util.rt_league.report`)."""
    from util import rt_league
    from util.arena.store import StoreError

    if not Path(args.store).is_file():
        return fail(f"no store at {args.store}")
    try:
        print(rt_league.report(args.store))
    except StoreError as exc:
        return fail(str(exc))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        with stop_on_signals():
            return {"selfplay": selfplay, "fit": fit, "loop": loop, "league": league}[args.command](args)
    except Interrupted as exc:
        print(f"train: stopped by {signal_name(exc)}; written shards and checkpoints are whole: run again to resume",
              file=sys.stderr)
        return exit_code(exc)


if __name__ == "__main__":
    sys.exit(main())
