"""The play page's API: a game against an agent (``/api/sessions``: start, a move, the agent's
move, undo, the picture at a ply) and a Kaggle episode opened as such a game to replay
(``/api/replays/kaggle``). The sessions and the places for searches are the app's
(``current_app.extensions``: :func:`util.arena.web.app.create_app`)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from util.arena.web.games_api import make_game
from util.arena.web.request_body import body, int_arg
from util.arena.web.sessions import RequestError, SessionStore
from util.arena.web.views import hidden, replay_moves, replay_session, seat_arg, seat_view, view

MAX_REPLAY_BODY = 16 << 20  # bytes a Kaggle episode sent to replay may have (a 200-step game is about 3 MB)
play_api = Blueprint("play", __name__)


def sessions() -> SessionStore:
    return current_app.extensions["sessions"]


def search_slot() -> Any:
    """One of the app's places for a search, or a 429 at once (:func:`util.arena.web.app.search_slots`)."""
    return current_app.extensions["search_slot"]()


@play_api.post("/api/sessions")
def new_session():
    data = body()
    game = make_game(data.get("game"), data.get("params", {}))
    if data.get("moves") and hidden(game):
        raise RequestError("a game of hidden information starts from its beginning: a move list would set what the players hide")
    session = sessions().create(game, str(data.get("agent") or "random"), data.get("time", 1.0), data.get("human", 0))
    if data.get("moves"):  # a position to open: the moves from the start (a shared link)
        replay_moves(session, data["moves"])
    return jsonify(view(session)), 201


@play_api.get("/api/sessions/<sid>")
def get_session(sid: str):
    return jsonify(view(sessions().get(sid)))


@play_api.get("/api/sessions/<sid>/frame")
def frame_at(sid: str):
    """The picture of the session's position after ``ply`` moves (chance outcomes count), to
    replay it, from ``seat``'s view (0, 1 or full; default the person's: :func:`~util.arena.web.views.seat_arg`)."""
    session = sessions().get(sid)
    states = list(session.states)  # a copy, without the lock: a move in progress never holds this
    ply = int_arg("ply", len(states) - 1, 0, len(states) - 1)
    seat = seat_arg(session, request.args.get("seat"))
    return jsonify(seat_view(states[:ply + 1], seat)["picture"])


@play_api.post("/api/sessions/<sid>/move")
def move(sid: str):
    data = body()
    if "action" not in data:
        raise RequestError('send {"action": <integer or the game\'s text for it>}')
    session = sessions().get(sid)
    with session.busy():
        session.human_move(data["action"])
        return jsonify(view(session))


@play_api.post("/api/sessions/<sid>/agent")
def agent_move(sid: str):
    store = sessions()
    session = store.get(sid)
    with session.busy(), search_slot():
        session.agent_move()
        out = view(session)
    store.trim()  # a turn of many moves adds many states
    return jsonify(out)


@play_api.post("/api/sessions/<sid>/undo")
def undo(sid: str):
    session = sessions().get(sid)
    with session.busy():
        session.undo()
        return jsonify(view(session))


@play_api.post("/api/replays/kaggle")
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
    return jsonify(view(replay_session(sessions(), states, data.get("agent")))), 201
