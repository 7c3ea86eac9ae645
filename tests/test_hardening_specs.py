"""Issue 34, points 4 (specs), 6 and 8: a spec is checked as a whole tree (the agents its
parameters name included: the server's table, time and file rules at every depth), every number
is bounded where it enters (game parameters, duplicate keys), exact solves are refused by a
game's size, and a spec that would fail every game is refused before the first one."""
from __future__ import annotations

import importlib.util
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import registry
from agents.engine.spec import AGENT_PARAMS, MAX_SPEC_DEPTH, SpecError, parse_spec
from base.params import Param
from core.game import parse_param
from core.games import GAME_CLASSES, parse_game


@pytest.fixture(scope="module")
def quixo():
    return parse_game("quixo")


# --- point 4: the server's rules at every depth ---------------------------------------------
NESTED_ESCAPES = [
    "quixo_perfect:fallback=mc_learner:table=/etc/passwd",
    "quixo_perfect:fallback=mc_learner:table=data/quixo_4x4.npz",  # a real file: still no file on a server without data_root
    "quixo_perfect:fallback=alphabeta:tt_bits=26",
    "quixo_perfect:fallback=alphabeta:tt_bits=23",
    "quixo_perfect:fallback=mcts:capacity=15000000",
    "quixo_perfect:fallback=mc_learner:fallback=mcts:capacity=15000000",  # two levels down (a generic fallback)
    "quixo_perfect:fallback=mc_learner:fallback=alphabeta:tt_bits=26",
    "quixo_perfect:fallback=mcts:margin=1000",  # a time beyond the server's longest move
    "quixo_perfect:fallback=quixo_perfect:table=/dev/zero",
    "quixo_perfect:fallback=nosuchagent",
    "quixo_perfect:fallback=mc_learner:fallback=course_minimax",  # not a generic agent: make_generic would refuse mid-game
]


@pytest.mark.parametrize("spec", NESTED_ESCAPES)
def test_a_nested_spec_keeps_the_servers_rules(quixo, spec, tmp_path):
    """Before: make(server=True) checked the outer agent only and built the fallback later,
    unchecked, in a move (tt_bits=26, 15 M nodes, any path reaching np.load)."""
    with pytest.raises(SpecError) as caught:
        registry.make(spec, quixo, server=True)
    assert "\n" not in str(caught.value)
    with pytest.raises(SpecError):
        registry.check_spec_tree(quixo, spec, server=True, data_root=tmp_path)  # a data folder without those files


@pytest.mark.parametrize("spec", ["quixo_perfect", "quixo_perfect:fallback=alphabeta:tt_bits=22",
                                  "quixo_perfect:fallback=mc_learner:fallback=mcts:capacity=2000000"])
def test_a_nested_spec_within_the_bounds_is_built(quixo, spec):
    tree = registry.check_spec_tree(quixo, spec, server=True)
    assert tree.name == "quixo_perfect" and len(tree.nodes()) >= 2  # the default fallback is checked too
    assert registry.make(spec, quixo, server=True).fallback == parse_spec(spec)[1].get("fallback", "alphabeta")


def test_a_trees_table_bytes_count_the_nested_agents(quixo):
    """A server counting one agent's tables missed a fallback's (100 MiB at tt_bits=22)."""
    alone = registry.check_spec_tree(quixo, "alphabeta:tt_bits=22", server=True).table_bytes()
    nested = registry.check_spec_tree(quixo, "quixo_perfect:fallback=alphabeta:tt_bits=22", server=True)
    assert alone >= 24 << 22 and nested.table_bytes() == alone
    deeper = registry.check_spec_tree(quixo, "quixo_perfect:fallback=mc_learner:fallback=mcts:capacity=2000000", server=True)
    assert deeper.table_bytes() == registry.check_spec_tree(quixo, "mcts:capacity=2000000").table_bytes() + \
        registry.check_spec_tree(quixo, "mc_learner:fallback=random").table_bytes()


def test_the_nesting_depth_is_bounded(quixo):
    deep = "quixo_perfect:fallback=" * (MAX_SPEC_DEPTH + 1) + "alphabeta"
    with pytest.raises(SpecError, match="deeper than"):
        registry.check_spec_tree(quixo, deep)
    registry.check_spec_tree(quixo, "quixo_perfect:fallback=" * MAX_SPEC_DEPTH + "alphabeta")
    with pytest.raises(SpecError):  # a client's megabyte of nesting: refused, no RecursionError
        registry.make("quixo_perfect:fallback=" * 50_000 + "random", quixo, server=True)


def test_file_parameters_stay_inside_the_servers_data(quixo, tmp_path):
    """With ``data_root``: a regular file inside it is taken; outside (by path, ``..`` or a
    symlink), a FIFO, a folder or a missing file are refused without opening anything."""
    root = tmp_path / "data"
    root.mkdir()
    table = root / "t.npz"
    table.write_bytes(b"x")
    (root / "up.npz").symlink_to("/etc/passwd")
    (root / "dir.npz").mkdir()
    os.mkfifo(root / "fifo.npz")
    spec = "quixo_perfect:fallback=quixo_perfect:table={}"
    assert registry.check_spec_tree(quixo, spec.format(table), server=True, data_root=root).children
    for bad, why in [("/etc/passwd", "data folder"), (str(root / ".." / "x.npz"), "data folder"),
                     (str(root / "up.npz"), "data folder"), (str(root / "fifo.npz"), "not a regular file"),
                     (str(root / "dir.npz"), "not a regular file"), (str(root / "none.npz"), "does not exist")]:
        with pytest.raises(SpecError, match=why):
            registry.check_spec_tree(quixo, spec.format(bad), server=True, data_root=root)
    with pytest.raises(SpecError, match="cannot name a file"):  # no data_root: no file at all
        registry.check_spec_tree(quixo, spec.format(table), server=True)


TABLE_FIELDS = {"alphabeta": "tt_bits", "mcts": "capacity"}


@settings(max_examples=60, deadline=None)
@given(depth=st.integers(0, MAX_SPEC_DEPTH - 1), agent=st.sampled_from(sorted(TABLE_FIELDS)),
       over=st.integers(1, 10 ** 9), generic=st.booleans())
def test_fuzz_an_oversized_table_at_any_depth_is_refused(quixo, depth, agent, over, generic):
    key = TABLE_FIELDS[agent]
    hi = AGENT_PARAMS[key].server[1]
    outer = "quixo_perfect:fallback=" * depth + ("mc_learner:fallback=" if generic else "quixo_perfect:fallback=")
    with pytest.raises(SpecError, match="on this server"):
        registry.check_spec_tree(quixo, f"{outer}{agent}:{key}={hi + over}", server=True)
    registry.check_spec_tree(quixo, f"{outer}{agent}:{key}={hi}", server=True)
    wider = min(hi + over, AGENT_PARAMS[key].hi)
    registry.check_spec_tree(quixo, f"{outer}{agent}:{key}={wider}")  # a command line's own bounds are wider


TOKENS = ["quixo_perfect", "mc_learner", "alphabeta", "mcts", "random", "course_minimax", "fallback", "table", "tt_bits",
          "capacity", "margin", "seed", "max_depth", "c", "heuristic", ":", "=", ",", "/etc/passwd", "/dev/zero", "..",
          "data/quixo_4x4.npz", "26", "22", "-1", "1e308", "nan", "15000000", "99999999999999999999999999999999", " ", ""]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=24).map("".join))
def test_fuzz_any_spec_text_is_checked_or_refused_in_one_line(quixo, tmp_path_factory, text):
    """Whatever the text, the server's check gives a tree within the server's bounds or a
    SpecError of one line (no other exception, no file outside the data folder opened)."""
    try:
        tree = registry.check_spec_tree(quixo, text, server=True, data_root=tmp_path_factory.getbasetemp())
    except SpecError as exc:
        assert "\n" not in str(exc)
        return
    for node in tree.nodes():
        for key, p in AGENT_PARAMS.items():
            if key in node.kwargs and p.server is not None:
                assert p.server[0] <= node.kwargs[key] <= p.server[1]


# --- point 6: numbers and keys bounded where they enter ---------------------------------------
@pytest.mark.parametrize("spec", ["connectx:rows=6,rows=7", "quixo:size=4, size=5", "reinforce_tactics:seed=1,seed=1"])
def test_a_game_parameter_given_twice_is_refused(spec):
    with pytest.raises(ValueError, match="given twice"):
        parse_game(spec)


@pytest.mark.parametrize("spec", ["mcts:c=1,c=2", "alphabeta:max_depth=3,max_depth=3", "mcts: c=1 , c =1"])
def test_an_agent_parameter_given_twice_is_refused(spec):
    with pytest.raises(SpecError, match="given twice"):
        parse_spec(spec)


@pytest.mark.parametrize("gold", [10 ** 30, 2 ** 63 - 1, 2 ** 63, 10 ** 9 + 1, -1, "1e30"])
def test_reinforce_tactics_gold_is_bounded_at_entry(gold):
    """Before: 10**30 was an OverflowError in maps.initial_state (a 500 on the web) and
    2**63 - 1 was taken, the gold wrapping negative after a turn's income."""
    with pytest.raises(ValueError, match="starting_gold must be an integer from 0 to 1000000000"):
        parse_game("reinforce_tactics").__class__(starting_gold=gold)


def test_the_largest_gold_accepted_stays_positive_through_a_turn():
    from core.reinforce_tactics import ReinforceTactics
    from core.reinforce_tactics.layout import H_GOLD

    hi = ReinforceTactics.PARAMS["starting_gold"].hi
    game = parse_game(f"reinforce_tactics:starting_gold={hi}")
    state = game.initial()
    while state.is_chance_node() or state.current_player() == 0:
        state = state.apply(game.end_turn_action if not state.is_chance_node() else state.chance_outcomes()[0][0])
    gold = [int(w) for w in state.words[H_GOLD:H_GOLD + 2]]
    assert min(gold) >= hi


@pytest.mark.parametrize("spec, key", [("reinforce_tactics:seed=-2", "seed"), ("reinforce_tactics:seed=9223372036854775808", "seed"),
                                       ("reinforce_tactics:episode_steps=1", "episode_steps"),
                                       ("reinforce_tactics:episode_steps=10000000", "episode_steps")])
def test_reinforce_tactics_seed_and_steps_are_bounded(spec, key):
    with pytest.raises(ValueError, match=f"{key} must be an integer from"):
        parse_game(spec)


INT_PARAMS = [(name, key) for name in GAME_CLASSES for key, p in parse_game(name).PARAMS.items() if p.kind is int]


@settings(max_examples=80, deadline=None)
@given(which=st.sampled_from(INT_PARAMS), value=st.one_of(st.integers(-(2 ** 70), 2 ** 70), st.integers().map(str),
                                                          st.sampled_from(["1e30", "nan", "1.5", "", " ", "\u0663", "0x10"])))
def test_fuzz_a_game_number_is_taken_within_its_bounds_or_refused_in_one_line(which, value):
    """Every int parameter of every game: a value is either taken within its declared bounds
    (int64 without bounds of its own) or a ValueError of one line, never another exception."""
    name, key = which
    cls = type(parse_game(name))
    lo, hi = cls.PARAMS[key].bounds or (-(2 ** 63), 2 ** 63 - 1)
    try:
        game = cls(**{key: value})
    except ValueError as exc:
        assert "\n" not in str(exc)
        return
    assert lo <= game.params[key] <= hi


def test_a_game_int_without_bounds_of_its_own_fits_int64():
    x = Param("x", 0)
    assert parse_param(str(2 ** 63 - 1), x, "g") == 2 ** 63 - 1
    for bad in (2 ** 63, -(2 ** 63) - 1, 10 ** 30):
        with pytest.raises(ValueError, match="game 'g': x must be an integer from"):
            parse_param(bad, x, "g")


# --- point 6: exact solves refused by size, on every game ------------------------------------
def _solve(argv, capsys, stdin=""):
    import io
    import sys

    from agents.engine import solve

    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with pytest.raises(SystemExit) as done:
            solve.main(argv)
    finally:
        sys.stdin = old
    return done.value.code, capsys.readouterr().err


@pytest.mark.parametrize("game", ["quixo", "quixo:size=5", "quixo:max_plies=0", "reinforce_tactics",
                                  "quantik:canonical=0"])
def test_solving_a_game_beyond_the_size_bound_is_refused(game, capsys):
    """Before: quixo 5x5 started a search that never ended (Reinforce Tactics alone was refused).
    ConnectX is not among them: its solve front is Pons' solver (book and bounds), which the
    size rule of the generic front does not govern."""
    code, err = _solve(["--game", game, "--no-jit"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--max-nodes" in err


def test_the_size_rule_is_every_games(capsys):
    from agents.engine.exact import too_big

    for name in GAME_CLASSES:
        game = parse_game(name)
        assert (too_big(game) is None) == (game.positions_log10() <= 11)
    for small in ("tictactoe", "quixo:size=4", "quixo:size=3", "quantik", "connect4_count:rows=4,columns=5"):
        assert too_big(parse_game(small)) is None


def test_a_node_limit_lets_a_big_game_be_searched(capsys):
    import io

    from agents.engine import solve
    out, err = io.StringIO(), io.StringIO()
    code = solve.run(io.StringIO("04T\n"), out, err, parse_game("quixo"), False, 10, 256, False, None, 3, "alphabeta",
                     10, False, False, max_nodes=500)
    assert code == 2 and "not solved within 500 nodes" in err.getvalue() and out.getvalue() == ""


# --- point 8: a spec that fails every game is refused before the first -----------------------
def _tournament(argv, tmp_path, capsys):
    from util.arena import tournament

    code = tournament.main([*argv, "--games", "2", "--time", "0.05", "--db", str(tmp_path / "t.db"), "--quiet"])
    return code, capsys.readouterr()


@pytest.fixture
def garbage(tmp_path):
    path = tmp_path / "garbage.npz"
    path.write_bytes(b"PK\x03\x04 not a zip at all" * 8)
    return path


@pytest.mark.parametrize("agent, game", [
    ("mcts:cache=/nonexistent.npz", "connectx"),
    ("mcts:cache={garbage}", "connectx"),
    ("mcts:cache=/dev/null", "connectx"),
    ("perfect:book={garbage}", "connectx"),
    ("quixo_perfect:table={garbage}", "quixo:size=4"),
    ("quixo_perfect:table=/nonexistent.npz", "quixo:size=4"),
    ("mc_learner:table={garbage}", "quixo:size=3"),
    ("ant_colony:cache={garbage}", "connectx"),
    ("perfect:book={garbage}", "tictactoe"),  # the engine's book agent
    ("quixo_perfect:fallback=mc_learner:table=/nonexistent.npz", "quixo"),
])
def test_a_missing_or_damaged_data_file_is_refused_before_any_game(agent, game, garbage, tmp_path, capsys):
    """Before: every game of the agent was a forfeit and the tournament exited 0."""
    code, out = _tournament(["--agents", f"{agent.format(garbage=garbage)},random", "--game", game], tmp_path, capsys)
    assert code == 2, out.out + out.err
    assert len(out.err.strip().splitlines()) == 1 and "Traceback" not in out.err
    assert "moves" not in out.out  # no game report: nothing was played


def test_play_refuses_a_damaged_data_file_before_the_game(garbage, tmp_path, capsys):
    """Before: the game started, and the agent's first move failed on the file."""
    import io

    from util.arena import play

    code = play.main(["--agent", f"mcts:cache={garbage}", "--db", str(tmp_path / "p.db")], io.StringIO("q\n"), io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and "cannot read cache file" in err and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="Ray is installed here")
@pytest.mark.parametrize("command", ["tournament", "tune"])
def test_backend_ray_without_ray_names_what_to_install(command, tmp_path, capsys):
    """Before: a ModuleNotFoundError traceback once the games began."""
    if command == "tournament":
        code, out = _tournament(["--agents", "random,random:seed=1", "--backend", "ray"], tmp_path, capsys)
        err = out.err
    else:
        from util.arena import tune

        code = tune.main(["--agent", "mcts", "--space", "c=float:0.5:2", "--opponents", "random", "--trials", "1", "--games", "2", "--time", "0.05",
                          "--backend", "ray", "--storage", f"sqlite:///{tmp_path / 's.db'}", "--out", str(tmp_path / "b.json")])
        err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "pip install -r requirements-optional.txt" in err and not (tmp_path / "b.json").exists()


@pytest.mark.parametrize("seed", ["-1", str(2 ** 63), "99999999999999999999999"])
def test_the_learners_seed_is_bounded_at_entry(seed, tmp_path, capsys):
    """Before: any int was taken (``type=int``) and reached the compiled self-play's integers."""
    from agents.engine import mc_learner

    with pytest.raises(SystemExit) as done:
        mc_learner.main(["train", "--game", "quixo:size=3", "--episodes", "1", "--out", str(tmp_path / "t.npz"), "--seed", seed])
    err = capsys.readouterr().err
    assert done.value.code == 2 and "--seed" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t.npz").exists()


# --- the web's entries: the same checks, a 400 -----------------------------------------------
@pytest.fixture(scope="module")
def web(tmp_path_factory):
    pytest.importorskip("flask")
    from util.arena.web.app import create_app

    return create_app(db=str(tmp_path_factory.mktemp("web") / "none.sqlite")).test_client()


@pytest.mark.parametrize("body, words", [
    ({"game": "reinforce_tactics", "params": {"starting_gold": 10 ** 30}}, "starting_gold"),  # before: a 500 (OverflowError)
    ({"game": "reinforce_tactics", "params": {"starting_gold": 2 ** 63 - 1}}, "starting_gold"),  # before: gold wrapped negative
    ({"game": "reinforce_tactics", "params": {"seed": -5}}, "seed"),
    ({"game": "quixo", "agent": "quixo_perfect:fallback=mc_learner:table=/etc/passwd"}, "cannot name a file"),
    ({"game": "quixo", "agent": "quixo_perfect:fallback=alphabeta:tt_bits=26"}, "on this server"),
    ({"game": "quixo", "agent": "quixo_perfect:fallback=mcts:capacity=15000000"}, "on this server"),
    ({"game": "tictactoe", "agent": "mcts:c=1,c=2"}, "given twice"),
])
def test_the_web_answers_a_bad_number_or_nested_spec_with_a_400(web, body, words):
    r = web.post("/api/sessions", json={"agent": "random", "time": 0.2, "human": 0, **body})
    assert r.status_code == 400 and words in r.get_data(as_text=True)


def test_pimc_s_search_is_a_nested_spec_checked_and_bundled_with_it():
    # pimc builds its search from a spec string: the server's bounds reach it, and a builder
    # bundles its module (the RT file of pimc once could not create expectimax).
    from agents import registry
    from agents.engine.pimc import PIMCAgent
    from core.games import make_game

    game = make_game("kuhn_poker")
    with pytest.raises(SpecError, match="capacity"):
        registry.check_spec_tree(game, "pimc:search=mcts:capacity=15000000", server=True)
    assert registry.spec_modules(game, PIMCAgent, {}) == ["agents.engine.expectimax"]
    assert registry.spec_modules(game, PIMCAgent, {"search": "mcts:c=2"}) == ["agents.engine.mcts"]
