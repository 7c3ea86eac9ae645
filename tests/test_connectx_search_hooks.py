"""ConnectX's ``expand`` and ``order`` hooks against plain references written here: the columns
come out in :meth:`core.connectx.shape.Shape.center_order` (the hooks cannot call a Python
method, so they walk outwards from the centre themselves), and, when sorted, by the number of
threat cells each move creates, centre first on ties. Both paths, several shapes."""
from __future__ import annotations

import random

import pytest

from base.jit import compiled, numba_available
from core.connectx import search_hooks
from core.connectx.game import ConnectX
from core.connectx.position import Position

FULL = 1 << 20


def _paths() -> list:
    return [pytest.param(lambda: search_hooks, id="plain"),
            pytest.param(lambda: compiled(search_hooks), id="compiled",
                         marks=pytest.mark.skipif(not numba_available(), reason="numba not available"))]


def _expand(hooks, game: ConnectX, current: int, mask: int, sort: int) -> list[int]:
    out = [0] * (game.shape.columns + 1)
    if hooks is not search_hooks:
        import numpy as np

        out = np.zeros(game.shape.columns + 1, dtype=np.int64)
    n, _ = hooks.expand(tuple(game.g), (current, mask), FULL, 1, sort, out, 0, (0.0,))
    return [int(a) for a in out[:max(n, 0)]]


@pytest.mark.parametrize("hooks", _paths())
@pytest.mark.parametrize("columns", range(1, 17))
def test_expand_gives_the_columns_in_shape_center_order(hooks, columns: int) -> None:
    game = ConnectX(rows=2, columns=columns, inarow=2)
    assert tuple(_expand(hooks(), game, 0, 0, 0)) == game.shape.center_order()


def _threats_created(pos: Position, col: int) -> int:
    """Empty cells where the mover's next stone would make a line, after it plays ``col``: a
    plain 2-D count over the board's cells (no bitboard shifts)."""
    child = pos.play(col)
    s = pos.shape
    count = 0
    for c in range(s.columns):
        for r in range(s.rows):
            cell = 1 << (c * (s.rows + 1) + r)
            if child.mask & cell:
                continue
            # The mover's stone on this cell: the player to move next holds child.current.
            if Position(s, child.current, child.mask | cell, child.ply + 1).last_player_won():
                count += 1
    return count


@pytest.mark.parametrize("hooks", _paths())
@pytest.mark.parametrize("shape", [(6, 7, 4), (5, 6, 4), (6, 8, 5), (4, 5, 3)])
def test_sorted_expand_orders_by_threat_cells_created_then_centre(hooks, shape) -> None:
    rows, columns, inarow = shape
    game = ConnectX(rows=rows, columns=columns, inarow=inarow)
    rng = random.Random(sum(shape))
    checked = 0
    for _ in range(300):
        pos = Position.empty(game.shape)
        for _ in range(rng.randrange(0, rows * columns - 4)):
            legal = [c for c in pos.legal_columns() if not pos.is_winning_move(c)]
            if not legal:
                break
            pos = pos.play(rng.choice(legal))
        if pos.is_terminal() or any(pos.is_winning_move(c) for c in pos.legal_columns()):
            continue
        kept = _expand(hooks(), game, pos.current, pos.mask, 0)
        if not kept:
            continue
        rank = {c: i for i, c in enumerate(game.shape.center_order())}
        assert kept == sorted(kept, key=rank.__getitem__)
        want = sorted(kept, key=lambda c: (-_threats_created(pos, c), rank[c]))
        assert _expand(hooks(), game, pos.current, pos.mask, 1) == want, pos
        checked += 1
    assert checked >= 100
