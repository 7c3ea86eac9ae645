"""What the page draws: a position as its game's picture (:meth:`core.game.Game.picture`) with
the last move marked, and an agent's search as one typed report a person can read.

The report (:class:`SearchReport`) is the one place that reads the engines' ``info()`` keys
(``value``, ``exact``, ``depth``, ``nodes``, ``simulations``, ``action_values``, ``visits``,
``pv``; a turn planner's ``plan``, ``value_unit``, ``alternatives``, ``evaluations``,
``candidates``: :func:`agents.engine.turn_plan.alternatives`): the page never guesses what a
number means. Values are for the side that chose.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from agents.engine.info import info_of
from agents.engine.turn_plan import likeliest_line
from core.game import CHANCE, Game, State


def move_entry(state: State, action: int) -> dict | None:
    """``action``'s picture entry at ``state``: the game's ``move_entry`` when it has one (games
    of many moves a turn: no whole picture for each), else the entry its picture lists."""
    own = getattr(state.game, "move_entry", None)
    if callable(own):
        return own(state, action)
    return next((m for m in state.game.picture(state)["moves"] if m["action"] == action), None)


def seen_entry(state: State, action: int, viewer: int | None) -> dict | None:
    """``action``'s picture entry at ``state`` (:func:`move_entry`) as ``viewer`` sees it (None:
    everything seen): a move it does not see (:meth:`core.game.Game.seen_move_text`) is
    ``{"text": HIDDEN, "hidden": True}``, without its cells."""
    if viewer is not None and state.game.seen_move_text(state, action, viewer) is None:
        return {"text": HIDDEN, "hidden": True}
    return move_entry(state, action)


HIDDEN = "?"  # a move its viewer does not see, in the move list (its count is seen)


def last_move(states: list[State], viewer: int | None = None) -> dict | None:
    """The last move a player chose on the way to ``states[-1]`` (chance outcomes skipped):
    its picture entry (the cells its gesture used) with the ``player`` who made it; one
    ``viewer`` does not see has no cells (:func:`seen_entry`)."""
    for i in range(len(states) - 2, -1, -1):
        prev = states[i]
        if prev.is_chance_node():
            continue
        entry = seen_entry(prev, states[i + 1].history[-1], viewer)
        if entry is None:
            return None
        return dict(entry, player=prev.current_player())
    return None


def turn_starts(states: list[State]) -> list[dict]:
    """For a game whose turn is several decisions (:attr:`core.game.Game.end_turn_action`):
    where each turn starts, ``{"ply": index into states, "player": p}``, the first at ply 0;
    chance outcomes belong to the turn they happen in. Empty for other games."""
    if not states or states[0].game.end_turn_action is None:
        return []
    out: list[dict] = []
    mover = None
    for i, s in enumerate(states[:-1] if len(states) > 1 else states):
        p = s.current_player()
        if p != CHANCE and p != mover:
            out.append({"ply": i, "player": p})
            mover = p
    return out


def turn_moves(states: list[State], viewer: int | None = None) -> tuple[list[dict], dict | None]:
    """The moves of the turn in progress at ``states[-1]`` (its mover's, so far) and of the last
    finished turn (``{"player", "moves"}``, None before any): picture entries, each with the
    ``player`` whose turn it is (a chance outcome's entry too: its ``kind`` is ``counter`` or
    ``evade``)."""
    groups: list[list] = []  # [player, entries], the newest turn first
    for i in range(len(states) - 2, -1, -1):
        prev = states[i]
        p = prev.current_player()
        action = states[i + 1].history[-1]
        entry = seen_entry(prev, action, viewer) or {"text": prev.action_to_string(action)}
        if not groups:
            groups.append([None if p == CHANCE else p, []])
        elif p != CHANCE:
            if groups[-1][0] is None:
                groups[-1][0] = p
            elif groups[-1][0] != p:
                if len(groups) == 2:
                    break
                groups.append([p, []])
        groups[-1][1].insert(0, dict(entry))
    for p, entries in groups:
        for e in entries:
            e["player"] = p
    now = states[-1]
    if now.is_terminal():
        to_move = None
    elif now.is_chance_node():
        to_move = groups[0][0] if groups else None
    else:
        to_move = now.current_player()
    current: list[dict] = groups.pop(0)[1] if groups and groups[0][0] == to_move else []
    last = {"player": groups[0][0], "moves": groups[0][1]} if groups else None
    return current, last


def move_texts(states: list[State], viewer: int | None = None) -> list[str]:
    """The moves between ``states`` in the game's notation, chance outcomes in brackets; with
    ``viewer``, as that player sees them (:data:`HIDDEN` for one it does not see)."""
    out = []
    for prev, nxt in zip(states, states[1:]):
        action = nxt.history[-1]
        text = prev.action_to_string(action) if viewer is None else prev.game.seen_move_text(prev, action, viewer)
        text = HIDDEN if text is None else text
        out.append(f"({text})" if prev.is_chance_node() else text)
    return out


def frame(states: list[State], viewer: int | None = None) -> dict:
    """The picture of ``states[-1]`` with the last move and, at the end, the outcome; with
    ``viewer``, what that player sees (:meth:`core.game.Game.player_picture`, moves it does not
    see without their cells): the seat's view of a game of hidden information."""
    s = states[-1]
    pic = s.game.picture(s) if viewer is None else s.game.player_picture(s, viewer)
    pic["last"] = last_move(states, viewer)
    pic["terminal"] = s.is_terminal()
    pic["chance"] = s.is_chance_node()
    if s.game.end_turn_action is not None:
        pic["turn_moves"], pic["last_turn"] = turn_moves(states, viewer)
    if pic["terminal"]:
        r = s.returns()
        pic["returns"] = [float(r[0]), float(r[1])]
        pic["winner"] = 0 if r[0] > r[1] else 1 if r[1] > r[0] else None
    return pic


def play_texts(game: Game, texts: list[Any], limit: int = 2000) -> list[State]:
    """The states from the start through ``texts`` (the game's notation; a chance outcome may
    be in brackets, as :func:`move_texts` writes it). Raises ValueError naming the bad move."""
    if not isinstance(texts, list) or len(texts) > limit:
        raise ValueError(f"moves must be a list of at most {limit} moves in the game's notation")
    states = [game.initial()]
    for i, raw in enumerate(texts):
        s = states[-1]
        text = str(raw).strip()
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
        if s.is_terminal():
            raise ValueError(f"move {i + 1} ({text!r}): the game is already over")
        legal = s.legal_actions()
        action = next((a for a in legal if s.action_to_string(a).lower() == text.lower()), None)
        if action is None:
            try:
                action = s.string_to_action(text)
            except ValueError as exc:
                raise ValueError(f"move {i + 1}: {exc}") from None
        if action not in legal:
            raise ValueError(f"move {i + 1} ({text!r}) is not legal there")
        states.append(s.apply(action))
    return states


# --- the search report ---------------------------------------------------------------------------
@dataclass
class SearchReport:
    """What one search found, in units a person reads. ``value`` is for the side that chose,
    as the engine gives it; ``verdict`` and ``value_text`` say it in words; ``share`` (0..1)
    is the bar: a win probability (MCTS), 1/0.5/0 for a proven win/draw/loss, or the
    evaluation scaled by the game's win value. ``simulations`` are this search's own; visits
    in ``rows`` may also count a reused tree or a stored opening cache (``notes`` says so)."""

    kind: str  # "mcts", "solver", "search" (depth-limited), "book", "none"
    seconds: float
    simulations: int | None = None
    nodes: int | None = None
    depth: int | None = None
    rate: float | None = None  # simulations (MCTS) or nodes per second
    value: float | None = None
    exact: bool = False
    verdict: str = ""  # "win", "draw", "loss" (proven) or ""
    value_text: str = ""
    share: float | None = None
    pv: list[str] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)  # action, text, value, value_text, visits
    notes: list[str] = field(default_factory=list)
    reason: str = ""
    turn: dict | None = None  # a turn planner's (kind "turn"): :func:`turn_report`; None for other agents


def count_text(n: float) -> str:
    """58743276 -> '58.7 M', 4001 -> '4,001'."""
    n = float(n)
    for size, unit in ((1e9, "G"), (1e6, "M")):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:,.0f}"


def number_text(v: float) -> str:
    """A value with a sign and three decimals at most ('+0.000' for a value that rounds to zero)."""
    if v == 0:
        return "0"
    if abs(v) < 0.0005:
        return "+0.000" if v > 0 else "−0.000"
    if abs(v) >= 100:
        return f"{v:+,.0f}"
    return f"{v:+.3f}".rstrip("0").rstrip(".").replace("-", "−")


def _kind(info: dict) -> str:
    if isinstance(info.get("plan"), list):
        return "turn"
    if info.get("book"):
        return "book"
    if "simulations" in info or "visits" in info:
        return "mcts"
    if info.get("exact") and "depth" not in info:
        return "solver"
    if "depth" in info or "nodes" in info:
        return "search"
    return "none"


def judge(value: float | None, kind: str, exact: bool, win_value: float) -> tuple[str, str, str, float | None]:
    """(verdict, text, short text, bar share) of a value for the side that chose."""
    if value is None or not math.isfinite(value):
        return "", "", "", None
    if exact:
        verdict = "win" if value > 0 else "loss" if value < 0 else "draw"
        score = f" (score {number_text(value)})" if abs(value) not in (0, 1, win_value) else ""
        return verdict, f"proven {verdict}{score}", verdict + score, {"win": 1.0, "draw": 0.5, "loss": 0.0}[verdict]
    if kind == "mcts":
        p = min(1.0, max(0.0, (value + 1) / 2))
        return "", f"{100 * p:.0f}% to win (mean reward {number_text(value)})", f"{100 * p:.0f}%", p
    scaled = max(-1.0, min(1.0, value / max(win_value, 1e-9)))
    if abs(scaled) >= 1:
        verdict = "win" if scaled > 0 else "loss"
        return verdict, f"{verdict} found by the search ({number_text(value)})", verdict, (scaled + 1) / 2
    return "", f"evaluation {number_text(value)}", number_text(value), (scaled + 1) / 2


def search_report(info: dict, state: State, seconds: float, turn: bool = False) -> SearchReport:
    """The report of an agent's ``info()`` for its choice at ``state`` after ``seconds``; with
    ``turn``, a turn planner's plan and alternatives at ``state`` (:func:`turn_report`)."""
    kind = _kind(info)
    if kind == "turn":
        return _turn_search_report(info, state, seconds, turn)
    exact = bool(info.get("exact"))
    value = info.get("value")
    value = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    win_value = float(getattr(state.game, "win_value", 1.0))
    verdict, text, _short, share = judge(value, kind, exact, win_value)
    rep = SearchReport(kind=kind, seconds=round(seconds, 4), value=value, exact=exact, verdict=verdict,
                       value_text=text, share=share, reason=str(info.get("reason") or ""))
    for k in ("simulations", "nodes", "depth"):
        if isinstance(info.get(k), (int, float)) and not isinstance(info.get(k), bool):
            setattr(rep, k, int(info[k]))
    work = rep.simulations if kind == "mcts" else rep.nodes
    if work and seconds > 0:
        rep.rate = round(work / seconds, 1)
    rep.rows = _rows(info, state, kind, exact, win_value)
    rep.pv = _pv(info.get("pv"), state)
    total = sum(r.get("visits", 0) for r in rep.rows)
    if kind == "mcts" and rep.simulations is not None and total > rep.simulations + 1:
        rep.notes.append(f"the visits count {count_text(total - rep.simulations)} more than this search's "
                         f"{count_text(rep.simulations)} simulations: a tree kept from earlier moves"
                         + (" and a stored opening cache" if info.get("cache_nodes") else ""))
    if kind == "none" and not rep.rows:
        rep.notes.append("this agent does not search: it reports no value")
    return rep


def _turn_search_report(info: dict, state: State, seconds: float, turn: bool) -> SearchReport:
    rep = SearchReport(kind="turn", seconds=round(seconds, 4), reason=str(info.get("reason") or ""))
    win_value = float(getattr(state.game, "win_value", 1.0))
    unit = str(info.get("value_unit") or "reward")
    rep.value = _number(info.get("value"))
    rep.value_text, rep.share = turn_value_text(rep.value, unit, win_value)
    evaluations, candidates = _number(info.get("evaluations")), _number(info.get("candidates"))
    if evaluations is not None:
        rep.notes.append(f"{count_text(evaluations)} turn evaluations"
                         + (f" of {count_text(candidates)} distinct turns" if candidates is not None else ""))
    if turn:
        rep.turn = turn_report(info, state)
        rep.pv = [m["text"] for m in rep.turn["moves"]]
    return rep


def _number(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def turn_value_text(value: float | None, unit: str, win_value: float,
                    where: str = "after the turn") -> tuple[str, float | None]:
    """(text, bar share) of a turn planner's value for the mover: ``unit`` "reward" (a mean in
    [-1, 1]: the heuristic ``where`` squashed by a sigmoid) or "heuristic" (its own units, the
    bar scaled by the game's ``win_value``)."""
    if value is None:
        return "", None
    if unit == "reward":
        return f"mean reward {number_text(value)} (the heuristic {where}, in [−1, 1])", min(1.0, max(0.0, (value + 1) / 2))
    scaled = max(-1.0, min(1.0, value / max(win_value, 1e-9)))
    return f"heuristic {number_text(value)} {where}", (scaled + 1) / 2


def turn_line(state: State, actions: Any, limit: int = 1000) -> list[dict]:
    """The picture entries (:func:`move_entry`) of ``actions`` played from ``state`` as the turn's
    plan is played: along the likeliest chance outcomes, an action not legal there skipped (as
    Kaggle skips it), up to the end of the turn or of the mover's turn."""
    out: list[dict] = []
    if not isinstance(actions, (list, tuple)):
        return out
    end = state.game.end_turn_action
    me = state.current_player()
    s = state
    for a in actions[:limit]:
        s = likeliest_line(s)
        if s.is_terminal() or s.current_player() != me:
            break
        if isinstance(a, bool) or not isinstance(a, int) or a not in s.legal_actions():
            continue
        out.append(move_entry(s, a) or {"action": a, "text": s.action_to_string(a)})
        s = s.apply(a)
        if a == end:
            break
    return out


def turn_report(info: dict, state: State) -> dict:
    """A turn planner's plan at ``state`` as the page draws it: ``moves`` (picture entries of the
    plan's actions, legal in sequence: :func:`turn_line`), ``actions``, ``value``,
    ``value_text``, ``share``, and ``alternatives``, each ``{"moves", "actions", "text"}`` with
    ``visits`` and ``value`` (sampling searches), ``fitness`` and ``evaluations`` (evolution) or
    ``value`` alone (greedy: a first sub-action's score), its ``value_text``; ``ranked_by`` says
    which ("visits", "fitness", "first decision")."""
    win_value = float(getattr(state.game, "win_value", 1.0))
    unit = str(info.get("value_unit") or "reward")
    moves = turn_line(state, info.get("plan"))
    value = _number(info.get("value"))
    text, share = turn_value_text(value, unit, win_value)
    alts: list[dict] = []
    raw = [a for a in info.get("alternatives") or [] if isinstance(a, dict)]
    ranked = "visits" if raw and "visits" in raw[0] else "fitness" if raw and "fitness" in raw[0] else "first decision"
    where = "after this act (its best follow-up included)" if ranked == "first decision" else "after the turn"
    for alt in raw:
        line = turn_line(state, alt.get("actions"))
        row: dict = {"moves": line, "actions": [m["action"] for m in line],
                     "text": " · ".join(m["text"] for m in line) or "(nothing legal)"}
        for k in ("visits", "evaluations"):
            if _number(alt.get(k)) is not None:
                row[k] = int(alt[k])
        for k in ("value", "fitness"):
            v = _number(alt.get(k))
            if v is not None:
                row[k] = v
                row["value_text"], row["share"] = turn_value_text(v, unit, win_value, where)
        alts.append(row)
    return {"moves": moves, "actions": [m["action"] for m in moves], "player": state.current_player(),
            "value": value, "value_text": text, "share": share, "unit": unit,
            "alternatives": alts, "ranked_by": ranked}


def _rows(info: dict, state: State, kind: str, exact: bool, win_value: float) -> list[dict]:
    legal = set(state.legal_actions())
    rows: dict[int, dict] = {}
    for key, name in (("action_values", "value"), ("visits", "visits")):
        table = info.get(key)
        if not isinstance(table, dict):
            continue
        for a, v in table.items():
            a = int(a)
            if a in legal and isinstance(v, (int, float)):
                row = rows.setdefault(a, {"action": a, "text": state.action_to_string(a)})
                row[name] = int(v) if name == "visits" else float(v)
    for row in rows.values():
        if "value" in row:
            row["verdict"], _text, row["value_text"], row["share"] = judge(row["value"], kind, exact, win_value)
    order = (lambda r: -r.get("visits", 0)) if kind == "mcts" else (lambda r: -r.get("value", -math.inf))
    return sorted(rows.values(), key=order)


def _pv(pv: Any, state: State) -> list[str]:
    texts: list[str] = []
    if not isinstance(pv, (list, tuple)):
        return texts
    s = state
    for a in pv:
        if s.is_terminal() or int(a) not in s.legal_actions():
            break
        text = s.action_to_string(int(a))
        texts.append(f"({text})" if s.is_chance_node() else text)
        s = s.apply(int(a))
    return texts


def report_dict(agent: Any, state: State, seconds: float, turn: bool = False) -> dict:
    """:func:`search_report` of ``agent``'s ``info()`` as JSON-ready data."""
    info = info_of(agent).as_dict()
    return asdict(search_report(info, state, seconds, turn))
