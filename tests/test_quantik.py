"""Quantik's kernels against a plain 2-D oracle (tests/reference_quantik.py), perft counts, both
kernel paths, the symmetry group and canonical keys, and the game's text."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.engine import perft
from agents.quantik.strategy import PAIR
from base.jit import compiled
from core.game import parse_line, play_line
from core.games import make_game
from core.quantik import BOARD_MAPS, SHAPE_PERMS, image, map_plane, symmetry_tables
from core.quantik import kernels as K
from tests.reference_quantik import RefQuantik, lines

PERFT = [64, 3_392, 167_552, 6_776_960]  # published move-sequence counts from the empty board


@pytest.fixture(scope="module")
def game():
    return make_game("quantik")


@pytest.fixture(scope="module")
def ck():
    return compiled(K)


@pytest.fixture(scope="module")
def garr(game):
    return np.asarray(game.g, dtype=np.int64)


def to_action(move: tuple[int, int, int]) -> int:
    r, c, k = move
    return 16 * k + 4 * r + c


def random_state(game, rng: random.Random, plies: int):
    """A non-terminal state after up to ``plies`` random moves (stops before the end)."""
    s = game.initial()
    for _ in range(plies):
        nxt = s.apply(rng.choice(s.legal_actions()))
        if nxt.is_terminal():
            break
        s = nxt
    return s


def compiled_legal(ck, garr, words) -> list[int]:
    out = np.zeros(64, dtype=np.int64)
    n = ck.legal(garr, words, out, 0)
    return sorted(int(a) for a in out[:n])


def check_order(game, ck, garr, s, ref) -> None:
    """The order hook permutes the moves: winning ones, then mirror replies (the opponent's
    paired shape diagonally across the zone), then other moves that open the opponent no win
    on a line through the cell played (shapes not on the board first), then the rest; each
    group in generation order; both paths alike. The groups are computed on the reference."""
    def cell(m):
        return 4 * m[0] + m[1]

    def opens(m):
        after = ref.play(*m)
        for x in after.moves():
            done = after.play(*x)
            for line in lines():
                if (m[0], m[1]) in line and (x[0], x[1]) in line and \
                        len({done.board[r][c][1] for r, c in line if done.board[r][c] is not None}) == 4:
                    return True
        return False

    moves = sorted(ref.moves(), key=to_action)
    them = 1 - ref.to_move
    win = [m for m in moves if ref.play(*m).someone_completed()]
    mirror = [m for m in moves if m not in win and ref.board[(cell(m) ^ 5) >> 2][(cell(m) ^ 5) & 3] == (them, PAIR[m[2]])]
    quiet = [m for m in moves if m not in win and not opens(m)]
    on_board = {p[1] for row in ref.board for p in row if p is not None}
    rest = [m for m in quiet if m not in mirror]
    expected = [to_action(m) for m in win + [m for m in mirror if m in quiet] + [m for m in rest if m[2] not in on_board]
                + [m for m in rest if m[2] in on_board]]
    expected += [a for a in s.legal_actions() if a not in expected]
    n = len(expected)
    plain = [0] * 70
    plain[3:3 + n] = s.legal_actions()
    K.order(game.g, s.words, plain, 3, n, [0.0])
    assert plain[3:3 + n] == expected
    arr = np.zeros(70, dtype=np.int64)
    arr[3:3 + n] = s.legal_actions()
    ck.order(garr, s.words, arr, 3, n, np.zeros(1))
    assert list(arr[3:3 + n]) == expected


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 1))
def test_random_games_agree_with_the_reference_on_both_paths(seed, first):
    game = make_game("quantik", first=first)
    ck, garr = compiled(K), np.asarray(game.g, dtype=np.int64)
    rng = random.Random(seed)
    s, ref = game.initial(), RefQuantik(to_move=first)
    while True:
        moves = ref.moves()
        assert s.current_player() == ref.to_move == ck.to_move(garr, s.words)
        assert s.legal_actions() == sorted(to_action(m) for m in moves)
        assert compiled_legal(ck, garr, s.words) == s.legal_actions()
        assert s.is_terminal() == ref.is_over() == bool(ck.terminal(garr, s.words))
        if ref.is_over():
            winner = ref.winner()
            assert s.returns() == ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
            assert ck.outcome(garr, s.words) == s.returns()[0]
            break
        wins = sorted(to_action(m) for m in moves if ref.play(*m).someone_completed())
        assert bool(K.can_win_now(s.words)) == bool(wins) == bool(ck.can_win_now(s.words))
        assert K.bounds(game.g, s.words) == tuple(ck.bounds(garr, s.words)) == ((1.0, 1.0) if wins else (-1.0, 1.0))
        if len(moves) <= 12:  # the oracle costs a reply scan per move: checked on later plies
            check_order(game, ck, garr, s, ref)
        assert tuple(ck.key(garr, s.words)) == tuple(K.key(game.g, s.words))
        move = rng.choice(moves)
        a = to_action(move)
        nxt = s.apply(a)
        assert tuple(int(w) for w in ck.play(garr, s.words, a)) == nxt.words
        assert bool(K.wins_now(game.g, s.words, a)) == ref.play(*move).someone_completed()
        s, ref = nxt, ref.play(*move)


def test_perft_plain_path(game):
    assert [perft.count(game, d, jit=False) for d in range(1, 4)] == PERFT[:3]


def test_perft_compiled_path(game):
    assert [perft.count(game, d, jit=True) for d in range(1, 5)] == PERFT


def test_reference_perft_depth_two():
    """The oracle counts the same sequences on its own (the published counts check both)."""
    root = RefQuantik()
    assert len(root.moves()) == PERFT[0]
    assert sum(len(root.play(*m).moves()) for m in root.moves()) == PERFT[1]


def test_no_legal_placement_loses_for_the_side_to_move(game):
    """Games that end without a completed line: the player left without a move loses (the
    seed's MCTS credited that win to the wrong player)."""
    rng = random.Random(7)
    seen = 0
    for _ in range(400):
        s = game.initial()
        while not s.is_terminal():
            s = s.apply(rng.choice(s.legal_actions()))
        if K.complete(s.words):
            continue
        ref = RefQuantik()
        for a in s.history:
            ref = ref.play((a & 15) >> 2, a & 3, a >> 4)
        assert not ref.someone_completed() and ref.moves() == []
        seen += 1
        loser = s.current_player()
        assert loser == ref.to_move and s.returns()[loser] == -1.0
    assert seen >= 20  # the case is reached often enough to be tested


def test_symmetries_form_the_group_and_map_actions_consistently(game):
    syms = game.symmetries()
    assert len(syms) == 128 * 24 * 2 and len({tuple(m) for m in BOARD_MAPS}) == 128
    rng = random.Random(3)
    for _ in range(4):
        s = random_state(game, rng, rng.randrange(3, 9))
        for sym in rng.sample(syms, 40):
            img = game.new_state(sym.state(s.words))
            assert sorted(sym.action(a) for a in s.legal_actions()) == img.legal_actions()
            a = rng.choice(s.legal_actions())
            assert game.new_state(sym.state(s.apply(a).words)).words == img.apply(sym.action(a)).words
            assert img.is_terminal() == s.is_terminal()


def test_symmetry_tables_equal_a_construction_from_the_board_maps(game):
    """The vectorised tables of ``g`` against the definition: each board map moves the cells
    one by one (no nibbles, no byte halves, no bit packing), over all 65,536 planes."""
    tables = symmetry_tables()
    assert list(game.g[K.TABLES:]) == list(tables) and all(type(x) is int for x in tables)  # plain path: ints
    nib = [map_plane(v << (4 * row), m) for m in BOARD_MAPS for row in range(4) for v in range(16)]
    assert list(tables[:K.TIES - K.TABLES]) == nib
    planes = np.arange(1 << 16, dtype=np.int64)
    images = np.zeros((K.NUM_BOARD_SYMS, 1 << 16), dtype=np.int64)
    for b, m in enumerate(BOARD_MAPS):
        for cell in range(16):
            images[b] |= ((planes >> cell) & 1) << m[cell]
    least = images == images.min(axis=0)
    ties = np.array(tables[K.TIES - K.TABLES:], dtype=np.int64).reshape(1 << 16, 3)
    for b in range(K.NUM_BOARD_SYMS):
        j, bit = divmod(b, K.TIE_BITS)
        assert np.array_equal((ties[:, j] >> bit) & 1 == 1, least[b]), b
    assert not (ties[:, :2] >> K.TIE_BITS).any() and not (ties[:, 2] >> (128 - 2 * K.TIE_BITS)).any()
    assert least[:, 0].all() and least.sum(axis=0).min() >= 1  # the empty plane: every map is least
    for o in random.Random(8).sample(range(1 << 16), 200) + [1, 0x8000, 0xFFFF]:  # plain Python, no numpy
        img = [map_plane(o, m) for m in BOARD_MAPS]
        want = sum(1 << b for b in range(K.NUM_BOARD_SYMS) if img[b] == min(img))
        assert sum(int(ties[o, j]) << (K.TIE_BITS * j) for j in range(3)) == want, o


def test_canonical_key_is_equal_on_every_image_and_is_an_image(game, ck, garr):
    rng = random.Random(11)
    syms = game.symmetries()
    for plies in (1, 4, 7, 10):
        s = random_state(game, rng, plies)
        images = {sym.state(s.words) for sym in syms}
        keys = {tuple(int(w) for w in ck.key(garr, img)) for img in images}
        assert len(keys) == 1
        (k,) = keys
        assert k in images  # the key is one of the images
        assert tuple(K.key(game.g, s.words)) == k  # plain path agrees


def test_canonical_keys_separate_positions_of_different_orbits(game, ck, garr):
    """Keys equal exactly when positions are images of each other (2-ply positions, whose
    orbits are computed here by brute force over the group)."""
    syms = [sym for sym in game.symmetries() if "colours" not in sym.name]  # keep the side to move
    states = sorted({play_line(game, [a, b]).words for a in range(64) for b in game.initial().apply(a).legal_actions()})
    sample = random.Random(5).sample(states, 30)
    orbits = [{sym.state(w) for sym in syms} for w in sample]
    keys = [tuple(int(x) for x in ck.key(garr, w)) for w in sample]
    pairs_same = 0
    for i in range(len(sample)):
        for j in range(len(sample)):
            assert (keys[i] == keys[j]) == (sample[j] in orbits[i])
            pairs_same += i != j and keys[i] == keys[j]
    assert pairs_same > 0  # some pairs are equivalent: both sides of the claim are exercised


def test_first_moves_collapse_to_one_class_under_the_group_and_three_under_the_square(game, ck, garr):
    """Band-preserving row and column swaps make every cell equivalent: one class of first
    moves under the 128 board maps. The "3 canonical first moves" of design.md section 8
    count classes under the square's 8 rotations and reflections only (corner, edge, centre)."""
    children = [play_line(game, [a]).words for a in range(64)]
    assert len({tuple(ck.key(garr, w)) for w in children}) == 1
    rot = [4 * (3 - (c & 3)) + (c >> 2) for c in range(16)]  # a quarter turn
    flip = [4 * (c >> 2) + 3 - (c & 3) for c in range(16)]
    square = [list(range(16))]
    while len(square) < 8:
        square = list({tuple(m) for m in square + [[r[m[c]] for c in range(16)] for m in square for r in (rot, flip)]})
    assert all(list(m) in BOARD_MAPS for m in square)
    classes = {min(image(w, list(m), p, False) for m in square for p in SHAPE_PERMS) for w in children}
    assert len(classes) == 3


def test_exact_key_and_canonical_parameter(game):
    s = play_line(game, [3, 16 + 12])
    assert K.exact_key(game.g, s.words) == s.words
    exact = make_game("quantik", canonical=0)
    assert tuple(K.key(exact.g, s.words)) == s.words
    assert K.key(game.g, s.words)[4] == 0


def test_first_parameter_sets_the_side_to_move(game):
    assert make_game("quantik", first=1).initial().current_player() == 1
    with pytest.raises(ValueError, match="must be 0 or 1"):
        make_game("quantik", first=2)


def test_text_round_trip_and_errors(game):
    s = game.initial()
    assert all(s.string_to_action(s.action_to_string(a)) == a for a in range(64))
    a = s.string_to_action("Ab2")
    assert s.action_to_string(a) == "Ab2" and s.string_to_action("b2:a") == a and s.string_to_action("cube@b2") == a
    assert parse_line(game, "Ab2 Bc3").words == play_line(game, [a, s.apply(a).string_to_action("Bc3")]).words
    s2 = parse_line(game, "Aa4")
    for text, msg in [("Ee2", "not a shape"), ("Ae5", "not a cell"), ("A", "not a Quantik move"),
                      ("Ba4", "occupied"), ("Ab3", "opponent's A"), ("Ad1", "")]:
        if msg:
            with pytest.raises(ValueError, match=msg):
                s2.string_to_action(text)
        else:
            s2.string_to_action(text)
    s3 = parse_line(game, "Aa4 Bd1 Ab1")
    with pytest.raises(ValueError, match="no A left"):
        s3.apply(s3.string_to_action("Bc2")).string_to_action("Ac3")


# --- the scripted second player (agents/quantik/strategy.py) ----------------------------
REFUTATION = "Aa4 Bb3 Ab4 Ba3 Bc4 Ad3 Cc2 Dd1 Bd4 Ac3 Cd2"  # the plain mirror (A<->B, C<->D) loses: column d


def ref_value(ref: RefQuantik) -> int:
    """Brute-force value for the side to move (+1 win, -1 loss) on the plain reference."""
    if ref.is_over():
        return -1
    return max(-ref_value(ref.play(*m)) for m in ref.moves())


def ref_of(state) -> RefQuantik:
    ref = RefQuantik(to_move=state.game.params["first"])
    for a in state.history:
        ref = ref.play((a & 15) >> 2, a & 3, a >> 4)
    return ref


def test_strategy_agent_is_registered_for_quantik_only(game):
    from agents import registry

    assert "quantik_strategy" in registry.names("quantik") and "quantik_strategy" not in registry.names("tictactoe")
    assert registry.make("quantik_strategy:proof=false", game).proof is False


def test_plain_mirror_reply_is_always_legal_and_loses_to_the_column_line(game):
    from agents.quantik.strategy import QuantikStrategyAgent

    agent = QuantikStrategyAgent(game=game, proof=False)
    rng = random.Random(2)
    for _ in range(200):
        s = game.initial()
        while not s.is_terminal():
            s = s.apply(rng.choice(s.legal_actions()))
            if s.is_terminal():
                break
            a = agent.choose(s, time.perf_counter() + 10)
            assert agent.info()["rule"] in ("win", "mirror")  # never without a mirror reply
            s = s.apply(a)
    toks = REFUTATION.split()
    s = game.initial()
    for i, tok in enumerate(toks):
        if i % 2:
            assert s.action_to_string(agent.choose(s, time.perf_counter() + 10)) == tok
        s = s.apply(s.string_to_action(tok))
    assert s.is_terminal() and s.returns()[0] == 1.0  # the first player completed column d


def test_proven_strategy_leaves_the_losing_mirror_for_a_proven_win(game):
    """Where the mirror (Ac3) loses at once, the solver-backed strategy plays a win, checked by
    brute force on the plain reference."""
    from agents.quantik.strategy import QuantikStrategyAgent

    s = parse_line(game, " ".join(REFUTATION.split()[:9]))
    agent = QuantikStrategyAgent(game=game, compiled=False)
    a = agent.choose(s, time.perf_counter() + 120)
    assert s.action_to_string(a) != "Ac3" and agent.info()["rule"] == "solver"
    assert ref_value(ref_of(s.apply(a))) == -1  # the first player, to move, is lost
    assert ref_value(ref_of(s.apply(s.string_to_action("Ac3")))) == 1


@pytest.mark.slow
@pytest.mark.parametrize("opponent,games,seconds", [("random", 20, 5.0), ("alphabeta", 4, 0.3), ("perfect", 2, 5.0)])
def test_every_first_player_loses_to_the_proven_strategy(game, opponent, games, seconds):
    from agents import registry
    from agents.quantik.strategy import QuantikStrategyAgent

    second = QuantikStrategyAgent(game=game)
    for i in range(games):
        first = registry.make(f"random:seed={i}" if opponent == "random" else opponent, game)
        s = game.initial()
        while not s.is_terminal():
            player = first if s.current_player() == 0 else second
            s = s.apply(player.choose(s, time.perf_counter() + seconds))
        assert s.returns() == (-1.0, 1.0), f"game {i} against {opponent}: {[s.action_to_string(a) for a in s.history]}"


@pytest.mark.slow
def test_proven_strategy_wins_after_every_first_player_line_of_three_moves(game):
    """Every first-player line of three moves from Aa4 (any first move is an image of Aa4
    under the board maps and the relabellings keeping the pairing, which commute with the
    mirror), each answered by the strategy: the position after its answer is proven lost for
    the first player."""
    from agents.engine.solver import Solver
    from agents.quantik.strategy import QuantikStrategyAgent

    agent, check = QuantikStrategyAgent(game=game), Solver(game)
    lines = [parse_line(game, "Aa4")]
    for depth in range(3):
        answered = []
        for s in lines:
            a = agent.choose(s, time.perf_counter() + 60)
            t = s.apply(a)
            assert t.is_terminal() or check.value(t) == -1.0, [s.action_to_string(x) for x in t.history]
            if not t.is_terminal():
                answered.append(t)
        if depth == 2:
            break
        lines = [t.apply(b) for t in answered for b in t.legal_actions()]
        lines = [s for s in lines if not s.is_terminal()]


def test_values_for_the_side_to_move_are_kept_by_every_kind_of_symmetry(game):
    """Brute-force values (plain reference) of positions and of their images under board
    maps, relabellings and the colour swap (which swaps the side to move too) are equal: what
    lets a table keyed by the canonical key store values for the side to move."""
    rng = random.Random(17)
    syms = game.symmetries()
    checked = 0
    while checked < 6:
        s = random_state(game, rng, 10)
        if len(s.history) < 10:
            continue
        v = ref_value(ref_of(s))
        for sym in rng.sample(syms, 3) + [syms[-1]]:  # the last one swaps colours
            img = sym.state(s.words)
            ref = RefQuantik(to_move=img[4])
            for cell in range(16):
                for k in range(4):
                    for colour in (0, 1):
                        if (img[k] >> (cell + 16 * colour)) & 1:
                            ref.board[cell >> 2][cell & 3] = (colour, k)
            assert ref_value(ref) == v
        checked += 1


def test_order_hook_on_early_positions_where_new_shapes_come_first(game, ck, garr):
    rng = random.Random(23)
    for plies in (1, 2, 3):
        s = random_state(game, rng, plies)
        check_order(game, ck, garr, s, ref_of(s))
