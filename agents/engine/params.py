"""A heuristic's parameters as the engine's agents take them, read here once for every agent
(alpha-beta, minimax, expectimax, the solver's fallback, MCTS's leaves, the turn searches).

Each game's heuristics declare their parameters by name (``PARAMS``, :class:`base.params.Param`:
name, default, bounds, meaning). An agent spec names them like any agent parameter
(``alphabeta:heuristic=lines,w3=5``, ``mcts:leaf=heuristic,heuristic=lines,power=3``):
:func:`agents.engine.spec.convert_params` gathers the keys an agent with a heuristic does not
have as fields into its ``params`` text (``w3=5``); the agent reads that text with
:func:`parse_params` and turns it into the list its kernel reads with :func:`heuristic_values`
(names checked against the chosen heuristic, values against their bounds), once;
:func:`heuristic_array` hands the list to a compiled or plain kernel. The older positional form
(``params=1.5/2``: every number, in the declared order) still works.

Why "/" between entries: an agent spec separates its fields with ",", so the entries need
another separator that a shell leaves alone. ";" and "," are read too (older parameter files).
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from base.bounds import as_float, shown
from base.params import Param, from_defaults, values
from core.game import search_params

NAMED = {"heuristic_params": True}
"""Metadata of an agent's ``params`` field holding its heuristic's parameters: spec keys that are
no field of the agent go there by name (:func:`agents.engine.spec.convert_params`)."""

INTERNAL = {"internal": True}
"""Metadata of an agent field that the code building the agent sets, never a spec (e.g. the
depth-first agents' ``deepening``): no parameter (:func:`agents.engine.spec.is_parameter`), refused
in a spec like an unknown name."""


def parse_params(text: Any) -> list[float] | dict[str, float] | None:
    """The entries of ``text``: named (``"power=2/threat=1"`` -> ``{"power": 2.0, ...}``) or
    positional (``"1.5/2"`` -> ``[1.5, 2.0]``); a mapping is taken as named; None when empty (the
    heuristic's defaults). ValueError whose one line shows the form on anything else."""
    if isinstance(text, Mapping):
        return {str(k): as_float(v, f"parameter {k}") for k, v in text.items()} or None
    parts = [p.strip() for p in str(text or "").replace(";", "/").replace(",", "/").split("/") if p.strip()]
    if not parts:
        return None
    if all("=" in p for p in parts):  # a bad value: as_float's line names the parameter
        pairs = [p.partition("=") for p in parts]
        return {k.strip(): as_float(v, f"parameter {k.strip()}") for k, _, v in pairs}
    try:
        if any("=" in p for p in parts):
            raise ValueError
        return [as_float(p, "params") for p in parts]
    except ValueError:
        raise ValueError(f"params {shown(text)}: write name=value entries separated by '/', e.g. power=2/threat=1, "
                         "or all the heuristic's numbers in order, e.g. 1.5/2") from None


def params_text(named: Mapping[str, Any]) -> str:
    """``{"power": 2.0}`` -> ``"power=2.0"``: the ``params`` text of named values (repr: exact)."""
    return "/".join(f"{k}={float(v)!r}" for k, v in named.items())


def _module(game: Any) -> Any:
    path = getattr(game, "heuristics", "")
    if not path:
        return None
    # beside the game's own modules: a submission bundles them under a private package
    return game.import_module(path) if hasattr(game, "import_module") else importlib.import_module(path)


def declared(game: Any) -> dict[str, tuple[Param, ...]]:
    """Every heuristic of ``game`` -> its parameters (the module's ``PARAMS``; a module giving only
    ``DEFAULT_PARAMS`` gets positional names ``p0, p1, ...``). Empty for a game without heuristics."""
    mod = _module(game)
    if mod is None:
        return {}
    table = getattr(mod, "PARAMS", None)
    if table is None:
        table = {h: from_defaults(getattr(mod, "DEFAULT_PARAMS", {}).get(h, ())) for h in getattr(mod, "HEURISTICS", {})}
    return {h: tuple(table.get(h, ())) for h in getattr(mod, "HEURISTICS", table)}


def agent_parameters(game: Any) -> dict[str, Param]:
    """The heuristic parameters a spec may name on ``game`` (every heuristic's, by name; a name two
    heuristics share keeps the first's bounds): what the tuner's space and a server accept."""
    out: dict[str, Param] = {}
    for params in declared(game).values():
        for p in params:
            out.setdefault(p.name, p)
    return out


def heuristic_values(game: Any, heuristic: str, params: Any) -> list[float]:
    """The list heuristic ``heuristic`` of ``game`` reads (its defaults with ``params`` over them:
    the text or mapping of :func:`parse_params`), every value within its declared bounds: the one
    conversion from names to numbers. ValueError in one line on a bad name, count or value."""
    table = declared(game)
    if heuristic not in table:
        raise ValueError(f"unknown heuristic {heuristic!r} for {game.name}; valid: {', '.join(table)}")
    given = parse_params(params)
    if isinstance(given, dict):
        return values(heuristic, table[heuristic], named=given)
    return values(heuristic, table[heuristic], positional=given)


def heuristic_array(source: Any, jit: bool) -> Any:
    """What a kernel takes as ``params`` (:func:`core.game.search_params`: a list on the plain
    path, a tuple or float64 array compiled) from ``source``: a list of :func:`heuristic_values`,
    or a search agent holding one as ``heuristic_values``."""
    vals: Sequence[float] = getattr(source, "heuristic_values", source)
    return search_params(vals, jit)


def _import(game: Any, path: str) -> Any:
    return game.import_module(path) if hasattr(game, "import_module") else importlib.import_module(path)


def file_heuristics(game: Any) -> dict[str, str]:
    """The heuristics of ``game`` whose numbers come from a data file (its heuristics module's
    ``FILE_HEURISTICS``: name -> the module giving ``evaluate`` and ``load_values(path)``), e.g.
    a learned evaluation's weights."""
    return dict(getattr(_module(game), "FILE_HEURISTICS", {}))


def resolve_heuristic(game: Any, heuristic: str, params: Any, weights: str = "") -> tuple[Any, list[float]]:
    """``(function, parameters)`` of the game's heuristic ``heuristic`` (empty: the first of its
    ``HEURISTICS``) with the spec's ``params`` over its defaults (:func:`heuristic_values`): what
    MCTS and the turn searches bind into their kernels. A heuristic of :func:`file_heuristics`
    reads its parameters from the file ``weights`` instead (``params`` then refused). ValueError
    in one line names the choices, or says what is wrong with the file; the caller decides what
    a game without ``heuristics`` means."""
    table = getattr(_module(game), "HEURISTICS", {})
    files = file_heuristics(game)
    name = heuristic or next(iter(table), "")
    if name in files:
        if parse_params(params) is not None:
            raise ValueError(f"heuristic {name!r} reads its numbers from its weights file, not from params")
        mod = _import(game, files[name])
        return mod.evaluate, mod.load_values(weights)
    if str(weights or "").strip():
        raise ValueError(f"weights= is for a heuristic read from a file ({', '.join(files) or 'none on ' + game.name}), "
                         f"not {name!r}")
    if name not in table:
        raise ValueError(f"unknown heuristic {name!r} for {game.name}; valid: {', '.join(list(table) + list(files))}")
    return table[name], heuristic_values(game, name, params)


__all__ = ["NAMED", "INTERNAL", "parse_params", "params_text", "declared", "agent_parameters", "heuristic_values",
           "heuristic_array", "file_heuristics", "resolve_heuristic"]
