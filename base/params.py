"""One declaration of a named, bounded parameter, read by every tool (issue 35, point 5).

:class:`Param` is the one shape of a parameter a person sets: its name, type, default, bounds, a
one-line meaning and, where a server takes it from a client, a tighter server bound. Every
parameter is declared with it:

- a game's parameters: ``Game.PARAMS = table(Param("rows", 6, 1, 20, "board rows"), ...)``
  (:class:`core.game.Game`; the older tuple form ``(type, default, help[, (lo, hi)])`` is read
  into a :class:`Param` by :func:`from_tuple`);
- a heuristic's parameters: each game's heuristics module declares ``PARAMS: dict[heuristic,
  tuple[Param, ...]]``; the hot ``evaluate(g, s, params)`` reads ``params`` by position, in the
  declared order: :func:`values` is the one conversion from names (and, for older specs,
  positions) to that list of floats, and ``agents.engine.params.heuristic_array`` the one from
  the list to what a compiled kernel takes;
- an agent's fields (dataclasses): a field's metadata holds its declaration (:func:`declare`,
  :func:`declared_field`), or the field takes the declaration its name has in every agent
  (``agents.engine.spec.AGENT_PARAMS``).

The readers: :meth:`Param.parse` (a spec's, a form's or a file's value, one line on a bad one),
:meth:`Param.arg_type` (argparse), :meth:`Param.parse_server` (a server's request), and the
attributes (the tuner's search ranges, the web app's forms, ``--help``).

Standard library only (submissions carry it beside the heuristics and the games).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from base.bounds import INT64, as_float, as_int, shown

KINDS = (bool, int, float, str)  # the types a parameter may have
PARAM = "param"  # the metadata key of a dataclass field's declaration (:func:`declare`)
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter: a game's, a heuristic's or an agent field's.

    ``kind`` is the default's type when not given (bool, int, float or str; a default of None,
    "not set", needs it). An int without bounds is an int64 (:data:`base.bounds.INT64`: the
    kernels' words), a float without bounds any finite number. ``server``: a tighter ``(lo,
    hi)`` for a server's request (many sessions share one process), within ``(lo, hi)``.
    A declaration that breaks these rules is a TypeError or ValueError when it is made (import).
    """

    name: str  # the name a spec, a form and the tuner use (``power`` in ``heuristic=bitsquares,power=2``)
    default: Any  # the value when none is given (None: not set; the owner decides)
    lo: Any = None  # smallest value accepted (inclusive); None: no bound
    hi: Any = None  # largest value accepted (inclusive); None: no bound
    doc: str = ""  # one line: what the parameter means, in which unit
    kind: Any = None  # bool, int, float or str; None: the default's type
    server: tuple[Any, Any] | None = None  # (lo, hi) on a server, within (lo, hi); None: as (lo, hi)

    def __post_init__(self) -> None:
        kind = self.kind if self.kind is not None else type(self.default)
        if kind not in KINDS:
            raise TypeError(f"parameter {self.name}: a kind of {', '.join(k.__name__ for k in KINDS)} "
                            f"(default {shown(self.default)}); give kind=")
        object.__setattr__(self, "kind", kind)
        if kind not in (int, float) and (self.bounds or self.server):
            raise TypeError(f"parameter {self.name}: a {kind.__name__} takes no bounds")
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ValueError(f"parameter {self.name}: lo {self.lo} is above hi {self.hi}")
        if self.server is not None:
            slo, shi = self.server
            if not (_at_most(self.lo, slo) and _at_most(slo, shi) and _at_most(shi, self.hi)):
                raise ValueError(f"parameter {self.name}: server bounds {self.server} must lie within "
                                 f"{(self.lo, self.hi)}")

    @property
    def bounds(self) -> tuple[Any, Any] | None:
        """``(lo, hi)``, or None when neither is given."""
        return None if self.lo is None and self.hi is None else (self.lo, self.hi)

    def parse(self, value: object, label: str | None = None) -> Any:
        """``value`` (a number, a bool, or text from a spec, a form, a file) as the parameter's kind
        within its bounds; ValueError of one line naming ``label`` (default: the name) otherwise."""
        return _parse(self.kind, value, label or self.name, self.lo, self.hi)

    def parse_server(self, value: object, label: str | None = None) -> Any:
        """As :meth:`parse`, within the server's bounds (:attr:`server`, else the parameter's)."""
        lo, hi = self.server or (self.lo, self.hi)
        return _parse(self.kind, value, label or self.name, lo, hi)

    def check(self, value: object, heuristic: str) -> float:
        """A heuristic's parameter: ``value`` as a float within the bounds; ValueError in one line."""
        return float(self.parse(value, f"parameter {self.name} of heuristic {heuristic!r}"))

    def arg_type(self) -> Callable[[str], Any]:
        """An argparse ``type=`` reading the parameter (argparse's one line names the flag:
        ``argument --tt-bits: value must be an integer from 4 to 26, got 30``)."""
        import argparse  # here: a submission that reads parameters needs no argparse

        def parse(text: str) -> Any:
            try:
                return self.parse(text, "value")
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        parse.__name__ = {bool: "boolean", int: "integer", float: "number", str: "text"}[self.kind]
        return parse

    def help(self) -> str:
        """The meaning with the bounds, for ``--help`` and listings: ``board rows; 1 to 20``."""
        if self.bounds is None:
            return self.doc
        lo, hi = ("" if x is None else f"{x:g}" if self.kind is float else str(x) for x in self.bounds)
        return f"{self.doc}; {lo} to {hi}"


def _at_most(a: Any, b: Any) -> bool:
    return a is None or b is None or a <= b


def _parse(kind: type, value: object, label: str, lo: Any, hi: Any) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in TRUE or text in FALSE:
            return text in TRUE
        raise ValueError(f"{label} must be true or false, got {shown(value)}")
    if kind is int:
        if lo is None and hi is None:
            lo, hi = INT64  # every int a game or agent keeps fits its kernels' int64 words
        return as_int(value, label, lo, hi)
    if kind is float:
        return as_float(value, label, lo, hi)
    return str(value)


def table(*params: Param) -> dict[str, Param]:
    """``{p.name: p}`` in the declared order (a game's ``PARAMS``); a name given twice is a
    ValueError."""
    out = {p.name: p for p in params}
    if len(out) != len(params):
        raise ValueError(f"parameters named twice: {[p.name for p in params]}")
    return out


def from_tuple(name: str, spec: tuple) -> Param:
    """The older tuple form of a game parameter, ``(type, default, help[, (lo, hi)])``, as a
    :class:`Param` (so a game written that way still reads)."""
    kind, default, doc, *rest = spec
    lo, hi = rest[0] if rest and rest[0] is not None else (None, None)
    return Param(name, default, lo, hi, doc, kind)


def declare(default: Any, lo: Any = None, hi: Any = None, doc: str = "", kind: Any = None,
          server: tuple[Any, Any] | None = None) -> Any:
    """A dataclass field declared as a parameter: ``w_gold: float = declare(1.0, -1e6, 1e6, "value of a
    coin")``; its metadata holds the :class:`Param` (named after the field by :func:`of_field`)."""
    return dataclasses.field(default=default, metadata={PARAM: Param("", default, lo, hi, doc, kind, server)})


def declared_field(param: Param, default: Any = dataclasses.MISSING) -> Any:
    """A dataclass field declared by ``param`` (its default unless ``default`` is given)."""
    p = param if default is dataclasses.MISSING else dataclasses.replace(param, default=default)
    return dataclasses.field(default=p.default, metadata={PARAM: p})


def of_field(f: dataclasses.Field, by_name: Mapping[str, Param] | None = None) -> Param | None:
    """The declaration of dataclass field ``f``: its metadata's (:func:`field`), else the one its
    name has in ``by_name``, named after the field with the field's default; None without one."""
    p = f.metadata.get(PARAM) or _from_bounds(f) or (by_name or {}).get(f.name)
    if p is None:
        return None
    if f.default is not dataclasses.MISSING:
        default = f.default
    elif f.default_factory is not dataclasses.MISSING:
        default = f.default_factory()
    else:
        default = None
    return dataclasses.replace(p, name=f.name, default=default)


def _from_bounds(f: dataclasses.Field) -> Param | None:
    """The older field metadata ``{"bounds": (lo, hi)}`` read into a declaration (a float if
    either end is one, else an int), so a field written that way keeps its bounds."""
    if "bounds" not in f.metadata:
        return None
    lo, hi = f.metadata["bounds"]
    return Param(f.name, None, lo, hi, str(f.metadata.get("doc", "")), float if float in (type(lo), type(hi)) else int)


def declarations(cls: type) -> tuple[Param, ...]:
    """The parameters a dataclass declares in its fields' metadata (:func:`declare`), in field order:
    the heuristic weights of a mixin such as Reinforce Tactics' ``Weights``."""
    return tuple(p for p in (of_field(f) for f in dataclasses.fields(cls)) if p is not None)


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
