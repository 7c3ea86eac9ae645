"""Defaults of the kernel contract's optional hooks, and placeholders of its required kernels.

A game-generic search imports every kernel it calls from here by name; :meth:`core.game.Game.bind`
swaps in the game's own functions (compiled or plain) at bind time, and a hook the game does not
define keeps the default below. The required placeholders raise: an unbound search is a bug.
Rule for search modules: a hot function that calls game kernels must live in the module that is
bound (functions imported from other modules are compiled without the game's kernels).
"""
from __future__ import annotations

from base.jit import hot

REQUIRED = ("to_move", "legal", "play", "terminal", "outcome")
OPTIONAL = ("chance_prob", "key", "evaluate", "order", "bounds", "expand", "rollout", "actor")


@hot
def to_move(g, s) -> int:
    raise RuntimeError("search not bound to a game")


@hot
def legal(g, s, out, base) -> int:
    raise RuntimeError("search not bound to a game")


@hot
def play(g, s, a):
    raise RuntimeError("search not bound to a game")


@hot
def terminal(g, s) -> bool:
    raise RuntimeError("search not bound to a game")


@hot
def outcome(g, s) -> float:
    raise RuntimeError("search not bound to a game")


@hot
def chance_prob(g, s, a) -> float:
    return 0.0


@hot
def key(g, s):
    return s


HASH_P = 2147483647  # 2 ** 31 - 1: hash words stay below it, so a product of two stays in int64
HASH_M = (1103515245, 1664525013, 69069, 1566083941)  # one multiplier a word of the hashed key
HASH_WORDS = 4  # words of :func:`hashed_key`: about 124 bits


@hot
def hashed_key(g, s):
    """The table key of an array-state game without a ``key`` hook (:attr:`core.game.Game.array_state`:
    a search table cannot store 1,804 words an entry): four polynomial hashes of the words
    modulo 2 ** 31 - 1. Two different states share it with probability about 2 ** -124 (the
    key rule holds up to that); no overflow on either path (every product stays below 2 ** 62)."""
    h0 = 1
    h1 = 2
    h2 = 3
    h3 = 4
    for i in range(len(s)):
        w = s[i] % HASH_P
        h0 = (h0 * HASH_M[0] + w) % HASH_P
        h1 = (h1 * HASH_M[1] + w) % HASH_P
        h2 = (h2 * HASH_M[2] + w) % HASH_P
        h3 = (h3 * HASH_M[3] + w) % HASH_P
    return (h0, h1, h2, h3)


@hot
def evaluate(g, s, params) -> float:
    return 0.0


@hot
def order(g, s, out, base, n, params) -> None:
    return None


@hot
def bounds(g, s):
    return -1.0e300, 1.0e300



# ``expand`` (the depth-first searches' view of a node) is optional too; its contract and
# default are in :mod:`core.kernel_expand`: the default calls kernels, so it lives in its own
# module, which imports them from here by name; :func:`core.game.bind` binds that module to the
# game's kernels and hands the bound ``expand`` to the search. A search imports it from there.


@hot
def rollout(g, s, rng):
    """A game's own random playout for MCTS leaves: (player 0's outcome at the end, moves played,
    rng), ``rng`` an xorshift32 state (:func:`base.xorshift.rng_next`). Default: -1 moves, none
    (the search plays ``legal``/``play`` itself)."""
    return 0.0, -1, rng


@hot
def actor(g, s, a) -> int:
    """Who does decision ``a`` (not the end-turn action) at ``s``: an int in ``[0, num_actions)``
    naming a unit or a recruitment site, for the searches that see a turn of several decisions
    as one order per actor (:mod:`agents.engine.macro_kernels`). Default: one actor, 0 (a turn
    is a sequence of decisions of one whole)."""
    return 0
