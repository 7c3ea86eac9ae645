"""The game-generic depth-first searches (agents.engine.negamax, solver, agents, tree) against
brute-force minimax written here on the State API, on tic-tac-toe and the toy games of
tests/engine_toys.py (score differences, a player moving twice, transpositions at different
plies, chance nodes). One compiled binding only (tic-tac-toe, no heuristic) in the default run."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import pytest

from agents.engine import tree
from agents.engine.negamax import WIN_SCALE, Search
from agents.engine.solver import SolveError, Solver
from agents.registry import make
from core.game import play_line
from core.games import make_game
from tests.engine_toys import Coins, evaluate_greedy, evaluate_ttt_lines


# --- the oracle -----------------------------------------------------------------------------------
def mover_outcome(state) -> float:
    r0 = state.returns()[0]
    return r0 if state.current_player() == 0 else -r0


def brute(state, depth, heur=None, params=(1.0,), scale=WIN_SCALE, step=1.0, ply=0):
    """Minimax value for the side to move, by the model of agents/engine/negamax.py's docstring."""
    g = state.game
    if state.is_terminal():
        o = mover_outcome(state)
        return o * scale - step * ply if o > 0 else (o * scale + step * ply if o < 0 else 0.0)
    if depth == 0:
        return 0.0 if heur is None else heur(g.g, state.words, list(params))
    me = state.current_player()
    best = float("-inf")
    for a in state.legal_actions():
        c = state.apply(a)
        if c.is_chance_node():
            v = 0.0 if heur is None else heur(g.g, c.words, list(params))
        elif c.current_player() == me:
            v = brute(c, depth - 1, heur, params, scale, step, ply + 1)
        else:
            v = -brute(c, depth - 1, heur, params, scale, step, ply + 1)
        best = max(best, v)
    return best


def exact_values(state, memo=None) -> float:
    """Game value (outcome for the side to move, no preference), memoised on the words."""
    memo = {} if memo is None else memo
    if state.words in memo:
        return memo[state.words]
    if state.is_terminal():
        v = mover_outcome(state)
    else:
        me = state.current_player()
        v = max((exact_values(c, memo) if c.current_player() == me else -exact_values(c, memo))
                for c in (state.apply(a) for a in state.legal_actions()))
    memo[state.words] = v
    return v


def random_positions(game, count, seed, max_plies=12):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = game.initial()
        for _ in range(rng.randrange(max_plies)):
            if s.is_terminal() or s.is_chance_node():
                break
            s = s.apply(rng.choice(s.legal_actions()))
        if not s.is_terminal() and not s.is_chance_node():
            out.append(s)
    return out


TTT = make_game("tictactoe")


# --- alpha-beta == minimax ----------------------------------------------------------------------
@pytest.mark.parametrize("game,heur,params", [
    (TTT, evaluate_ttt_lines, [1.0]),
    (Coins(n=7, seed=3), evaluate_greedy, [1000.0]),
    (Coins(n=8, seed=5, dice=1), evaluate_greedy, [1000.0]),
])
def test_alphabeta_pvs_table_and_minimax_mode_equal_brute_force_at_every_depth(game, heur, params):
    positions = random_positions(game, 12, seed=11, max_plies=6)
    variants = [dict(pvs=False, use_tt=False), dict(pvs=True, use_tt=False), dict(pvs=False, use_tt=True),
                dict(pvs=True, use_tt=True)]
    searches = [Search(game, heur, params, tt_bits=12, jit=False, ply_cap=8, **v) for v in variants]
    plain = Search(game, heur, params, jit=False, prune=False, use_tt=False, ply_cap=8)
    checked = 0
    for s in positions:
        for depth in range(1, 5):
            want = brute(s, depth, heur, params)
            got = plain.run(s, depth)
            assert got.value == want, (s.words, depth)
            for search in searches:
                r = search.run(s, depth)
                assert r.value == want, (s.words, depth, search.ints[7], search.ints[8])
                assert r.best in s.legal_actions()
            assert searches[0].run(s, depth).nodes <= got.nodes  # plain alpha-beta never searches more
            checked += 1
    assert checked == 48


def test_best_action_of_alphabeta_reaches_the_value():
    game = Coins(n=9, seed=8)
    search = Search(game, evaluate_greedy, [1000.0], jit=False, ply_cap=8)
    for s in random_positions(game, 10, seed=2, max_plies=4):
        r = search.run(s, 4)
        c = s.apply(r.best)
        v = brute(c, 3, evaluate_greedy, [1000.0], ply=1)
        assert (v if c.current_player() == s.current_player() else -v) == r.value


def test_table_never_changes_a_value_across_depths_and_positions():
    # coins reaches one state at different plies (action 3 keeps the move): a stale entry would show.
    game = Coins(n=9, seed=4)
    kept = Search(game, evaluate_greedy, [1000.0], tt_bits=6, jit=False, ply_cap=10)  # tiny: many overwrites
    big = Search(game, evaluate_greedy, [1000.0], tt_bits=14, jit=False, ply_cap=10)
    fresh = Search(game, evaluate_greedy, [1000.0], jit=False, use_tt=False, ply_cap=10)
    for s in random_positions(game, 15, seed=9, max_plies=5):
        for depth in (1, 3, 2, 5, 4, 6):
            want = fresh.run(s, depth).value
            assert kept.run(s, depth).value == want
            assert big.run(s, depth).value == want


def test_chance_children_are_heuristic_leaves_and_flagged():
    game = Coins(n=6, seed=1, dice=1)
    s = game.initial()
    search = Search(game, evaluate_greedy, [1000.0], jit=False, ply_cap=8)
    r = search.run(s, 3)
    assert r.chance and r.cut
    assert r.value == brute(s, 3, evaluate_greedy, [1000.0])
    with pytest.raises(SolveError, match="chance"):
        Solver(game, jit=False).value(s)


@pytest.mark.parametrize("depth", [2, 5, 9])
def test_compiled_and_plain_paths_agree_on_values_actions_and_nodes(depth):
    pytest.importorskip("numba")
    searches = [Search(TTT, None, tt_bits=10, jit=j, ply_cap=10) for j in (False, True)]
    minimax = [Search(TTT, None, jit=j, prune=False, use_tt=False, ply_cap=10) for j in (False, True)]
    for s in random_positions(TTT, 8, seed=depth, max_plies=6):
        a, b = (x.run(s, depth) for x in searches)
        assert (a.value, a.best, a.nodes, a.cut) == (b.value, b.best, b.nodes, b.cut)
        if depth <= 5 or len(s.history) >= 4:  # the brute force on State is slow
            assert a.value == brute(s, depth)
        if depth <= 5:
            c, d = (x.run(s, depth) for x in minimax)
            assert (c.value, c.nodes) == (d.value, d.nodes) and c.value == a.value


def test_deadline_and_node_limit_abort_without_writing_the_table():
    game = Coins(n=14, seed=6)
    search = Search(game, evaluate_greedy, [1000.0], jit=False, ply_cap=16)
    r = search.run(game.initial(), 14, node_limit=500)
    assert r.aborted and r.nodes == 501
    assert search.lookup(game.initial()) is None
    t0 = time.perf_counter_ns()
    r = search.run(game.initial(), 14, deadline_ns=t0 + 50_000_000)
    assert r.aborted and time.perf_counter_ns() - t0 < 1_000_000_000


# --- the exact solver -----------------------------------------------------------------------------
def test_solver_proves_tictactoe_a_draw_and_every_first_move_against_brute_force():
    solver = Solver(TTT, jit=False, max_plies=12)
    s = TTT.initial()
    memo: dict = {}
    assert solver.value(s) == exact_values(s, memo) == 0
    values = solver.action_values(s)
    assert set(values) == set(range(9))
    for a, v in values.items():
        assert v == -exact_values(s.apply(a), memo)


def test_solver_values_and_action_values_match_brute_force_on_random_positions():
    for game in (TTT, Coins(n=8, seed=2), Coins(n=9, seed=7)):
        solver = Solver(game, tt_bits=8, jit=False, max_plies=12)  # small table: entries overwritten
        memo: dict = {}
        for s in random_positions(game, 10, seed=5, max_plies=6):
            assert solver.value(s) == exact_values(s, memo)
            me = s.current_player()
            for a, v in solver.action_values(s).items():
                c = s.apply(a)
                assert v == (exact_values(c, memo) if c.current_player() == me else -exact_values(c, memo))


def test_solver_reports_a_game_longer_than_max_plies():
    with pytest.raises(SolveError, match="max_plies"):
        Solver(TTT, jit=False, max_plies=4).value(TTT.initial())


def test_solver_gives_up_cleanly_at_the_deadline():
    game = Coins(n=16, seed=1)
    solver = Solver(game, jit=False, max_plies=20)
    t0 = time.perf_counter()
    assert solver.value(game.initial(), deadline=t0 + 0.05) is None
    assert time.perf_counter() - t0 < 1.0


def test_a_watched_solve_does_the_search_of_one_call():
    """``slice_seconds`` (the ``solve`` command's way): a solve that outlasts many 5 ms wake-ups
    in a table far too small to keep its early proofs does the search of one call (it starts
    again once, after 0.1 s), where slices that restarted from the table never finished."""
    from core.connectx.pons import PonsConnectX
    from core.connectx.pons_data import pons_lines

    game = PonsConnectX()
    moves, score = pons_lines("L2_R2")[5]
    state = game.initial()
    for ch in moves:
        state = state.apply(int(ch) - 1)
    calls: list[int] = []
    plain = Solver(game, tt_bits=10, jit=False, max_plies=64)
    watched = Solver(game, tt_bits=10, jit=False, max_plies=64, slice_seconds=0.005, on_slice=calls.append)
    assert plain.value(state) == score
    assert watched.value(state, node_limit=2 * plain.nodes) == score
    # The one restart repeats at most the first try's nodes (0.1 s of them: a load-dependent count).
    assert 0 < watched.restart_nodes < plain.nodes
    assert watched.nodes <= plain.nodes + watched.restart_nodes, (watched.nodes, plain.nodes, watched.restart_nodes)
    # Progress came from the watched run, counting up (how many wake-ups fit in it is the clock's
    # and the GIL's: 9 to dozens on this VM, so no count is asserted).
    assert calls and calls == sorted(calls) and calls[-1] <= watched.nodes, calls


# --- agents ---------------------------------------------------------------------------------------
AGENTS = ["alphabeta", "alphabeta:pvs=false,all_values=true", "minimax:max_depth=3", "solver", "perfect"]


@pytest.mark.parametrize("spec", AGENTS)
def test_agents_win_in_one_block_and_play_legal_actions(spec):
    agent = make(spec, TTT)
    win = play_line(TTT, [0, 3, 1, 4])  # X to move: c3 (2) wins
    assert agent.choose(win, time.perf_counter() + 5) == 2
    block = play_line(TTT, [0, 4, 1])  # O to move: must take c3 (2)
    assert agent.choose(block, time.perf_counter() + 5) == 2
    info = agent.info()
    assert info["nodes"] >= 0 and 2 in info["action_values"] and info["pv"][0] == 2
    for s in random_positions(TTT, 10, seed=21, max_plies=8):
        assert agent.choose(s, time.perf_counter() + 5) in s.legal_actions()


def test_alphabeta_agent_proves_tictactoe_and_reports_the_pv():
    agent = make("alphabeta", TTT)
    a = agent.choose(TTT.initial(), time.perf_counter() + 30)
    info = agent.info()
    assert a in range(9) and info["exact"] and info["value"] == 0.0 and info["depth"] == 9
    line = play_line(TTT, info["pv"])
    assert len(info["pv"]) == 9 and line.is_terminal() and line.returns() == (0.0, 0.0)


def test_alphabeta_agent_returns_before_a_short_deadline_on_the_plain_path():
    game = Coins(n=30, seed=3)
    agent = make("alphabeta:heuristic=greedy", game)
    agent._gate.ready = True
    agent.kernel_search(False)  # plain path, whatever numba
    agent._use_jit = lambda deadline: False  # type: ignore[method-assign]
    t0 = time.perf_counter()
    a = agent.choose(game.initial(), t0 + 0.3)
    assert time.perf_counter() - t0 < 0.3 + 0.5 and a in game.initial().legal_actions()
    assert agent.info()["depth"] >= 2


# --- tree export ----------------------------------------------------------------------------------
def check_dot(text):
    assert text.startswith("digraph search {") and text.rstrip().endswith("}")
    declared, edges = set(), []
    for line in text.splitlines()[1:-1]:
        line = line.strip()
        if "->" in line:
            a, b = line.rstrip(";").split(" [")[0].split(" -> ")
            edges.append((a, b))
        elif line.startswith("n") and "[label=" in line:
            declared.add(line.split(" ", 1)[0])
    assert all(a in declared and b in declared for a, b in edges) and len(edges) == len(declared) - 1
    return declared


def walk(node):
    yield node
    for c in node.children:
        yield from walk(c)


def test_tree_values_match_brute_force_and_cut_offs_are_marked():
    game = Coins(n=6, seed=9)
    for s in random_positions(game, 5, seed=4, max_plies=3):
        ab = tree.explore(s, 3, "alphabeta", evaluate_greedy, [1000.0])
        mm = tree.explore(s, 3, "minimax", evaluate_greedy, [1000.0])
        scaled = lambda g, w, p: evaluate_greedy(g, w, p) / WIN_SCALE  # the tree's outcome units
        assert mm.value == brute(s, 3, scaled, [1000.0], scale=1.0, step=0.0)
        assert ab.value == mm.value
        assert not any(n.cut for n in walk(mm))
        assert ab.count() <= mm.count()
        check_dot(tree.to_dot(ab))
        json.dumps(ab.to_dict())
    s = TTT.initial()
    ab = tree.explore(s, 4, "alphabeta")
    cut = [n for n in walk(ab) if n.cut]
    assert cut and all(n.value is None and not n.children for n in cut)
    assert "style=dashed" in tree.to_dot(ab)


def test_tree_minimax_root_value_is_the_brute_force_value_in_outcome_units():
    for s in [p for p in random_positions(TTT, 20, seed=8, max_plies=7) if len(p.history) >= 4][:5]:
        mm = tree.explore(s, 9, "minimax", cap=10_000)
        assert mm.value == exact_values(s)
        ab = tree.explore(s, 9, "alphabeta")
        assert ab.value == mm.value


def test_tree_cap_is_respected_with_a_clear_message(tmp_path):
    with pytest.raises(tree.TreeTooLarge, match="more than 50 nodes"):
        tree.explore(TTT.initial(), 9, cap=50)
    small = tree.explore(TTT.initial(), 2, "minimax", cap=91)
    assert small.count() == 1 + 9 + 72
    path = tmp_path / "t.dot"
    assert tree.write(small, str(path)) == "dot"
    check_dot(path.read_text())
    tree.write(small, str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text())["children"][0]["text"] == "a3"
    if tree.dot_available():
        assert tree.write(small, str(tmp_path / "t.svg")) == "svg" and "<svg" in (tmp_path / "t.svg").read_text()


# --- CLI ------------------------------------------------------------------------------------------
def test_solve_cli_prints_values_and_rejects_bad_input():
    run = lambda args, text: subprocess.run([sys.executable, "-m", "agents.engine.solve", *args], input=text,
                                            capture_output=True, text=True, timeout=120)
    done = run(["--game", "tictactoe", "--no-jit", "--all-moves"], "\nb2\n")
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.split("\t")[:2] == ["-", "0"] and first.count("=0") == 9
    assert second.split("\t")[2].split() == ["a3=0", "b3=-1", "c3=0", "a2=-1", "c2=-1", "a1=0", "b1=-1", "c1=0"]
    bad = run(["--game", "tictactoe", "--no-jit"], "zz\n")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "zz" in bad.stderr
    nogame = run(["--game", "chess"], "")
    assert nogame.returncode == 2 and len(nogame.stderr.strip().splitlines()) == 1


def test_the_solver_command_routes_other_games_to_the_generic_solver():
    """``python -m agents.connectx.solver --game NAME`` (issue 12 point 7): ConnectX keeps its solver,
    every other game goes to agents.engine.solve, with the same line convention."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "agents.connectx.solver", "--game", "tictactoe", "--all-moves"],
                         input="\nb2\n", capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first.split("\t")[1] == "0" and second.startswith("b2\t0\t")
    bad = subprocess.run([sys.executable, "-m", "agents.connectx.solver", "--game", "nope"], input="", capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    cx = subprocess.run([sys.executable, "-m", "agents.connectx.solver", "--game", "connectx", "--weak"], input="4453\n",
                        capture_output=True, text=True, timeout=120)
    assert cx.returncode == 0 and cx.stdout.split() == ["4453", "-1"], cx.stdout + cx.stderr


def test_one_solver_command_reads_connectx_in_pons_notation(capsys, monkeypatch):
    """``python -m agents.engine.solve --game connectx`` is ConnectX's solver command (its front,
    :attr:`core.game.Game.solve_front`: Pons' digits in, scores out, ``--all-moves`` a score per
    column, ``--weak``), and ``python -m agents.connectx.solver`` the same command with that game by
    default: the same output for the same lines, the same one-line refusals."""
    import io

    from agents.connectx import solver as cx
    from agents.engine import solve

    late = "2252576253462244111563365343671351441\n7422341735647741166133573473242566\n"  # Pons' L3_R1: quick

    def answer(main, argv, text=late):
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    for extra, text in (([], late), (["--weak"], late), (["--all-moves"], late), (["--shape", "4x5x3"], "4453\n12\n")):
        generic = answer(solve.main, ["--game", "connectx", *extra], text)
        alias = answer(cx.main, extra, text)
        assert generic == alias and generic[0] == 0, (extra, generic, alias)
    assert answer(cx.main, [])[1].split() == ["2252576253462244111563365343671351441", "-1", "7422341735647741166133573473242566", "1"]
    assert answer(cx.main, ["--all-moves"], "22525762534622441115633653436713514\n")[1].count(" ") == 7  # a score per column
    code, out, err = answer(solve.main, ["--game", "connectx"], "4459\n")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "4459" in err
    with pytest.raises(SystemExit) as stopped:  # the generic options are not ConnectX's
        answer(solve.main, ["--game", "connectx", "--tt-bits", "20"], "")
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and len(err.strip().splitlines()) == 1 and "--tt-bits" in err
    assert answer(cx.main, ["--tt-bits", "20"], "")[0] == 2  # the alias returns the code


def test_every_game_has_a_solver_front():
    """Each registered game's front for the solver command has its two hooks (the generic one
    when the game names none)."""
    from agents.engine import solve
    from core.games import make_game, names

    for name in names():
        front = solve.front_of(make_game(name))
        assert callable(front.solve_arguments) and callable(front.solve_main), name
    assert solve.front_of(make_game("tictactoe")) is solve
    assert solve.front_of(make_game("connectx")).__name__ == "agents.connectx.solver"


@pytest.mark.parametrize("spec", ["tictactoe", "quantik", "connect4_count:rows=3,columns=4,inarow=3"])
def test_the_cheap_optimal_action_has_the_best_value(spec):
    """Solver.optimal (the position's value, then the first action reaching it) picks an action
    whose exact value equals the best one's, on positions of random games."""
    import random

    from agents.engine.solver import Solver
    from core.games import parse_game

    game = parse_game(spec)
    solver = Solver(game, jit=False, tt_bits=16)
    rng = random.Random(7)
    checked = 0
    for _ in range(6):
        state = game.initial()
        for _ply in range(rng.randint(3, 6)):
            if state.is_terminal():
                break
            state = state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        action, value = solver.optimal(state)
        values = solver.action_values(state)
        assert value == max(values.values()) and values[action] == value
        checked += 1
    assert checked >= 3


# --- ConnectX's hooks: Pons' score through the generic exact solver ------------------------
def test_pons_connectx_solves_pons_end_positions_with_their_scores():
    # PonsConnectX (g[5] = 1) makes outcome and expand score Pons' score, so the generic
    # solver's value IS the score of Pons' set (plain path: end positions, few nodes).
    from core.connectx.pons import PonsConnectX
    from tests.pons import PONS

    path = PONS / "Test_L3_R1"
    if not path.exists():
        pytest.skip(f"{path} not found")
    game = PonsConnectX()
    rows = [ln.split() for ln in path.read_text().split("\n") if ln.strip()]
    lines = [r for r in rows if abs(int(r[1])) >= 2][:10] + [r for r in rows if abs(int(r[1])) < 2][:4]
    # scores beyond +-1 (a +-1 outcome would fail), of both signs, and draws
    assert {int(s) > 1 for _, s in lines} == {True, False} and min(int(s) for _, s in lines) < -1
    solver = Solver(game, tt_bits=16, jit=False, max_plies=64)
    for moves, score in lines:
        state = game.initial()
        for ch in moves:
            state = state.apply(int(ch) - 1)
        assert solver.value(state) == int(score), moves
