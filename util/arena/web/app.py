"""The Flask application: JSON API under ``/api`` and the static pages (no build step), one
blueprint a screen: the pages (:mod:`~util.arena.web.pages`), the games offered
(:mod:`~util.arena.web.games_api`), the play page's game and replays
(:mod:`~util.arena.web.play_api`), its analysis panel (:mod:`~util.arena.web.analysis_api`),
the dashboard's stored results (:mod:`~util.arena.web.dashboard`) and its matches
(:mod:`~util.arena.web.matches`). This module joins them under the guards every request meets.

Errors: a request the API or the rules do not allow gets a 4xx and ``{"error": message}``;
an agent that fails gets a 502 with the reason. Nothing a client sends can make a 500 (a bug
that does is logged with its traceback and answered with a JSON 500 without it).

Limits (checked before any work): a body of at most :data:`MAX_BODY` bytes nested at most
:data:`util.arena.web.request_body.MAX_DEPTH` deep; games' parameters within their declared bounds; agents' parameters
within the server's bounds and naming no file (:func:`util.arena.web.sessions.make_agent`);
thinking time at most :data:`util.arena.web.sessions.MAX_TIME` a request. No request holds the
server: at most :data:`MAX_THINKING` searches at once and :data:`MAX_PER_CLIENT` API requests
of one client in progress (429 beyond), a busy session waited on briefly (409 after), an agent
that warms up in the background answered with a 503 and Retry-After (docs/web-app.md, Limits).
"""
from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from typing import Any

from flask import Flask, g, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from util.arena.web.analysis_api import MAX_TREE_NODES, analysis_api
from util.arena.web.dashboard import dashboard
from util.arena.web.games_api import default_heuristic, games_api, heuristic_params, make_game, params_text
from util.arena.web.matches import matches
from util.arena.web.pages import STATIC, pages
from util.arena.web.play_api import MAX_REPLAY_BODY, play_api
from util.arena.web.sessions import RequestError, SessionStore
from util.arena.web.views import replay_session

__all__ = ["MAX_BODY", "MAX_PER_CLIENT", "MAX_REPLAY_BODY", "MAX_THINKING", "MAX_TREE_NODES", "STATIC", "create_app",
           "default_heuristic", "heuristic_params", "make_game", "params_text", "replay_session"]  # one owner each, named here

LOG = logging.getLogger(__name__)

MAX_BODY = 64 * 1024  # bytes a request's body may have
MAX_THINKING = 4  # agents' searches (moves, analyses, replays) running at once: the server's other threads stay free
MAX_PER_CLIENT = 4  # API requests one client address may have in progress at once; a 429 beyond
BLUEPRINTS = (pages, games_api, play_api, analysis_api, dashboard, matches)


class _OrderedJSON(DefaultJSONProvider):
    sort_keys = False  # keep the order of grids and tables


def create_app(db: str | None = None, capacity: int = 200) -> Flask:
    """The app; ``db`` is the tournament store the dashboard reads (None: the default path);
    ``capacity``: the sessions it keeps (:class:`util.arena.web.sessions.SessionStore`)."""
    app = Flask(__name__, static_folder=None)
    app.config["DB"] = db
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.json = _OrderedJSON(app)
    app.extensions["sessions"] = SessionStore(capacity)  # the play page's games; the dashboard opens stored games as sessions too
    app.extensions["search_slot"] = search_slots(MAX_THINKING)  # every blueprint's searches share these places
    count_clients(app, MAX_PER_CLIENT)
    json_errors(app)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    return app


def search_slots(places: int) -> Any:
    """A context manager: one of ``places`` places for a search, or a 429 at once: slow searches
    never take every thread, so other requests are served."""
    thinking = threading.BoundedSemaphore(places)

    @contextlib.contextmanager
    def search_slot() -> Iterator[None]:
        if not thinking.acquire(blocking=False):
            raise RequestError(f"{places} searches are running: try again in a few seconds", 429, 1.0)
        try:
            yield
        finally:
            thinking.release()

    return search_slot


def count_clients(app: Flask, most: int) -> None:
    """A client may have ``most`` API requests in progress: one client's burst cannot take
    every thread (the pages and static files are not counted); a 429 beyond."""
    in_progress: dict[str, int] = {}  # client address -> its API requests being served
    lock = threading.Lock()

    @app.before_request
    def _count_client():
        if not request.path.startswith("/api/"):
            return None
        who = request.remote_addr or "?"
        with lock:
            if in_progress.get(who, 0) >= most:
                raise RequestError(f"{most} requests of yours are in progress: wait for one to finish", 429, 1.0)
            in_progress[who] = in_progress.get(who, 0) + 1
        g.client = who
        return None

    @app.teardown_request
    def _uncount_client(exc: BaseException | None) -> None:
        who = g.pop("client", None)
        if who is not None:
            with lock:
                left = in_progress.pop(who) - 1
                if left:
                    in_progress[who] = left


def json_errors(app: Flask) -> None:
    """Every error as ``{"error": message}`` with its status: a refused request's 4xx (a 503 of
    an agent warming up says so, with Retry-After), and a bug's 500 logged, without its traceback."""

    @app.errorhandler(RequestError)
    def _request_error(exc: RequestError):
        out: dict[str, Any] = {"error": str(exc)}
        if exc.status == 503:
            out["warming_up"] = True  # the page waits Retry-After seconds and asks again
        response = jsonify(out)
        if exc.retry_after is not None:
            response.headers["Retry-After"] = str(max(1, round(exc.retry_after)))
        return response, exc.status

    @app.errorhandler(404)
    def _not_found(exc: Any):
        return jsonify(error=f"no such page or API route: {request.path}"), 404

    @app.errorhandler(405)
    def _bad_method(exc: Any):
        return jsonify(error=f"{request.method} is not allowed on {request.path}"), 405

    @app.errorhandler(413)
    def _too_large(exc: Any):
        limit = request.max_content_length or MAX_BODY
        return jsonify(error=f"the request body is larger than {limit // 1024} KiB"), 413

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        return jsonify(error=exc.description or exc.name), exc.code or 500

    @app.errorhandler(Exception)
    def _bug(exc: Exception):
        LOG.exception("request %s %s failed", request.method, request.path)
        return jsonify(error=f"internal error ({type(exc).__name__}); the server's log has the details"), 500
