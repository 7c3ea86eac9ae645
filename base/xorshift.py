"""The searches' random numbers: xorshift32 (Marsaglia), kept by each search in its own state.

Not numba's global generator: two agents never share a stream, and the compiled and plain paths
draw the very same numbers (tests compare their trees). Lives in the low layer so that game
hooks (``core/<game>/``) and searches (``agents/``) draw from one definition.
"""
from __future__ import annotations

from base.jit import hot


@hot
def rng_next(x: int) -> int:
    """xorshift32: period 2**32 - 1, never 0 from a nonzero state, no multiplication to overflow."""
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    return x


def seed_state(seed: int) -> int:
    """A nonzero xorshift32 state from any int seed (a Knuth multiplicative hash)."""
    return ((int(seed) * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF) or 1
