"""Hot functions for tests/test_hints.py (a module of its own: base.jit compiles whole modules)."""
from __future__ import annotations

from base.hints import borrowed, prefetch
from base.jit import hot

COMPILED = False  # True in the compiled copy (base.jit.COMPILED_FLAG)


@hot
def bump(a, i: int) -> int:
    """Writes through the recursion of a borrowed view, prefetching on the way; the sum read back."""
    return walk(borrowed(a), i)


@hot
def walk(a, i: int) -> int:
    prefetch(a, (i * 7) % len(a))
    a[i] += 1
    if i == 0:
        return a[0]
    return a[i] + walk(a, i - 1)


@hot
def which() -> int:
    return 1 if COMPILED else 0
