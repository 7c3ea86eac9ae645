"""base.hints (borrowed, prefetch) and base.jit's COMPILED flag: the compiled path computes what
the plain one does, writes through a borrowed view reach the caller's array, and only the
compiled copy of a module sees COMPILED true."""
from __future__ import annotations

import numpy as np
import pytest

from base.jit import compiled, numba_available
from tests import hints_kernels as hk

needs_numba = pytest.mark.skipif(not numba_available(), reason="numba not installed")


def test_plain_path():
    a = [5, 6, 7, 8]
    assert hk.bump(a, 3) == (8 + 1) + (7 + 1) + (6 + 1) + (5 + 1)
    assert a == [6, 7, 8, 9]
    assert hk.which() == 0


@needs_numba
def test_compiled_agrees_and_writes_reach_the_caller():
    ns = compiled(hk)
    a, b = [5, 6, 7, 8], np.array([5, 6, 7, 8], dtype=np.int64)
    for _ in range(3):
        assert ns.bump(b, 3) == hk.bump(a, 3)
        assert b.tolist() == a
    assert ns.which() == 1 and hk.which() == 0
    assert hk.COMPILED is False  # the module itself is untouched
