"""A heuristic parameter keeps its name from a spec to the kernel (issue 25, point 3).

Every game's heuristics declare their parameters once (``PARAMS``: :class:`base.params.Param`);
a spec names them (``alphabeta:heuristic=lines,w1=2``); the agent turns the names into the
kernel's numbers once (:func:`agents.engine.params.heuristic_values`); the array the compiled
kernel is handed holds the value in the declared slot; the heuristic evaluated with it moves by
what its formula says; the tuner and the web app list the same names and bounds.
"""
from __future__ import annotations

import importlib
import math
import subprocess
import sys
from pathlib import Path

import pytest

from agents import registry
from agents.engine.params import declared, heuristic_array, heuristic_values
from agents.engine.spec import SpecError
from base.jit import numba_available
from base.params import Param, default_lists
from core import games
from core.game import parse_line
from core.games import make_game
from util.arena import tune
from util.arena.web.app import heuristic_params
from util.arena.web.sessions import RequestError, make_agent

ROOT = Path(__file__).resolve().parents[1]
GAMES_WITH_HEURISTICS = [n for n in games.names() if games.game_class(n).heuristics]


# --- the declarations ------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES_WITH_HEURISTICS)
def test_every_heuristic_declares_named_bounded_documented_parameters(name: str) -> None:
    mod = importlib.import_module(games.game_class(name).heuristics)
    assert set(mod.PARAMS) == set(mod.HEURISTICS), name
    for heuristic, params in mod.PARAMS.items():
        assert len({p.name for p in params}) == len(params), (name, heuristic)
        for p in params:
            assert isinstance(p, Param) and p.name.isidentifier(), (name, heuristic, p)
            assert p.lo <= p.default <= p.hi and math.isfinite(p.lo) and math.isfinite(p.hi), (name, heuristic, p)
            assert p.doc.strip() and "\n" not in p.doc, (name, heuristic, p)
    # the positional defaults the searches read are derived from the declaration, not kept apart
    assert mod.DEFAULT_PARAMS == default_lists(mod.PARAMS), name


@pytest.mark.parametrize("name", GAMES_WITH_HEURISTICS)
def test_one_name_means_one_parameter_within_a_game(name: str) -> None:
    """A name two heuristics of a game share has the same bounds in both (a spec's ``power=2``
    means one thing whichever heuristic reads it)."""
    seen: dict[str, tuple[float, float]] = {}
    for params in declared(make_game(name)).values():
        for p in params:
            assert seen.setdefault(p.name, (p.lo, p.hi)) == (p.lo, p.hi), (name, p.name)


# --- one parameter, from a spec to what the kernel sees -----------------------------------------
# (game, spec, heuristic, parameter, value): a depth-first, a chance-node, an MCTS and a turn search
FOLLOWED = [
    ("connect4_count", "alphabeta:heuristic=lines,power=3", "lines", "power", 3.0),
    ("quixo", "alphabeta:heuristic=lines,w3=5", "lines", "w3", 5.0),
    ("einstein", "expectimax:heuristic=race,tempo=0.75", "race", "tempo", 0.75),
    ("connect4_count", "mcts:leaf=heuristic,heuristic=lines,open_weight=0.25", "lines", "open_weight", 0.25),
    ("quixo", "mcts:leaf=mixed,heuristic=lines,top=0.3", "lines", "top", 0.3),
    ("reinforce_tactics", "macro_mcts:w_gold=0.5", "standard", "w_gold", 0.5),
]


def kernel_params(agent, jit: bool):
    """The ``params`` the agent's kernel is handed: a depth-first search's float array (its first
    slots are the heuristic's parameters: ``evaluate(g, s, floats)``), or what a tree search
    passes to its kernels (:func:`agents.engine.params.heuristic_array`)."""
    if hasattr(agent, "kernel_search"):
        return agent.kernel_search(jit).floats
    return heuristic_array(agent, jit)


@pytest.mark.parametrize("game_name, spec, heuristic, key, value", FOLLOWED)
@pytest.mark.parametrize("jit", [False, True])
def test_a_named_parameter_reaches_its_slot_in_the_kernels_array(game_name, spec, heuristic, key, value, jit) -> None:
    if jit and not numba_available():
        pytest.skip("numba not installed")
    game = make_game(game_name)
    params = declared(game)[heuristic]
    slot = [p.name for p in params].index(key)
    agent = registry.make(spec, game)
    seen = [float(x) for x in kernel_params(agent, jit)]
    if jit:
        import numpy as np

        assert isinstance(kernel_params(agent, jit), (tuple, np.ndarray))  # the compiled form, not a list
    expected = [p.default for p in params]
    expected[slot] = value
    assert seen[:len(params)] == expected, (spec, seen)


def test_the_connectx_mcts_leaf_power_reaches_the_engine_by_name() -> None:
    agent = registry.make("mcts:leaf=heuristic,heuristic=bitsquares,power=2.5", make_game("connectx"))
    from core.connectx.shape import Shape

    search = agent.inner.search(Shape()) if hasattr(agent, "inner") else agent.search(Shape())
    assert search.params == "power=2.5"  # the name, not a position
    assert search.heuristic_values == [2.5]
    assert heuristic_array(search, numba_available())[0] == 2.5


def evaluate_with(spec: str, game, state, jit: bool) -> float:
    """The heuristic of ``spec``'s depth-first agent evaluated by its search's bound kernels on
    the very array the search reads."""
    search = registry.make(spec, game).kernel_search(jit)
    return float(search.ns.evaluate(search.g, state.words, search.floats))


def check_formulas(jit: bool) -> None:
    # Connect-4 count, lines: one stone of the opponent's on the board (4 x 5, in a row of 4); each
    # window holding it scores -open_weight * (1 / 3) ** power, so power 3 is a third of power 2.
    game = make_game("connect4_count", rows=4, columns=5)
    state = parse_line(game, "").apply(0)
    v2 = evaluate_with("alphabeta:heuristic=lines,power=2", game, state, jit)
    v3 = evaluate_with("alphabeta:heuristic=lines,power=3", game, state, jit)
    assert v2 < 0 and v3 == pytest.approx(v2 / 3, rel=1e-12)
    # Quixo, lines: after one move the mover has no cube and the opponent one; every line through
    # it scores w0 - w1, the rest 0 (the sum scaled by top / (lines * max |w|) with max |w| = w4):
    # w1 = 2 doubles the score.
    game = make_game("quixo")
    state = parse_line(game, "").apply(parse_line(game, "").legal_actions()[0])
    v1 = evaluate_with("alphabeta:heuristic=lines", game, state, jit)
    v2 = evaluate_with("alphabeta:heuristic=lines,w1=2", game, state, jit)
    assert v1 < 0 and v2 == pytest.approx(2 * v1, rel=1e-12)


def test_the_named_value_changes_the_heuristic_as_its_formula_says() -> None:
    check_formulas(jit=False)


@pytest.mark.slow
def test_the_named_value_changes_the_compiled_heuristic_as_its_formula_says() -> None:
    if not numba_available():
        pytest.skip("numba not installed")
    check_formulas(jit=True)


# --- the forms agree, errors are one line ---------------------------------------------------
def test_positional_and_named_forms_give_the_same_numbers() -> None:
    game = make_game("quixo")
    named = registry.make("alphabeta:heuristic=lines,w3=5,top=0.4", game)._params
    assert named == registry.make("alphabeta:heuristic=lines,params=0/1/4/5/64/0.4", game)._params
    assert named == heuristic_values(game, "lines", "w3=5/top=0.4") == [0.0, 1.0, 4.0, 5.0, 64.0, 0.4]


@pytest.mark.parametrize("spec, words", [
    ("alphabeta:heuristic=lines,w9=1", "agent 'alphabeta' has no parameter 'w9'; valid parameters: "),
    ("alphabeta:heuristic=lines,top=2", "parameter top of heuristic 'lines' must be a number from 0 to 1, got"),
    ("alphabeta:heuristic=lines,w3=x", "parameter w3 must be a finite number"),
    ("alphabeta:heuristic=longest,w3=1", "heuristic 'longest' has no parameter 'w3'; its parameters: (none)"),
    ("alphabeta:heuristic=lines,w3=1,params=1/2/3/4/5/0.5", "by name (w3) or as params=..., not both"),
    ("mcts:leaf=heuristic,heuristic=lines,w3=1e9", "parameter w3 of heuristic 'lines' must be a number from -1e+06 to 1e+06"),
])
def test_a_bad_name_or_value_is_one_clear_line(spec: str, words: str) -> None:
    with pytest.raises(SpecError) as info:
        registry.make(spec, make_game("quixo"))
    message = str(info.value)
    assert words in message and "\n" not in message, message


def test_the_tuner_and_the_web_app_see_the_same_names_and_bounds() -> None:
    for name in GAMES_WITH_HEURISTICS:
        game = make_game(name)
        listed = heuristic_params(type(game))  # what /api/games sends the page
        assert set(listed) == set(declared(game)), name
        for agent in ("alphabeta", "mcts"):
            if agent not in registry.names(name) or name == "connectx" and agent == "mcts":
                continue
            space = tune.spec_parameters(agent, game)
            for params in listed.values():
                for p in params:
                    assert space[p["name"]].bounds == (p["lo"], p["hi"]), (name, agent, p["name"])
    # ConnectX's own agents take the same names as fields, with the same bounds
    connectx = heuristic_params(type(make_game("connectx")))
    assert connectx["bitsquares"][0]["name"] == "power"
    for agent in ("mcts", "alphabeta"):
        space = tune.spec_parameters(agent, make_game("connectx"))
        for params in connectx.values():
            for p in params:
                assert space[p["name"]].bounds == (p["lo"], p["hi"]), (agent, p["name"])


def test_the_tuner_and_the_web_app_refuse_the_same_out_of_bounds_value() -> None:
    game = make_game("quixo")
    with pytest.raises(tune.UsageError, match="top: 0:2 leaves the parameter's bounds 0 to 1"):
        tune.parse_space("top=float:0:2", "alphabeta", game)
    assert [d.name for d in tune.parse_space("w3=float:1:20,top=float:0.1:0.9", "alphabeta", game)] == ["w3", "top"]
    with pytest.raises(RequestError, match="parameter top of heuristic 'lines' must be a number from 0 to 1"):
        make_agent("alphabeta:heuristic=lines,top=2", game)
    assert make_agent("alphabeta:heuristic=lines,top=0.7", game)._params[-1] == 0.7


def test_a_cli_answers_an_unknown_heuristic_parameter_in_one_line_with_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "util.arena.tune", "--game", "quixo", "--agent", "alphabeta",
                           "--space", "w9=float:0:1", "--opponents", "random",
                           "--storage", f"sqlite:///{tmp_path / 't.sqlite'}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "no parameter 'w9'" in lines[0], proc.stderr


@pytest.mark.parametrize("spec, words", [
    ("alphabeta:heuristic=bitsquares,power=9", "parameter power of agent 'alphabeta' must be a number from 0 to 8"),
    ("mcts:heuristic=liberties,power=2", "heuristic 'liberties' takes no parameter power; its parameters: threat"),
    ("ant_colony:heuristic=bitsquares,leaf_power=20", "parameter power of heuristic 'bitsquares' must be a number from 0 to 8"),
])
def test_connectx_fields_are_checked_against_the_same_declaration(spec: str, words: str) -> None:
    with pytest.raises(SpecError) as info:
        registry.make(spec, make_game("connectx"))
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)
