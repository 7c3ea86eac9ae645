"""The play page's analysis panel: what an agent thinks of the position on the board
(``/api/sessions/<sid>/analyze``) and the tree a depth-limited search explores from it
(``/api/sessions/<sid>/tree``), neither changing the game; each search takes one of the app's
places (:func:`util.arena.web.play_api.search_slot`)."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from agents import registry
from agents.engine.spec import parse_spec
from util.arena.web.games_api import default_heuristic
from util.arena.web.play_api import search_slot, sessions
from util.arena.web.request_body import body, int_arg
from util.arena.web.sessions import RequestError, Session, request_time
from util.arena.web.views import hidden

MAX_TREE_NODES = 2000  # nodes a drawn search tree may have (the page stays readable and fast)
analysis_api = Blueprint("analysis", __name__)


@analysis_api.post("/api/sessions/<sid>/analyze")
def analyze(sid: str):
    """What an agent (the opponent's spec unless ``agent`` is given) thinks of the position
    on the board, without changing the game: a fresh agent instance searches it."""
    data = body()
    store = sessions()
    session = store.get(sid)
    spec = str(data.get("agent") or session.agent_spec)
    t = request_time(data.get("time", session.time_per_move))
    state = session.state
    if state.is_terminal():
        raise RequestError("the game is over: nothing to analyse", 409)
    if state.is_chance_node():
        raise RequestError("a chance event comes next: nothing to choose", 409)
    if hidden(session.game):
        hidden_analysis_rule(session, spec)
    with search_slot():
        info, action = session.analyse(spec, state, t)
    if hidden(session.game):
        info["pv"] = []  # a line past the person's own move would be played on the true state
        info["notes"].append("a game of hidden information: the analysis reads only what your seat observes; no line beyond your move")
    store.trim()  # the session may keep this analyst: its tables count
    info["agent"] = spec
    info["action"] = int(action)
    info["action_text"] = state.action_to_string(int(action))
    return jsonify(info)


def hidden_analysis_rule(session: Session, spec: str) -> None:
    """The analysis a game of hidden information allows, else a 403 saying the rule: of the
    person's own position (it is to move), by an agent that reads only the mover's observation
    (:func:`agents.registry.observation_only`: no ``cheat=1`` search of the whole state)."""
    if session.state.current_player() != session.human:
        raise RequestError("a game of hidden information is analysed only when you are to move "
                           "(the agent's position would show what it hides)", 403)
    try:
        name = parse_spec(spec)[0]
        cls = registry.agent_class(session.game.name, name)
    except ValueError as exc:
        raise RequestError(str(exc)) from None
    if not registry.observation_only(cls) or "cheat" in parse_spec(spec)[1]:
        fair = ", ".join(n for n in registry.names(session.game.name) if registry.observation_only(registry.agent_class(session.game.name, n)))
        raise RequestError(f"agent {name!r} reads the whole state: a game of hidden information is analysed "
                           f"only by an agent that sees your observation ({fair})", 403)


@analysis_api.get("/api/sessions/<sid>/tree")
def tree(sid: str):
    """The tree a depth-limited minimax or alpha-beta explores from the position on the board."""
    from agents.engine import tree as tree_mod

    session = sessions().get(sid)
    depth = int_arg("depth", 2, 1, 6)
    algorithm = request.args.get("algorithm", "alphabeta")
    if algorithm not in ("alphabeta", "minimax"):
        raise RequestError(f"algorithm must be alphabeta or minimax, got {algorithm!r}")
    if hidden(session.game):
        raise RequestError("a game of hidden information has no search tree here: it would search the whole state, "
                           "the opponent's hidden part included", 403)
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
