"""Perft for any game: the number of action sequences of a given length (chance outcomes count
as actions), the first check of a game's kernels against independent enumerations."""
from __future__ import annotations

from typing import TYPE_CHECKING

from base.jit import hot
from core.kernel_defaults import legal, play, terminal

if TYPE_CHECKING:
    import numpy as np


@hot
def perft(g, s, depth: int, buf, stride: int) -> int:
    """Leaves at ``depth`` below ``s`` (terminal states before it count as nothing).
    ``buf`` holds ``stride`` action slots per level."""
    if depth == 0:
        return 1
    if terminal(g, s):
        return 0
    base = depth * stride
    n = legal(g, s, buf, base)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        total += perft(g, play(g, s, buf[base + i]), depth - 1, buf, stride)
    return total


def count(game, depth: int, state=None, jit: bool | None = None) -> int:
    """Perft of ``state`` (default: the initial state) of ``game`` to ``depth``."""
    import sys

    from core.game import bind, constants_array

    ns = bind(game, sys.modules[__name__], jit=jit)
    use_jit = ns.jit
    words = (state or game.initial()).words
    stride = max(1, game.num_actions)
    buf: np.ndarray | list[int]
    if use_jit:
        import numpy as np

        buf = np.zeros((depth + 1) * stride, dtype=np.int64)
    else:
        buf = [0] * ((depth + 1) * stride)
    return int(ns.perft(constants_array(game, use_jit), tuple(words), depth, buf, stride))
