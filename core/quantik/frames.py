"""Which of Quantik's 6,144 symmetries takes a state to its canonical key (its *frame*).

An opening book (:mod:`agents.engine.opening_book`) stores one action per class of positions,
written in the frame of the class's canonical image; to play it from any member the agent needs
the symmetry ``σ`` with ``σ(state) == key(state)`` and maps the stored action back through
``σ⁻¹``. Trying all 6,144 symmetries costs a tenth of a second in Python; here only the board
maps whose image of the occupied cells is least (the kernel's own tie table, one or two in most
positions) are tried, each with the shape relabelling that sorts the four shape words, as
:func:`core.quantik.kernels.canonical` does: well under a millisecond.
"""
from __future__ import annotations

import itertools

from core.quantik import kernels as K

SHAPE_PERMS = list(itertools.permutations(range(4)))  # 24 relabellings, identity first: symmetries() lists colour
# swap, then relabelling, then board map


def canonical_symmetry_index(g, words: tuple) -> int:
    """Index into :meth:`core.quantik.Quantik.symmetries` of a symmetry taking ``words`` to its
    canonical image (:func:`core.quantik.kernels.canonical`); ``g`` is the game's constants."""
    target = tuple(int(x) for x in K.canonical(g, words))
    swap = int(words[4]) == 1
    w = [K.swap_colours(x) if swap else x for x in words[:4]]
    at = K.TIES + 3 * K.occupied(words)
    for j in range(3):
        m = int(g[at + j])
        b = K.TIE_BITS * j
        while m:
            if m & 1:
                a = [int(K.map_word(g, b, x)) for x in w]
                if tuple(sorted(a)) == target[:4]:
                    order = sorted(range(4), key=lambda k: a[k])
                    perm = [0, 0, 0, 0]
                    for rank, k in enumerate(order):
                        perm[k] = rank
                    return K.NUM_BOARD_SYMS * (len(SHAPE_PERMS) * int(swap) + SHAPE_PERMS.index(tuple(perm))) + b
            m >>= 1
            b += 1
    raise AssertionError("no symmetry reaches the canonical key: the tie table and canonical() disagree")
