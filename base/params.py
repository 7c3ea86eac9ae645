"""A heuristic's parameters, declared once where the heuristic is defined and read by name.

Each game's heuristics module declares ``PARAMS: dict[heuristic, tuple[Param, ...]]``: every
parameter named, with its default, its bounds and a one-line meaning. The hot
``evaluate(g, s, params)`` reads ``params`` by position, in the declared order: :func:`values`
is the one conversion from names (and, for older specs, positions) to that list of floats, and
``agents.engine.params.heuristic_array`` the one from the list to what a compiled kernel takes.

Standard library only (submissions carry it beside the heuristics).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """One parameter of one heuristic."""

    name: str  # the name a spec, the tuner and the web app use (``power`` in ``heuristic=bitsquares,power=2``)
    default: float  # the value when none is given
    lo: float  # smallest value accepted (inclusive)
    hi: float  # largest value accepted (inclusive)
    doc: str  # one line: what the parameter weighs, in which unit

    def check(self, value: object, heuristic: str) -> float:
        """``value`` as a float within the bounds; ValueError in one line otherwise."""
        try:
            x = float(value)  # type: ignore[arg-type]  # any number or numeric text; the except answers the rest
        except (TypeError, ValueError):
            x = math.nan
        if not (math.isfinite(x) and self.lo <= x <= self.hi):
            raise ValueError(f"parameter {self.name} of heuristic {heuristic!r} must be a number from "
                             f"{self.lo:g} to {self.hi:g}, got {value!r}")
        return x


def names(params: Sequence[Param]) -> tuple[str, ...]:
    return tuple(p.name for p in params)


def defaults(params: Sequence[Param]) -> list[float]:
    """The default values in the declared order, at least one number (a kernel is handed an
    array of at least one element: numba cannot type an empty list, and a one-element array
    keeps one compiled signature for every heuristic)."""
    return [float(p.default) for p in params] or [0.0]


def values(heuristic: str, params: Sequence[Param], named: Mapping[str, object] | None = None,
           positional: Sequence[float] | None = None) -> list[float]:
    """The list ``evaluate`` reads: the defaults, then ``positional`` (all the numbers in the
    declared order, the older ``params=1.5/2`` form), then ``named`` overrides. Every value is
    checked against its bounds; ValueError in one line names the parameters on an unknown name or
    a wrong count."""
    out = defaults(params)
    if positional is not None:
        if len(positional) != len(params):
            shown = "/".join(f"{p.default:g}" for p in params)
            takes = f"{len(params)} numbers ({'/'.join(names(params))}, defaults {shown})" if params else "no numbers"
            raise ValueError(f"params {'/'.join(f'{x:g}' for x in positional)}: heuristic {heuristic!r} takes {takes}; "
                             f"got {len(positional)}")
        for i, (p, number) in enumerate(zip(params, positional)):
            out[i] = p.check(number, heuristic)
    index = {p.name: i for i, p in enumerate(params)}
    for key, x in (named or {}).items():
        if key not in index:
            raise ValueError(f"heuristic {heuristic!r} has no parameter {key!r}; its parameters: "
                             f"{', '.join(index) or '(none)'}")
        out[index[key]] = params[index[key]].check(x, heuristic)
    return out


def from_defaults(defaults_: Sequence[float], prefix: str = "p") -> tuple[Param, ...]:
    """Parameters named ``p0, p1, ...`` for a heuristics module that gives only
    ``DEFAULT_PARAMS`` (positions, no names): any finite value."""
    return tuple(Param(f"{prefix}{i}", float(x), -1.0e12, 1.0e12, f"position {i} (undeclared)")
                 for i, x in enumerate(defaults_))


def default_lists(table: Mapping[str, Sequence[Param]]) -> dict[str, list[float]]:
    """``DEFAULT_PARAMS`` (heuristic -> default list) of a ``PARAMS`` table, for the searches
    that read defaults by position."""
    return {name: defaults(ps) for name, ps in table.items()}
