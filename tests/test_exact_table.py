"""The exact solver's table (agents/engine/exact.py): a one-word key's slot and tag come from
an invertible mix, so that a tag that matches is never another key's entry."""
from __future__ import annotations

import random

from agents.engine import exact


def unfold(h: int) -> int:
    """:func:`exact.fold` undone round by round (a Feistel network inverts by running backwards)."""
    a, b = h & exact.LOW_31, h >> 31
    a ^= ((b * exact.FOLD_3) >> 16) & exact.LOW_31
    b ^= ((a * exact.FOLD_2) >> 16) & exact.LOW_32
    a ^= ((b * exact.FOLD_1) >> 16) & exact.LOW_31
    return (b << 31) | a


def test_the_fold_gives_every_key_back_and_stays_within_int64():
    rng = random.Random(37)
    keys = [rng.getrandbits(rng.randint(1, 63)) for _ in range(20_000)] + [0, 1, (1 << 63) - 1, -1, -(1 << 40)]
    for k in keys:
        h = exact.fold(k, 23)
        assert unfold(h) == k
        assert -(1 << 63) <= h < (1 << 63)
        for bits in (exact.MIN_BITS, 23, 27):  # the entry (tag + 1) << CODE_BITS | code fits an int64
            assert -(1 << 63) <= (((h >> bits) + 1) << exact.CODE_BITS | exact.CODE_MASK) < (1 << 63)


def test_connectx_keys_spread_over_the_slots():
    """Keys of one board's positions (Pons' key, 49 bits on 6x7) fill the slots about as a random
    map would: the fold mixes every key bit into the slot."""
    from core.connectx.position import Position

    rng = random.Random(5)
    keys = set()
    while len(keys) < 4096:
        p = Position.empty()
        for _ in range(rng.randint(4, 30)):
            legal = [c for c in p.legal_columns() if not p.is_winning_move(c)]
            if not legal:
                break
            p = p.play(rng.choice(legal))
        keys.add(p.current + p.mask + p.shape.bottom_mask)
    slots = {exact.fold(k, 12) & ((1 << 12) - 1) for k in keys}
    assert len(slots) > 0.55 * 4096  # a random map fills 1 - 1/e = 63% of them
