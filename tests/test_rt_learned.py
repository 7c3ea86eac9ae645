"""The learned evaluation of Reinforce Tactics (issue 38): its features, its model on every path,
its weights file, and ``heuristic=learned`` in the turn searches."""
from __future__ import annotations

import math

import numpy as np
import pytest

from base.jit import numba_available
from core.reinforce_tactics import ReinforceTactics
from core.reinforce_tactics.layout import H_COUNT, H_GOLD, H_PLAYER
from heuristics.reinforce_tactics import learned as L
from heuristics.reinforce_tactics import learned_features as LF
from tests.test_rt_agents import SMALL_MAPS, random_states

NEED_NUMBA = pytest.mark.skipif(not numba_available(), reason="numba not available")


def feats(g, words) -> np.ndarray:
    x = np.full(LF.NF, 7.0)  # not zeros: features must clear what it does not set
    LF.features(g.g, words, x)
    return x


def random_model(seed: int, n_hid: int = 8) -> dict:
    rng = np.random.default_rng(seed)
    m = L.init_model(n_hid, seed, mean=rng.normal(0, 50, LF.NF), scale=rng.uniform(1, 300, LF.NF))
    m["b1"] = rng.normal(0, 0.5, n_hid)
    m["b2"] = rng.normal(0, 0.5, 1)
    return m


# --- features --------------------------------------------------------------------------------
def test_feature_names_cover_the_layout():
    assert len(LF.NAMES) == LF.NF == 2 * LF.PF + 4
    assert LF.NAMES[LF.F_ME + LF.PF_GOLD] == "me_gold" and LF.NAMES[LF.F_OPP + LF.PF_ADVANCE] == "opp_advance"
    assert LF.NAMES[LF.F_HAND] == "hand"


@pytest.mark.parametrize("name", ("beginner", "tower_rush", "center_mountains"))
def test_features_match_the_state(name):
    """Counts, gold and the step read straight from the state, for the side to move first."""
    g, states = random_states(name, 5, 150)
    assert len(states) > 50
    for s in states:
        w = s.words
        x = feats(g, w)
        me = w[H_PLAYER]
        assert x[LF.F_ME:LF.F_ME + 8].sum() == w[H_COUNT + me]
        assert x[LF.F_OPP:LF.F_OPP + 8].sum() == w[H_COUNT + 1 - me]
        assert x[LF.F_ME + LF.PF_GOLD] == w[H_GOLD + me] and x[LF.F_OPP + LF.PF_GOLD] == w[H_GOLD + 1 - me]
        assert x[LF.F_NEUTRAL] + x[LF.F_ME + LF.PF_BUILDINGS] + x[LF.F_ME + LF.PF_HQS] + x[LF.F_ME + LF.PF_TOWERS] \
            + x[LF.F_OPP + LF.PF_BUILDINGS] + x[LF.F_OPP + LF.PF_HQS] + x[LF.F_OPP + LF.PF_TOWERS] == x[LF.F_STRUCTS]


@pytest.mark.parametrize("name", SMALL_MAPS[:3])
def test_features_swap_blocks_when_the_mover_flips(name):
    """The same position seen by the other side: the two blocks swap, the hand value negates."""
    g, states = random_states(name, 6, 120)
    moved = 0
    for s in states:
        w = list(s.words)
        x = feats(g, w)
        w[H_PLAYER] = 1 - w[H_PLAYER]
        y = feats(g, w)
        assert np.array_equal(y[LF.F_ME:LF.F_ME + LF.PF], x[LF.F_OPP:LF.F_OPP + LF.PF])
        assert np.array_equal(y[LF.F_OPP:LF.F_OPP + LF.PF], x[LF.F_ME:LF.F_ME + LF.PF])
        assert y[LF.F_HAND] == pytest.approx(-x[LF.F_HAND], abs=1e-12)
        moved += x[LF.F_ME + LF.PF_ADVANCE] != x[LF.F_OPP + LF.PF_ADVANCE]
    assert moved > 10  # the check is not met by two equal blocks


@NEED_NUMBA
def test_features_plain_equals_compiled():
    from base import jit as J

    C = J.compiled("heuristics.reinforce_tactics.learned_features")
    n = 0
    for name in ("beginner", "crossroads", "tower_rush", "last_stand"):
        g, states = random_states(name, 15, 120)
        ga = np.asarray(g.g, np.int64)
        for s in states:
            out = np.full(LF.NF, -3.0)
            C.features(ga, np.asarray(s.words, np.int64), out)
            assert np.array_equal(out, feats(g, s.words))
            n += 1
    assert n > 200


# --- model -------------------------------------------------------------------------------------
def test_forward_numpy_equals_the_hot_forward():
    g, states = random_states("skirmish", 7, 100)
    x = np.array([feats(g, s.words) for s in states])
    m = random_model(3)
    batch = L.forward_np(m, x)
    p = list(L.pack(m))
    assert len(p) == L.params_len(LF.NF, 8)
    assert np.abs(batch).max() > 0.05 and np.std(batch) > 1e-3  # not a constant
    for row, v in zip(x, batch):
        assert L.forward(row, p) == pytest.approx(v, abs=1e-12)


@NEED_NUMBA
def test_learned_evaluate_plain_equals_compiled(tmp_path):
    from base import jit as J

    path = tmp_path / "m.npz"
    L.save(path, random_model(4))
    p = L.load_values(str(path))
    C = J.compiled("heuristics.reinforce_tactics.learned")
    pa = np.asarray(p)
    n = 0
    for name in ("beginner", "tower_rush", "center_mountains"):
        g, states = random_states(name, 9, 120)
        ga = np.asarray(g.g, np.int64)
        for s in states:
            v = L.evaluate(g.g, s.words, p)
            assert C.evaluate(ga, np.asarray(s.words, np.int64), pa) == pytest.approx(v, abs=1e-12)
            assert abs(v) < 0.9 or s.is_terminal()
            n += 1
    assert n > 150


def test_evaluate_is_top_times_the_model_and_terminal_is_the_outcome():
    g, states = random_states("beginner", 8, 200)
    m = random_model(5)
    m["top"] = np.array([0.5])
    p = list(L.pack(m))
    for s in states:
        v = L.evaluate(g.g, s.words, p)
        if s.is_terminal():
            r = s.returns()[s.words[H_PLAYER]]
            assert v == pytest.approx(0.5 * math.copysign(1, r) if r else 0.0)
        else:
            assert v == pytest.approx(0.5 * L.forward_np(m, feats(g, s.words)[None])[0], abs=1e-12)


def test_weights_file_roundtrips_in_float32_and_through_the_codec(tmp_path):
    from base import codec

    m = random_model(6)
    path = tmp_path / "m.npz"
    L.save(path, m)
    back = L.read_model(str(path))
    for k in L.ARRAYS:
        assert np.array_equal(back[k], np.asarray(m[k], np.float32).astype(np.float64)), k
    blob = codec.pack(L.to_file_arrays(m, plain=True))  # what a submission embeds
    again = L.checked(codec.unpack(blob), "embedded weights")
    assert all(np.array_equal(again[k], back[k]) for k in L.ARRAYS)
    assert np.array_equal(L.pack(again), np.asarray(L.load_values(str(path))))


# --- the residual kind: the hand heuristic plus a learned correction -------------------------------
def residual_model(seed: int, zero: bool = False, n_hid: int = 6) -> dict:
    """A residual model with random weights; ``zero``: as the fit starts it (no correction)."""
    rng = np.random.default_rng(seed)
    m = L.init_model(n_hid, seed, mean=rng.normal(0, 50, LF.NF), scale=rng.uniform(1, 300, LF.NF), kind="residual")
    if not zero:
        m["w2"] = rng.normal(0, 0.3, n_hid)
        m["b2"] = rng.normal(0, 0.2, 1)
    return m


def test_a_fresh_residual_model_is_the_hand_heuristic_to_the_bit():
    from heuristics.reinforce_tactics import evaluate as hand
    from heuristics.reinforce_tactics.params import Weights

    p = list(L.pack(residual_model(1, zero=True)))
    w = Weights().vector()
    n = 0
    for name in ("beginner", "tower_rush", "center_mountains"):
        g, states = random_states(name, 3, 80)
        for s in states:
            assert L.evaluate(g.g, s.words, p) == hand(g.g, s.words, w)
            n += 1
    assert n > 150


def test_residual_value_is_the_hand_advantage_corrected_and_numpy_agrees():
    from heuristics.reinforce_tactics import advantage
    from heuristics.reinforce_tactics import evaluate as hand
    from heuristics.reinforce_tactics.params import P_SCALE, Weights
    from util.rt_train import hand_q

    m = residual_model(2)
    p = list(L.pack(m))
    w = Weights().vector()
    g, states = random_states("skirmish", 5, 150)
    live = [s for s in states if not s.is_terminal()]
    x = np.array([feats(g, s.words) for s in live])
    q = np.array([advantage(g.g, s.words, w) / w[P_SCALE] for s in live])  # z / scale
    batch = 0.9 * L.value_np(m, x, q)
    moved = 0
    for s, v in zip(live, batch):
        got = L.evaluate(g.g, s.words, p)
        assert got == pytest.approx(v, abs=1e-12)
        moved += abs(got - hand(g.g, s.words, w)) > 1e-3  # the correction changes the value
    assert moved > len(live) // 2
    assert np.allclose(L.value_np(m, x, hand_q(x)), batch / 0.9, atol=1e-6)  # the fit's q, from feature hand


@NEED_NUMBA
def test_residual_evaluate_plain_equals_compiled(tmp_path):
    from base import jit as J

    path = tmp_path / "r.npz"
    L.save(path, residual_model(3))
    p = L.load_values(str(path))
    assert p[L.M_KIND] == L.KIND_RESIDUAL
    C = J.compiled("heuristics.reinforce_tactics.learned")
    pa = np.asarray(p)
    n = 0
    for name in ("beginner", "tower_rush"):
        g, states = random_states(name, 11, 100)
        ga = np.asarray(g.g, np.int64)
        for s in states:
            v = L.evaluate(g.g, s.words, p)
            assert C.evaluate(ga, np.asarray(s.words, np.int64), pa) == pytest.approx(v, abs=1e-12)
            n += 1
    assert n > 100


def test_format_1_files_are_read_as_absolute_and_later_formats_refused(tmp_path):
    m = random_model(9)
    arrays = L.to_file_arrays(m)
    v1 = {k: arrays[k] for k in L.ARRAYS + ("features",)}  # what format 1 wrote
    path = tmp_path / "v1.npz"
    np.savez(path, **v1)
    back = L.read_model(str(path))
    assert back["kind"][0] == L.KIND_ABSOLUTE
    g, states = random_states("beginner", 4, 30)
    p1, p2 = L.load_values(str(path)), list(L.pack(L.read_model(str(_saved(tmp_path, m)))))
    assert all(L.evaluate(g.g, s.words, p1) == L.evaluate(g.g, s.words, p2) for s in states)
    later = dict(arrays, version=np.array([L.FORMAT + 1], np.int32))
    np.savez(tmp_path / "v3.npz", **later)
    with pytest.raises(ValueError, match="format 3; this build reads formats 1 and 2") as exc:
        L.load_values(str(tmp_path / "v3.npz"))
    assert "\n" not in str(exc.value)


def _saved(tmp_path, m) -> object:
    path = tmp_path / "v2.npz"
    L.save(path, m)
    return path


def _damaged(tmp_path, kind: str) -> str:
    path = tmp_path / f"{kind}.npz"
    good = L.to_file_arrays(random_model(7))
    if kind == "missing":
        return str(path)
    if kind == "text":
        path.write_text("not a model\n")
    elif kind == "truncated":
        L.save(path, random_model(7))
        path.write_bytes(path.read_bytes()[:200])
    else:
        if kind == "shape":
            good["w2"] = good["w2"][:-1]
        elif kind == "nan":
            good["w1"][0, 0] = np.nan
        elif kind == "features":
            good["features"] = good["features"][:-1]
        elif kind == "lacks":
            del good["b1"]
        elif kind == "top":
            good["top"] = np.array([2.0], np.float32)
        elif kind == "kind":
            good["kind"] = np.array([5.0], np.float32)
        elif kind == "hand":
            good["hand"] = good["hand"][:-1]
        np.savez(path, **good)
    return str(path)


DAMAGE = ("missing", "text", "truncated", "shape", "nan", "features", "lacks", "top", "kind", "hand")


@pytest.mark.parametrize("kind", DAMAGE)
def test_damaged_weights_are_refused_in_one_line(tmp_path, kind):
    with pytest.raises(ValueError) as exc:
        L.load_values(_damaged(tmp_path, kind))
    assert "\n" not in str(exc.value) and "weights" in str(exc.value)


# --- heuristic=learned in the searches ---------------------------------------------------------
def constant_model(c: float) -> dict:
    """A model whose every non-terminal estimate is ``0.9 * c``."""
    m = L.init_model(4, 1)
    m["w2"] = np.zeros(4)
    m["b2"] = np.array([math.atanh(c)])
    return m


@pytest.mark.parametrize("spec", ("greedy", "naive_mcts", "macro_mcts", "evolution", "mcts:leaf=heuristic"))
@pytest.mark.parametrize("kind", ("missing", "text", "nan"))
def test_searches_refuse_bad_weights_in_one_line(tmp_path, spec, kind):
    from agents.engine.spec import SpecError
    from agents.registry import make

    g = ReinforceTactics(map="beginner")
    with pytest.raises(SpecError) as exc:
        make(f"{spec}{':' if ':' not in spec else ','}heuristic=learned,weights={_damaged(tmp_path, kind)},jit=false", g)
    why = {"missing": "does not exist", "text": "is not a weights .npz", "nan": "non-finite"}[kind]
    assert "\n" not in str(exc.value) and why in str(exc.value) and str(tmp_path) in str(exc.value)


@pytest.mark.parametrize("spec", ("greedy", "naive_mcts", "mcts:leaf=heuristic", "mcts:leaf=rollout"))
def test_searches_refuse_weights_without_learned_and_params_with_it(tmp_path, spec):
    from agents.engine.spec import SpecError
    from agents.registry import make

    g = ReinforceTactics(map="beginner")
    path = tmp_path / "m.npz"
    L.save(path, constant_model(0.3))
    with pytest.raises(SpecError, match="weights= is for"):
        make(f"{spec}{':' if ':' not in spec else ','}weights={path},jit=false", g)
    if spec not in ("greedy", "mcts:leaf=rollout"):  # greedy's weights are its own fields: it has no params text
        with pytest.raises(SpecError, match="not from params"):
            make(f"{spec}{':' if ':' not in spec else ','}heuristic=learned,weights={path},w_gold=2,jit=false", g)


def test_server_refuses_a_weights_path():
    from agents.engine.spec import SpecError
    from agents.registry import make

    with pytest.raises(SpecError, match="cannot name a file"):
        make("naive_mcts:heuristic=learned,weights=/etc/passwd", ReinforceTactics(map="beginner"), server=True)


def test_greedy_scores_with_the_learned_model(tmp_path):
    """A constant model: every sub-action of the first decision scores its constant 0.9 c (the
    planner scores ending the turn by the state where it ends); the hand heuristic's vary."""
    from agents.registry import make

    path = tmp_path / "m.npz"
    L.save(path, constant_model(0.25))
    g = ReinforceTactics(map="beginner")
    agent = make(f"greedy:heuristic=learned,weights={path},jit=false,lookahead=false", g)
    s = g.initial()
    scores = agent.scores(s)
    c = 0.9 * math.tanh(float(np.float32(math.atanh(0.25))))
    assert len(scores) > 5 and all(v == pytest.approx(c, abs=1e-7) for v in scores.values())
    hand = make("greedy:jit=false,lookahead=false", g).scores(s)
    assert hand.keys() == scores.keys() and len({round(v, 9) for v in hand.values()}) > 1


@NEED_NUMBA
def test_greedy_learned_plain_equals_compiled(tmp_path):
    from agents.registry import make

    path = tmp_path / "m.npz"
    L.save(path, random_model(8))
    g, states = random_states("beginner", 25, 120)
    fast = make(f"greedy:heuristic=learned,weights={path}", g)
    fast.warm_up()
    slow = make(f"greedy:heuristic=learned,weights={path},jit=false", g)
    n = 0
    for s in states[::15][:4]:
        if s.is_terminal():
            continue
        a, b = fast.scores(s), slow.scores(s)
        assert fast.info()["jit"] is True and slow.info()["jit"] is False
        assert a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], abs=1e-12) for k in a)
        n += 1
    assert n >= 3


@pytest.mark.parametrize("spec", ("naive_mcts", "macro_mcts", "evolution"))
def test_turn_searches_plan_with_the_learned_model(tmp_path, spec):
    """Plain path, a few evaluations: the turn is legal, and its value is the model's (a
    constant model's reward, not the hand heuristic's)."""
    from agents.registry import make

    path = tmp_path / "m.npz"
    L.save(path, constant_model(0.5))
    g = ReinforceTactics(map="beginner")
    s = g.initial()
    agent = make(f"{spec}:heuristic=learned,weights={path},jit=false,max_iters=4,seed=1", g)
    plan = agent.plan_turn(s, 1e18)
    t = s
    for a in plan:
        assert a in t.legal_actions()
        t = t.apply(a)
        if t.current_player() != s.current_player():
            break
    values = agent.heuristic_values
    assert values[L.M_MAGIC] == L.MAGIC and len(values) == L.params_len(LF.NF, 4)
    hand = make(f"{spec}:jit=false,max_iters=4,seed=1", g)
    hand.plan_turn(s, 1e18)
    assert agent.info()["value"] != pytest.approx(hand.info()["value"], abs=1e-9)


@pytest.mark.slow  # compiles the turn kernels with the model bound in (minutes under load)
@NEED_NUMBA
@pytest.mark.parametrize("spec", ("naive_mcts", "macro_mcts", "evolution"))
def test_turn_searches_learned_compiled_and_plain_plan_the_same(tmp_path, spec):
    from agents.registry import make

    path = tmp_path / "m.npz"
    L.save(path, random_model(9))
    g, states = random_states("skirmish", 4, 60)
    for i, s in enumerate([t for t in states if not t.is_terminal()][::20][:2]):
        agents = [make(f"{spec}:heuristic=learned,weights={path},jit={jit},max_iters=12,seed={i},background_compile=false", g)
                  for jit in ("false", "true")]
        plans = [a.plan_turn(s, 1e18) for a in agents]
        assert plans[0] == plans[1], (spec, i)
        assert agents[1].info()["compiled"] is True and agents[0].info()["compiled"] is False
        assert agents[0].info()["value"] == pytest.approx(agents[1].info()["value"], abs=1e-9)


# --- weights a submission carries inline ---------------------------------------------------------
def test_packed_weights_give_the_file_s_values_and_damage_is_refused(tmp_path):
    """A submission file carries the weights file's bytes packed by base.codec in place of its
    path (agents.submission.embed_files): the same values as the file; a damaged blob, or a
    blob of something other than bytes, is refused in one line."""
    from agents.submission import UsageError, embed_files
    from base import codec

    path = _saved(tmp_path, residual_model(3))
    params = embed_files({"heuristic": "learned", "weights": str(path), "time": 1.0}, "greedy")
    assert params["time"] == 1.0 and codec.is_packed(params["weights"]) and str(path) not in params["weights"]
    assert codec.unpack(params["weights"]) == path.read_bytes()
    assert L.load_values(params["weights"]) == L.load_values(str(path))
    assert embed_files(params, "greedy") == params  # already inline: unchanged
    blob = params["weights"]
    for bad in (blob[:-8], blob[:40] + ("A" if blob[40] != "A" else "B") + blob[41:], codec.pack([1, 2])):
        with pytest.raises(ValueError) as exc:
            L.load_values(bad)
        assert "\n" not in str(exc.value) and "embedded weights" in str(exc.value)
    for where in (tmp_path / "none.npz", tmp_path):  # missing, a folder
        with pytest.raises(UsageError) as err:
            embed_files({"weights": str(where)}, "greedy")
        assert "\n" not in str(err.value) and "cannot embed weights=" in str(err.value)


def test_mcts_leaves_score_with_the_learned_model(tmp_path):
    """Single-move MCTS with heuristic leaves reads the model from weights= (plain path, a few
    simulations): its parameters are the file's, its choice legal, its value not the hand one's."""
    from agents.registry import make

    path = tmp_path / "m.npz"
    L.save(path, constant_model(0.5))
    g = ReinforceTactics(map="beginner")
    s = g.initial()
    agent = make(f"mcts:leaf=heuristic,heuristic=learned,weights={path},jit=false,max_sims=16,seed=1", g)
    assert agent.choose(s, 1e18) in s.legal_actions()
    values = agent.heuristic_values
    assert values[L.M_MAGIC] == L.MAGIC and len(values) == L.params_len(LF.NF, 4)
    hand = make("mcts:leaf=heuristic,jit=false,max_sims=16,seed=1", g)
    hand.choose(s, 1e18)
    assert agent.info()["value"] != pytest.approx(hand.info()["value"], abs=1e-9)
