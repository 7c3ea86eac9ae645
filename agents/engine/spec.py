"""Agent specs such as ``alphabeta:heuristic=bitsquares,max_depth=6``: parsing, and the checked
conversion of their parameters to an agent class's fields within bounds (every game's agents).

The owner of :class:`SpecError`, :func:`parse_spec`, :func:`convert_params`, the declaration of
agents' fields by name (:data:`AGENT_PARAMS`: kind, bounds, meaning, server bound; read by
:func:`field_param`) and the server's file rule (:data:`FILE_FIELDS`). Which class a name means
on a game is :mod:`agents.registry`'s.
"""
from __future__ import annotations

import dataclasses
import os
import stat
import typing
from typing import Any

from base.bounds import INT64, MEMORY_BUDGET, PATH_SHOWN, SECONDS_MAX, TT_SLOTS, key_values, shown
from base.params import KINDS, Param, of_field, table


class SpecError(ValueError):
    """A bad agent name, parameter or value: the message says which and lists the valid ones."""


def field_default(f: dataclasses.Field) -> Any:
    """The default of dataclass field ``f`` (None when it has none)."""
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def is_parameter(f: dataclasses.Field) -> bool:
    """Whether dataclass field ``f`` of an agent is a spec parameter: not ``game`` (the registry
    sets it), nor a field whose metadata is :data:`agents.engine.params.INTERNAL`."""
    return f.init and not f.name.startswith("_") and f.name != "game" and not f.metadata.get("internal")


def parameters_of(cls: type) -> dict[str, Any]:
    """Parameter names of the agent class ``cls`` (a dataclass) with their defaults; ``game``
    (set by the registry) is not one."""
    return {f.name: field_default(f) for f in dataclasses.fields(cls) if is_parameter(f)}


# --- bounds: every number a spec gives is checked before the agent is built --------------------
SHARE = (0.0, 1.0)
SECONDS = (0.0, SECONDS_MAX)
SERVER_SECONDS = (0.0, 30.0)  # a time an agent may spend past or before its deadline, on a server (its longest move)


def _shared(name: str, kind: type, bounds: tuple, doc: str, server: tuple | None = None) -> Param:
    return Param(name, None, bounds[0], bounds[1], doc, kind, server)  # no default: each agent's field gives its own


AGENT_PARAMS: dict[str, Param] = table(
    # tables sized by a person stay within MEMORY_BUDGET (2 GiB); a server's within about 300 MiB
    _shared("tt_size", int, TT_SLOTS, "the exact solver's table slots, 8 bytes each (a prime search follows)",
            (1024, 1 << 25)),  # 256 MiB
    _shared("tt_bits", int, (4, 26), "the depth-first search's table: about 2**tt_bits entries of about 24 bytes",
            (4, 22)),  # 2**26: 1.5 GiB; 2**22: about 100 MiB
    _shared("solver_tt_bits", int, (4, 26), "the solver's table: about 2**solver_tt_bits entries", (4, 22)),
    _shared("capacity", int, (1, MEMORY_BUDGET // 140), "MCTS tree nodes of about 140 bytes (edges included)",
            (1, 2_000_000)),  # about 280 MiB when full
    # depths, counts and plies
    _shared("max_depth", int, (0, 1000), "deepest iteration in plies"),
    _shared("depth", int, (0, 64), "plies searched"),
    _shared("order_depth", int, (0, 1000), "actions are ordered at nodes with at least this depth left"),
    _shared("tt_depth", int, (1, 1000), "the table is used at nodes with at least this depth left"),
    _shared("max_plies", int, (1, 100_000), "longest line followed, in plies"),
    _shared("max_rollout", int, (1, 1_000_000), "steps of a random playout before it counts as a draw"),
    _shared("max_sims", int, (0, 10 ** 12), "simulations per move (0: only the deadline)"),
    _shared("min_count", int, (1, 10 ** 9), "entries seen fewer times count as unknown"),
    _shared("seed", int, (0, INT64[1]), "seed of the agent's random numbers"),
    # fractions and times
    _shared("book_wait_share", float, SHARE, "share of a book move's time spent waiting for the compile"),
    _shared("compile_share", float, SHARE, "share of a move's time spent waiting for a background compile"),
    _shared("proof_share", float, SHARE, "share of a move's time the solver may use before the plain strategy"),
    _shared("solve_share", float, SHARE, "share of a move's time for the exact solver before the search"),
    _shared("solver_share", float, SHARE, "share of the time left the solver may plan to use"),
    _shared("time_safety", float, SHARE, "without a clock in compiled code: share of the time left an iteration may plan on"),
    _shared("mix", float, SHARE, "mixed leaves: reward = (1 - mix) * rollout + mix * heuristic reward"),
    _shared("evaporation", float, SHARE, "share of a child's pheromone lost at each visit of its parent"),
    _shared("gamma", float, SHARE, "discount per step of lookahead (1: none)"),
    _shared("margin", float, SECONDS, "seconds kept before the deadline", SERVER_SECONDS),
    _shared("compile_wait", float, SECONDS, "seconds past deadlines the agent may wait, in total, for a compile",
            SERVER_SECONDS),
)
"""The declaration of agents' fields by name (one name means one thing in every agent): kind,
bounds, meaning and server bound; the default is each field's. A field's own declaration in its
metadata (:func:`base.params.declare`) comes first; other ints are int64, other floats finite
(:func:`field_param`)."""

FILE_FIELDS: dict[str, tuple[str, ...]] = {"book": ("auto", "none"), "cache": ("auto", ""), "table": ("",), "weights": ("",)}
"""Fields that may name a file, with the values that do not (shipped data or none): a server
refuses the others (``server=True``) unless they name a regular file inside its data folder
(``data_root``: :func:`check_data_file`), so a client cannot probe the server's files; a
command line refuses a named file that is missing or not a regular file before any game."""

AGENT_SPEC = {"agent_spec": "game"}
"""Metadata of an agent field that holds another agent's spec for the same game (e.g. Quixo's
table player's ``fallback``): :func:`agents.registry.spec_tree` checks it with its parent."""

GENERIC_AGENT_SPEC = {"agent_spec": "generic"}
"""As :data:`AGENT_SPEC`, for a spec of a generic engine agent only
(:func:`agents.engine.registry.make_generic`, e.g. the Monte-Carlo learner's ``fallback``)."""

MAX_SPEC_DEPTH = 4
"""Agent specs nested in a spec's parameters, at most (deeper is refused before any parsing
recursion a client could drive)."""


def names_file(key: str, value: Any) -> bool:
    """Whether parameter ``key`` with ``value`` names a file (:data:`FILE_FIELDS`)."""
    return key in FILE_FIELDS and str(value).strip() not in FILE_FIELDS[key]


def check_data_file(path: str, label: str, data_root: str | os.PathLike | None = None) -> str:
    """``path`` (a file parameter's value; ``label`` names it in messages) resolved, symlinks
    followed: SpecError unless it is a regular file (no FIFO, device or folder) and, with
    ``data_root``, inside that folder (nothing outside it is even looked at)."""
    real = os.path.realpath(os.path.expanduser(str(path).strip()))
    if data_root is not None:
        root = os.path.realpath(data_root)
        if os.path.commonpath([root, real]) != root:
            raise SpecError(f"{label} must name a file in this server's data folder, not {shown(path)}")
    try:
        mode = os.stat(real).st_mode
    except OSError:
        raise SpecError(f"{label}: file {shown(path, PATH_SHOWN)} does not exist") from None
    if not stat.S_ISREG(mode):
        raise SpecError(f"{label}: {shown(path, PATH_SHOWN)} is not a regular file")
    return real

TABLE_BYTES: dict[str, Any] = {
    "tt_size": lambda v: 8 * v, "tt_bits": lambda v: 24 << v, "solver_tt_bits": lambda v: 24 << v,
    "capacity": lambda v: 140 * v,
}
"""Bytes the table a field sizes may take when full (the figures of :data:`AGENT_PARAMS`)."""


def table_bytes(agent: Any) -> int:
    """An upper estimate of the bytes ``agent``'s tables may hold (its table-sizing fields, and
    those of an agent it wraps as ``inner`` or of the searches it runs at once as ``trees``):
    what a server counts against its memory cap."""
    wrapped = (agent, getattr(agent, "inner", None), *getattr(agent, "trees", ()))
    objs = [obj for obj in wrapped if dataclasses.is_dataclass(obj)]
    return sum(sized_bytes({name: getattr(obj, name, None) for name in TABLE_BYTES}) for obj in objs)


def sized_bytes(values: dict[str, Any]) -> int:
    """The bytes the tables sized by ``values`` (field name -> value) may take when full
    (:data:`TABLE_BYTES`; other names and non-positive values count nothing)."""
    total = 0
    for name, size in TABLE_BYTES.items():
        v = values.get(name)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            total += size(min(v, 1 << 40))
    return total


def check_server_param(label: str, key: str, value: Any, param: Param,
                       data_root: str | os.PathLike | None = None) -> None:
    """SpecError when parameter ``key`` (declared ``param``) names a file (:data:`FILE_FIELDS`)
    other than a regular file in ``data_root`` (None: none at all) or sizes a table or a time
    beyond its server bound (:attr:`base.params.Param.server`): a server's request may do
    neither. One agent's parameter: :func:`agents.registry.check_spec_tree` checks every agent a
    spec builds."""
    if names_file(key, value):
        if data_root is None:
            allowed = " or ".join(repr(v) for v in FILE_FIELDS[key])
            raise SpecError(f"parameter {key} of agent {label!r} cannot name a file here; use {allowed}")
        check_data_file(value, f"parameter {key} of agent {label!r}", data_root)
    if param.server is not None and param.kind in (int, float):
        try:
            param.parse_server(value, f"parameter {key} of agent {label!r}")
        except ValueError as exc:
            raise SpecError(f"{exc} on this server") from None


def field_param(f: dataclasses.Field, annotation: Any = None) -> Param:
    """The declaration of agent field ``f`` (annotated ``annotation``): its metadata's
    (:func:`base.params.declare`), else its name's (:data:`AGENT_PARAMS`), else one of its type
    without bounds (an int within int64, a float finite); the default is the field's. A field of
    another type (text, a path, a spec) is declared ``str``."""
    declared = of_field(f, AGENT_PARAMS)
    if declared is not None:
        return declared
    default, annotation = field_default(f), _optional(annotation)[0]
    kind = annotation if isinstance(annotation, type) else type(default) if default is not None else str
    return Param(f.name, default, kind=kind if kind in KINDS else str)


def _optional(annotation: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``Optional[X]`` (e.g. ``int | None``), else ``(annotation, False)``."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if len(args) == 1 and len(typing.get_args(annotation)) == 2:
        return args[0], True
    return annotation, False


def agent_params(cls: type) -> dict[str, Param]:
    """Every spec parameter of the agent class ``cls`` (a dataclass) with its declaration
    (:func:`field_param`): what the spec parser, the tuner and the web app read."""
    hints = typing.get_type_hints(cls)
    return {f.name: field_param(f, hints.get(f.name)) for f in dataclasses.fields(cls) if is_parameter(f)}


def _convert(name: str, f: dataclasses.Field, value: Any, annotation: Any) -> Any:
    """``value`` (text from a spec, or a value) as field ``f``'s type within its bounds."""
    key, default = f.name, field_default(f)
    if _optional(annotation)[1] and (value is None or (isinstance(value, str) and value.strip().lower() == "none")):
        return None
    param = field_param(f, annotation)
    if param.kind in (bool, int, float):
        try:
            return param.parse(value, f"parameter {key} of agent {name!r}")
        except ValueError as exc:
            raise SpecError(str(exc)) from None
    if not isinstance(value, str):
        return value
    text = value.strip()
    return None if text.lower() == "none" and default is None else text


def convert_params(cls: type, label: str, params: dict[str, Any], server: bool = False, game: Any = None,
                   data_root: str | os.PathLike | None = None) -> dict[str, Any]:
    """``params`` checked against the dataclass ``cls``'s fields, strings converted to each
    field's type and numbers checked against their bounds (:func:`field_param`). ``label``
    names the agent in error messages. ``server=True`` (a server's request): no parameter may
    name a file outside ``data_root`` and tables and times stay within their server bounds
    (:func:`check_server_param`)."""
    fields = {f.name: f for f in dataclasses.fields(cls) if is_parameter(f)}
    hints = typing.get_type_hints(cls)
    params = gather_heuristic_params(fields, label, params, game)
    kwargs = {}
    for key, value in params.items():
        if key not in fields:
            valid = ", ".join(sorted(fields)) or "(none)"
            raise SpecError(f"agent {label!r} has no parameter {key!r}; valid parameters: {valid}")
        if server:
            check_server_param(label, key, value, field_param(fields[key], hints.get(key)), data_root)
        kwargs[key] = _convert(label, fields[key], value, hints.get(key))
    return kwargs


def gather_heuristic_params(fields: dict[str, dataclasses.Field], label: str, params: dict[str, Any],
                            game: Any = None) -> dict[str, Any]:
    """``params`` with the keys that are no field of an agent whose ``params`` field holds its
    heuristic's parameters (metadata ``heuristic_params``, :data:`agents.engine.params.NAMED`)
    moved into that field by name: ``{"w3": "5"}`` -> ``{"params": "w3=5"}``. The agent checks
    the names against its heuristic and the values against their bounds when it is built (it
    knows its game); giving ``params=`` too is refused (one form at a time)."""
    f = fields.get("params")
    if f is None or not f.metadata.get("heuristic_params"):
        return params
    extra = {k: v for k, v in params.items() if k not in fields}
    if not extra:
        return params
    if game is not None:
        from agents.engine.params import agent_parameters

        named = agent_parameters(game)
        for key in extra:
            if key not in named:
                valid = ", ".join(sorted(fields)) or "(none)"
                theirs = ", ".join(named) or "(none)"
                raise SpecError(f"agent {label!r} has no parameter {key!r}; valid parameters: {valid}; "
                                f"heuristic parameters on {game.name}: {theirs}")
    if str(params.get("params") or "").strip():
        raise SpecError(f"agent {label!r}: give the heuristic's parameters by name ({', '.join(extra)}) or as "
                        "params=..., not both")
    kept = {k: v for k, v in params.items() if k in fields}
    kept["params"] = "/".join(f"{k}={str(v).strip()}" for k, v in extra.items())
    return kept


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"alphabeta:heuristic=bitsquares,max_depth=6"`` -> ``("alphabeta", {"heuristic": ..., "max_depth": "6"})``;
    SpecError for an item without ``=`` or a key given twice. A parameter holding an agent spec
    of its own (:data:`AGENT_SPEC`) keeps it as text: ``quixo_perfect:fallback=mcts:c=2`` ->
    ``("quixo_perfect", {"fallback": "mcts:c=2"})`` (the nested spec has one parameter: a comma
    ends it); :func:`agents.registry.spec_tree` parses those in turn."""
    name, _, rest = spec.strip().partition(":")
    try:
        return name.strip(), key_values(rest, "parameter", f"agent spec {shown(spec)}")
    except ValueError as exc:
        raise SpecError(str(exc)) from None
