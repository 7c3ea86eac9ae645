"""Defaults of the kernel contract's optional hooks, and placeholders of its required kernels.

A game-generic search imports every kernel it calls from here by name; :meth:`core.game.Game.bind`
swaps in the game's own functions (compiled or plain) at bind time, and a hook the game does not
define keeps the default below. The required placeholders raise: an unbound search is a bug.
Rule for search modules: a hot function that calls game kernels must live in the module that is
bound (functions imported from other modules are compiled without the game's kernels).
"""
from __future__ import annotations

from util.jit import hot

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
    rng), ``rng`` an xorshift32 state (:func:`util.xorshift.rng_next`). Default: -1 moves, none
    (the search plays ``legal``/``play`` itself)."""
    return 0.0, -1, rng


@hot
def actor(g, s, a) -> int:
    """Who does decision ``a`` (not the end-turn action) at ``s``: an int in ``[0, num_actions)``
    naming a unit or a recruitment site, for the searches that see a turn of several decisions
    as one order per actor (:mod:`agents.engine.macro_kernels`). Default: one actor, 0 (a turn
    is a sequence of decisions of one whole)."""
    return 0
