"""The Flask application: JSON API under ``/api`` and the static pages (no build step).

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
from pathlib import Path
from typing import Any

from flask import Flask, g, jsonify, request, send_from_directory
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from agents import registry
from base.bounds import as_int
from base.params import Param
from core import games as game_registry
from core.game import Game
from util.arena.web.render import frame
from util.arena.web.request_body import body
from util.arena.web.sessions import RequestError, SessionStore, request_time
from util.arena.web.views import replay_moves, replay_session, view

LOG = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
MAX_TREE_NODES = 2000  # nodes a drawn search tree may have (the page stays readable and fast)
MAX_BODY = 64 * 1024  # bytes a request's body may have
MAX_REPLAY_BODY = 16 << 20  # bytes a Kaggle episode sent to replay may have (a 200-step game is about 3 MB)
MAX_THINKING = 4  # agents' searches (moves, analyses, replays) running at once: the server's other threads stay free
MAX_PER_CLIENT = 4  # API requests one client address may have in progress at once; a 429 beyond


class _OrderedJSON(DefaultJSONProvider):
    sort_keys = False  # keep the order of grids and tables


def create_app(db: str | None = None, capacity: int = 200) -> Flask:
    """The app; ``db`` is the tournament store the dashboard reads (None: the default path)."""
    app = Flask(__name__, static_folder=None)
    app.config["DB"] = db
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.json = _OrderedJSON(app)
    store = SessionStore(capacity)
    thinking = threading.BoundedSemaphore(MAX_THINKING)
    in_progress: dict[str, int] = {}  # client address -> its API requests being served
    clients_lock = threading.Lock()

    @app.before_request
    def _count_client():
        """A client may have :data:`MAX_PER_CLIENT` API requests in progress: one client's
        burst cannot take every thread (the pages and static files are not counted)."""
        if not request.path.startswith("/api/"):
            return None
        who = request.remote_addr or "?"
        with clients_lock:
            if in_progress.get(who, 0) >= MAX_PER_CLIENT:
                raise RequestError(f"{MAX_PER_CLIENT} requests of yours are in progress: wait for one to finish", 429, 1.0)
            in_progress[who] = in_progress.get(who, 0) + 1
        g.client = who
        return None

    @app.teardown_request
    def _uncount_client(exc: BaseException | None) -> None:
        who = g.pop("client", None)
        if who is not None:
            with clients_lock:
                left = in_progress.pop(who) - 1
                if left:
                    in_progress[who] = left

    @contextlib.contextmanager
    def search_slot():
        """One of :data:`MAX_THINKING` places for a search, or a 429 at once: slow searches
        never take every thread, so other requests are served."""
        if not thinking.acquire(blocking=False):
            raise RequestError(f"{MAX_THINKING} searches are running: try again in a few seconds", 429, 1.0)
        try:
            yield
        finally:
            thinking.release()

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


    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/dashboard")
    def dashboard_page():
        return send_from_directory(STATIC, "dashboard.html")

    @app.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/games")
    def list_games():
        out = []
        for name in game_registry.names():
            cls = game_registry.game_class(name)
            out.append({
                "name": name,
                "doc": (cls.__doc__ or "").strip().splitlines()[0].replace("``", "") if cls.__doc__ else "",
                "params": [_param(k, spec) for k, spec in cls.PARAMS.items()],
                "agents": registry.names(name),
                "heuristics": heuristic_params(cls),  # each heuristic's parameters an agent spec may name
                "turns": cls.end_turn_action is not None,  # a turn is several moves, ended by an action
            })
        return jsonify(games=out)

    @app.post("/api/sessions")
    def new_session():
        data = body()
        game = make_game(data.get("game"), data.get("params", {}))
        session = store.create(game, str(data.get("agent") or "random"), data.get("time", 1.0), data.get("human", 0))
        if data.get("moves"):  # a position to open: the moves from the start (a shared link)
            replay_moves(session, data["moves"])
        return jsonify(view(session)), 201

    @app.get("/api/sessions/<sid>")
    def get_session(sid: str):
        return jsonify(view(store.get(sid)))

    @app.get("/api/sessions/<sid>/frame")
    def frame_at(sid: str):
        """The picture of the session's position after ``ply`` moves (chance outcomes count), to replay it."""
        states = list(store.get(sid).states)  # a copy, without the lock: a move in progress never holds this
        ply = _int_arg("ply", len(states) - 1, 0, len(states) - 1)
        return jsonify(frame(states[:ply + 1]))

    @app.post("/api/sessions/<sid>/move")
    def move(sid: str):
        data = body()
        if "action" not in data:
            raise RequestError('send {"action": <integer or the game\'s text for it>}')
        session = store.get(sid)
        with session.busy():
            session.human_move(data["action"])
            return jsonify(view(session))

    @app.post("/api/sessions/<sid>/agent")
    def agent_move(sid: str):
        session = store.get(sid)
        with session.busy(), search_slot():
            session.agent_move()
            out = view(session)
        store.trim()  # a turn of many moves adds many states
        return jsonify(out)

    @app.post("/api/sessions/<sid>/undo")
    def undo(sid: str):
        session = store.get(sid)
        with session.busy():
            session.undo()
            return jsonify(view(session))

    @app.post("/api/sessions/<sid>/analyze")
    def analyze(sid: str):
        """What an agent (the opponent's spec unless ``agent`` is given) thinks of the position
        on the board, without changing the game: a fresh agent instance searches it."""
        data = body()
        session = store.get(sid)
        spec = str(data.get("agent") or session.agent_spec)
        t = request_time(data.get("time", session.time_per_move))
        state = session.state
        if state.is_terminal():
            raise RequestError("the game is over: nothing to analyse", 409)
        if state.is_chance_node():
            raise RequestError("a chance event comes next: nothing to choose", 409)
        with search_slot():
            info, action = session.analyse(spec, state, t)
        store.trim()  # the session may keep this analyst: its tables count
        info["agent"] = spec
        info["action"] = int(action)
        info["action_text"] = state.action_to_string(int(action))
        return jsonify(info)

    @app.get("/api/sessions/<sid>/tree")
    def tree(sid: str):
        """The tree a depth-limited minimax or alpha-beta explores from the position on the board."""
        from agents.engine import tree as tree_mod

        session = store.get(sid)
        depth = _int_arg("depth", 2, 1, 6)
        algorithm = request.args.get("algorithm", "alphabeta")
        if algorithm not in ("alphabeta", "minimax"):
            raise RequestError(f"algorithm must be alphabeta or minimax, got {algorithm!r}")
        if session.state.is_terminal():
            raise RequestError("the game is over: no tree to draw", 409)
        heuristic = request.args.get("heuristic") or default_heuristic(session.game)
        with search_slot():  # up to MAX_TREE_NODES legal sets (Reinforce Tactics': 13 ms each in plain Python)
            try:
                root = tree_mod.explore(session.state, depth, method=algorithm, heuristic=heuristic, cap=MAX_TREE_NODES)
            except tree_mod.TreeTooLarge as exc:
                raise RequestError(f"{exc}; choose a smaller depth", 413) from None
            except ValueError as exc:
                raise RequestError(str(exc)) from None
        return jsonify(tree=root.to_dict(), dot=tree_mod.to_dot(root, title=f"{session.game.spec()} {algorithm} depth {depth}"),
                       heuristic=heuristic)

    @app.post("/api/replays/kaggle")
    def kaggle_replay():
        """A session at the end of a Kaggle episode (``{"episode": env.toJSON(), "agent": spec}``),
        with every action of it in its history, to replay turn by turn (and play on from its end
        when it stopped early; ``agent`` plays the second seat, default random)."""
        request.max_content_length = MAX_REPLAY_BODY
        data = body()
        from util.arena.web.replays import kaggle_states

        try:
            with search_slot():  # thousands of actions replayed: as heavy as a search
                states = kaggle_states(data.get("episode"))
        except RequestError:
            raise
        except (ValueError, OverflowError) as exc:
            raise RequestError(str(exc), 422) from None
        return jsonify(view(replay_session(store, states, data.get("agent")))), 201

    app.extensions["sessions"] = store  # the dashboard opens stored games as sessions too
    app.extensions["search_slot"] = search_slot  # and replays them (a legal-set check a move) within the same places
    from util.arena.web.dashboard import register as register_dashboard

    register_dashboard(app)
    return app


def default_heuristic(game: Game) -> str | None:
    """The first heuristic the game's heuristics module lists, or None (no heuristic)."""
    if not game.heuristics:
        return None
    import importlib

    table = getattr(importlib.import_module(game.heuristics), "HEURISTICS", {})
    return next(iter(table), None)


def _int_arg(name: str, default: int, lo: int, hi: int) -> int:
    try:
        return as_int(request.args.get(name, str(default)), name, lo, hi)
    except ValueError as exc:
        raise RequestError(str(exc)) from None


def heuristic_params(cls: type) -> dict[str, list[dict]]:
    """Each heuristic of game class ``cls`` -> its parameters as the page lists them (name,
    default, bounds, meaning): the declaration the agents read (:func:`agents.engine.params.declared`),
    the names a spec such as ``alphabeta:heuristic=lines,w3=5`` takes."""
    from agents.engine.params import declared

    return {h: [{"name": p.name, "default": p.default, "lo": p.lo, "hi": p.hi, "doc": p.doc} for p in params]
            for h, params in declared(cls()).items()}


def _param(name: str, p: Param) -> dict:
    """A game parameter as the page lists it: name, type, default, help, and its bounds."""
    return {"name": name, "type": p.kind.__name__, "default": p.default, "help": p.doc, "min": p.lo, "max": p.hi}


def make_game(name: Any, params: Any) -> Game:
    """The game a request names, whose initial state can be built; else a 400 naming what is wrong."""
    if not isinstance(name, str) or not name:
        raise RequestError(f"game must be one of: {', '.join(game_registry.names())}")
    if not isinstance(params, dict):
        raise RequestError("params must be a JSON object of the game's parameters")
    try:
        game = game_registry.make_game(name, **params)
        game.initial()  # a value the game's bounds let through but its start cannot hold is the request's fault too
        return game
    except OverflowError as exc:  # a number past what the game's integers hold, caught below its bounds
        raise RequestError(f"a parameter of {name} is too large for the game ({exc}): {params_text(params)}") from None
    except (ValueError, TypeError) as exc:  # whatever layer refuses a value: a 400 naming it
        raise RequestError(str(exc)) from None


def params_text(params: dict) -> str:
    """The game parameters a request gave, shortened for a message."""
    return ", ".join(f"{str(k)[:40]}={str(v)[:40]}" for k, v in list(params.items())[:10])
