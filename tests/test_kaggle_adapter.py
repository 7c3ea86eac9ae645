"""agents.connectx.kaggle and base.clock: the adapter always answers a plain int, legal whenever a legal
column exists (fuzzed with >= 10,000 garbled inputs); its clock, gc handling, agent lifecycle
and fallback rule each have their own test."""
from __future__ import annotations

import gc
import math
import os
import random
import time
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kaggle_environments import make
from kaggle_environments.utils import structify

from agents.connectx.kaggle import KaggleAdapter, fallback_column, kaggle_agent
from base import codec
from base.clock import KAGGLE_ACT_TIMEOUT, ClockPolicy, kaggle_times
from core.connectx import Position, Shape

CONFIG = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2, "timeout": 2, "agentTimeout": 60}


def obs_of(pos: Position, bank: float = 60.0) -> dict:
    return {"board": pos.to_board(), "mark": pos.side_to_move, "remainingOverageTime": bank, "step": pos.ply}


def config_of(shape: Shape, act: float = 2.0) -> dict:
    return {"rows": shape.rows, "columns": shape.columns, "inarow": shape.inarow, "actTimeout": act}


class Recorder:
    """A good agent that records what it saw: deadline, gc state, positions."""

    def __init__(self) -> None:
        self.deadlines: list[float] = []
        self.gc_enabled: list[bool] = []
        self.resets = 0
        self.data = None

    def choose_position(self, position: Position, deadline: float) -> int:
        self.deadlines.append(deadline)
        self.gc_enabled.append(gc.isenabled())
        return position.legal_columns()[-1]

    def reset(self) -> None:
        self.resets += 1

    def use_data(self, data) -> None:
        self.data = data


# --- the clock ------------------------------------------------------------------------------
def test_budget_keeps_the_margin_and_never_plans_on_the_bank_by_default():
    p = ClockPolicy()
    assert p.budget(2.0, 60.0) == pytest.approx(2.0 - p.margin)
    assert p.budget(2.0, 0.0) == pytest.approx(2.0 - p.margin)


def test_overage_per_move_is_capped_by_the_reserve():
    p = ClockPolicy(margin=0.25, overage_per_move=3.0, reserve=15.0)
    assert p.budget(2.0, 60.0) == pytest.approx(1.75 + 3.0)
    assert p.budget(2.0, 16.0) == pytest.approx(1.75 + 1.0)
    assert p.budget(2.0, 15.0) == pytest.approx(1.75)
    assert p.budget(2.0, 3.0) == pytest.approx(1.75)


def test_budget_has_a_floor_and_deadline_is_absolute():
    p = ClockPolicy(margin=0.5, min_budget=0.02)
    assert p.budget(0.1, 0.0) == pytest.approx(0.02)
    assert p.deadline(100.0, 2.0, 60.0) == pytest.approx(101.5)


@pytest.mark.parametrize("field, value", [("margin", -1), ("reserve", math.nan), ("overage_per_move", "1"), ("min_budget", True)])
def test_bad_policy_values_raise(field, value):
    with pytest.raises(ValueError, match=field):
        ClockPolicy(**{field: value})


def test_kaggle_times_reads_act_timeout_and_bank_never_the_obsolete_fields():
    cfg = {"actTimeout": 1.5, "timeout": 8, "agentTimeout": 99}
    assert kaggle_times({"remainingOverageTime": 42}, cfg) == (1.5, 42.0)
    assert kaggle_times(SimpleNamespace(remainingOverageTime=7.5), SimpleNamespace(actTimeout=3)) == (3.0, 7.5)
    assert kaggle_times(structify({"remainingOverageTime": 60}), structify(CONFIG)) == (2.0, 60.0)


@pytest.mark.parametrize("obs, cfg", [(None, None), ({}, {"timeout": 8}), ({"remainingOverageTime": "x"}, {"actTimeout": math.inf}),
                                      ({"remainingOverageTime": True}, {"actTimeout": None}), (5, "cfg")])
def test_kaggle_times_defaults_are_conservative(obs, cfg):
    assert kaggle_times(obs, cfg) == (KAGGLE_ACT_TIMEOUT, 0.0)


def test_negative_times_count_as_zero():
    assert kaggle_times({"remainingOverageTime": -5}, {"actTimeout": -1}) == (0.0, 0.0)


class FakeClock:
    """``time`` for the adapter: ``perf_counter()`` reads ``now``, which the test moves."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def perf_counter(self) -> float:
        return self.now


# --- the adapter's clock, gc and lifecycle --------------------------------------------------
def test_deadline_is_act_timeout_minus_margin_from_the_call(monkeypatch):
    import agents.connectx.kaggle as kaggle_module

    clock = FakeClock()
    monkeypatch.setattr(kaggle_module, "time", clock)
    rec = Recorder()
    adapter = KaggleAdapter(lambda: rec, freeze_gc=False)
    t0 = clock.now
    adapter(obs_of(Position.empty()), config_of(Shape(), act=3.0))
    assert rec.deadlines[0] - t0 == pytest.approx(3.0 - adapter.policy.margin)


def test_first_deadline_counts_from_loading_when_the_timer_could_have_covered_it():
    rec = Recorder()
    loaded = time.perf_counter() - 0.5
    adapter = KaggleAdapter(lambda: rec, started_at=loaded, freeze_gc=False)
    adapter(obs_of(Position.empty(), bank=0.0), CONFIG)  # no bank to pay for the load (see the next test)
    assert rec.deadlines[0] == pytest.approx(loaded + 2.0 - adapter.policy.margin)
    t1 = time.perf_counter()
    adapter(obs_of(Position.from_moves("44")), CONFIG)  # later moves count from the call
    assert rec.deadlines[1] - t1 == pytest.approx(2.0 - adapter.policy.margin, abs=0.05)


@pytest.mark.parametrize("age", [1000.0, 2.5, 1.8])
def test_started_at_older_than_a_move_budget_is_ignored(age):
    # kaggle-environments loads both files when the episode starts: the second player's first
    # call comes an opponent move (here 1.8-2.5 s) after loading, and only the call is timed.
    rec = Recorder()
    adapter = KaggleAdapter(lambda: rec, started_at=time.perf_counter() - age, freeze_gc=False)
    t0 = time.perf_counter()
    adapter(obs_of(Position.from_moves("4")), CONFIG)
    assert rec.deadlines[0] - t0 == pytest.approx(2.0 - adapter.policy.margin, abs=0.05)
    assert adapter.stats["late"] == 0


def test_gc_is_disabled_during_the_move_and_restored_even_after_an_exception():
    class Raiser(Recorder):
        def choose_position(self, position, deadline):
            super().choose_position(position, deadline)
            raise RuntimeError("boom")

    for agent in (Recorder(), Raiser()):
        adapter = KaggleAdapter(lambda: agent, freeze_gc=False, verbose=False)  # noqa: B023 (called within the iteration)
        assert gc.isenabled()
        adapter(obs_of(Position.empty()), CONFIG)
        assert agent.gc_enabled == [False] and gc.isenabled()


def test_gc_stays_disabled_if_the_caller_had_disabled_it():
    adapter = KaggleAdapter(Recorder, freeze_gc=False)
    gc.disable()
    try:
        adapter(obs_of(Position.empty()), CONFIG)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_freeze_gc_freezes_once_after_the_agent_exists():
    adapter = KaggleAdapter(Recorder, freeze_gc=True)
    try:
        adapter(obs_of(Position.empty()), CONFIG)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_factory_is_called_once_and_reset_only_on_a_new_game():
    made = []

    def factory():
        made.append(Recorder())
        return made[-1]

    adapter = KaggleAdapter(factory, freeze_gc=False)
    for moves in ("", "44", "4455", "", "44", "4"):
        adapter(obs_of(Position.from_moves(moves)), CONFIG)
    assert len(made) == 1
    assert made[0].resets == 2  # at the second "" and at "4" (we changed sides)
    assert adapter.stats["games"] == 3


def test_a_failing_factory_is_tried_once_and_the_fast_rule_plays():
    calls = []

    def factory():
        calls.append(1)
        raise RuntimeError("no model")

    adapter = KaggleAdapter(factory, freeze_gc=False, verbose=False)
    pos = Position.from_moves("445")  # mark 2 to move; 1 threatens nothing yet
    for _ in range(3):
        assert adapter(obs_of(pos), CONFIG) == fallback_column(pos)
    assert calls == [1] and adapter.stats["errors"] == 1 and "no model" in adapter.last_error


def test_packed_data_reaches_use_data():
    rec = Recorder()
    data = {"book": np.arange(10, dtype=np.int64), "n": 3}
    adapter = KaggleAdapter(lambda: rec, packed_data=codec.pack(data), freeze_gc=False)
    adapter(obs_of(Position.empty()), CONFIG)
    assert codec.same(rec.data, data)


def test_corrupt_data_is_an_error_and_the_agent_plays_without_it(capsys):
    made: list[Recorder] = []

    def factory():
        made.append(Recorder())
        made[-1].data = "untouched"
        return made[-1]

    blob = codec.pack([1, 2, 3])
    adapter = KaggleAdapter(factory, packed_data=blob[:-8], freeze_gc=False)
    assert adapter(obs_of(Position.empty()), CONFIG) == 6  # the agent's own move, not the fast rule's centre
    assert adapter.agent is made[-1] and made[-1].data is None and len(made[-1].deadlines) == 1
    assert adapter.stats["fallbacks"] == 0 and adapter.stats["errors"] == 1
    assert "[connectx] ERROR embedded data unusable (CodecError" in capsys.readouterr().err


class Picky(Recorder):
    """Refuses the data it is given (as a book with unsorted keys is refused), leaving itself half-set."""

    def use_data(self, data) -> None:
        self.data = "half-set"
        if data is not None:
            raise ValueError("book keys must be sorted and unique")
        self.data = None


def test_data_the_agent_refuses_costs_only_the_data():
    made: list[Picky] = []
    adapter = KaggleAdapter(lambda: made.append(Picky()) or made[-1], packed_data=codec.pack({"keys": [2, 1]}), freeze_gc=False, verbose=False)
    pos = Position.from_moves("44")
    assert adapter(obs_of(pos), CONFIG) == 6 and adapter(obs_of(pos.play(6).play(0)), CONFIG) == 6
    assert len(made) == 2 and adapter.agent is made[1] and made[1].data is None  # a fresh agent, told "no data"
    assert adapter.stats["fallbacks"] == 0 and "plays without it" in adapter.last_error and "sorted" in adapter.last_error


def test_an_agent_that_cannot_play_without_its_data_leaves_the_game_to_the_fast_rule():
    class Needy(Recorder):
        def use_data(self, data) -> None:
            raise ValueError("no data, no play")

    adapter = KaggleAdapter(Needy, packed_data=codec.pack([1]), freeze_gc=False, verbose=False)
    pos = Position.from_moves("445")
    assert adapter(obs_of(pos), CONFIG) == fallback_column(pos)
    assert adapter.agent is None and adapter.stats["fallbacks"] == 1 and "could not create the agent" in adapter.last_error


def test_hard_deadline_is_what_the_bank_holds_less_the_margins():
    policy = ClockPolicy()  # margin 0.25, bank_margin 0.5
    assert policy.latest(10.0, 2.0, 60.0) == pytest.approx(10.0 + 1.75 + 59.5)
    assert policy.latest(10.0, 2.0, 1.0) == pytest.approx(10.0 + 1.75 + 0.5)
    # an empty bank (or less than its margin): never before the ordinary deadline
    assert policy.latest(10.0, 2.0, 0.2) == policy.deadline(10.0, 2.0, 0.2) == pytest.approx(11.75)
    assert policy.latest(0.0, 0.1, 0.0) == policy.deadline(0.0, 0.1, 0.0) == pytest.approx(policy.min_budget)
    with pytest.raises(ValueError):
        ClockPolicy(bank_margin=-0.1)


def test_agents_that_may_overrun_get_the_hard_deadline_before_each_move(monkeypatch):
    import agents.connectx.kaggle as kaggle_module

    clock = FakeClock()
    monkeypatch.setattr(kaggle_module, "time", clock)  # the agent's creation takes no time

    class Overrunner(Recorder):
        def __init__(self) -> None:
            super().__init__()
            self.hard: list[float] = []

        def set_hard_deadline(self, latest: float) -> None:
            self.hard.append(latest)

    agent = Overrunner()
    adapter = KaggleAdapter(lambda: agent, freeze_gc=False)
    pos = Position.from_moves("44")
    before = clock.now
    adapter(obs_of(pos, bank=1.0), CONFIG)
    clock.now += 3.0
    adapter(obs_of(pos.play(6).play(0), bank=30.0), CONFIG)
    assert len(agent.hard) == 2
    assert agent.hard[0] - agent.deadlines[0] == pytest.approx(0.5, abs=1e-9)  # 1 s of bank less its 0.5 s margin
    assert agent.hard[1] - agent.deadlines[1] == pytest.approx(29.5, abs=1e-9)
    assert agent.deadlines == [pytest.approx(before + 1.75), pytest.approx(before + 3.0 + 1.75)]


def test_resumed_gives_the_budget_again_from_when_the_agent_exists_within_the_bank():
    p = ClockPolicy()  # margin 0.25, bank_margin 0.5
    # loading took 0.3 s of a 0.5 s move: 0.1 s (RESUME_SECONDS) from then, from the bank
    assert p.resumed(10.0, 10.3, 0.5, 60.0) == pytest.approx(10.3 + 0.1)
    # a load that leaves that much keeps the ordinary deadline (no bank spent)
    assert p.resumed(10.0, 10.1, 2.0, 60.0) == pytest.approx(11.75)
    assert p.resumed(10.0, 11.8, 2.0, 60.0) == pytest.approx(11.9)
    # a move shorter than that gets its budget
    assert p.resumed(10.0, 10.2, 0.3, 60.0) == pytest.approx(10.25)
    # never past what the bank holds (less its margin) ...
    assert p.resumed(10.0, 12.2, 2.0, 1.0) == pytest.approx(p.latest(10.0, 2.0, 1.0)) == pytest.approx(12.25)
    # ... and with an empty bank, the ordinary deadline: no time is invented
    assert p.resumed(10.0, 12.0, 2.0, 0.0) == pytest.approx(p.deadline(10.0, 2.0, 0.0)) == pytest.approx(11.75)
    # never before the ordinary deadline
    assert p.resumed(10.0, 9.0, 2.0, 60.0) == pytest.approx(11.75)


def test_the_move_that_creates_the_agent_gets_its_budget_after_the_creation(monkeypatch):
    # At actTimeout 0.5 s, loading the file and creating the agent (numba's import, the tables,
    # the book) took the whole first budget: the fast rule played the first move. Now the agent
    # gets 0.1 s from when it exists; later moves count from their call as before.
    import agents.connectx.kaggle as kaggle_module

    clock, rec = FakeClock(), Recorder()
    monkeypatch.setattr(kaggle_module, "time", clock)

    def slow_factory():
        clock.now += 0.3
        return rec

    adapter = KaggleAdapter(slow_factory, freeze_gc=False, verbose=False)
    pos = Position.from_moves("4455")
    config = {**CONFIG, "actTimeout": 0.5}
    start = clock.now
    assert adapter(obs_of(pos), config) == pos.legal_columns()[-1]
    assert rec.deadlines == [pytest.approx(start + 0.3 + 0.1)] and adapter.stats["late"] == 0
    clock.now += 5.0
    later = clock.now
    adapter(obs_of(pos.play(0).play(0)), config)
    assert rec.deadlines[1] == pytest.approx(later + 0.25)


def test_no_time_left_uses_the_fast_rule_without_asking_the_agent(capsys):
    rec = Recorder()

    def slow_factory():
        time.sleep(0.1)
        return rec

    adapter = KaggleAdapter(slow_factory, policy=ClockPolicy(min_budget=0.01), freeze_gc=False)
    pos = Position.from_moves("4455")
    # an empty bank: loading's overrun cannot be paid, and the agent is not asked
    assert adapter(obs_of(pos, bank=0.0), {**CONFIG, "actTimeout": 0.1}) == fallback_column(pos)
    assert rec.deadlines == [] and adapter.stats["late"] == 1
    assert "[connectx] LATE" in capsys.readouterr().err


def test_a_late_move_is_still_played_and_reported(capsys):
    class Sleeper:
        def choose_position(self, position, deadline):
            time.sleep(max(0.0, deadline - time.perf_counter()) + 0.02)
            return 0

    adapter = KaggleAdapter(Sleeper, freeze_gc=False)
    assert adapter(obs_of(Position.empty()), {**CONFIG, "actTimeout": 0.3}) == 0
    assert adapter.stats["late"] == 1 and "after its deadline" in capsys.readouterr().err


@pytest.mark.parametrize("answer", [None, 7, -1, 2.0, True, "3", [3], 0])
def test_bad_answers_are_replaced_by_the_fast_rule(answer):
    pos = Position.from_moves("1111112")  # column 0 (1-based 1) is full
    adapter = KaggleAdapter(lambda: SimpleNamespace(choose_position=lambda p, d: answer), freeze_gc=False, verbose=False)
    col = adapter(obs_of(pos), CONFIG)
    assert type(col) is int and pos.can_play(col) and col == fallback_column(pos)
    assert adapter.stats["errors"] == 1


def test_numpy_integer_answers_become_plain_ints():
    adapter = KaggleAdapter(lambda: SimpleNamespace(choose_position=lambda p, d: np.int64(5)), freeze_gc=False)
    col = adapter(obs_of(Position.empty()), CONFIG)
    assert type(col) is int and col == 5 and adapter.stats["errors"] == 0


def test_a_bug_inside_the_adapter_still_answers_a_legal_int(monkeypatch):
    import agents.connectx.kaggle as ak

    def broken(self):
        raise KeyError("adapter bug")

    monkeypatch.setattr(ak._Game, "position", broken)
    adapter = KaggleAdapter(Recorder, freeze_gc=False, verbose=False)
    board = Position.from_moves("444444").to_board()
    assert adapter({"board": board, "mark": 1}, CONFIG) == 2  # centre first, and column 4 (1-based) is full
    assert adapter.last_error.startswith("adapter failed (KeyError") and gc.isenabled()


def test_a_numba_failure_switches_to_pure_python_and_rebuilds_the_agent(monkeypatch):
    monkeypatch.setenv("CONNECTX_NUMBA", "1")  # restored after the test, whatever the adapter sets
    NumbaError = type("TypingError", (Exception,), {"__module__": "numba.core.errors"})
    made = []

    class NeedsNumba(Recorder):
        def choose_position(self, position, deadline):
            if os.environ.get("CONNECTX_NUMBA") != "0":
                raise NumbaError("cannot type this kernel")
            return super().choose_position(position, deadline)

    def factory():
        made.append(NeedsNumba())
        return made[-1]

    adapter = KaggleAdapter(factory, freeze_gc=False, verbose=False)
    first = adapter(obs_of(Position.empty()), CONFIG)
    assert first == 3 and os.environ["CONNECTX_NUMBA"] == "0"  # the fast rule, then the switch
    second = adapter(obs_of(Position.from_moves("44")), CONFIG)
    assert len(made) == 2 and made[1].deadlines and second == 6  # the rebuilt agent played


def test_other_exceptions_do_not_switch_numba_off(monkeypatch):
    monkeypatch.setenv("CONNECTX_NUMBA", "1")  # restored after the test, whatever the adapter sets

    class Raiser(Recorder):
        def choose_position(self, position, deadline):
            raise RuntimeError("plain bug")

    adapter = KaggleAdapter(Raiser, freeze_gc=False, verbose=False)
    adapter(obs_of(Position.empty()), CONFIG)
    assert os.environ["CONNECTX_NUMBA"] == "1"


# --- the fast rule --------------------------------------------------------------------------
def test_fallback_wins_now():
    assert fallback_column(Position.from_moves("112233")) == 3  # 1-based 4 completes the row


def test_fallback_blocks():
    pos = Position.from_moves("213161")  # O (mark 2) has three in column 1 (1-based); X to move
    assert fallback_column(pos) == 0


def test_fallback_avoids_playing_under_an_opponent_win():
    # O holds columns 1-3 (1-based) of the second row; its winning cell is above the empty centre
    # column 4, so playing there hands it over: the next column from the centre (3) is chosen.
    pos = Position.from_moves("13216273")
    assert not any(pos.is_winning_move(c) for c in pos.legal_columns())
    assert pos.play(3).is_winning_move(3)
    assert fallback_column(pos) == 2


def test_fallback_prefers_the_centre():
    assert fallback_column(Position.empty(Shape(6, 7, 4))) == 3
    assert fallback_column(Position.empty(Shape(5, 4, 3))) == 1


# --- fuzz -----------------------------------------------------------------------------------
GARBAGE = [None, "7", -1, 0, 2.5, 1e300, math.nan, math.inf, True, [], {}, "x", object(), -(10**30)]
CELL_GARBAGE = [3, -1, None, "0", "1", 0.0, 1.0, True, False, [], math.nan, 2.0]
SHAPES = [Shape(6, 7, 4), Shape(5, 4, 3), Shape(7, 9, 5), Shape(10, 10, 5), Shape(1, 5, 2), Shape(4, 1, 3)]


def random_position(rng: random.Random, shape: Shape) -> Position:
    pos = Position.empty(shape)
    for _ in range(rng.randrange(shape.cells + 1)):
        legal = pos.legal_columns()
        if not legal:
            break
        pos = pos.play(rng.choice(legal))
    return pos


def garble(rng: random.Random, obs: dict, cfg: dict) -> tuple:
    """0 to 3 random corruptions of a real observation and configuration, then a random container."""
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        kind = rng.randrange(9)
        target = obs if rng.random() < 0.5 else cfg
        if kind == 0 and target:  # delete a key
            del target[rng.choice(sorted(target))]
        elif kind == 1 and target:  # a key gets garbage
            target[rng.choice(sorted(target))] = rng.choice(GARBAGE)
        elif kind == 2 and isinstance(obs.get("board"), list) and obs["board"]:  # a cell gets garbage
            obs["board"][rng.randrange(len(obs["board"]))] = rng.choice(CELL_GARBAGE + [1, 2, 0])
        elif kind == 3 and isinstance(obs.get("board"), list):  # wrong length
            b = obs["board"]
            obs["board"] = b[: rng.randrange(len(b) + 1)] if rng.random() < 0.5 else b + [0] * rng.randrange(1, 10)
        elif kind == 4 and isinstance(obs.get("board"), list):  # a full board or swapped marks
            b = obs["board"]
            obs["board"] = [rng.choice([1, 2]) for _ in b] if rng.random() < 0.5 else [{1: 2, 2: 1}.get(v, v) if type(v) is int else v for v in b]
        elif kind == 5:  # other containers for the board
            b = obs.get("board")
            shapes = [tuple, lambda x: np.array(x, dtype=object), str, lambda x: dict(enumerate(x)), iter]
            obs["board"] = rng.choice(shapes)(b) if isinstance(b, list) else b
        elif kind == 6:  # times
            obs["remainingOverageTime"] = rng.choice([-5, 0, math.nan, 1e9, "60", None])
            cfg["actTimeout"] = rng.choice([-1, 0, 0.001, math.inf, "2", None, 2])
        elif kind == 7:  # a shape that disagrees with the board
            cfg[rng.choice(["rows", "columns", "inarow"])] = rng.choice([1, 2, 5, 8, 100, 10**9])
        else:
            obs["mark"] = rng.choice([0, 1, 2, 3, "1", None, 1.0])
    wrap = rng.randrange(6)
    if wrap == 0:
        return SimpleNamespace(**obs), SimpleNamespace(**cfg)
    if wrap == 1 and not isinstance(obs.get("board"), dict):  # structify needs str keys
        return structify(obs), structify(cfg)
    if wrap == 2:
        return rng.choice([None, [], "obs", 3, obs]), rng.choice([None, {}, "cfg", cfg])
    return obs, cfg


def field(container, key):
    if isinstance(container, dict):
        return container.get(key)
    return getattr(container, key, None) if isinstance(container, SimpleNamespace) else None


def kaggle_legal(cfg, obs) -> set | None:
    """Kaggle's own test (its interpreter): 0 <= col < columns and board[col] == 0.
    None when the configuration has no int column count (then only the type is checked)."""
    columns = field(cfg, "columns")
    if type(columns) is not int or columns < 1:
        return None
    board = field(obs, "board")
    if not isinstance(board, (list, tuple)):
        return set()
    return {c for c in range(min(columns, len(board))) if type(board[c]) in (int, float, bool) and board[c] == 0}


def make_adapters() -> list[KaggleAdapter]:
    def pick(p, d):
        return p.legal_columns()[0]

    def raises(p, d):
        raise ValueError("bad agent")

    behaviours = [pick, raises, lambda p, d: -1, lambda p, d: None, lambda p, d: np.int32(p.legal_columns()[-1]), lambda p, d: 99]
    return [KaggleAdapter(lambda b=b: SimpleNamespace(choose_position=b), freeze_gc=False, verbose=False) for b in behaviours]


def test_fuzz_ten_thousand_garbled_calls_answer_a_legal_int():
    rng = random.Random(20261122)
    adapters = make_adapters()
    cases = legal_checked = 0
    for i in range(10_500):
        shape = SHAPES[i % len(SHAPES)]
        pos = random_position(rng, shape)
        obs = obs_of(pos, bank=rng.choice([60.0, 0.5]))
        cfg = config_of(shape, act=rng.choice([2.0, 0.05]))
        obs_in, cfg_in = garble(rng, obs, cfg)
        adapter = adapters[i % len(adapters)]
        answer = adapter(obs_in, cfg_in)
        assert type(answer) is int, (i, answer)
        assert not adapter.last_error.startswith("adapter failed"), (i, adapter.last_error)  # no garbage reaches the catch-all
        legal = kaggle_legal(cfg_in, obs_in)
        if legal is not None:
            assert 0 <= answer < field(cfg_in, "columns"), (i, answer)
            if legal:
                assert answer in legal, (i, answer, legal)
                legal_checked += 1
        cases += 1
    assert cases >= 10_000 and legal_checked >= 5_000
    assert gc.isenabled()


any_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 50), st.floats(), st.text(max_size=3)),
    lambda inner: st.one_of(st.lists(inner, max_size=50), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=25,
)
keys = st.sampled_from(["board", "mark", "remainingOverageTime", "rows", "columns", "inarow", "actTimeout", "step"])


@settings(max_examples=200, deadline=None)
@given(obs=st.one_of(any_value, st.dictionaries(keys, any_value)), cfg=st.one_of(any_value, st.dictionaries(keys, any_value)))
def test_arbitrary_values_never_raise(obs, cfg):
    adapter = KaggleAdapter(Recorder, freeze_gc=False, verbose=False)
    answer = adapter(obs, cfg)
    assert type(answer) is int and answer >= 0
    assert not adapter.last_error.startswith("adapter failed"), adapter.last_error


# --- in kaggle-environments ------------------------------------------------------------------
def test_adapter_plays_legal_games_in_kaggle_environments():
    env = make("connectx", debug=False)
    for seats in ((0, 1), (1, 0)):
        fn = kaggle_agent(Recorder)
        players = [fn, "random"] if seats == (0, 1) else ["random", fn]
        steps = env.run(players)
        me = seats.index(0)
        assert steps[-1][me]["status"] == "DONE", steps[-1][me]["status"]
        assert fn.adapter.stats["errors"] == 0 and fn.adapter.stats["moves"] >= 3

