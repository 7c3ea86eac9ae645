"""Bounded, strictly parsed values: the one validator of every size, count and time a person
gives, on the command line (a one-line error, exit 2) and on the web (a 400 with the same text).

Each parameter declares its bounds where it is defined (:class:`base.params.Param`: a game's
``PARAMS``, a heuristic's weights, an agent's fields); these functions check a value against
them before any work starts:

- integers: a Python int (not a bool) or text of ASCII digits with an optional sign (``"1.5"``,
  ``"1e3"`` and Unicode digits such as ``"٣"`` are refused: ``str.isdigit`` and ``int`` accept
  those), at most :data:`MAX_DIGITS` digits, from ``lo`` to ``hi``;
- numbers: an int or float, or ASCII decimal text, finite (no ``nan``/``inf``), from ``lo`` to
  ``hi`` (``lo`` excluded with ``open_lo``).

Messages name the parameter (``rows must be an integer from 1 to 20, got 100000``), never a
command-line flag: a command line adds its flag around the message.
Standard library only: ConnectX's :class:`~core.connectx.shape.Shape` uses it inside submissions.
"""
from __future__ import annotations

import math
import numbers
import re
from typing import Any

MAX_DIGITS = 30  # digits an integer's text may have (beyond every bound here; int() of huge text is slow)
_INT = re.compile(r"[+-]?[0-9]{1,%d}" % MAX_DIGITS)  # noqa: UP031 (a regex: braces stay literal)
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,4})?")

SECONDS_MAX = 86400.0  # a time a person gives: more than 0, at most a day
GIB = 1 << 30
MEMORY_BUDGET = 2 * GIB  # bytes one table a person sizes may take
TT_SLOTS = (1024, MEMORY_BUDGET // 8)  # the exact solver's table (8-byte slots; a prime search follows)
INT64 = (-(1 << 63), (1 << 63) - 1)  # an integer the kernels hold (state words, constants): the bound of one without its own


def shown(value: Any, limit: int = 40) -> str:
    """``value`` for a message, cut to ``limit`` characters (a client's megabyte stays out of
    logs; a file's path is worth more of them: :data:`PATH_SHOWN`)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


PATH_SHOWN = 300  # characters of a file's path a message shows (a temporary folder's are ~120)


def int_range(lo: int | None, hi: int | None) -> str:
    """``"an integer from 1 to 20"``, ``"an integer of at least 0"``, or ``"an integer"``."""
    if lo is not None and hi is not None:
        return f"{lo} or {hi}" if hi - lo == 1 else f"an integer from {lo} to {hi}"
    if lo is not None:
        return f"an integer of at least {lo}"
    if hi is not None:
        return f"an integer of at most {hi}"
    return "an integer"


def as_int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int within ``lo..hi`` (either None: no bound there); ValueError whose
    one line names ``name`` and the range otherwise."""
    kind = int_range(lo, hi)
    if isinstance(value, bool):
        raise ValueError(f"{name} must be {kind}, got {shown(value)}")
    if isinstance(value, numbers.Integral):  # int, numpy's integers
        v = int(value)
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2 ** 63:
        v = int(value)  # JSON's 6.0
    elif isinstance(value, str) and _INT.fullmatch(value.strip()):
        v = int(value.strip())
    else:
        raise ValueError(f"{name} must be {kind}, got {shown(value)}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {kind}, got {v}")
    return v


def float_range(lo: float | None, hi: float | None, open_lo: bool = False) -> str:
    low = None if lo is None else (f"more than {lo:g}" if open_lo else f"at least {lo:g}")
    if low and hi is not None:
        return f"a number {low} and at most {hi:g}" if open_lo else f"a number from {lo:g} to {hi:g}"
    if low:
        return f"a number {low}"
    return f"a number of at most {hi:g}" if hi is not None else "a finite number"


def as_float(value: Any, name: str, lo: float | None = None, hi: float | None = None,
             open_lo: bool = False) -> float:
    """``value`` as a finite float within ``lo..hi`` (``lo`` excluded when ``open_lo``)."""
    kind = float_range(lo, hi, open_lo)
    if isinstance(value, bool):
        raise ValueError(f"{name} must be {kind}, got {shown(value)}")
    if isinstance(value, numbers.Real):  # int, float, numpy's numbers
        try:
            v = float(value)
        except OverflowError:  # an int beyond float's range
            v = math.inf
    elif isinstance(value, str) and _FLOAT.fullmatch(value.strip()):
        v = float(value.strip())
    else:
        raise ValueError(f"{name} must be {kind}, got {shown(value)}")
    if not math.isfinite(v) or (lo is not None and (v <= lo if open_lo else v < lo)) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {kind}, got {shown(value)}")
    return v


def as_seconds(value: Any, name: str, hi: float = SECONDS_MAX) -> float:
    """A time in seconds: finite, more than 0, at most ``hi`` (a day by default)."""
    return as_float(value, name, 0.0, hi, open_lo=True)


def key_values(text: str, what: str, whole: str) -> dict[str, str]:
    """``"a=1,b=2"`` -> ``{"a": "1", "b": "2"}`` (keys and values stripped, empty items skipped):
    the parameters of a game or agent spec. ValueError of one line naming ``what`` ("game
    parameter", "parameter") and ``whole`` (the spec, e.g. "agent spec 'mcts:c=2'") for an item without ``=`` or a key given
    twice (the last one silently winning would hide a typo)."""
    pairs: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"bad {what} {shown(item)} in {whole}; write key=value, comma-separated")
        if key in pairs:
            raise ValueError(f"{what} {key!r} is given twice in {whole}; give each once")
        pairs[key] = value.strip()
    return pairs


__all__ = ["as_int", "as_float", "as_seconds", "key_values", "shown", "int_range", "SECONDS_MAX", "MEMORY_BUDGET", "GIB",
           "TT_SLOTS", "INT64"]
