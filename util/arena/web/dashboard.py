"""The tournament dashboard's API: runs, ratings with intervals, cross-table, pair statistics,
clock report, plots, games with a replay (the blueprint :data:`dashboard`), and small matches
started from the page (:mod:`util.arena.web.matches`).

It reads the store that ``util.arena.tournament`` writes (never creating one) through the same
functions as the command line's ``--report``, so the page and the terminal cannot disagree.
A match started here is ``python -m util.arena.tournament`` in a subprocess with its own ``--tag``;
its progress is the number of its games in the store.
"""
from __future__ import annotations

import io
import subprocess
import threading
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from base.bounds import as_int
from util.arena.web.request_body import body
from util.arena.web.sessions import RequestError
from util.arena.web.views import replay_session, view

ROOT = Path(__file__).resolve().parents[3]
MAX_MATCH_GAMES = 40  # games a match started from the page may have
MAX_RUNNING_MATCHES = 2  # matches started from the page that may run at once (each is a process)
MAX_ID = (1 << 63) - 1  # SQLite's largest integer: a store's ids are from 1 to this


def _id(raw: Any, what: str) -> int:
    """A store id from a request: an integer from 1 to :data:`MAX_ID`, else a 400."""
    try:
        return as_int(raw, what, 1, MAX_ID)
    except ValueError as exc:
        raise RequestError(str(exc)) from None


def _db_path() -> Path:
    from util.arena.tournament import DEFAULT_DB

    return Path(current_app.config.get("DB") or DEFAULT_DB)


def _open():
    from util.arena.store import Store, StoreError

    path = _db_path()
    try:
        return Store(path, create=False)
    except StoreError as exc:
        raise RequestError(str(exc), 404) from None


def _shape(text: str | None):
    """The game whose games a report shows: ``?game=SPEC`` (any game), else ``?shape=``: the
    default game's key from before games had specs (ConnectX's board ``RxCxK``:
    :meth:`core.game.Game.from_legacy_key`), else the default game (:data:`core.games.DEFAULT_GAME`)."""
    from core.games import DEFAULT_GAME, game_class, make_game, parse_game

    game = request.args.get("game")
    if game:
        try:
            return parse_game(game)
        except ValueError as exc:
            raise RequestError(f"bad game {game!r}: {exc}") from None
    try:
        return game_class(DEFAULT_GAME).from_legacy_key(text) if text else make_game(DEFAULT_GAME)
    except ValueError as exc:
        raise RequestError(f"bad shape {text!r}: {exc}") from None


def _stored_game(spec: str):
    """The game of a stored game's spec; a 422 when this version refuses it (a board beyond
    today's bounds, a game no longer known)."""
    from core.games import parse_game

    try:
        return parse_game(spec)
    except ValueError as exc:
        raise RequestError(f"the stored game {spec[:80]!r} cannot be shown: {exc}", 422) from None


def stored_states(game: Any, moves: Any) -> list:
    """The states of a stored game from the start through its moves (up to the first that is
    not legal, as the replay always stopped)."""
    states = [game.initial()]
    for col in moves:
        if states[-1].is_terminal():
            break
        try:
            states.append(states[-1].apply(col))  # checks that the move is legal (once: Reinforce Tactics' legal set is slow)
        except ValueError:
            break
    return states


def _turn_over(states: list, i: int) -> bool:
    """Whether ``states[i]`` ends a turn: the game is over or a turn of another player starts."""
    s = states[i]
    if s.is_terminal():
        return True
    if s.is_chance_node():
        return False
    mover = next((p.current_player() for p in reversed(states[:i]) if not p.is_chance_node()), None)
    return s.current_player() != mover


def _which(store: Any, runs: list[int] | None) -> tuple[Any, str]:
    """The game a report shows and its label: ``?game=`` or ``?shape=`` when given, else the game
    of the run's latest stored game (a run plays one game), else the default game (ConnectX
    6x7x4). The label is the game's spec, or its key from before specs (``6x7x4``) for a game
    of ``?shape=`` or the default, as the page has always shown those."""
    if request.args.get("game") or request.args.get("shape"):
        game = _shape(request.args.get("shape"))
        return game, game.spec() if request.args.get("game") else game.legacy_key() or game.spec()
    latest = None
    for g in store.games(runs=runs):
        latest = g
    if latest is not None and latest.game:
        game = _stored_game(latest.game)
        return game, game.spec()
    game = _shape(None)
    return game, game.legacy_key() or game.spec()


def _run_arg(store: Any) -> list[int] | None:
    raw = request.args.get("run")
    if raw in (None, "", "all"):
        runs = store.runs()
        return [runs[0][0]] if runs and raw != "all" else None
    try:
        return [as_int(raw, "run", 1, MAX_ID)]
    except ValueError:
        raise RequestError(f"run must be a run id (1 to {MAX_ID}) or 'all', got {raw[:40]!r}") from None


_MATCHES = "arena_matches"  # app.extensions key: the matches this app started, and their lock (util.arena.web.matches)
STOP_WAIT = 30.0  # seconds a stopping server gives its matches to save and exit


def stop_matches(app: Flask) -> None:
    """SIGTERM to every match subprocess ``app`` started that still runs, then wait for them
    (within :data:`STOP_WAIT`; killed after): a server that stops leaves no match behind."""
    matches, lock = app.extensions.get(_MATCHES, ({}, threading.Lock()))
    with lock:
        procs = [m["proc"] for m in matches.values() if m["proc"].poll() is None]
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()


dashboard = Blueprint("dashboard", __name__)


@dashboard.get("/api/db/runs")
def runs():
    with _open() as store:
        return jsonify(runs=[{"id": i, "tag": t, "command": c, "updated": u, "games": n} for i, t, c, u, n in store.runs()])

@dashboard.get("/api/db/standings")
def standings():
    from util.arena import tournament

    with _open() as store:
        runs = _run_arg(store)
        shape, label = _which(store, runs)
        names, ratings, n, s = tournament.standings(store, shape, runs)
        pairs = tournament.pair_report(store, shape, runs)
        clock = tournament.clock_report(store, shape, runs)
    return jsonify(
        runs=runs, game=label, names=names,
        ratings=[{"name": r.name, "elo": r.elo, "low": r.low, "high": r.high, "games": r.games, "score": r.score} for r in ratings],
        games=n.tolist(), scores=s.tolist(), pairs=pairs, clock=clock)

@dashboard.get("/api/db/plot/<kind>.png")
def plot(kind: str):
    from util.arena import plots, tournament

    if kind not in ("ratings", "crosstable"):
        raise RequestError("plot must be ratings or crosstable", 404)
    with _open() as store:
        runs = _run_arg(store)
        names, ratings, n, s = tournament.standings(store, _which(store, runs)[0], runs)
    if not names:
        raise RequestError("no games in this run yet", 404)
    buf = io.BytesIO()
    if kind == "ratings":
        plots.ratings_png(ratings, buf)
    else:
        plots.crosstable_png(names, n, s, buf)
    return Response(buf.getvalue(), mimetype="image/png")

@dashboard.get("/api/db/games")
def games():
    from util.arena import tournament

    with _open() as store:
        runs = _run_arg(store)
        rows = list(store.games(runs=runs))
        names = tournament.labels(store, sorted({g.first for g in rows} | {g.second for g in rows}))
    return jsonify(games=[{"id": g.id, "first": names[g.first], "second": names[g.second], "shape": g.shape, "game": g.game,
                           "plies": len(g.moves), "winner": g.winner, "termination": g.termination}
                          for g in rows[-500:]])

@dashboard.get("/api/db/games/<game_id>")
def game(game_id: str):
    from util.arena import tournament

    number = _id(game_id, "game id")
    with _open() as store:
        g = store.game(number)
        if g is None:
            raise RequestError(f"no game {number} in the store", 404)
        names = tournament.labels(store, [g.first, g.second])
    cx = _stored_game(g.game)  # any game: its spec is stored with it
    from util.arena.web.render import frame

    with current_app.extensions["search_slot"]():  # a legal-set check a move: a long game is as heavy as a search
        states = stored_states(cx, g.moves)
    turns = cx.end_turn_action is not None
    frames = []
    texts: list[str] = []
    for i, state in enumerate(states):
        if i:
            texts.append(("chance: " if (i - 1) in g.chance else "") + states[i - 1].action_to_string(state.history[-1]))
        if turns and 0 < i < len(states) - 1 and not _turn_over(states, i):
            continue  # a game of many moves a turn: one frame a turn, its moves joined
        pic = frame(states[:i + 1])
        if turns:
            pic["moves"] = []  # a replay offers no moves: the frame stays small
        frames.append({"grid": cx.grid(state), "text": str(state), "move": "; ".join(texts) if texts else None,
                       "picture": pic, "ply": i})
        texts = []
    return jsonify(id=g.id, game=g.game, first=names[g.first], second=names[g.second], winner=g.winner,
                   termination=g.termination, errors=g.errors, opening=len(g.opening),
                   move_times=list(g.move_times), frames=frames, turns=turns)

@dashboard.post("/api/replays/stored")
def stored_replay():
    """A play-page session holding a stored game (``{"id": N}``): replayed there turn by
    turn, and played on from its end when it stopped early."""

    number = _id(body().get("id"), "game id")
    with _open() as store:
        g = store.game(number)
    if g is None:
        raise RequestError(f"no game {number} in the store", 404)
    with current_app.extensions["search_slot"]():
        states = stored_states(_stored_game(g.game), g.moves)
    return jsonify(view(replay_session(current_app.extensions["sessions"], states, None))), 201
