"""Small matches started from the dashboard (``POST /api/db/matches``, their progress at
``GET /api/db/matches/<tag>``): ``python -m util.arena.tournament`` in a subprocess with its own
``--tag``, at most :data:`util.arena.web.dashboard.MAX_RUNNING_MATCHES` at once per app; its
progress is the number of its games in the store. :func:`util.arena.web.dashboard.stop_matches`
ends them with the server."""
from __future__ import annotations

import secrets
import subprocess
import sys
import threading
from typing import Any

from flask import Blueprint, current_app, jsonify

from base.bounds import as_float, as_int
from util.arena.web.dashboard import _MATCHES, MAX_MATCH_GAMES, MAX_RUNNING_MATCHES, ROOT, _db_path
from util.arena.web.request_body import body
from util.arena.web.sessions import RequestError

matches = Blueprint("matches", __name__)


@matches.record
def _per_app(state: Any) -> None:
    """Matches started by this app: tag -> {"proc", "total", "db"} (per app, never shared), and their lock."""
    state.app.extensions[_MATCHES] = ({}, threading.Lock())


def _started() -> tuple[dict[str, dict[str, Any]], Any]:
    return current_app.extensions[_MATCHES]


@matches.post("/api/db/matches")
def start_match():
    from agents import registry
    from agents.engine.spec import SpecError
    from util.arena import players

    data = body()
    if not data:
        raise RequestError('send a JSON object: {"agents": ["a", "b"], "games": 10, "time": 0.1}')
    agents = data.get("agents")
    if not isinstance(agents, list) or len(agents) != 2 or not all(isinstance(a, str) and a for a in agents):
        raise RequestError("agents must be a list of two agent specs")
    for spec in agents:
        if spec.endswith(".py") or "/" in spec:
            raise RequestError("agent files cannot be started from the page: use the command line")
        try:
            registry.check_spec_tree(players.as_game(None), spec, server=True)  # every agent it builds
            players.resolve(spec)
        except SpecError as exc:
            raise RequestError(str(exc)) from None
    try:
        games = as_int(data.get("games", 10), "games", 2, MAX_MATCH_GAMES)
        t = as_float(data.get("time", 0.1), "time (seconds a move)", 0.01, 2.0)
    except ValueError as exc:
        raise RequestError(str(exc)) from None
    tag = "web-" + secrets.token_hex(6)
    cmd = [sys.executable, "-m", "util.arena.tournament", "--agents", ",".join(agents), "--games", str(games),
           "--time", str(t), "--workers", "1", "--db", str(_db_path()), "--tag", tag, "--quiet"]
    started, matches_lock = _started()
    with matches_lock:  # counted and started under one lock: two requests cannot both pass the cap
        running = sum(1 for m in started.values() if m["proc"].poll() is None)
        if running >= MAX_RUNNING_MATCHES:
            raise RequestError(f"{running} matches are running (at most {MAX_RUNNING_MATCHES} at once): "
                               "wait for one to finish", 429)
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        started[tag] = {"proc": proc, "total": games, "db": str(_db_path())}
    return jsonify(id=tag, total=games), 202

@matches.get("/api/db/matches/<tag>")
def match_status(tag: str):
    from util.arena.store import Store, StoreError

    started, matches_lock = _started()
    with matches_lock:
        m = started.get(tag)
    if m is None:
        raise RequestError(f"no match {tag!r} started by this server", 404)
    done = 0
    try:
        with Store(m["db"], create=False) as store:
            run = store.run_id(tag)
            if run is not None:
                done = sum(1 for _ in store.games(runs=[run]))
    except StoreError:
        pass  # the subprocess has not created the store yet
    code = m["proc"].poll()
    error = None
    if code not in (None, 0):
        error = (m["proc"].stderr.read() or "").strip().splitlines()[-1:] or [f"exit code {code}"]
        error = error[0]
    return jsonify(id=tag, done=done, total=m["total"], finished=code is not None, error=error,
                   run=_run_of(m["db"], tag))


def _run_of(db: str, tag: str) -> int | None:
    from util.arena.store import Store, StoreError

    try:
        with Store(db, create=False) as store:
            return store.run_id(tag)
    except StoreError:
        return None
