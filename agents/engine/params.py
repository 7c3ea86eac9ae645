"""A heuristic's parameters as the engine's agents take them: one string of numbers separated by
"/" (``params=1.5/2``), read here once for every agent (alpha-beta, minimax, expectimax, the
solver's fallback, MCTS's heuristic leaves), so a value tuned for one reaches the others as is.

Why "/": an agent spec (``alphabeta:heuristic=lines,params=1.5/2``) separates its fields with
",", so the numbers need another separator that a shell leaves alone. ";" and "," are read too
(older specs and parameter files wrote them), but "/" is the form to write.

The engine's heuristics take their numbers by position (``evaluate(g, s, params)`` reads
``params[0]``...), so the count must match the heuristic's defaults: a short list would make
the compiled kernel read past it (:func:`check_params`).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from util.bounds import as_float, shown


def parse_params(text: str) -> list[float] | None:
    """The numbers of ``text`` (``"1.5/2"`` -> ``[1.5, 2.0]``); None when it holds none (the
    heuristic's defaults apply). ValueError whose one line shows the form on anything else."""
    parts = [p.strip() for p in str(text or "").replace(";", "/").replace(",", "/").split("/")]
    try:
        numbers = [as_float(p, "params") for p in parts if p]
    except ValueError:
        raise ValueError(f"params {shown(text)}: write the heuristic's finite numbers separated by '/', e.g. 1.5/2") from None
    return numbers or None


def check_params(params: list[float] | None, defaults: Sequence[float], heuristic: str) -> list[float] | None:
    """``params`` when it has as many numbers as ``defaults`` (heuristic ``heuristic``'s, whose
    count the kernel reads) or is None; else a ValueError naming the count and the defaults."""
    if params is None or len(params) == len(defaults):
        return params
    shown = "/".join(f"{x:g}" for x in defaults)
    takes = f"{len(defaults)} number{'s' if len(defaults) != 1 else ''} (defaults {shown})" if defaults else "no numbers"
    got = "/".join(f"{x:g}" for x in params)
    raise ValueError(f"params {got}: heuristic {heuristic!r} takes {takes}; got {len(params)}")


__all__ = ["parse_params", "check_params"]


def resolve_heuristic(game: Any, heuristic: str, params: str) -> tuple[Any, list[float]]:
    """``(function, parameters)`` of the game's heuristic ``heuristic`` (empty: the first of its
    ``HEURISTICS``) with the spec's ``params`` text checked over its defaults (as alpha-beta reads
    them): what MCTS and the turn searches bind into their kernels. ValueError names the
    choices; the caller decides what a game without ``heuristics`` means."""
    import importlib

    from agents.engine.negamax import heuristic_function

    path = game.heuristics
    # beside the game's own modules: a submission bundles them under a private package
    mod = game.import_module(path) if hasattr(game, "import_module") else importlib.import_module(path)
    table = getattr(mod, "HEURISTICS", {})
    name = heuristic or next(iter(table), "")
    if name not in table:
        raise ValueError(f"unknown heuristic {name!r} for {game.name}; valid: {', '.join(table)}")
    defaults = heuristic_function(game, name)[1]
    given = check_params(parse_params(params), defaults, name)
    return table[name], (given if given is not None else defaults) or [0.0]
