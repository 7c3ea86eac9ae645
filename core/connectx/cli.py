"""ConnectX on the command line: the board argument (``ROWSxCOLUMNSxINAROW``) and move strings
in Pons' notation (1-based column digits). The game-free pieces of the command-line tools are in
:mod:`base.cli`."""
from __future__ import annotations

import argparse

from core.connectx.position import Position
from core.connectx.shape import Shape


def shape_type(text: str) -> Shape:
    """argparse type for ``ROWSxCOLUMNSxINAROW``."""
    try:
        return Shape.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# --- columns as people write them -----------------------------------------------------------
def parse_moves(text: str, shape: Shape) -> Position:
    """The position after ``text``, moves in Pons' notation (1-based column digits, the way a
    person reads and types columns everywhere in this toolkit). Raises ValueError whose
    message names the move and its column 1-based (``Position`` itself speaks 0-based, as the
    code does)."""
    text = text.strip()
    top = min(shape.columns, 9)
    if shape.columns > 9:
        raise ValueError(f"move strings need at most 9 columns (one digit each); this board has {shape.columns}")
    pos = Position.empty(shape)
    for i, ch in enumerate(text, 1):
        if ch not in "123456789"[:top]:
            raise ValueError(f"move {i} ({ch!r}) is not a column: digits 1-{top}")
        col = int(ch) - 1
        if pos.is_terminal():
            raise ValueError(f"move {i} (column {ch}) comes after the game has ended")
        if not pos.can_play(col):
            raise ValueError(f"move {i}: column {ch} is full")
        pos = pos.play(col)
    return pos
