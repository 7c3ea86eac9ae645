"""The exact solver's kernel for any game whose outcomes are integers: negamax with alpha-beta on
the game's own outcome, null windows that narrow ``[lo, hi]``, a table of bounds, and nothing
else. The shape of Pascal Pons' Connect Four solver (blog.gamesolver.org), written anew and
knowing no game: every trick is a hook of the game's kernels.

- ``expand`` (:mod:`core.kernel_expand`) gives a node's actions best first, or decides it (a
  win at once, a loss to every move, the end): ConnectX's non-losing moves and its order by
  threat cells live there.
- ``bounds`` gives proven bounds for the mover of a node ``expand`` left undecided (ConnectX:
  Pons' score can no longer reach beyond them); the default says nothing.
- ``key`` is the table's key (the state itself by default). An entry serves every node with
  its key, whatever the path and the plies played, so a key may drop only what cannot change
  the value: a game with a ply cap keeps the ply (the key rule of :mod:`core.game`, checked on
  every game by :func:`core.game.key_mismatch` in the tests). A line that reaches
  ``max_plies`` (a game that can cycle with no cap) stops the search (``E_CUT``): nothing it
  found is stored, the solver never guesses.

Values are the mover's outcome (``outcome`` seen from the side to move), so they must be
integers within ``+-MAX_VALUE``; the distance to the end counts only where the game's outcome
says so (e.g. :class:`core.connectx.pons.PonsConnectX`'s score). A window ``(m, m + 1)``
answers "is the value above ``m``?": a result ``<= m`` is an upper bound, ``>= m + 1`` a lower
bound; :func:`run` narrows ``[lo, hi]`` with such windows, pulled toward 0 (Pons' order: the
cheap win/draw/loss questions first).

One int64 array ``mem`` carries everything (numpy compiled, a list plain): the counters and
settings (the slots below), the table, then the per-ply action lists (``ply * stride`` past
``mem[E_BUF]``). One on purpose: numba passes each array argument as a seven-word struct and
reference-counts it (an atomic add and subtract) in every call of the recursive kernel, and
the hooks take it too (three arrays measured 5-10% fewer nodes/s than one on Pons' sets); the
entry points pass it down :func:`base.hints.borrowed` (not reference-counted at all).
The table is far larger than the cache, so a node's probe is a read from memory: compiled, the
node prefetches its own slot before ``expand`` runs and, once ordered, its children's slots,
which then load in parallel (kernel-only vs 4df94ed's ConnectX kernel: 0.93 -> 1.13x nodes/s on
Pons' L1_R1 set, 0.96 -> 1.31x on L2_R2). That costs a key per node and per child, so only
when the game's ``key`` is the state itself or a hook it compiles inline (``hot(inline=True)``,
i.e. cheap: ConnectX's one add; not Quantik's canonical key).
A node asks ``expand`` for its actions unordered, and the game's ``order`` sorts them only
after the table and the bounds failed to settle the node (most nodes of a null-window search
end there). The table: a one-word key ``k`` keeps
``(k // size + 1) << CODE_BITS | code`` at slot ``STATS + k % size`` (slot and quotient give ``k``
back, so a hit is never a collision; ``size`` is a prime above ``2**16``); a longer key keeps
its words then ``code`` in ``words + 1`` slots at its hash. ``code = (v + BIAS) * 2 + lower``
(never 0, the empty slot): ``v`` is a lower bound when ``lower`` is 1, else an upper bound.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents.engine.negamax import FULL, key_words, slot_of
from base.budget import NO_DEADLINE_NS, NO_LIMIT
from base.hints import borrowed, prefetch
from base.hotclock import clock_ns
from base.jit import hot, is_inline
from base.layout import Layout
from core.game import search_constants
from core.kernel_defaults import bounds, key, order, play, to_move
from core.kernel_expand import expand

if TYPE_CHECKING:
    import numpy as np

# ``mem`` layout: the counters and settings (slots below), then the table, then the action buffer.
MEM = Layout("E_", "NODES LIMIT ABORTED DEADLINE CHANCE_SEEN CUT SIZE STRIDE PLY_CAP WORDS BUF PREFETCH TABLE")
(E_NODES, E_LIMIT, E_ABORTED, E_DEADLINE, E_CHANCE_SEEN, E_CUT, E_SIZE, E_STRIDE, E_PLY_CAP, E_WORDS, E_BUF,
 E_PREFETCH, E_TABLE) = MEM.slots
STATS = MEM.size  # the table starts here: a constant offset, free in an index
# The compiled copy for a thread that shares another search's table (:func:`share_table`): its
# table starts at ``mem[E_TABLE]`` (an add per table access); every other copy reads the
# constant STATS (``mem[E_TABLE]`` holds STATS there too).
SHARED = False
# ``expand``'s ``params`` (for the game's ``order``): none in an exact solve. A constant tuple, not an
# argument: each argument of the recursive kernel is copied at every node, and an array costs a
# reference count too (a float64 array here measured 0.66x the positions/s on Pons' L1_R1 set,
# noisy).
NO_PARAMS = (0.0,)
CODE_BITS = 16
CODE_MASK = (1 << CODE_BITS) - 1
BIAS = 1 << 14
MAX_VALUE = BIAS - 1  # values within +-MAX_VALUE fit a code
MIN_SIZE = 1 << 16  # a one-word key's quotient then fits 47 bits: the slot fits an int64
COMPILED = False  # True in the compiled copies (base.jit.COMPILED_FLAG)
# A compiled copy bound to one game's constants (:func:`bind_exact`): ``g`` read from here, a
# compile-time value, not from the argument, so that LLVM folds the board's shape into the
# inlined hooks (ConnectX: the shifts by ``rows + 1``, the centre-order loop over the columns).
CONST_G = False
G = (0,)


@hot(inline=True)
def table_at(mem) -> int:
    """Where the table starts in ``mem``: the constant STATS, or ``mem[E_TABLE]`` in the
    :data:`SHARED` copy."""
    if SHARED:
        return mem[E_TABLE]
    return STATS


@hot(inline=True)
def tt_get(mem, tt: int, k, size: int, words: int) -> int:
    """The code stored for key ``k`` in the table at ``tt``, or 0."""
    if len(k) == 1:
        e = mem[tt + k[0] % size]
        if (e >> CODE_BITS) == k[0] // size + 1:
            return e & CODE_MASK
        return 0
    at = tt + slot_of(k, size) * (words + 1)
    for i in range(words):
        if mem[at + i] != k[i]:
            return 0
    return mem[at + words]


@hot(inline=True)
def tt_prefetch(mem, tt: int, k, size: int, words: int) -> None:
    """Start loading the slot of key ``k`` (see :func:`base.hints.prefetch`)."""
    if len(k) == 1:
        prefetch(mem, tt + k[0] % size)
    else:
        prefetch(mem, tt + slot_of(k, size) * (words + 1))


@hot(inline=True)
def tt_put(mem, tt: int, k, size: int, words: int, code: int) -> None:
    """Always replace: the recent entries are the useful ones. A one-word entry is one aligned
    int64 store (atomic on x86-64 and arm64): a thread sharing the table reads the old entry or
    the new one, never half of each."""
    if len(k) == 1:
        mem[tt + k[0] % size] = ((k[0] // size + 1) << CODE_BITS) | code
        return
    at = tt + slot_of(k, size) * (words + 1)
    for i in range(words):
        mem[at + i] = k[i]
    mem[at + words] = code


@hot(inline=True)
def stop(mem, flag: int) -> int:
    """Abort the search (``flag``: a slot saying why, or ``E_ABORTED`` alone); returns 0."""
    mem[flag] = 1
    mem[E_ABORTED] = 1
    return 0


@hot
def negamax(g, s, ply: int, alpha: int, beta: int, mem) -> int:
    """The value of ``s`` for its mover within ``(alpha, beta)``: a result ``<= alpha`` is an
    upper bound, ``>= beta`` a lower bound, in between exact. Returns 0 with ``mem[E_ABORTED]``
    set when the node limit or the deadline passed, a line reached the ply cap (``E_CUT``) or a
    chance node was met (``E_CHANCE_SEEN``): the result is then meaningless."""
    if CONST_G:
        g = G
    mem[E_NODES] += 1
    if mem[E_NODES] > mem[E_LIMIT] or ((mem[E_NODES] & 1023) == 0 and clock_ns() > mem[E_DEADLINE]):
        return stop(mem, E_ABORTED)
    if ply >= mem[E_PLY_CAP]:
        return stop(mem, E_CUT)
    size = mem[E_SIZE]
    words = mem[E_WORDS]
    tt = table_at(mem)
    if COMPILED and mem[E_PREFETCH] != 0:  # the table read overlaps expand's work
        tt_prefetch(mem, tt, key(g, s), size, words)
    base = mem[E_BUF] + ply * mem[E_STRIDE]
    n, o = expand(g, s, FULL, ply, 0, mem, base, NO_PARAMS)  # unordered: the table may settle s
    if n < 0:
        return int(o)
    # The proven range of s: the game's bounds, then the table's bound; the window shrinks to it.
    low, high = alpha, beta
    lo, hi = bounds(g, s)
    if lo > low:
        low = int(lo)
    if hi < high:
        high = int(hi)
    k = key(g, s)  # an inlined key computed above for the prefetch is computed once (LLVM)
    if low < high:
        code = tt_get(mem, tt, k, size, words)
        if code != 0:
            v = (code >> 1) - BIAS
            if (code & 1) == 1:
                low = max(low, v)
            else:
                high = min(high, v)
    if low >= high:  # settled: fail high, fail low, or the value itself (both bounds meet)
        return high if high <= alpha else low
    alpha, beta = low, high
    if n > 1:
        order(g, s, mem, base, n, NO_PARAMS)
    if COMPILED and mem[E_PREFETCH] != 0:  # the children's slots load in parallel
        for i in range(1, n):
            tt_prefetch(mem, tt, key(g, play(g, s, mem[base + i])), size, words)
    me = to_move(g, s)
    for i in range(n):
        c = play(g, s, mem[base + i])
        p = to_move(g, c)
        if p == me:  # a game may give a player two moves in a row
            r = negamax(g, c, ply + 1, alpha, beta, mem)
        elif p < 0:
            return stop(mem, E_CHANCE_SEEN)
        else:
            r = -negamax(g, c, ply + 1, -beta, -alpha, mem)
        if mem[E_ABORTED] != 0:
            return 0
        if r >= beta:
            tt_put(mem, tt, k, size, words, (r + BIAS) * 2 + 1)
            return r
        if r > alpha:
            alpha = r
    tt_put(mem, tt, k, size, words, (alpha + BIAS) * 2)
    return alpha


@hot(inline=True)
def decided(g, s, mem):
    """``(True, value)`` when ``expand`` decides ``s`` without search, else ``(False, 0)`` (its
    actions are not needed: unordered)."""
    n, o = expand(g, s, FULL, 0, 0, mem, mem[E_BUF], NO_PARAMS)
    if n < 0:
        return True, int(o)
    return False, 0


@hot(inline=True)
def half_toward_zero(x: int) -> int:
    return x // 2 if x >= 0 else -((-x) // 2)


@hot(inline=True)
def probe_point(lo: int, hi: int) -> int:
    """The ``m`` of the next window ``(m, m + 1)`` in ``[lo, hi)``: the middle, moved to half of
    ``lo`` or ``hi`` when that lies further out on the same side of 0 (Pons' order)."""
    m = lo + (hi - lo) // 2
    if m <= 0 and half_toward_zero(lo) < m:
        m = half_toward_zero(lo)
    elif m >= 0 and half_toward_zero(hi) > m:
        m = half_toward_zero(hi)
    return m


# :func:`run`'s modes, and what it returns for a state ``expand`` does not decide (mode DECIDE).
DECIDE, PROBE, SOLVE = 0, 1, 2
UNDECIDED = 4 * BIAS


@hot
def run(g, s, mode: int, root: int, lo: int, hi: int, mem) -> int:
    """The kernel's one entry point from Python (each compiled entry costs a compile of its own):

    - ``SOLVE``: the value of ``s`` clamped to ``[lo, hi]``, a range the caller knows it lies in
      or wants no more than (e.g. ``[-1, 1]``: its sign only, a weak solve): ``lo``/``hi`` when
      it lies beyond them. One call does the whole narrowing (a short solve is mostly call
      overhead). The game's ``bounds`` are not applied to the range here, only inside the
      search: which windows are probed changes the work (ConnectX's Pons range, wider than its
      bounds, takes 26% fewer nodes on Pons' L1_R1 set).
    - ``PROBE``: one window ``(lo, hi)`` search (see :func:`negamax`): for callers that test a
      bound ("is this move optimal?") or narrow in slices themselves.
    - ``DECIDE``: the value of ``s`` when ``expand`` decides it without search, else
      ``UNDECIDED``.

    A decided ``s`` costs no node. Returns 0 with ``mem[E_ABORTED]`` set on abort. ``root``: 0,
    the root's ply, an argument so that the node compiles once (a literal 0 would compile a
    second copy of it for the root)."""
    mem = borrowed(mem)  # the caller holds it: no reference counting at every node
    if CONST_G:
        g = G
    done, v = decided(g, s, mem)
    if mode == DECIDE:
        return v if done else UNDECIDED
    if done:
        return min(max(v, lo), hi) if mode == SOLVE else v
    if mode == PROBE:
        return negamax(g, s, root, lo, hi, mem)
    floor, ceiling = lo, hi
    while lo < hi:
        m = probe_point(lo, hi)
        r = negamax(g, s, root, m, m + 1, mem)
        if mem[E_ABORTED] != 0:
            return 0
        if r <= m:
            hi = r
        else:
            lo = r
    return min(max(lo, floor), ceiling)  # a fail-soft bound may lie beyond the range asked


def narrow(lo: int, hi: int, window: Callable[[int], int | None]) -> int | None:
    """:func:`run`'s loop of null windows (mode ``SOLVE``) for drivers that search each window
    themselves (in slices, resuming the window a slice stopped in: restarting the loop would
    search the earlier windows again, whose proofs later windows overwrote in the table).
    ``window(m)``: the search of ``(m, m + 1)`` (its fail-soft result), or None when it was
    stopped. Returns the value clamped to ``[lo, hi]``, or None."""
    floor, ceiling = lo, hi
    while lo < hi:
        m = probe_point(lo, hi)
        r = window(m)
        if r is None:
            return None
        if r <= m:
            hi = r
        else:
            lo = r
    return min(max(lo, floor), ceiling)


def next_prime(n: int) -> int:
    """The smallest prime >= n (a prime table size spreads keys that share low bits)."""
    n = max(2, n)
    while any(n % d == 0 for d in range(2, int(n ** 0.5) + 1)):
        n += 1
    return n


MAX_POSITIONS_LOG10 = 11.0
"""A game of more positions than 10**11 (:meth:`core.game.Game.positions_log10`) is not solved
from its start without a node limit: the solve command would run for hours or for ever (Quixo
5×5: 10**14 with its ply cap, 10**11.9 without; Reinforce Tactics: 10**34,756; 4×4 Quixo
10**9.9, Quantik 10**9.3 and count-the-fours 4×5 10**9.5 are solved)."""


def too_big(game: Any) -> str | None:
    """Why an exact solve of ``game`` without a node limit is refused (its positions beyond
    :data:`MAX_POSITIONS_LOG10`), in one line, or None: the same rule for every game."""
    size = float(game.positions_log10())
    if size <= MAX_POSITIONS_LOG10:
        return None
    return (f"{game.spec()} has up to 10^{size:,.0f} positions, too many to solve exactly (at most 10^{MAX_POSITIONS_LOG10:.0f}); "
            "give --max-nodes N to search each line within N nodes")


def refuse_exact(game: Any) -> None:
    """ValueError for a game the exact solver cannot solve (an array-state game: 1,804-word
    states, hundreds of decisions with chance), naming the searches that play it."""
    if getattr(game, "array_state", False):
        raise ValueError(f"{game.name} is too big to solve exactly (states of {game.words} words, games of "
                         "hundreds of decisions with chance): play it with mcts, expectimax or alphabeta")


def bind_exact(game: Any, jit: bool | None = None, shared: bool = False) -> Any:
    """This module bound to ``game``'s hooks (:func:`core.game.bind`); compiled with a small
    tuple ``g`` (:func:`core.game.search_constants`), a copy per value of ``g`` with it as the
    compile-time :data:`G` (one compile per board shape, each loaded from the kernel cache).
    ``shared``: the :data:`SHARED` copy (a compile of its own), for :func:`share_table`'s helpers."""
    import sys

    from base.jit import numba_available
    from core.game import bind

    use_jit = (numba_available() and game.fits_int64()) if jit is None else bool(jit)
    g = search_constants(game, use_jit)
    flags: dict[str, Any] = {"CONST_G": True, "G": g} if use_jit and isinstance(g, tuple) else {}
    if shared:
        flags["SHARED"] = True
    return bind(game, sys.modules[__name__], jit=use_jit, flags=flags or None)


class ExactSearch:
    """This kernel bound to one game, with its own array (two searches never share a table).

    ``tt_size``: table entries (rounded up to a prime above ``MIN_SIZE``). ``max_plies``: the
    deepest line (the move buffer); a line reaching it aborts with ``cut`` set, never a guess.
    ``jit``: None = compiled when numba is there and the state fits int64. Calls take the
    state's words and return the kernel's integer; ``nodes``, ``aborted``, ``chance`` and ``cut``
    then describe the call (a driver starts each call with :meth:`start`)."""

    def __init__(self, game: Any, tt_size: int = 1 << 20, jit: bool | None = None, max_plies: int = 256) -> None:
        from core.game import key_function

        wv = float(getattr(game, "win_value", 1.0))
        refuse_exact(game)
        if wv > MAX_VALUE:
            raise ValueError(f"{game.name}'s outcomes reach {wv:g}: the exact solver keeps values within +-{MAX_VALUE}")
        self.game = game
        self.ns = bind_exact(game, jit)
        self.jit = bool(self.ns.jit)
        self.g = search_constants(game, self.jit)
        self.words = key_words(game)
        # A one-word key packs its quotient into the slot: an int64 needs size > MIN_SIZE.
        smallest = MIN_SIZE + 1 if (self.jit and self.words == 1) else 17
        self.size = next_prime(max(smallest, int(tt_size)))
        self.entries = self.size * (1 if self.words == 1 else self.words + 1)
        stride = max(1, int(game.num_actions)) + 1
        head = [0] * STATS
        head[E_SIZE], head[E_STRIDE], head[E_PLY_CAP], head[E_WORDS] = self.size, stride, int(max_plies), self.words
        head[E_BUF] = STATS + self.entries
        head[E_TABLE] = STATS
        # Prefetching costs a key per node and one more per child: worth it only for a key as
        # cheap as the game made its hook (compiled into the search) or the state itself
        # (Quantik's canonical key, a search of its symmetries: 0.62x the nodes/s with it).
        key_fn = key_function(game)
        head[E_PREFETCH] = int(key_fn is None or is_inline(key_fn))
        total = STATS + self.entries + (int(max_plies) + 1) * stride
        self.mem: np.ndarray | list[int]
        if self.jit:
            import numpy as np

            self.mem = np.zeros(total, dtype=np.int64)
            self.mem[:STATS] = head
        else:
            self.mem = head + [0] * (total - STATS)

    def clear(self) -> None:
        """Empty the table (a shared one for every search sharing it)."""
        at = int(self.mem[E_TABLE])
        if isinstance(self.mem, list):
            self.mem[at:at + self.entries] = [0] * self.entries
        else:
            self.mem[at:at + self.entries] = 0

    def start(self, node_limit: int | None = None, deadline_ns: int | None = None) -> None:
        """Zero the counters of the next call and set its node limit and deadline
        (``time.perf_counter_ns`` units; see :func:`base.budget.deadline_ns`)."""
        mem = self.mem
        mem[E_NODES] = mem[E_ABORTED] = mem[E_CHANCE_SEEN] = mem[E_CUT] = 0
        mem[E_LIMIT] = NO_LIMIT if node_limit is None else max(1, int(node_limit))
        mem[E_DEADLINE] = NO_DEADLINE_NS if deadline_ns is None else int(deadline_ns)

    def solve(self, words: tuple, lo: int, hi: int) -> int:
        """:func:`run` ``SOLVE`` on a state's words (call :meth:`start` first)."""
        return int(self.ns.run(self.g, words, SOLVE, 0, int(lo), int(hi), self.mem))

    def probe(self, words: tuple, alpha: int, beta: int) -> int:
        """:func:`run` ``PROBE``: one window search on a state's words (call :meth:`start` first)."""
        return int(self.ns.run(self.g, words, PROBE, 0, int(alpha), int(beta), self.mem))

    def decided(self, words: tuple) -> int | None:
        """The value of a state ``expand`` decides without search, else None."""
        v = int(self.ns.run(self.g, words, DECIDE, 0, 0, 0, self.mem))
        return None if v == UNDECIDED else v

    @property
    def nodes(self) -> int:
        return int(self.mem[E_NODES])

    @nodes.setter
    def nodes(self, n: int) -> None:
        """A driver that split one search into several calls reports their total here."""
        self.mem[E_NODES] = int(n)

    @property
    def aborted(self) -> bool:
        return bool(self.mem[E_ABORTED])

    @property
    def chance(self) -> bool:
        return bool(self.mem[E_CHANCE_SEEN])

    @property
    def cut(self) -> bool:
        return bool(self.mem[E_CUT])


def share_table(main: ExactSearch, helpers: int) -> list[ExactSearch]:
    """``helpers`` searches that read and write ``main``'s table, each with counters and a move
    buffer of its own, for threads searching at once (:mod:`agents.engine.parallel`); ``main``
    keeps its table's entries. Compiled one-word keys only (ValueError otherwise): an entry is
    then one int64 word whose slot and quotient give the key back, so a read racing a write
    sees the old entry or the new one, each a proven bound; a longer key's entry spans words
    that a racing write could mix (a wrong value): such searches keep tables of their own.

    One int64 array holds every helper's head and buffer, then ``main``'s head, the table and
    its buffer (``main.mem`` becomes a view of it, laid out as before: its compiled copy is
    unchanged, the table at the constant STATS). A helper's ``mem`` is a view from its own head,
    the table ``mem[E_TABLE]`` words further on, read by the :data:`SHARED` copy of the kernel."""
    import numpy as np

    if not (main.jit and main.words == 1):
        raise ValueError("only a compiled search with one-word keys shares its table")
    old = main.mem
    own = len(old)  # main's head, table and buffer
    buf = own - STATS - main.entries
    block = STATS + buf + 8  # a helper's head and buffer; 8 words apart: no cache line shared
    mem = np.zeros(helpers * block + own, dtype=np.int64)
    h0 = helpers * block
    mem[h0:] = old
    main.mem = mem[h0:]
    ns = bind_exact(main.game, True, shared=True)
    out = []
    for i in range(helpers):
        at = (helpers - 1 - i) * block
        view = mem[at:]
        view[:STATS] = old[:STATS]
        view[E_TABLE] = h0 + STATS - at
        view[E_BUF] = STATS
        s = object.__new__(ExactSearch)
        s.__dict__.update(main.__dict__)
        s.ns, s.mem = ns, view
        out.append(s)
    return out
