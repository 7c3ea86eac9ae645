"""The opening book (``agents/engine/opening_book.py``) and Quantik's shipped book
(``data/opening_book_quantik.npz``): classes counted independently (orbit sizes add up to the
distinct positions), the file re-solved on a seeded sample, actions mapped through every one of
the 6,144 symmetries, and ``perfect`` keeping every won book position won.

The compiled solver is used where solving is heavy (one numba compile for the module); the
plain path solves Quantik's empty board and builds and checks a tic-tac-toe book. The generic
frame search (trying every symmetry) is checked against Quantik's fast hook.
"""
from __future__ import annotations

import random
import time

import pytest

from agents import registry
from agents.engine.opening_book import BookSolverAgent, OpeningBook, build, classes, default_path, frame
from agents.engine.solver import Solver
from core.game import play_line
from core.games import make_game


@pytest.fixture(scope="module")
def game():
    return make_game("quantik")


@pytest.fixture(scope="module")
def book(game):
    return OpeningBook.load(default_path(game), game)


@pytest.fixture(scope="module")
def solver(game):
    return Solver(game, tt_bits=20, jit=True)


def test_book_holds_every_class_of_four_pieces(game, book):
    reps = classes(game, 4)
    assert book.plies == 4
    assert set(book.entries) == {s.key() for s in reps}
    per_ply = [sum(1 for s in reps if len(s.history) == n) for n in range(5)]
    assert per_ply == [1, 1, 7, 70, 901] and len(book.entries) == 980
    assert book.entries[game.initial().key()][0] == -1.0  # the second player wins


def orbit_size(game, state) -> int:
    """Images with the same side to move (a colour swap gives the game where the other starts)."""
    return len({w for w in (sym.state(state.words) for sym in game.symmetries()) if w[4] == state.words[4]})


def test_class_count_by_orbits(game):
    """Independent of canonical keys: the orbits of the representatives (images under all
    6,144 symmetries) cover every distinct position of 1 and 2 pieces exactly once."""
    level = {game.initial().words: game.initial()}
    reps = classes(game, 2)
    for n in (1, 2):
        level = {t.words: t for s in level.values() for t in (s.apply(a) for a in s.legal_actions())}
        both = [s for s in reps if len(s.history) == n]
        assert sum(orbit_size(game, s) for s in both) == len(level)


@pytest.mark.slow
def test_class_count_by_orbits_three_pieces(game):
    level = {game.initial().words: game.initial()}
    for _ in range(3):
        level = {t.words: t for s in level.values() for t in (s.apply(a) for a in s.legal_actions())}
    three = [s for s in classes(game, 3) if len(s.history) == 3]
    assert sum(orbit_size(game, s) for s in three) == len(level)


def check_entries(book, solver, states) -> None:
    for s in states:
        values = solver.action_values(s)
        top = max(values.values())
        value, actions = book.lookup(s)
        assert value == top
        assert sorted(actions) == sorted(a for a, v in values.items() if v == top)


def test_book_agrees_with_the_solver_on_a_sample(game, book, solver):
    """Every action of four seeded 3-piece and four 4-piece classes re-solved (compiled), the values of the
    empty board and the 1-piece class, and the empty board on the plain path."""
    reps = classes(game, 4)
    check_entries(book, solver, random.Random(13).sample(reps[9:79], 4) + random.Random(14).sample(reps[79:], 4))
    for s in reps[:2]:
        assert solver.value(s) == book.lookup(s)[0]
    assert Solver(game, tt_bits=16, jit=False).value(reps[0]) == book.lookup(reps[0])[0] == -1.0


@pytest.mark.slow
def test_whole_book_re_solved(game, book, solver):
    check_entries(book, solver, classes(game, 4))


@pytest.mark.parametrize("line", [[0, 21, 34], pytest.param([0, 21], marks=pytest.mark.slow)])
def test_actions_follow_every_symmetry(game, book, line):
    """For every symmetry σ: the book's actions at σ(s) are σ of its actions at s."""
    s = play_line(game, line)
    value, actions = book.lookup(s)
    assert actions
    for sym in game.symmetries():
        t = game.new_state(sym.state(s.words))
        assert tuple(frame(game, t).state(t.words)) == t.key()
        v2, a2 = book.lookup(t)
        assert v2 == value
        assert sorted(a2) == sorted(sym.action(a) for a in actions)


def won_book_positions(game, book):
    return [s for s in classes(game, 4) if book.entries[s.key()][0] > 0]


def test_perfect_keeps_every_won_book_position_won(game, book, solver):
    """Every won class of up to 3 pieces and a seeded 150 of the 4-piece ones (all: slow)."""
    won = won_book_positions(game, book)
    assert len(won) == 712
    few = [s for s in won if len(s.history) < 4]
    check_perfect(game, solver, few + random.Random(7).sample(won[len(few):], 150))


@pytest.mark.slow
def test_perfect_keeps_all_won_book_positions_won(game, book, solver):
    check_perfect(game, solver, won_book_positions(game, book))


def check_perfect(game, solver, won) -> None:
    agent = registry.make("perfect", game)
    assert isinstance(agent, BookSolverAgent) and agent._book is not None
    rng = random.Random(5)
    for s in won:
        s = game.new_state(rng.choice(game.symmetries()).state(s.words))  # not the stored frame
        t0 = time.perf_counter()
        a = agent.choose(s, time.perf_counter() + 0.25)
        assert time.perf_counter() - t0 < 0.1 and agent.info()["book"]
        child = s.apply(a)
        assert child.is_terminal() or solver.value(child) < 0


def test_damaged_or_foreign_book_is_refused(game, book, tmp_path):
    bad = tmp_path / "b.npz"
    bad.write_bytes(b"not a book")
    with pytest.raises(ValueError, match="cannot be read"):
        OpeningBook.load(bad, game)
    other = make_game("quantik", first=1)
    with pytest.raises(ValueError, match="built for"):
        OpeningBook.load(default_path(game), other)
    assert BookSolverAgent(game=other)._book is None  # auto: no book for other rules
    with pytest.raises(registry.SpecError):
        registry.make(f"perfect:book={bad}", game)


def test_frame_found_without_the_fast_hook(game):
    """A game without ``canonical_symmetry`` gets its frame by trying every symmetry: the same
    key is reached as by Quantik's fast hook, on seeded random positions."""
    class Slow(type(game)):
        canonical_symmetry = None

    slow = Slow()
    rng = random.Random(3)
    for _ in range(6):
        s = slow.initial()
        for _ in range(rng.randrange(1, 6)):
            s = s.apply(rng.choice(s.legal_actions()))
        fast = game.new_state(s.words)
        assert tuple(frame(slow, s).state(s.words)) == s.key() == tuple(frame(game, fast).state(s.words))


def test_generic_book_plain_path(tmp_path):
    """Tic-tac-toe (exact keys), built on the plain path (Quantik's file is the compiled
    path's): survives a save and load, and every stored action keeps the position's value."""
    ttt = make_game("tictactoe")
    plain = build(ttt, 2, jit=False, progress=False)
    assert len(plain.entries) == 1 + 9 + 72
    path = tmp_path / "ttt.npz"
    plain.save(path)
    loaded = OpeningBook.load(path, ttt)
    assert loaded.entries == plain.entries
    sv = Solver(ttt, jit=False)
    for s in classes(ttt, 2):
        value, actions = loaded.lookup(s)
        assert value == sv.value(s) and actions
        for a in actions:
            child = s.apply(a)
            w = child.returns()[s.current_player()] if child.is_terminal() else -sv.value(child)
            assert w == value


def test_a_book_move_prepares_the_compiled_solver(game, monkeypatch):
    """A book move asks the compile gate (compile in place with background_compile=false, else
    start the thread without waiting), so that the first move out of the book does not pay
    numba's compile in its time (a 54 s move at 0.25 s did, the arena's warm-up positions being
    all in the book)."""
    import base.jit

    monkeypatch.setattr(base.jit, "numba_available", lambda: True)
    monkeypatch.setattr("agents.engine.agents.numba_available", lambda: True)
    agent = registry.make("perfect:background_compile=false", game)
    calls = []
    monkeypatch.setattr(agent._gate, "admit", lambda deadline, warm_up, before, background, share:
                        calls.append((background, warm_up == agent.warm_up)) or True)
    t0 = time.perf_counter()
    agent.choose(game.initial(), t0 + 0.25)
    assert agent.info()["book"] and calls == [(False, True)]
    assert time.perf_counter() - t0 < 0.1
