"""The toy game's file tail (tests/toy_game/__init__.py): the rendered part answers the literals."""
from __future__ import annotations

from typing import Any

_TOY: dict[str, Any] = {}
_DATA: str | None = None

# --- rendered from here: the toy's tail


def agent(observation, configuration):
    """The toy's entry point: its literals, to show that the file holds them."""
    return {"toy": _TOY, "data": _DATA}
