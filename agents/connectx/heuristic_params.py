"""ConnectX heuristic parameters as agent fields, so that ``mcts:heuristic=bitsquares,power=2``
reaches the kernel's leaves the way ``alphabeta:heuristic=bitsquares,power=2`` does.

The fields are made from :data:`heuristics.connectx.params.PARAMS` (each parameter is declared and
documented there, with its bounds: :class:`base.params.Param`, which each field's metadata holds,
so a spec's value is checked against them by :func:`agents.engine.spec.convert_params`), one
``float | None`` field a name, None meaning the heuristic's default. :meth:`heuristic_params` gives the fields that are set, by name, checked
against the agent's heuristic; the engine turns them into the kernel's numbers once
(:func:`agents.engine.params.heuristic_values`). An agent that already uses a name for something
else (the ant colony's pheromone ``power``) maps the heuristic's parameter to another field with
``HEURISTIC_RENAMED``.
"""
from __future__ import annotations

import dataclasses
import types
from typing import ClassVar

import numpy as np

from base.params import declared_field
from heuristics.connectx.params import PARAMS, params_array

DECLARED = {p.name: p for params in PARAMS.values() for p in params}  # every heuristic's, by name (one meaning a name)
HEURISTIC_FIELDS: tuple[str, ...] = tuple(sorted(DECLARED))


def heuristic_params(self) -> dict[str, float]:
    """The heuristic parameters that are set, by the heuristic's names (``leaf_power`` is
    ``power``), checked: ValueError when a field is set that ``self.heuristic`` does not take
    (naming its parameters) or a value is out of its bounds."""
    renamed = type(self).HEURISTIC_RENAMED
    field_of = {name: renamed.get(name, name) for name in HEURISTIC_FIELDS}
    given = {name: getattr(self, f) for name, f in field_of.items() if getattr(self, f) is not None}
    takes = [p.name for p in PARAMS[self.heuristic]]
    wrong = sorted(field_of[n] for n in set(given) - set(takes))
    if wrong:
        valid = ", ".join(field_of[n] for n in takes) or "(none)"
        raise ValueError(f"heuristic {self.heuristic!r} takes no parameter {', '.join(wrong)}; its parameters: {valid}")
    params_array(self.heuristic, **given)  # bounds
    return {k: float(v) for k, v in given.items()}


def heuristic_array(self) -> np.ndarray:
    """The float64 parameter array of ``self.heuristic`` with the fields that are set."""
    return params_array(self.heuristic, **self.heuristic_params())


def _field(name: str) -> tuple:
    return (name, float | None, declared_field(DECLARED[name], default=None))  # the declaration, None: not set


HeuristicParams = dataclasses.make_dataclass(
    "HeuristicParams",
    [_field(name) for name in HEURISTIC_FIELDS] + [("HEURISTIC_RENAMED", ClassVar[dict])],
    namespace={"HEURISTIC_RENAMED": types.MappingProxyType({}), "heuristic_params": heuristic_params,
               "heuristic_array": heuristic_array,
               "__doc__": "Mixin: one optional field per heuristic parameter (heuristics.connectx.params.PARAMS)."},
)
HeuristicParams.__module__ = __name__
