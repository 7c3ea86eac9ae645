"""The opening cache: grow -> extract -> save -> load is exact, transpositions merge, an agent
grafts it (from the file or from bundled data), and the command's help and bad input."""
from __future__ import annotations

import time

import numpy as np
import pytest

from agents.connectx import mcts_cache
from agents.connectx.mcts import MCTSAgent
from core.connectx import Position, Shape


@pytest.fixture(scope="module")
def grown():
    agent = MCTSAgent(leaf="rollout", capacity=200_000, seed=4)
    g = mcts_cache.grow(agent, sims=40_000)
    return agent, g.tree, g.sims


def test_grow_runs_the_requested_simulations(grown):
    _, tree, done = grown
    assert done == 40_000 and tree.node(0)["visits"] == 40_000


class _SteppingClock:
    """A perf_counter that moves ``step`` seconds at every reading (a stand-in for ``time``)."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("step", [0.4, 0.3, 0.7])
def test_grow_seconds_stops_at_or_past_the_time_given(grown, monkeypatch, step):
    """Growth stops at the first reading at or past ``seconds``, and reports that reading,
    whether the time runs out inside a batch or between two (CI once saw a batch end at
    1.99999 s and the clock cross 2 s before the next one: the growth was reported short)."""
    agent, _, _ = grown
    clock = _SteppingClock(step)
    monkeypatch.setattr(mcts_cache, "time", clock)
    g = mcts_cache.grow(agent, seconds=2.0)
    assert g.sims > 0
    assert g.last_start < 2.0 <= g.last_end <= 2.0 + step


def test_extract_keeps_frequent_nodes_and_merges_transpositions(grown):
    _, tree, _ = grown
    data = mcts_cache.extract(tree, Position.empty(), min_visits=20)
    keys = data["keys"]
    assert np.all(keys[1:] > keys[:-1])
    assert np.all(data["visits"] >= 20)
    root = Position.empty()
    i = np.searchsorted(keys, root.key())
    assert keys[i] == root.key() and data["visits"][i] == 40_000
    # Each cached position's visits are the sum over the tree's nodes for that position.
    by_key: dict[int, float] = {}
    stack = [(0, root)]
    while stack:
        n, pos = stack.pop()
        node = tree.node(n)
        if node["visits"] < 20:
            continue
        by_key[pos.key()] = by_key.get(pos.key(), 0.0) + node["visits"]
        for kid in tree.children(n):
            stack.append((kid["id"], pos.play(kid["action"])))
    assert sorted(by_key) == keys.tolist()
    assert [by_key[k] for k in keys.tolist()] == data["visits"].tolist()


def test_save_then_load_is_exact(grown, tmp_path):
    _, tree, _ = grown
    data = mcts_cache.extract(tree, Position.empty(), min_visits=5)
    data["meta"] = '{"note": "test"}'
    path = tmp_path / "cache.npz"
    size = mcts_cache.save(path, data)
    assert size == path.stat().st_size > 0
    loaded = mcts_cache.load(path)
    stored = mcts_cache.to_file_arrays(data)
    for f in mcts_cache.FIELDS:
        assert np.array_equal(loaded[f], stored[f].astype(loaded[f].dtype)), f
    assert loaded["shape"] == (6, 7, 4) and loaded["meta"] == '{"note": "test"}'
    # Visits are whole numbers and the value sums fit float32: nothing lost but float32 rounding.
    assert np.array_equal(loaded["visits"], data["visits"])
    assert np.allclose(loaded["values"], data["values"], rtol=1e-6, atol=1e-3)
    # Saving what was loaded gives the same arrays again.
    mcts_cache.save(tmp_path / "again.npz", loaded)
    again = mcts_cache.load(tmp_path / "again.npz")
    for f in mcts_cache.FIELDS:
        assert np.array_equal(again[f], loaded[f]), f


def test_agent_grafts_the_cache_from_file_and_from_bundled_data(grown, tmp_path):
    _, tree, _ = grown
    data = mcts_cache.extract(tree, Position.empty(), min_visits=5)
    path = tmp_path / "cache.npz"
    mcts_cache.save(path, data)
    agent = MCTSAgent(leaf="rollout", cache=str(path), max_sims=100)
    pos = Position.from_moves("4")  # the second player's first move: below the cached root
    agent.choose_position(pos, time.perf_counter() + 30)
    grafted = agent.info()["cache_nodes"]
    i = np.searchsorted(data["keys"], pos.key())
    assert grafted > 10
    assert agent.search(pos.shape)._tree.node(0)["visits"] == data["visits"][i] + 100  # cached visits, then this move's
    bundled = agent.bundle_data()
    other = MCTSAgent(leaf="rollout", cache="/nonexistent/never/read.npz", max_sims=100)
    other.use_data(bundled)
    other.choose_position(pos, time.perf_counter() + 30)
    assert other.info()["cache_nodes"] == grafted
    plain = MCTSAgent(leaf="rollout", cache="", max_sims=100)
    plain.choose_position(pos, time.perf_counter() + 30)
    assert plain.info()["cache_nodes"] == 0 and plain.bundle_data() is None


def test_cache_of_another_shape_is_ignored(grown, tmp_path):
    _, tree, _ = grown
    path = tmp_path / "cache.npz"
    mcts_cache.save(path, mcts_cache.extract(tree, Position.empty(), min_visits=5))
    agent = MCTSAgent(leaf="rollout", cache=str(path), max_sims=50)
    agent.choose_position(Position.empty(Shape(5, 6, 4)), time.perf_counter() + 30)
    assert agent.info()["cache_nodes"] == 0


def test_missing_or_damaged_cache_is_an_error(tmp_path):
    with pytest.raises(mcts_cache.CacheError, match="does not exist"):
        MCTSAgent(leaf="rollout", cache=str(tmp_path / "none.npz"), max_sims=10).choose_position(Position.empty(), time.perf_counter() + 30)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(mcts_cache.CacheError, match="cannot read"):
        mcts_cache.load(bad)
    with pytest.raises(mcts_cache.CacheError, match="sorted and unique"):
        mcts_cache.validate({"shape": (6, 7, 4), "keys": np.array([3, 2]), "visits": np.ones(2), "values": np.ones(2),
                             "lo": np.zeros(2), "hi": np.zeros(2)})
    assert MCTSAgent(leaf="rollout", cache="auto").cache_path().endswith("mcts_cache_rollout_6x7x4.npz")


def test_command_help_and_bad_input(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        mcts_cache._main(["--help"])
    assert exc.value.code == 0 and "grow" in capsys.readouterr().out
    assert mcts_cache._main(["grow"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--seconds or --sims" in err[0]
    assert mcts_cache._main(["grow", "--sims", "100", "--shape", "8x8x4"]) == 2
    assert "63 bits" in capsys.readouterr().err
    assert mcts_cache._main(["grow", "--sims", "100", "--agent", "mcts:leaf=bogus"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert mcts_cache._main(["show", str(tmp_path / "missing.npz")]) == 2
    capsys.readouterr()
    (tmp_path / "file").write_text("")
    for out, why in ((tmp_path, "is a directory"), (tmp_path / "file" / "c.npz", "cannot be written")):
        assert mcts_cache._main(["grow", "--sims", "100", "--agent", "mcts:leaf=rollout", "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and why in err[0], err
    for bad in ("-1", "nan", "inf"):
        with pytest.raises(SystemExit) as exc:
            mcts_cache._main(["grow", "--sims", "100", "--save-every", bad])
        assert exc.value.code == 2 and "--save-every" in capsys.readouterr().err
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        mcts_cache._main(["grow", "--sims", "many"])
    assert exc.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


def test_command_grows_and_shows_a_cache(capsys, tmp_path):
    out = tmp_path / "c.npz"
    assert mcts_cache._main(["grow", "--sims", "3000", "--min-visits", "3", "--agent", "mcts:leaf=rollout",
                             "--out", str(out)]) == 0
    assert out.exists() and "positions" in capsys.readouterr().out
    assert mcts_cache._main(["show", str(out)]) == 0
    assert "column 3" in capsys.readouterr().out


def test_committed_cache_is_valid_and_small():
    path = mcts_cache.default_path("rollout")
    if not path.exists():
        pytest.skip(f"{path.name} not grown here")
    data = mcts_cache.load(path)
    assert data["shape"] == (6, 7, 4) and path.stat().st_size < 3_000_000
    root = Position.empty()
    i = np.searchsorted(data["keys"], root.key())
    assert data["keys"][i] == root.key() and data["visits"][i] >= 1_000_000
    agent = MCTSAgent(leaf="rollout", max_sims=10)
    assert agent.cache_path() == str(path)
    agent.choose_position(root, time.perf_counter() + 30)
    assert agent.info()["cache_nodes"] > 1000


def test_grafted_bounds_are_the_side_to_moves_and_steer_the_search(tmp_path):
    """A cache that says the position after column 4 (O to move) is lost for O: grafted, the
    child is proven won for X (the tree's player 0 view), and X plays it at once. With the
    bounds read the wrong way round X would avoid that column."""
    root, child = Position.empty(), Position.from_moves("4")
    keys = np.array(sorted([root.key(), child.key()]), np.int64)
    by_key = {root.key(): (50, 0.0, -1, 1), child.key(): (20, 5.0, -1, -1)}
    data = {"shape": (6, 7, 4), "keys": keys, "meta": "{}"}
    for j, f in enumerate(("visits", "values", "lo", "hi")):
        data[f] = np.array([by_key[int(k)][j] for k in keys])
    path = tmp_path / "tiny.npz"
    mcts_cache.save(path, data)
    agent = MCTSAgent(leaf="rollout", cache=str(path), max_sims=200, background_compile=False)
    assert agent.choose_position(root, time.perf_counter() + 60) == 3
    tree = agent.search(root.shape)._tree
    node = tree.node(tree.child(0, 3))
    assert agent.info()["cache_nodes"] == 1 and agent.info()["proven"] == "win"
    assert (node["lo"], node["hi"], node["player"]) == (1.0, 1.0, 1)


def test_graft_then_collect_gives_every_node_its_cached_statistics(grown):
    """Each grafted node (every path to a cached position gets one) carries that position's
    cached visits, value and bounds: collected back, node by node, nothing differs."""
    from agents.engine import mcts_kernels as MK
    from core.game import bind, search_constants

    _, tree, _ = grown
    data = mcts_cache.validate(mcts_cache.extract(tree, Position.empty(), min_visits=30))
    agent = MCTSAgent(leaf="rollout", cache="", capacity=100_000)
    search = agent.search(Shape())
    from agents.engine.mcts import Tree

    for jit in ((False, True) if search._compiled_possible() else (False,)):
        fresh = Tree(7, 100_000, True)
        search._settings(fresh.floats)
        k, g = bind(search.game, MK, None, jit=jit), search_constants(search.game, jit)
        k.new_tree(g, fresh.ints, fresh.floats, (0, 0), 1)
        added = mcts_cache.graft(search, fresh, (0, 0), data, 10**9, jit)
        assert added == fresh.used - 1 >= len(data["keys"]) - 1
        n = fresh.used
        out = [np.empty(n, np.int64), np.empty(n), np.empty(n), np.empty(n, np.int8), np.empty(n, np.int8)]
        count = k.collect(g, fresh.ints, fresh.floats, 0, (0, 0), 0.0, *out)
        assert count == n
        idx = np.searchsorted(data["keys"], out[0])
        assert np.array_equal(data["keys"][idx], out[0])
        for f, got in zip(mcts_cache.FIELDS[1:], out[1:]):
            assert np.array_equal(data[f][idx], got), f
