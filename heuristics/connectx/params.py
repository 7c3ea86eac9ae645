"""Heuristics: a position -> a score for the side to move.

Every heuristic is a hot function ``name(current, mask, rows, columns, inarow, params) -> float``
in its own module, which a search binds by name (``heuristics.connectx.<name>.<name>``). Parameters travel as one float array in the order of
:data:`PARAMS` (named, bounded, documented: :class:`base.params.Param`), so searches and the tuner
set them by name with :func:`params_array`.

All heuristics count *lines*: every window of ``inarow`` cells in a row, column or diagonal. A
window is *open* for a player when the other player has no stone in it (it can still become a
win). Scores are "mine minus the opponent's", so they are antisymmetric where the definition
allows it (see each module).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from base.params import Param, names, values

# The heuristics by name (the keys are read; "none" scores every position 0: pure search).
HEURISTIC_IDS: dict[str, int] = {"none": -1, "gameovers": 0, "bitsquares": 1, "oddeven": 2, "liberties": 3}

# Each heuristic's parameters in the order of its params array (base.params.Param: name,
# default, lo, hi, meaning). Published defaults (design.md: bitsquares power 1.75; gameovers
# double-attack 0.5, single square 0.1; odd/even rewards 0 / 1 / 0.05); liberties' threat
# weight is our own choice.
_POWER = Param("power", 1.75, 0.0, 8.0, "an open line holding n stones scores n ** power")
PARAMS: dict[str, tuple[Param, ...]] = {
    "none": (),
    "gameovers": (
        Param("double_attack", 0.5, -100.0, 100.0, "bonus per threat cell beyond the first"),
        Param("single_square", 0.1, -100.0, 100.0, "weight of an open line holding one stone (lines with n >= 2 stones weigh n)"),
    ),
    "bitsquares": (_POWER,),
    "oddeven": (
        _POWER,
        Param("threat_pair", 0.0, -100.0, 100.0, "per pair of vertically stacked threat cells (a 3-in-a-row pair)"),
        Param("parity_threat", 1.0, -100.0, 100.0, "per threat cell on the player's own parity rows"),
        Param("parity_two", 0.05, -100.0, 100.0, "per open line two stones short whose empty cells all lie on those rows"),
    ),
    "liberties": (Param("threat", 2.0, -100.0, 100.0, "weight of each threat cell, added to the count of line extensions"),),
}

# Derived views (names in order; defaults by name) for the callers that read them.
PARAM_NAMES: dict[str, tuple[str, ...]] = {h: names(ps) for h, ps in PARAMS.items()}
DEFAULTS: dict[str, dict[str, float]] = {h: {p.name: p.default for p in ps} for h, ps in PARAMS.items()}


def params_array(name: str, **overrides: Any) -> np.ndarray:
    """The float64 parameter array of heuristic ``name`` (defaults, then ``overrides`` by name,
    each within its bounds: :func:`base.params.values`).

    Raises ValueError naming the valid heuristics or parameters on a bad name.
    """
    if name not in PARAMS:
        raise ValueError(f"unknown heuristic {name!r}; valid: {', '.join(HEURISTIC_IDS)}")
    return np.asarray(values(name, PARAMS[name], overrides), dtype=np.float64)
