"""Heuristics: a position -> a score for the side to move.

Every heuristic is a hot function ``name(current, mask, rows, columns, inarow, params) -> float``
in its own module, dispatched by :func:`heuristics.connectx.evaluate.evaluate` on an integer id (numba
cannot pass functions around cheaply). Parameters travel as one float array in the order of
:data:`PARAM_NAMES`, so searches and the tuner set them by name with :func:`params_array`.

All heuristics count *lines*: every window of ``inarow`` cells in a row, column or diagonal. A
window is *open* for a player when the other player has no stone in it (it can still become a
win). Scores are "mine minus the opponent's", so they are antisymmetric where the definition
allows it (see each module).
"""
from __future__ import annotations

from typing import Any

import numpy as np

# Integer ids for the compiled dispatcher; "none" scores every position 0 (pure search).
HEURISTIC_IDS: dict[str, int] = {"none": -1, "gameovers": 0, "bitsquares": 1, "oddeven": 2, "liberties": 3}

# Parameter names of each heuristic, in the order of its params array.
PARAM_NAMES: dict[str, tuple[str, ...]] = {
    "none": (),
    # double_attack: bonus per threat cell beyond the first; single_square: weight of an open
    # line holding one stone (lines with n >= 2 stones weigh n).
    "gameovers": ("double_attack", "single_square"),
    # power: an open line with n stones scores n ** power.
    "bitsquares": ("power",),
    # power: as bitsquares; threat_pair: per pair of vertically stacked threat cells (a
    # 3-in-a-row pair); parity_threat: per threat cell on the player's own parity rows;
    # parity_two: per open line two stones short whose empty cells all lie on those rows.
    "oddeven": ("power", "threat_pair", "parity_threat", "parity_two"),
    # threat: weight of each threat cell, added to the count of line extensions.
    "liberties": ("threat",),
}

# Published defaults (design.md: bitsquares power 1.75; gameovers double-attack 0.5, single
# square 0.1; odd/even rewards 0 / 1 / 0.05). liberties' threat weight is our own choice.
DEFAULTS: dict[str, dict[str, float]] = {
    "none": {},
    "gameovers": {"double_attack": 0.5, "single_square": 0.1},
    "bitsquares": {"power": 1.75},
    "oddeven": {"power": 1.75, "threat_pair": 0.0, "parity_threat": 1.0, "parity_two": 0.05},
    "liberties": {"threat": 2.0},
}


def params_array(name: str, **overrides: Any) -> np.ndarray:
    """The float64 parameter array of heuristic ``name`` (defaults, then ``overrides``).

    Raises ValueError naming the valid heuristics or parameters on a bad name.
    """
    if name not in PARAM_NAMES:
        raise ValueError(f"unknown heuristic {name!r}; valid: {', '.join(HEURISTIC_IDS)}")
    unknown = set(overrides) - set(PARAM_NAMES[name])
    if unknown:
        valid = ", ".join(PARAM_NAMES[name]) or "(none)"
        raise ValueError(f"heuristic {name!r} has no parameter {', '.join(sorted(unknown))}; valid: {valid}")
    values = dict(DEFAULTS[name])
    values.update({k: float(v) for k, v in overrides.items()})
    # At least one element: numba types an empty array fine, but a 1-element array keeps the
    # compiled signature identical for every heuristic (one compilation).
    out = np.zeros(max(1, len(PARAM_NAMES[name])), dtype=np.float64)
    for i, key in enumerate(PARAM_NAMES[name]):
        out[i] = values[key]
    return out
