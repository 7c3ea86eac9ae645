"""The Monte-Carlo learner (agents/engine/mc_learner.py): episodes on both paths, exact
every-visit means, compact resumable tables, the greedy agent, the CLI's bad input, Ray."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from agents.engine import mc_learner as M
from core.games import make_game
from util.arena.match import play


def episodes(jits):
    g = make_game("quixo", size=3)
    table = M.ValueTable()
    runs = {}
    for jit in jits:
        p = M.Player(g, 60, jit=jit)
        k1, r1, _ = p.batch(table, 100, 0.2, 3)
        t = M.ValueTable()
        t.merge(*M.aggregate(k1, r1))
        k2, r2, m2 = p.batch(t, 100, 0.2, 4)  # greedy moves now read a non-empty table
        runs[jit] = (k1.tolist(), r1.tolist(), k2.tolist(), r2.tolist(), m2)
    return runs


@pytest.mark.slow  # numba compiles the episode kernel (several seconds)
def test_episodes_agree_on_both_paths():
    runs = episodes((False, True))
    assert runs[False] == runs[True]


def test_returns_are_for_each_states_mover():
    runs = episodes((False,))
    # replay one episode in Python: the first entry is the empty board (key 0), and the
    # returns alternate in sign along a game with one mover change per ply
    k, r = runs[False][0], runs[False][1]
    assert k[0] == 0 and r[0] in (-1.0, 0.0, 1.0)
    starts = [i for i, x in enumerate(k) if x == 0]
    for a, b in zip(starts, starts[1:] + [len(k)]):
        assert all(r[i + 1] == -r[i] for i in range(a, b - 1))


def test_merge_keeps_exact_every_visit_means_and_counts():
    rng = random.Random(0)
    t = M.ValueTable()
    ref: dict[int, list[float]] = {}
    for _ in range(3):
        keys = np.array([rng.randrange(50) for _ in range(400)], dtype=np.int64)
        rets = np.array([rng.choice([-1.0, 0.0, 1.0]) for _ in range(400)])
        for k, r in zip(keys.tolist(), rets.tolist()):
            ref.setdefault(k, []).append(r)
        t.merge(*M.aggregate(keys, rets))
    assert t.keys.tolist() == sorted(ref)
    assert t.counts.tolist() == [len(ref[k]) for k in sorted(ref)]
    assert np.allclose(t.values, [sum(ref[k]) / len(ref[k]) for k in sorted(ref)], atol=1e-6)
    assert t.keys.dtype == np.int64 and t.values.dtype == np.float32 and t.counts.dtype == np.uint32


def test_quixo_keys_pack_exactly_and_other_games_hash_within_62_bits():
    g = make_game("quixo", size=5)
    shift = M.key_shift(g)
    s = g.initial()
    for a in s.legal_actions()[:10]:
        k = s.apply(a).key()
        x = M.pack(k, shift)
        assert (x & ((1 << 25) - 1), x >> 25) == (k[0], k[1])
    h = M.pack((2**62 + 5, 7, 1), 0)
    assert 0 <= h < 2**62 and h != M.pack((2**62 + 5, 7, 0), 0)


def test_train_saves_resumes_and_an_interrupt_keeps_finished_rounds(tmp_path, monkeypatch):
    g = make_game("quixo", size=3)
    out = tmp_path / "t.npz"
    t1 = M.train(g, 300, out, round_episodes=100, progress=False, jit=False)
    assert out.exists() and t1.episodes == 300 and M.ValueTable.load(out).episodes == 300
    t2 = M.train(g, 200, out, resume=True, round_episodes=100, progress=False, jit=False)
    loaded = M.ValueTable.load(out)
    assert loaded.episodes == 500 == t2.episodes and int(loaded.counts.sum()) > int(t1.counts.sum())
    assert loaded.game == g.spec() and np.all(np.diff(loaded.keys) > 0)
    # an interrupt in the third round: the file holds the rounds before it
    from base import backends

    calls = {"n": 0}
    real = backends.Runner.run

    def run(self, jobs, fn):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        yield from real(self, jobs, fn)

    monkeypatch.setattr(backends.Runner, "run", run)
    with pytest.raises(KeyboardInterrupt):
        M.train(g, 1000, out, resume=True, round_episodes=150, progress=False, jit=False)
    assert M.ValueTable.load(out).episodes == 500 + 150 + 162  # rounds grow to a quarter of the episodes seen


def test_learnt_agent_beats_random_and_plays_the_fallback_where_the_table_knows_nothing(tmp_path):
    from agents.registry import make

    g = make_game("quixo", size=3)
    out = tmp_path / "q3.npz"
    M.train(g, 1000, out, progress=False, epsilon=0.2, jit=False)
    me = make(f"mc_learner:table={out},fallback=random", g)  # the score comes from the table
    score = 0.0
    for i in range(40):
        other = make(f"random:seed={i}", g)
        first = i % 2 == 0
        r = play(me, other, g, 5.0) if first else play(other, me, g, 5.0)
        score += 1.0 if r["winner"] == (1 if first else 2) else 0.5 if r["winner"] == 0 else 0.0
    assert score / 40 >= 0.8
    empty = tmp_path / "empty.npz"
    M.ValueTable(game=g.spec()).save(empty)
    blank = make(f"mc_learner:table={empty},fallback=random", g)
    s = g.initial()
    assert blank.choose(s, time.perf_counter() + 1) in s.legal_actions() and blank.info()["fallback"] == "random"


@pytest.mark.parametrize("argv,words", [
    (["train", "--episodes", "5", "--out", "x.txt"], "must end in .npz"),
    (["train", "--episodes", "5", "--out", "x.npz", "--epsilon", "2"], "within [0, 1]"),
    (["train", "--episodes", "5", "--out", "nowhere/none.npz", "--resume"], "does not exist"),
    (["train", "--episodes", "0", "--out", "x.npz"], "episodes"),
    (["train", "--game", "quixo:size=9", "--episodes", "5", "--out", "x.npz"], "size must be an integer from 3 to 5"),
    ([], "give a command"),
])
def test_cli_bad_input_is_one_line_and_exit_code_2(capsys, argv, words):
    with pytest.raises(SystemExit) as exc:
        M.main(argv)
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and words in err and len(err.splitlines()) == 1


@pytest.mark.slow
def test_ray_backend_trains_the_same_table_format(tmp_path):
    pytest.importorskip("ray")  # an optional extra (requirements-optional.txt)
    g = make_game("quixo", size=3)
    out = tmp_path / "ray.npz"
    t = M.train(g, 400, out, workers=2, backend="ray", round_episodes=200, progress=False)
    loaded = M.ValueTable.load(out)
    assert loaded.episodes == 400 == t.episodes and len(loaded) > 0 and np.all(np.diff(loaded.keys) > 0)
