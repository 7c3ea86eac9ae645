"""Opening books for any game of the engine: every class of positions of the first plies, with
its exact value and optimal actions, solved once by :class:`agents.engine.solver.Solver`.

Why: an exact solver proves most positions in milliseconds, but the first plies of some games
take it a large share of a short move on a loaded machine (Quantik: up to a third of a second
for a 2-piece position, so ``perfect`` let won positions go at 0.25 s a move). A book answers
those positions at once.

Layout: one row per class of positions, keyed by the game's transposition ``key`` (canonical
under the game's symmetries when the game gives canonical keys). Actions are stored in the
frame of that key: for a representative ``s`` and the symmetry ``σ`` with ``σ(s) == key(s)``,
action ``a`` is stored as ``σ.action(a)``. To play from any member ``t`` of the class the agent
finds ``τ`` with ``τ(t) == key(t)`` and plays the legal ``b`` with ``τ.action(b)`` stored (so
``b = τ⁻¹(σ(a))``; symmetries keep values). A game may give ``canonical_symmetry(state)`` to find
``τ`` fast (Quantik does); otherwise its :meth:`core.game.Game.symmetries` are tried in turn.

File (``data/opening_book_<game>.npz``, written atomically): ``keys`` (n x words int64),
``values`` (n float64, exact, the side to move's outcome units), ``actions`` (n x m int16, the
optimal actions in the key's frame, -1 padded), ``spec`` (the game spec it was built for: a
book is only used for the same rules) and ``plies``. Build or rebuild it with::

    python -m agents.engine.opening_book --game quantik --plies 4

Quantik's book holds the 980 classes of its first 4 plies (1 + 1 + 7 + 70 + 901): with 3 plies
``perfect`` still let a handed win go at its third move (4 pieces) in 5 of 900 games at 0.25 s.
"""
from __future__ import annotations

import io
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from agents.engine.agents import SolverAgent
from core.game import Game, State, Symmetry

DATA = Path(__file__).resolve().parents[2] / "data"


def default_path(game: Game) -> Path:
    return DATA / f"opening_book_{game.name}.npz"


def state_key(state: State) -> tuple:
    """The game's transposition key of ``state`` (its words when the game has no ``key``)."""
    k = getattr(state.game.kernel_module, "key", None)
    return tuple(int(w) for w in k(state.game.g, state.words)) if k is not None else tuple(state.words)


def frame(game: Game, state: State) -> Symmetry | None:
    """A symmetry taking ``state`` to its key (None: none of the game's symmetries does)."""
    key = state_key(state)
    if key == tuple(state.words):
        return Symmetry("identity", lambda s: s, lambda a: a)
    fast = getattr(game, "canonical_symmetry", None)
    if callable(fast):
        return fast(state)
    for sym in game.symmetries():
        if tuple(sym.state(state.words)) == key:
            return sym
    return None


def classes(game: Game, plies: int) -> list[State]:
    """One representative of every class (key) of non-terminal decision positions reached in
    0..``plies`` plies from the initial state, in order of plies then discovery."""
    level = [game.initial()]
    seen = {state_key(level[0])}
    out = [s for s in level if not s.is_terminal()]
    for _ in range(plies):
        nxt = []
        for s in level:
            for a in s.legal_actions():
                t = s.apply(a)
                k = state_key(t)
                if k not in seen and not t.is_terminal():
                    seen.add(k)
                    nxt.append(t)
        level = nxt
        out.extend(level)
    return out


@dataclass
class OpeningBook:
    """Classes of positions -> (exact value, optimal actions in the key's frame)."""

    game: Game
    plies: int
    entries: dict[tuple, tuple[float, tuple[int, ...]]]

    def lookup(self, state: State) -> tuple[float, list[int]] | None:
        """(value for the side to move, optimal legal actions at ``state``), or None when the
        class is not in the book."""
        hit = self.entries.get(state_key(state))
        if hit is None:
            return None
        sym = frame(self.game, state)
        if sym is None:
            return None
        value, stored = hit
        image = {sym.action(a): a for a in state.legal_actions()}
        actions = [image[c] for c in stored if c in image]
        if len(actions) != len(stored):
            raise ValueError("the opening book does not match the rules: a stored action is not legal here; "
                             "rebuild it (python -m agents.engine.opening_book)")
        return value, actions

    # --- files --------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        import numpy as np

        from base.atomic import write_bytes

        keys = sorted(self.entries)
        width = max((len(self.entries[k][1]) for k in keys), default=1)
        acts = np.full((len(keys), width), -1, dtype=np.int16)
        for i, k in enumerate(keys):
            acts[i, :len(self.entries[k][1])] = self.entries[k][1]
        buf = io.BytesIO()
        np.savez_compressed(buf, keys=np.array(keys, dtype=np.int64).reshape(len(keys), self.game.words),
                            values=np.array([self.entries[k][0] for k in keys], dtype=np.float64), actions=acts,
                            spec=np.array(self.game.spec()), plies=np.array(self.plies, dtype=np.int64))
        write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path, game: Game) -> OpeningBook:
        """The book in ``path``; ValueError when it is damaged or built for other rules."""
        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as z:
                spec, plies = str(z["spec"]), int(z["plies"])
                keys, values, acts = z["keys"], z["values"], z["actions"]
        except Exception as exc:  # a damaged or foreign file: OSError, BadZipFile, EOFError, KeyError, ...
            raise ValueError(f"opening book {path}: cannot be read ({exc}); rebuild it "
                             f"(python -m agents.engine.opening_book --game {game.name})") from None
        if spec != game.spec():
            raise ValueError(f"opening book {path} was built for {spec}, not {game.spec()}")
        if keys.ndim != 2 or keys.shape[1] != game.words or not len(keys) == len(values) == len(acts):
            raise ValueError(f"opening book {path}: arrays of the wrong shape; rebuild it")
        entries = {tuple(int(x) for x in k): (float(v), tuple(int(a) for a in row if a >= 0))
                   for k, v, row in zip(keys, values, acts)}
        return cls(game, plies, entries)


def solve_entry(solver: Any, state: State) -> tuple[float, tuple[int, ...]] | None:
    """(value, optimal actions in the key's frame) of ``state`` by ``solver``."""
    values = solver.action_values(state)
    if values is None:
        return None
    sym = frame(state.game, state)
    if sym is None:
        raise ValueError(f"{state.game.name}: no symmetry takes this position to its key; "
                         "a book needs keys that are images of the state")
    top = max(values.values())
    return top, tuple(sorted(sym.action(a) for a, v in values.items() if v == top))


def build(game: Game, plies: int, jit: bool | None = None, progress: bool = True, threads: int = 1) -> OpeningBook:
    """Solve every class of the first ``plies`` plies (see :func:`classes`); ``threads``: for each
    solve (:class:`agents.engine.solver.Solver`, compiled only)."""
    from tqdm import tqdm

    from agents.engine.solver import Solver

    solver = Solver(game, tt_bits=22, jit=jit, threads=threads)
    entries = {}
    for s in tqdm(classes(game, plies), desc=f"{game.name} book", file=sys.stderr, disable=not progress):
        entry = solve_entry(solver, s)
        if entry is None:  # never: the solver runs with neither deadline nor node limit
            raise RuntimeError(f"{game.name}: the solver gave no value for a book position")
        entries[state_key(s)] = entry
    return OpeningBook(game, plies, entries)


@dataclass
class BookSolverAgent(SolverAgent):
    """The exact solver agent (:class:`agents.engine.agents.SolverAgent`) that first plays from
    the game's opening book when the position is in it (a game-ending optimal action first)."""

    book: str = "auto"  # "auto": data/opening_book_<game>.npz when there is one for these rules; "none"; or a path

    _book: Any = field(default=None, init=False, repr=False)
    games: ClassVar[tuple[str, ...] | None] = None  # every game (a book only where one is built)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.game is None or self.book == "none":
            return
        path = default_path(self.game) if self.book == "auto" else Path(self.book)
        if self.book == "auto" and not path.exists():
            return
        try:
            self._book = OpeningBook.load(path, self.game)
        except ValueError:
            if self.book != "auto":
                raise
            self._book = None  # a book for other rules (e.g. other parameters): solve instead

    def choose(self, state: State, deadline: float) -> int:
        t0 = time.perf_counter()
        hit = self._book.lookup(state) if self._book is not None else None
        if hit is None or not hit[1]:
            return super().choose(state, deadline)
        # The solver's kernel is compiled now (or starts compiling in a thread, without waiting):
        # else the first move out of the book would pay numba's compile (seconds) in its time.
        self._use_jit(time.perf_counter())
        value, actions = hit
        quick = [a for a in actions if state.apply(a).is_terminal()]
        action = (quick or actions)[0]
        self._info = {"action_values": {a: value for a in actions}, "pv": [action], "value": value, "exact": True,
                      "book": True, "nodes": 0, "seconds": time.perf_counter() - t0}
        return action


def main(argv: list[str] | None = None) -> int:
    from base.cli import OneLineParser, check_writable, exit_code, signal_name, stop_on_signals
    from core.games import add_game_arguments, game_from_args

    p = OneLineParser(prog="python -m agents.engine.opening_book", description=__doc__.split("\n\n")[0])
    add_game_arguments(p, default="quantik")
    p.add_argument("--plies", type=int, default=4, help="every class of the first N plies (default 4)")
    p.add_argument("--out", default="", help="the file (default data/opening_book_<game>.npz)")
    p.add_argument("--no-jit", action="store_true", help="plain Python solver (slow; for checking)")
    from agents.engine.solve import add_threads_argument, check_threads

    add_threads_argument(p)
    args = p.parse_args(argv)
    game = game_from_args(p, args, "the exact solver and its books need games without chance")
    check_threads(p, args.threads, game, args.no_jit)
    if not 0 <= args.plies <= 8:
        p.error(f"--plies {args.plies}: give 0 to 8 (the book grows fast with plies)")
    out = Path(args.out) if args.out else default_path(game)
    check_writable(p, "--out", out)
    t0 = time.perf_counter()
    try:
        with stop_on_signals():  # SIGTERM like Ctrl-C
            book = build(game, args.plies, jit=False if args.no_jit else None, threads=args.threads)
    except KeyboardInterrupt as exc:
        print(f"interrupted ({signal_name(exc)}): no book written", file=sys.stderr)
        return exit_code(exc)
    book.save(out)
    wins = sum(1 for v, _ in book.entries.values() if v > 0)
    print(f"{out}: {len(book.entries)} classes of the first {args.plies} plies of {game.spec()} "
          f"({wins} won for the mover), built in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
