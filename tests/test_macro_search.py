"""The turn searches (macro-move MCTS, naive-sampling MCTS, evolutionary planning) against brute
force over every turn of the toy game Squad (tests/games_squad.py), on both kernel paths, and
their plans on Reinforce Tactics."""
from __future__ import annotations

import random

import pytest

from agents.engine.evolution import EvolutionAgent
from agents.engine.macro_mcts import MacroMCTSAgent
from agents.engine.macro_turns import Turns
from agents.engine.naive_mcts import NaiveMCTSAgent
from agents.engine.turn_plan import likeliest_line
from base.jit import numba_available
from core.game import State
from tests.games_squad import Squad

SEARCHES = {
    "macro_widening": lambda g, **kw: MacroMCTSAgent(game=g, rule="widening", **kw),
    "macro_epsilon": lambda g, **kw: MacroMCTSAgent(game=g, rule="epsilon", **kw),
    "naive": lambda g, **kw: NaiveMCTSAgent(game=g, **kw),
    "evolution": lambda g, **kw: EvolutionAgent(game=g, **kw),
}


def positions(count: int, seed: int = 1) -> list[Squad]:
    """Random lines and unit cells (the same for a seed)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        values = [rng.choice([0, 0, 0, 1, 2, 3, 5, 8, 9]) for _ in range(10)]
        cells = rng.sample(range(10), 6)
        out.append(Squad(values="/".join(map(str, values)), start="/".join(map(str, cells))))
    return out


def after_turn_value(state: State, plan: list[int]) -> float:
    """The mover's heuristic value after playing ``plan`` (a whole turn)."""
    g = state.game
    for a in plan:
        state = state.apply(a)
    assert plan[-1] == g.end_turn_action
    return -g.kernel_module.evaluate(g.g, state.words, [])


def brute_force_best(state: State) -> float:
    """The best value over every turn (every sequence of decisions up to the end of the turn)."""
    g = state.game
    memo: dict = {}

    def best(s: State) -> float:
        if s.words not in memo:
            memo[s.words] = max(-g.kernel_module.evaluate(g.g, s.apply(a).words, []) if a == g.end_turn_action
                                else best(s.apply(a)) for a in s.legal_actions())
        return memo[s.words]

    return best(state)


def test_greedy_turn_misses_the_best_on_the_hard_positions():
    """The toy game needs a search: the first (greedy) sample alone is worse on HARD[:4]."""
    all_positions = positions(12)
    for i in HARD:
        s = all_positions[i].initial()
        greedy = MacroMCTSAgent(game=s.game, jit=False, max_iters=1).plan_turn(s, 1e18)
        assert (after_turn_value(s, greedy) < brute_force_best(s)) == (i != HARD[-1]), i


HARD = (0, 3, 8, 10, 1)  # positions(12) where the greedy turn is not the best (1: where it is)


@pytest.mark.parametrize("name", list(SEARCHES))
def test_search_finds_the_brute_force_best_turn(name):
    all_positions = positions(12)
    for i in HARD:
        g = all_positions[i]
        s = g.initial()
        agent = SEARCHES[name](g, jit=False, max_iters=300, seed=i)
        plan = agent.plan_turn(s, 1e18)
        assert after_turn_value(s, plan) == brute_force_best(s), (name, i, g.spec(), plan)


@pytest.mark.parametrize("name", list(SEARCHES))
def test_search_plays_whole_games_through_choose(name):
    """As an ordinary agent (TurnPlanAgent.choose) every decision is legal to the game's end."""
    g = positions(1, seed=5)[0]
    agents = [SEARCHES[name](g, jit=False, max_iters=40, seed=p) for p in range(2)]
    s = g.initial()
    while not s.is_terminal():
        a = agents[s.current_player()].choose(s, 1e18)
        assert a in s.legal_actions()
        s = s.apply(a)
    assert s.returns()[0] == -s.returns()[1]


@pytest.mark.parametrize("bad", [{"rule": "greedy"}, {"eps_new": 1.5}, {"gamma": 0.0}, {"max_len": 1}])
def test_macro_rejects_bad_parameters(bad):
    with pytest.raises(ValueError):
        MacroMCTSAgent(game=Squad(), **bad)


@pytest.mark.slow
@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("name", list(SEARCHES))
def test_compiled_and_plain_paths_plan_the_same_turns(name):
    for i, g in enumerate(positions(4)):
        s = g.initial()
        plans = [SEARCHES[name](g, jit=jit, max_iters=150, seed=i, background_compile=False).plan_turn(s, 1e18)
                 for jit in (False, True)]
        assert plans[0] == plans[1], (name, i)


# --- Reinforce Tactics ----------------------------------------------------------------------------
def rt_positions(count: int, seed: int = 3) -> list[State]:
    """States at a turn's start after a few random turns on the beginner map (the same for a seed)."""
    from core.reinforce_tactics import ReinforceTactics

    g = ReinforceTactics(map="beginner", episode_steps=60)
    rng = random.Random(seed)
    out = []
    s = g.initial()
    while len(out) < count and not s.is_terminal():
        if not s.is_chance_node() and (not s.history or s.history[-1] == g.end_turn_action):
            out.append(s)
        legal = s.legal_actions()
        end = g.end_turn_action
        s = s.apply(end if end in legal and rng.random() < 0.25 else rng.choice(legal))
    return out


def replays_legally(state: State, plan: list[int]) -> bool:
    """Every entry of ``plan`` is legal when its turn comes (chance: the likeliest outcome) and
    the last ends the turn."""
    g = state.game
    for a in plan:
        state = likeliest_line(state)
        if state.is_terminal():
            return True
        if a not in state.legal_actions():
            return False
        state = state.apply(a)
    return plan[-1] == g.end_turn_action or state.is_terminal()


@pytest.mark.parametrize("name", list(SEARCHES))
def test_reinforce_tactics_plans_are_legal_turns(name):
    acts = 0
    for i, s in enumerate(rt_positions(3)):
        agent = SEARCHES[name](s.game, jit=False, max_iters=12, seed=i)
        plan = agent.plan_turn(s, 1e18)
        assert replays_legally(s, plan), (name, i, plan)
        assert agent.info()["evaluations"] == 12
        labels = agent.plan_labels(s, 1e18)  # the Kaggle agent's list: labels of the same plan
        assert len(labels) == len(plan) and labels[-1] == (("type", "end_turn"),)
        acts += len(plan) - 1
    assert acts > 0  # the heuristic makes recruiting pay: not only "end"


def test_reinforce_tactics_actor_names_units_and_sites():
    from core.reinforce_tactics.layout import A_CREATE, A_END, A_UNIT, UMAX, UNIT_STRIDE

    for s in rt_positions(4):
        km, g = s.game.kernel_module, s.game
        for a in s.legal_actions():
            if a == A_END:
                continue
            u = km.actor(g.g, s.words, a)
            want = (a - A_UNIT) // UNIT_STRIDE if a >= A_UNIT else UMAX + (a - A_CREATE) // 8
            assert u == want and 0 <= u < g.num_actions


@pytest.mark.slow
@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("name", list(SEARCHES))
def test_reinforce_tactics_compiled_and_plain_plan_the_same(name):
    for i, s in enumerate(rt_positions(2)):
        plans = [SEARCHES[name](s.game, jit=jit, max_iters=12, seed=i, background_compile=False).plan_turn(s, 1e18)
                 for jit in (False, True)]
        assert plans[0] == plans[1], (name, i)


@pytest.mark.parametrize("spec", ["macro_mcts:rule=epsilon,eps_new=0.5", "naive_mcts:eps_0=0.5", "evolution:population=8"])
def test_registry_builds_the_searches_from_specs(spec):
    from agents.registry import SpecError, make

    agent = make(spec + ",max_iters=20,jit=false", Squad())
    s = Squad().initial()
    assert s.game.end_turn_action in agent.plan_turn(s, 1e18)
    with pytest.raises(SpecError):
        make(spec.split(":")[0] + ":max_len=1", Squad())


def test_plans_drop_entries_the_turn_would_skip():
    """A search's turn may hold entries the kernels skip (crossover children); the plan handed
    out has none: every entry is legal along the line."""
    s = Squad(start="0/1/4/6/7/9").initial()  # unit 0 at cell 0: stepping left (action 0) is never legal
    agent = MacroMCTSAgent(game=s.game, jit=False)
    turns = Turns(agent, s, agent.kernels(1e18)[0], False)
    assert turns.legal_line((0, 3, 0, 6)) == (3, 6)
    assert turns.legal_line((0, 6, 3)) == (6,)


def junk_plans(state: State, count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Plans a search might hand over: random legal first decisions, then random actions (most
    of them illegal where they come), sometimes the end of the turn."""
    g = state.game
    plans = []
    for _ in range(count):
        plan = [rng.choice(state.legal_actions())]
        plan += [rng.randrange(g.num_actions) for _ in range(rng.randrange(6))]
        plan += [g.end_turn_action] if rng.random() < 0.7 else []
        plans.append(tuple(plan))
    return plans


@pytest.mark.parametrize("where", ["squad", "reinforce_tactics"])
def test_the_kernels_line_of_a_plan_is_the_plain_line(where):
    """``Turns.line`` (the kernels' line a plan is served along) against
    ``TurnPlanAgent.plan_line`` (plain ``State.apply``, its legality check the oracle): the same
    entries and the same states, junk entries dropped."""
    from agents.engine.turn_plan import TurnPlanAgent

    rng = random.Random(5)
    starts = rt_positions(3) if where == "reinforce_tactics" else [p.initial() for p in positions(4)]
    checked = dropped = 0
    for s in starts:
        agent = MacroMCTSAgent(game=s.game, jit=False)
        turns = Turns(agent, s, agent.kernels(1e18)[0], False)
        for plan in junk_plans(s, 6, rng):
            acts, rows = turns.line(plan)
            steps, last = TurnPlanAgent.plan_line(agent, s, plan)
            assert list(acts) == [a for _s, a in steps], (plan, acts)
            assert rows == [st.words for st, _a in steps] + [last.words]
            checked += 1
            dropped += len(plan) > len(acts)
    assert checked > 0 and dropped > 0  # junk was dropped somewhere: the comparison can fail


@pytest.mark.parametrize("name", ["macro_widening", "naive"])
def test_serving_a_planned_turn_runs_no_legal(name, monkeypatch):
    """The turn searches lost on time under load because serving a plan ran Reinforce Tactics'
    plain ``legal`` twice a decision (labelling the plan, then finding each label's action):
    past the first decision of a turn (the one that plans), ``choose`` runs none while the game
    follows the planned line, and plays exactly the plan."""
    import functools

    calls = {"n": 0, "on": False}
    real = State.__dict__["_legal"].func

    def counted(self):
        calls["n"] += calls["on"]
        return real(self)

    counting = functools.cached_property(counted)
    counting.__set_name__(State, "_legal")
    monkeypatch.setattr(State, "_legal", counting)

    served = 0
    for i, s in enumerate(rt_positions(3)):
        agent = SEARCHES[name](s.game, jit=False, max_iters=12, seed=i)
        plan = list(agent.plan_turn(s, 1e18))
        agent.reset()
        got = [agent.choose(s, 1e18)]
        s = likeliest_line(s.apply(got[-1]))
        while not s.is_terminal() and got[-1] != s.game.end_turn_action:
            calls["on"] = True
            got.append(agent.choose(s, 1e18))
            calls["on"] = False
            s = likeliest_line(s.apply(got[-1]))
        assert got == plan, (name, i)
        served += len(got) - 1
    assert calls["n"] == 0 and served > 0
