"""The default of the ``expand`` hook (contract: :func:`expand`), on the kernels of
:mod:`core.kernel_defaults` imported by name, so that :func:`core.game.bind` can bind this module
to a game's kernels and hand the bound ``expand`` to a search, compiled or plain."""
from __future__ import annotations

from base.jit import hot
from core.kernel_defaults import legal, order, outcome, terminal, to_move


@hot
def expand(g, s, depth, ply, sort, out, base, params):
    """The depth-first searches' view of a node: decided, a leaf, or the actions worth searching.

    Returns ``(n, o)``:
    - ``n < 0``: decided without search: the game ends ``d = -n - 1`` plies from here with the
      mover's outcome ``o`` (``d = 0``: ``s`` is terminal; ``d = 1``: the mover wins by playing
      ``out[base]``; ``d = 2``: whatever the mover plays, the opponent wins with its reply,
      ``out[base]`` is a move to play anyway: set at the root, ``ply == 0``, where a search
      reads it; below it a game may skip it);
    - else ``n >= 1`` actions at ``out[base:base + n]``, best first; an action left out must be
      no better for the mover than the ones kept (e.g. one that loses at once).
    Called at nodes with ``depth >= 1`` only (at a leaf the search tests ``terminal``, then
    evaluates: the hot path stays a short one).
    ``depth``: plies left (``>= agents.engine.negamax.FULL``: to the end); ``ply``: plies from
    the search's root (0 at the root: below it a game may skip tests its own ``expand`` made
    unnecessary one ply up); ``sort``: 1 when the search wants the actions ordered (the node
    has at least the search's ``order_depth`` plies left), 0 when any cheap order will do;
    ``params``: the heuristic's parameters (as ``order`` gets them).

    Default: ``terminal`` (then ``outcome`` seen from the mover, ``d = 0``), else ``legal``
    then, when ``sort``, ``order``.
    """
    if terminal(g, s):
        o = outcome(g, s)
        if to_move(g, s) == 1:
            o = -o
        return -1, o
    n = legal(g, s, out, base)
    if sort:
        order(g, s, out, base, n, params)
    return n, 0.0
