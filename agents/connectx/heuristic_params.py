"""ConnectX heuristic parameters as agent fields, so that ``mcts:heuristic=bitsquares,power=2``
reaches the kernel's leaves the way ``alphabeta:heuristic=bitsquares,power=2`` does.

The fields are made from :data:`heuristics.connectx.params.PARAM_NAMES` (each parameter is documented there),
one ``float | None`` field a name, None meaning the heuristic's default
(:data:`heuristics.connectx.params.DEFAULTS`): one list of names from the spec (:mod:`agents.connectx.registry`) through
:func:`heuristics.connectx.params.params_array` to the float array the hot kernels read. An agent that already
uses a name for something else (the ant colony's pheromone ``power``) maps the heuristic's
parameter to another field with ``HEURISTIC_RENAMED``.
"""
from __future__ import annotations

import dataclasses
import types
from typing import ClassVar

import numpy as np

from heuristics.connectx.params import PARAM_NAMES, params_array

HEURISTIC_FIELDS: tuple[str, ...] = tuple(sorted({n for names in PARAM_NAMES.values() for n in names}))


def heuristic_array(self) -> np.ndarray:
    """The float64 parameter array of ``self.heuristic`` with the fields that are set.

    ValueError when a field is set that the heuristic does not take, naming its parameters."""
    renamed = type(self).HEURISTIC_RENAMED
    field_of = {name: renamed.get(name, name) for name in HEURISTIC_FIELDS}
    given = {name: getattr(self, f) for name, f in field_of.items() if getattr(self, f) is not None}
    wrong = sorted(field_of[n] for n in set(given) - set(PARAM_NAMES[self.heuristic]))
    if wrong:
        valid = ", ".join(field_of[n] for n in PARAM_NAMES[self.heuristic]) or "(none)"
        raise ValueError(f"heuristic {self.heuristic!r} takes no parameter {', '.join(wrong)}; its parameters: {valid}")
    return params_array(self.heuristic, **given)


HeuristicParams = dataclasses.make_dataclass(
    "HeuristicParams",
    [(name, float | None, dataclasses.field(default=None)) for name in HEURISTIC_FIELDS]
    + [("HEURISTIC_RENAMED", ClassVar[dict])],
    namespace={"HEURISTIC_RENAMED": types.MappingProxyType({}), "heuristic_array": heuristic_array,
               "__doc__": "Mixin: one optional field per heuristic parameter (heuristics.connectx.params.PARAM_NAMES)."},
)
HeuristicParams.__module__ = __name__
