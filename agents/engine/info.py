"""What an agent's last ``choose`` found: one typed value, :class:`SearchInfo`, for every search.

Every agent's ``info()`` returns a :class:`SearchInfo` (the tools call :func:`info_of`, which
also answers for an agent without ``info``). The fields every search shares are typed and
documented here; what only one family reports (an MCTS's reused tree, a turn planner's plan, a
book's note) goes in ``extra`` under its own key.

:meth:`SearchInfo.as_dict` is the JSON form (the web app's analysis, the play tool, logs): the
fields that are set, under their own names, with ``extra`` merged in, the keys the agents
reported before this type existed. A SearchInfo is also a read-only ``Mapping`` over that form
(``info["depth"]``, ``info.get("value")``, ``"simulations" in info``), so readers of a key
work on every agent alike; code that knows the field reads the attribute.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True, eq=False)
class SearchInfo(Mapping[str, Any]):
    """The result of an agent's last search. ``None`` (or an empty ``extra``) means "not
    reported": a field is never filled with a made-up value."""

    value: float | None = None  # the position's value for the side that chose, in the agent's units (see the agent's docstring); a proven outcome when exact
    action: int | None = None  # the action chosen
    pv: tuple[int, ...] | None = None  # principal variation from the position, first the action chosen
    nodes: int | None = None  # positions a depth-first search visited
    simulations: int | None = None  # this search's own simulations (MCTS playouts), not visits kept from earlier moves
    depth: int | None = None  # the deepest completed iteration, in plies (decisions)
    seconds: float | None = None  # the time the search took
    exact: bool | None = None  # True: value (and action_values) are proven game values, not estimates
    action_values: Mapping[int, float] | None = None  # value of each root action searched, for the side that chose
    extra: Mapping[str, Any] = field(default_factory=dict)  # what only this family reports (name -> plain data)

    def __post_init__(self) -> None:
        clash = set(self.extra) & _FIELDS
        if clash:
            raise ValueError(f"SearchInfo.extra may not hold the typed fields {sorted(clash)}: set the fields")

    @classmethod
    def from_dict(cls, info: Mapping[str, Any] | None, **fields_: Any) -> SearchInfo:
        """The SearchInfo of a report in the old key form (``{"value": ..., "nodes": ...,
        "plan": ...}``): known keys to their fields, the rest to ``extra``; ``fields_`` set
        fields over it (e.g. ``action=``)."""
        known: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for k, v in dict(info or {}).items():
            (known if k in _FIELDS and k != "extra" else extra)[k] = v
        known.update(fields_)
        if known.get("pv") is not None:
            known["pv"] = tuple(int(a) for a in known["pv"])
        if known.get("action_values") is not None:
            known["action_values"] = dict(known["action_values"])
        return cls(**known, extra=extra)

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready form: set fields under their names (``pv`` a list), then ``extra``."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "extra" or v is None:
                continue
            out[f.name] = list(v) if f.name == "pv" else dict(v) if f.name == "action_values" else v
        out.update(self.extra)
        return out

    def replace(self, **changes: Any) -> SearchInfo:
        """A copy with ``changes``: fields by name, any other name into ``extra``."""
        own = {k: v for k, v in changes.items() if k in _FIELDS}
        extra = dict(self.extra, **{k: v for k, v in changes.items() if k not in _FIELDS})
        current = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        return SearchInfo(**dict(current, **own), extra=extra)

    # --- the read-only Mapping over as_dict() ------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def __len__(self) -> int:
        return len(self.as_dict())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self.as_dict() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # holds dicts: not hashable


_FIELDS = frozenset(f.name for f in fields(SearchInfo))

EMPTY = SearchInfo()
"""The info of an agent that reports nothing."""


def info_of(agent: Any) -> SearchInfo:
    """``agent``'s ``info()`` as a :class:`SearchInfo`: :data:`EMPTY` when it has none; a plain
    mapping (an agent from outside the project) converted with :meth:`SearchInfo.from_dict`."""
    fn = getattr(agent, "info", None)
    if not callable(fn):
        return EMPTY
    got = fn()
    return got if isinstance(got, SearchInfo) else SearchInfo.from_dict(got)
