"""The learned evaluation's trainer (util.rt_train): the numpy fit learns what it
can fail to learn, resumes from its checkpoint, and the command stores self-play games in shards
it resumes from."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from heuristics.reinforce_tactics import learned as L
from heuristics.reinforce_tactics.learned_features import F_HAND, F_ME, F_OPP, NF, PF_GOLD, PF_MATERIAL
from util import rt_train as T


def synthetic(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions whose winner is the side with more material plus half its gold lead, with 10%
    of the labels flipped (noise), and draws; the other words are noise of other scales."""
    scales = np.random.default_rng(0).uniform(0.1, 500.0, NF)  # one distribution for every sample
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 1.0, (n, NF)) * scales
    lead = x[:, F_ME + PF_MATERIAL] - x[:, F_OPP + PF_MATERIAL] + 0.5 * (x[:, F_ME + PF_GOLD] - x[:, F_OPP + PF_GOLD])
    z = np.sign(lead)
    z[rng.random(n) < 0.1] *= -1
    z[rng.random(n) < 0.1] = 0
    return x, z


def accuracy(model: dict, x: np.ndarray, z: np.ndarray) -> float:
    p = L.forward_np(model, x)
    d = z != 0
    return float(np.mean(np.sign(p[d]) == z[d]))


def test_fit_learns_the_winner_and_a_shuffled_control_does_not():
    x, z = synthetic(3000, 1)
    xt, zt = synthetic(1000, 2)
    model = T.fit_model(x, z, hidden=8, epochs=15, seed=3)["model"]
    assert accuracy(model, xt, zt) > 0.8  # the labels' own ceiling is 0.9
    assert np.mean((L.forward_np(model, xt) - zt) ** 2) < 0.75 * np.mean(zt ** 2)
    shuffled = T.fit_model(x, np.random.default_rng(4).permutation(z), hidden=8, epochs=15, seed=3)["model"]
    assert abs(accuracy(shuffled, xt, zt) - 0.5) < 0.1


def with_hand(x: np.ndarray) -> np.ndarray:
    """``x`` with feature ``hand`` the squashed material lead alone: a base that knows half the
    rule of :func:`synthetic` (not the gold lead)."""
    x = x.copy()
    lead = x[:, F_ME + PF_MATERIAL] - x[:, F_OPP + PF_MATERIAL]
    x[:, F_HAND] = T.HAND_TOP * lead / (300.0 + np.abs(lead))
    return x


def residual_accuracy(model: dict, x: np.ndarray, z: np.ndarray) -> float:
    p = L.value_np(model, x, T.hand_q(x))
    d = z != 0
    return float(np.mean(np.sign(p[d]) == z[d]))


def test_residual_fit_corrects_its_base_and_a_shuffled_control_does_not():
    """The residual starts as its base (feature hand: the material lead) and learns the gold
    lead's share of the rule; on shuffled labels it does not get better than the base."""
    x, z = synthetic(3000, 11)
    xt, zt = synthetic(1000, 12)
    x, xt = with_hand(x), with_hand(xt)
    fresh = T.fit_model(x, z, hidden=8, epochs=0, seed=3, q=T.hand_q(x))["model"]
    base = residual_accuracy(fresh, xt, zt)
    d = zt != 0
    assert base == float(np.mean(np.sign(xt[d, F_HAND]) == zt[d]))  # epoch 0: the base itself
    assert base < 0.8
    model = T.fit_model(x, z, hidden=8, epochs=15, seed=3, q=T.hand_q(x))["model"]
    assert residual_accuracy(model, xt, zt) > base + 0.05
    shuffled = T.fit_model(x, np.random.default_rng(4).permutation(z), hidden=8, epochs=15, seed=3, q=T.hand_q(x))
    assert residual_accuracy(shuffled["model"], xt, zt) < base + 0.02


def test_ignored_features_keep_zero_input_weights():
    x, z = synthetic(400, 13)
    x = with_hand(x)
    ignore = T.ignored("me_ready,opp_ready")
    model = T.fit_model(x, z, hidden=4, epochs=2, seed=3, q=T.hand_q(x), ignore=ignore)["model"]
    assert (model["w1"][:, ignore] == 0).all() and np.abs(model["w1"]).sum() > 0
    with pytest.raises(ValueError, match="unknown feature 'nope'"):
        T.ignored("me_ready,nope")


def test_td_targets_mix_the_next_turns_and_the_outcome():
    data = {"z": np.array([1, -1, 0]), "ahead": np.array([[0.5, 0.2], [0.1, -1.0], [0.3, 0.3]])}
    assert np.array_equal(T.targets(data, "outcome", 0.5), [1, -1, 0])
    assert np.allclose(T.targets(data, "td", 1.0), [1, -1, 0])
    assert np.allclose(T.targets(data, "td", 0.0), [0.5, 0.1, 0.3])
    assert np.allclose(T.targets(data, "td", 0.5), [0.5 * 0.5 + 0.25 * 0.2 + 0.25, 0.05 - 0.25 - 0.25, 0.15 + 0.075])
    with pytest.raises(ValueError, match="look-ahead"):
        T.targets({"z": data["z"]}, "td", 0.5)


def test_ahead_values_are_the_movers_next_turns_then_its_outcome():
    starts = [(0, 0, 0.1), (3, 1, -0.2), (5, 0, 0.3), (8, 1, 0.4), (9, 0, 0.5)]
    kept = [(0, 0), (4, 1), (9, 0)]
    out = T.ahead_values(kept, starts, [1, -1, 1])
    assert out.shape == (3, T.AHEAD)
    assert np.allclose(out[0, :3], [0.3, 0.5, 1.0]) and (out[0, 2:] == 1).all()
    assert np.allclose(out[1, :2], [0.4, -1.0]) and (out[1, 1:] == -1).all()
    assert (out[2] == 1).all()  # its turn started at 9: nothing after it but the outcome


def test_ahead_index_points_at_the_same_turns_as_ahead_values():
    starts = [(0, 0, 0.1), (3, 1, -0.2), (5, 0, 0.3), (8, 1, 0.4), (9, 0, 0.5)]
    kept = [(0, 0), (4, 1), (9, 0)]
    idx = T.ahead_index(kept, starts)
    assert idx.shape == (3, T.AHEAD)
    assert list(idx[0, :3]) == [2, 4, -1] and list(idx[1, :2]) == [3, -1] and (idx[2] == -1).all()
    vals = np.array([v for _, _, v in starts])
    z = [1, -1, 1]
    assert np.allclose(np.where(idx >= 0, vals[np.maximum(idx, 0)], np.array(z)[:, None]), T.ahead_values(kept, starts, z))


def test_merge_games_shifts_the_turn_indices():
    a = {"x": np.zeros((2, NF)), "start_x": np.arange(3 * NF, dtype=float).reshape(3, NF),
         "ahead_i": np.array([[1, 2, -1], [2, -1, -1]], np.int32)}
    b = {"x": np.ones((1, NF)), "start_x": -np.ones((2, NF)), "ahead_i": np.array([[0, 1, -1]], np.int32)}
    m = T.merge_games([a, b])
    assert m["ahead_i"].tolist() == [[1, 2, -1], [2, -1, -1], [3, 4, -1]]
    assert np.array_equal(m["start_x"][m["ahead_i"][2, :2]], b["start_x"])


def test_bootstrap_targets_value_the_next_turns_by_the_model(tmp_path):
    """A residual model with no correction values each turn as the hand heuristic does: the
    bootstrapped targets equal the hand's TD targets; a model with a correction moves them."""
    rng = np.random.default_rng(3)
    start_x = rng.normal(0.0, 1.0, (6, NF))
    start_x[:, F_HAND] = rng.uniform(-0.8, 0.8, 6) * T.HAND_TOP
    idx = np.array([[0, 2, -1, -1], [1, 3, 5, -1], [-1, -1, -1, -1]], np.int32)
    idx = np.pad(idx, ((0, 0), (0, T.AHEAD - 4)), constant_values=-1)
    z = np.array([1, -1, 0])
    ahead = np.where(idx >= 0, start_x[np.maximum(idx, 0), F_HAND] / T.HAND_TOP, z[:, None])
    data = {"z": z, "ahead": ahead, "start_x": start_x, "ahead_i": idx}
    flat = L.init_model(4, 0, kind="residual")
    assert np.allclose(T.targets(data, "td", 0.6, flat), T.targets(data, "td", 0.6))
    bent = dict(flat, w2=np.ones(4), b2=np.array([0.7]))
    moved = T.targets(data, "td", 0.6, bent)
    assert not np.allclose(moved[:2], T.targets(data, "td", 0.6)[:2]) and moved[2] == 0
    with pytest.raises(ValueError, match="turn-start"):
        T.targets({"z": z, "ahead": ahead}, "td", 0.6, flat)


def test_fit_resumes_to_the_same_model():
    x, z = synthetic(600, 5)
    whole = T.fit_model(x, z, hidden=4, epochs=4, seed=6)
    states: list[dict] = []

    def stop_after_two(state):
        states.append({k: (dict(v) if isinstance(v, dict) else v) for k, v in state.items()})
        if state["epoch"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        T.fit_model(x, z, hidden=4, epochs=4, seed=6, on_epoch=stop_after_two)
    resumed = T.fit_model(x, z, hidden=4, epochs=4, seed=6, state=states[-1])
    for k in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(whole["model"][k], resumed["model"][k]), k


def test_checkpoint_roundtrip_and_other_runs_ignored(tmp_path):
    x, z = synthetic(300, 7)
    st = T.fit_model(x, z, hidden=3, epochs=1, seed=8)
    path = tmp_path / "c.npz"
    T.save_state(path, st, {"a": 1})
    back = T.load_state(path, {"a": 1})
    assert back is not None and back["epoch"] == 1 and back["rng"] == st["rng"]
    assert all(np.array_equal(back["model"][k], st["model"][k]) for k in st["model"])
    assert T.load_state(path, {"a": 2}) is None
    path.write_bytes(b"junk")
    with pytest.raises(ValueError, match="damaged"):
        T.load_state(path, {"a": 1})


def test_selfplay_and_fit_commands_resume(tmp_path, capsys):
    """Twelve short games in shards of four; a second run writes nothing; removing a shard
    replays exactly its games; fit writes a loadable model."""
    d = tmp_path / "sp"
    argv = ["selfplay", str(d), "--games", "12", "--shard", "4", "--maps", "beginner", "starter",
            "--episode-steps", "16", "--keep", "0.5", "--quiet", "--time", "30"]
    assert T.main(argv) == 0
    shards = sorted(d.glob("shard-*.npz"))
    assert len(shards) == 3
    first = shards[1].read_bytes()
    assert T.main(argv) == 0 and "0 written now" in capsys.readouterr().out
    shards[1].unlink()
    assert T.main(argv) == 0
    with np.load(shards[1]) as a, np.load(__import__("io").BytesIO(first)) as b:
        assert all(np.array_equal(a[k], b[k]) for k in ("x", "z", "game", "map", "step"))
        assert set(a["game"]) <= {4, 5, 6, 7} and a["x"].shape[1] == NF
        assert a["ahead"].shape == (len(a["z"]), T.AHEAD) and a["ahead_i"].shape == a["ahead"].shape
        idx = a["ahead_i"]  # the stored turn starts are the turns whose hand values ``ahead`` holds
        assert (idx >= 0).any() and idx.max() < len(a["start_x"])
        hand = np.where(idx >= 0, a["start_x"][np.maximum(idx, 0), F_HAND] / T.HAND_TOP, a["z"][:, None])
        assert np.allclose(hand, a["ahead"], atol=1e-6)
    out = tmp_path / "m.npz"
    assert T.main(["fit", str(d), "--out", str(out), "--hidden", "4", "--epochs", "2", "--quiet"]) == 0
    assert len(L.load_values(str(out))) == L.params_len(NF, 4)
    assert (tmp_path / "m.npz.ckpt.npz").exists()
    res = tmp_path / "r.npz"
    argv = ["fit", str(d), "--out", str(res), "--hidden", "4", "--epochs", "2", "--model", "residual", "--target", "td",
            "--quiet"]
    assert T.main(argv) == 0 and "residual model, target td" in capsys.readouterr().out
    assert L.load_values(str(res))[L.M_KIND] == L.KIND_RESIDUAL
    boot = tmp_path / "b.npz"
    assert T.main([*argv[:3], str(boot), *argv[4:], "--bootstrap", str(res)]) == 0
    assert not np.allclose(L.load_values(str(boot)), L.load_values(str(res)))  # other targets, another fit
    assert T.main(["fit", str(d), "--out", str(boot), "--bootstrap", str(res), "--quiet"]) == 2
    assert "--target td" in capsys.readouterr().err
    assert T.main(["fit", str(d), "--out", str(boot), "--target", "td", "--bootstrap", str(d / "none.npz"), "--quiet"]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.slow  # two spawned workers load the compiled planner (about 20-40 s here)
@pytest.mark.parametrize("backend", ["process", pytest.param("ray", marks=pytest.mark.skipif(
    __import__("importlib").util.find_spec("ray") is None, reason="Ray is an optional extra"))])
def test_selfplay_on_two_workers_writes_the_same_shards(tmp_path, backend):
    """Games fixed by their index: two workers (processes, or Ray tasks) write byte-for-byte the
    same data as one (greedy with a clock it never reaches is deterministic)."""
    shards = {}
    for workers in (1, 2):
        d = tmp_path / f"w{workers}"
        argv = ["selfplay", str(d), "--games", "6", "--shard", "2", "--maps", "beginner", "starter",
                "--episode-steps", "14", "--keep", "0.5", "--quiet", "--time", "30", "--workers", str(workers),
                "--backend", backend if workers > 1 else "process"]
        assert T.main(argv) == 0
        shards[workers] = sorted(d.glob("shard-*.npz"))
    assert [p.name for p in shards[1]] == [p.name for p in shards[2]] and len(shards[1]) == 3
    for one, two in zip(shards[1], shards[2]):
        with np.load(one) as a, np.load(two) as b:
            assert all(np.array_equal(a[k], b[k]) for k in ("x", "z", "game", "map", "step", "ahead"))


@pytest.mark.skipif(__import__("importlib").util.find_spec("ray") is not None, reason="Ray is installed here")
def test_selfplay_on_ray_without_ray_says_what_to_install(tmp_path, capsys):
    assert T.main(["selfplay", str(tmp_path / "sp"), "--backend", "ray", "--games", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "pip install -r requirements-optional.txt" in err and "\n" not in err
    assert not (tmp_path / "sp").exists() or not list((tmp_path / "sp").iterdir())


@pytest.mark.parametrize("argv, message", [
    (["selfplay", "{d}", "--maps", "nowhere"], "unknown map"),
    (["selfplay", "{d}", "--agents", "greedy:bogus=1"], "bogus"),
    (["fit", "{d}", "--out", "{d}/m.npz"], "no shard"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, argv, message):
    (tmp_path / "empty").mkdir()
    argv = [a.format(d=tmp_path / "empty") for a in argv]
    assert T.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


@pytest.mark.slow  # a subprocess that loads (or compiles) the planner: 13-80 s measured at load 9
def test_selfplay_stops_on_sigterm_with_whole_shards(tmp_path):
    import signal

    from tests.test_signals import Running, last_lines

    d = tmp_path / "sp"
    run = Running(["-m", "util.rt_train", "selfplay", str(d), "--games", "100000", "--shard", "1",
                   "--maps", "beginner", "starter", "--episode-steps", "30", "--time", "30"])
    run.wait_for("3/100000")  # past the compile, inside the games
    code, _, _ = run.stop(signal.SIGTERM, "stopped by SIGTERM")
    assert code == 143
    lines = last_lines(run.err)
    assert "Traceback" not in run.err.decode(), run.err.decode()[-3000:]
    assert lines[-1].startswith("train: stopped by SIGTERM"), lines[-3:]
    shards = sorted(d.glob("shard-*.npz"))
    assert len(shards) >= 2 and not [p for p in d.iterdir() if not p.name.startswith("shard-")]
    for p in shards:
        with np.load(p) as z:
            assert z["x"].shape[1] == NF and len(z["x"]) == len(z["z"])


@pytest.mark.slow  # greedy with the model compiled in, in the second generation's games (6 min at load 12, cold)
def test_loop_fits_generations_and_the_second_plays_the_first(tmp_path):
    d = tmp_path / "loop"
    argv = ["loop", str(d), "--generations", "2", "--games", "12", "--shard", "6", "--maps", "beginner", "starter",
            "--episode-steps", "16", "--time", "30", "--hidden", "4", "--epochs", "2", "--quiet"]
    assert T.main(argv) == 0
    assert len(L.load_values(str(d / "gen-1.npz"))) == L.params_len(NF, 4)
    assert len(L.load_values(str(d / "gen-2.npz"))) == L.params_len(NF, 4)
    assert len(list((d / "games-1").glob("shard-*.npz"))) == 2
    name, _, sides, bases = T.game_setup(0, 1, ["beginner"], ["greedy", f"greedy:heuristic=learned,weights={d / 'gen-1.npz'}"], 0.2)
    assert name == "beginner" and len(sides) == 2 and len(bases) == 2
    stamp = (d / "gen-2.npz").stat().st_mtime_ns
    assert T.main(argv) == 0 and (d / "gen-2.npz").stat().st_mtime_ns == stamp  # done generations are kept


@pytest.mark.slow  # six short games with the learned greedy compiled (35 CPU s warm; 3.5 min at load 8)
def test_selfplay_keeps_its_league_in_the_arena_store(tmp_path, capsys):
    """``--store``: every game recorded (players by spec and version, moves that replay legally
    to a finished game); ``--league``: a later run draws from the stored past players whose
    weights are unchanged; ``league``: the table; new bytes at the old path leave the league."""
    from core.games import parse_game
    from util import rt_league
    from util.arena.store import Store
    from util.arena.tournament import standings

    weights = tmp_path / "gen-1.npz"
    weights.write_bytes((Path(__file__).resolve().parent.parent / "data" / "rt_learned_gen2A.npz").read_bytes())
    learned = f"greedy:heuristic=learned,weights={weights}"
    db, later = tmp_path / "league.db", tmp_path / "later.db"
    common = ["--shard", "2", "--maps", "beginner", "starter", "--episode-steps", "10", "--quiet", "--time", "30"]
    assert T.main(["selfplay", str(tmp_path / "a"), "--games", "4", "--agents", "greedy", learned, "--store", str(db), *common]) == 0
    with Store(db, create=False) as store:
        games = list(store.games())
        names = {spec for spec, _ in store.players().values()}
    assert len(games) == 4 and names <= {"greedy", learned} and learned in names
    for g in games:  # each record replays: legal moves to the end of a game
        s = parse_game(g.game).initial()
        for a in g.moves:
            assert s.is_chance_node() or a in s.legal_actions()
            s = s.apply(a)
        assert s.is_terminal()
    assert T.main(["selfplay", str(tmp_path / "b"), "--games", "2", "--agents", "greedy", "--league", str(db),
                   "--store", str(later), *common]) == 0
    assert "league: 1 past players" in capsys.readouterr().err
    assert T.main(["league", str(db)]) == 0
    table = capsys.readouterr().out
    mixed = sum(g.first != g.second for g in games)
    with Store(db, create=False) as store:
        ratings = standings(store, None)[1]
    assert mixed and learned in table and sum(r.games for r in ratings) == 2 * mixed
    with np.load(weights) as z:
        data = {k: z[k] for k in z.files}
    data[next(k for k in data if data[k].dtype.kind == "f")] += 1e-3
    np.savez(weights, **data)
    assert rt_league.league_specs(str(db), parse_game(games[0].game)) == []  # a new version is not the stored player
    assert T.main(["league", str(tmp_path / "none.db")]) == 2
