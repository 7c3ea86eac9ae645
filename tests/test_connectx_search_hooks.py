"""ConnectX's search hooks against the code they copy: ``centre_column`` is the compiled twin of
:meth:`core.connectx.shape.Shape.center_order` (the hooks cannot call a Python method)."""
from __future__ import annotations

import pytest

from core.connectx import search_hooks
from core.connectx.shape import Shape
from util.jit import compiled, numba_available


def _paths() -> list:
    return [pytest.param(lambda: search_hooks, id="plain"),
            pytest.param(lambda: compiled(search_hooks), id="compiled",
                         marks=pytest.mark.skipif(not numba_available(), reason="numba not available"))]


@pytest.mark.parametrize("hooks", _paths())
@pytest.mark.parametrize("columns", range(1, 17))
def test_centre_column_follows_shape_center_order(hooks, columns: int) -> None:
    centre_column = hooks().centre_column
    order = tuple(centre_column(i, columns) for i in range(columns))
    assert order == Shape(rows=6, columns=columns, inarow=1).center_order()
