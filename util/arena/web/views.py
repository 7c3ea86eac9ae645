"""The JSON a page gets for a session: the game drawn, the moves offered, the history and the
agent's last analysis (:func:`view`), for the play page (:mod:`util.arena.web.app`) and the
dashboard's stored games (:mod:`util.arena.web.dashboard`) alike."""
from __future__ import annotations

from typing import Any

from core.game import Game
from util.arena.web.render import frame, move_texts, play_texts, turn_starts
from util.arena.web.sessions import RequestError, Session, SessionStore


def hidden(game: Game) -> bool:
    """Whether ``game`` hides information from its players: every response is then of one seat's view."""
    return not game.perfect_information


def seat_view(states: list, seat: int | None) -> dict:
    """The picture of ``states[-1]`` from ``seat``'s view (None: everything), with the moves as
    that seat sees them: ``{"picture", "history"}``. A perfect-information game's views are all
    the full one."""
    viewer = seat if hidden(states[0].game) else None
    return {"picture": frame(states, viewer), "history": move_texts(states, viewer)}


def seat_arg(session: Session, text: str | None) -> int | None:
    """The seat a replay request asks for (``seat=0|1|full``; default the person's) within the
    rule: in a game of hidden information another seat's view or the full one only once the
    game is over (a 403 before: it would show what the opponent hides)."""
    if text in (None, ""):
        return session.human
    if text not in ("0", "1", "full"):
        raise RequestError(f"seat must be 0, 1 or full, got {str(text)[:20]!r}")
    seat = None if text == "full" else int(text)
    if seat != session.human and hidden(session.game) and not session.state.is_terminal():
        raise RequestError("a game of hidden information shows only your seat's view until it is over", 403)
    return seat


def view(session: Session) -> dict:
    """What the page needs to draw the game and offer moves: in a game of hidden information,
    only what the person's seat sees (:func:`seat_view`: no grid, text or extra of the whole
    state, no analysis of the agent's own moves)."""
    s = session.state
    game = session.game
    terminal = s.is_terminal()
    legal = [] if terminal or s.current_player() != session.human else s.legal_actions()
    secret = hidden(game)
    seen = seat_view(session.states, session.human)
    history = seen["history"]  # chance outcomes in brackets
    result = None
    if terminal:
        returns = s.returns()
        r = returns[session.human]
        result = "you won" if r > 0 else "you lost" if r < 0 else "draw"
        result += f" (returns {returns[0]:g} : {returns[1]:g})"
    last_info = None if secret else next((i for i in reversed(session.infos) if i), None)
    return {
        "id": session.id,
        "game": game.spec(),
        "name": game.name,
        "agent": session.agent_spec,
        "time": session.time_per_move,
        "human": session.human,
        "to_move": None if terminal else s.current_player(),
        "terminal": terminal,
        "result": result,
        "hidden_information": secret,
        "grid": None if secret else game.grid(s),
        "click_whole_column": game.click_whole_column,
        "extra": {} if secret else game.extra(s),
        "text": "" if secret else str(s),
        "legal": [{"action": a, "text": s.action_to_string(a), "cell": cell_of(game, s, a)} for a in legal],
        "history": history,
        "turns": turn_starts(session.states),  # games of many moves a turn: where each turn starts
        "picture": seen["picture"],
        "agent_to_move": session.agent_to_move(),
        "warming_up": not session.ready.is_set(),  # the agent compiles in the background: its move waits (a 503 until then)
        "last_analysis": last_info,
    }


def cell_of(game: Game, state: Any, action: int) -> list[int] | None:
    """The grid cell a person clicks for ``action``, as ``[row, column]``, or None (a button)."""
    cell = game.action_cell(state, action)
    return None if cell is None else [int(cell[0]), int(cell[1])]


def replay_session(store: SessionStore, states: list, agent: Any) -> Session:
    """A new session whose history is ``states`` (a replayed game, from its initial state): the
    person holds the first seat, ``agent`` (default random) the other, to play on from the end."""
    session = store.create(states[0].game, str(agent or "random"), 1.0, 0)
    session.states = list(states)
    session.infos = [{} for _ in states]
    session.roll()
    store.trim()  # its states count now
    return session


def replay_moves(session: Session, moves: Any) -> None:
    """Set ``session`` to the position after ``moves`` (the game's notation, as the page's move
    list and exports write them); chance outcomes left open are rolled by the server."""
    try:
        states = play_texts(session.game, moves)
    except ValueError as exc:
        raise RequestError(str(exc)) from None
    session.states = states
    session.infos = [{} for _ in states]
    session.roll()
