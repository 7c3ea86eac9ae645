"""A request's JSON body, parsed within bounds: a 400 (:class:`RequestError`) saying what is
wrong otherwise. Shared by the play API (:mod:`util.arena.web.app`) and the dashboard."""
from __future__ import annotations

import json

from flask import request

from util.arena.web.sessions import RequestError

MAX_DEPTH = 16  # nesting a request's JSON may have (the API's deepest is 2)


def json_depth(text: str) -> int:
    """How deep the arrays and objects of JSON ``text`` nest (brackets in strings not counted),
    found without parsing: a parser recurses once a level."""
    depth = top = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            top = max(top, depth)
        elif ch in "]}":
            depth -= 1
    return top


def body() -> dict:
    """The request's JSON object ({} when there is no body); a 400 saying what is wrong else."""
    raw = request.get_data(cache=True)
    if not raw:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RequestError("the request body is not UTF-8 text") from None
    if json_depth(text) > MAX_DEPTH:
        raise RequestError(f"the request body nests deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text)
    except ValueError:
        raise RequestError("the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data
