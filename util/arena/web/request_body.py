"""A request's JSON body, parsed within bounds: a 400 (:class:`RequestError`) saying what is
wrong otherwise. Shared by the play API (:mod:`util.arena.web.app`) and the dashboard.

The body's cost is bounded before the parser runs: :func:`json_shape` measures its nesting and
its counts of containers and items with numpy's vector scans, so a 16 MiB
body of brackets is refused in milliseconds instead of costing the parser seconds of CPU and
hundreds of MiB of lists."""
from __future__ import annotations

import json
from typing import NamedTuple

import numpy as np
from flask import request

from util.arena.web.sessions import RequestError

MAX_DEPTH = 16  # nesting a request's JSON may have (the API's deepest is 2, a Kaggle episode's 8)
MAX_CONTAINERS = 200_000  # arrays and objects a body may have (a 181-step Kaggle episode, 4 MB: 27,000)
MAX_ITEMS = 2_000_000  # values a body may have, about (commas and containers; that episode: 365,000; a 16 MiB one 1.5 M)


class Shape(NamedTuple):
    depth: int  # how deep arrays and objects nest
    containers: int  # arrays and objects
    items: int  # about how many values: commas and containers


def json_shape(raw: bytes) -> Shape:
    """The nesting and counts of JSON ``raw`` (brackets in strings not counted), found without
    parsing, in time linear in its size with numpy's vector operations: escaped backslashes and
    quotes are dropped, a byte is in a string when an odd number of quotes comes before it, and
    the depth is the largest running sum of the brackets outside strings (+1 opening, -1 closing)."""
    b = np.frombuffer(raw.replace(b"\\\\", b"").replace(b'\\"', b""), np.uint8)
    outside = b[(np.cumsum(b == ord('"'), dtype=np.uint8) & 1) == 0]  # uint8 wraps: the parity stays
    opening = (outside == ord("[")) | (outside == ord("{"))
    closing = (outside == ord("]")) | (outside == ord("}"))
    opens = int(np.count_nonzero(opening))
    items = int(np.count_nonzero(outside == ord(","))) + opens
    if opens > MAX_CONTAINERS:
        return Shape(0, opens, items)
    signs = opening.astype(np.int8) - closing.astype(np.int8)
    depth = int(np.cumsum(signs[signs != 0], dtype=np.int64).max(initial=0))
    return Shape(depth, opens, items)


def json_depth(text: str) -> int:
    """How deep the arrays and objects of JSON ``text`` nest (brackets in strings not counted)."""
    return json_shape(text.encode("utf-8", "surrogatepass")).depth


def body() -> dict:
    """The request's JSON object ({} when there is no body); a 400 saying what is wrong else.
    Its shape is checked first (:func:`json_shape`): at most :data:`MAX_DEPTH` deep,
    :data:`MAX_CONTAINERS` arrays and objects and :data:`MAX_ITEMS` values."""
    raw = request.get_data(cache=True)
    if not raw:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RequestError("the request body is not UTF-8 text") from None
    shape = json_shape(raw)
    if shape.containers > MAX_CONTAINERS:
        raise RequestError(f"the request body has more than {MAX_CONTAINERS:,} arrays and objects")
    if shape.items > MAX_ITEMS:
        raise RequestError(f"the request body has more than {MAX_ITEMS:,} values")
    if shape.depth > MAX_DEPTH:
        raise RequestError(f"the request body nests deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise RequestError("the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


def int_arg(name: str, default: int, lo: int, hi: int) -> int:
    """The integer query argument ``name`` (``default`` when absent), from ``lo`` to ``hi``; else a 400."""
    from base.bounds import as_int

    try:
        return as_int(request.args.get(name, str(default)), name, lo, hi)
    except ValueError as exc:
        raise RequestError(str(exc)) from None
