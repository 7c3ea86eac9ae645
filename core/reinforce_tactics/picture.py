"""How the web app draws a Reinforce Tactics position (:meth:`core.game.Game.picture`).

The board is cropped to the map's real extent (the 20 x 20 padding is ocean): picture cells
are ``[row, column]`` from the crop's top left, ``origin`` is that corner on the full board
(Kaggle's ``x`` = ``origin[1] + column``, ``y`` = ``origin[0] + row``, as the notation writes).

Besides the fields every picture has (``cells`` with the units, ``moves``, ``to_move``) it
gives ``terrain`` (a string of :data:`TILE_CODES` letters a row), ``structures`` (kind, owner,
hit points), ``units`` (type, owner, hit points and status), ``gold``, ``turn``, ``step``,
``episode_steps`` and the recruitment table. Each move names the parts of its gesture: the
acting unit's cell ``from``, the target or destination ``to``, the ``cell`` a person clicks,
the ``kind`` (Kaggle's action type) and, for a recruit, the ``unit_type``. Each unit of the
side to move with nothing left to do carries ``why``: the reason, in words, for a person
whose click on it is refused.
"""
from __future__ import annotations

from typing import Any

from core.game import CHANCE, picture_frame, picture_moves
from core.reinforce_tactics import kaggle as KG
from core.reinforce_tactics.layout import (
    COST,
    G_EPISODE,
    G_NS,
    G_STRUCT_CELL,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_STEP,
    H_TURN,
    MAX_HP,
    MOVEMENT,
    OUT_EVADE,
    S_BASE,
    S_HP,
    S_OWNER,
    S_REGEN,
    SF,
    STRUCT_MAX_HP_BY_CODE,
    TILE_CODES,
    TR_BUILDING,
    TR_HQ,
    TR_OCEAN,
    U_ATK_TURNS,
    U_BASE,
    U_CAN_ACT,
    U_CAN_MOVE,
    U_CELL,
    U_DEF_TURNS,
    U_HASTED,
    U_HP,
    U_MOVED,
    U_PARALYZED,
    U_TYPE,
    UF,
    UMAX,
    UNIT_CODES,
    H,
    W,
)

PLAYERS = ("blue", "red")  # Kaggle's player 1 and 2 (our 0 and 1), as its renderer colours them
UNIT_NAMES = dict(zip(UNIT_CODES, ("Warrior", "Mage", "Cleric", "Archer", "Knight", "Rogue", "Sorcerer", "Barbarian")))
STRUCTURE_NAMES = {TR_BUILDING: "building", TR_HQ: "hq", TILE_CODES.index("t"): "tower"}


def extent(g: Any) -> tuple[int, int, int, int]:
    """(first row, first column, rows, columns) of the map's cells that are not ocean."""
    land = [c for c in range(W * H) if g[G_TERRAIN + c] != TR_OCEAN]
    if not land:
        return 0, 0, H, W
    rows = [c // W for c in land]
    cols = [c % W for c in land]
    return min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1


def _rc(x: int, y: int, origin: tuple[int, int]) -> list[int]:
    return [int(y) - origin[0], int(x) - origin[1]]


def move_entry(game: Any, state: Any, action: int, origin: tuple[int, int] | None = None) -> dict:
    """The picture's entry for ``action`` at ``state`` (a chance outcome too): its text, kind
    and the cells of its gesture, in the crop whose top left is ``origin`` (default: the map's)."""
    if origin is None:
        origin = extent(game.g)[:2]
    entry: dict = {"action": int(action), "text": game.action_to_string(state, action)}
    if state.current_player() == CHANCE:
        entry["kind"] = "evade" if action == OUT_EVADE else "counter"
        return entry
    d = KG.action_to_dict(game.g, state.words, action)
    entry["kind"] = d["type"]
    if d["type"] == "create_unit":
        entry["unit_type"] = d["unit_type"]
        entry["cell"] = _rc(d["x"], d["y"], origin)
    elif d["type"] == "seize":
        entry["from"] = entry["cell"] = _rc(d["x"], d["y"], origin)
    elif d["type"] != "end_turn":
        entry["from"] = _rc(d["from_x"], d["from_y"], origin)
        entry["to"] = entry["cell"] = _rc(d["to_x"], d["to_y"], origin)
    return entry


def _unit(s: Any, p: int, k: int, origin: tuple[int, int]) -> dict:
    b = U_BASE + (p * UMAX + k) * UF
    typ = int(s[b + U_TYPE])
    letter = UNIT_CODES[typ - 1]
    cell = int(s[b + U_CELL])
    return {"r": cell // W - origin[0], "c": cell % W - origin[1], "p": p, "slot": k, "type": letter,
            "name": UNIT_NAMES[letter], "hp": int(s[b + U_HP]), "max_hp": MAX_HP[typ], "movement": MOVEMENT[typ],
            "can_move": bool(s[b + U_CAN_MOVE]), "can_act": bool(s[b + U_CAN_ACT]),
            "paralyzed": int(s[b + U_PARALYZED]), "hasted": bool(s[b + U_HASTED]),
            "defence_buff": int(s[b + U_DEF_TURNS]), "attack_buff": int(s[b + U_ATK_TURNS]),
            "moved": bool(s[b + U_MOVED])}


def idle_reason(unit: dict) -> str:
    """Why a unit of the side to move that has no legal action cannot do anything now."""
    name = f"that {unit['name']}"
    if unit["paralyzed"]:
        return f"{name} is paralysed for {unit['paralyzed']} more turn start(s)"
    if not unit["can_move"] and not unit["can_act"]:
        return f"{name} has already moved and acted this turn"
    if not unit["can_act"]:
        return f"{name} has already acted this turn"
    if not unit["can_move"]:
        return f"{name} has already moved and has no target in reach"
    return f"{name} has nowhere to move and no target in reach"


def structure_reason(structure: dict, state_gold: int, occupied: bool, units: int) -> str:
    """Why a person cannot recruit at an own Building or HQ (the page asks only when it has no
    recruit among the legal moves)."""
    if structure["kind"] == "tower":
        return "units are recruited at a building or the HQ, not at a tower"
    if occupied:
        return "a unit stands on it: recruit on an empty building or HQ"
    cheapest = min(c for c in COST[1:])
    if state_gold < cheapest:
        return f"not enough gold: you have {state_gold}, the cheapest unit costs {cheapest}"
    if units >= UMAX:
        return f"you have {UMAX} units, the most a side may have"
    return "you cannot recruit here now"


def picture(game: Any, state: Any, viewer: int | None = None) -> dict:
    """The picture of ``state`` (see the module's docstring); with ``viewer`` (the fog game), that
    player's view: the board of what it sees as if it were all (:meth:`core.game.Game.seen_state`:
    the enemy units in sight, the structures as it believes them), no enemy gold (None), its
    own :func:`fog_view` alone in ``fog`` (the other seat's None), and the moves only when it is
    to move (those of ``state``, the true one: what the server accepts)."""
    g = game.g
    s = state.words if viewer is None else game.seen_state(state, viewer).words
    r0, c0, rows, cols = extent(g)
    origin = (r0, c0)
    terrain = ["".join(TILE_CODES[g[G_TERRAIN + (r0 + r) * W + c0 + c]] for c in range(cols)) for r in range(rows)]
    units = [_unit(s, p, k, origin) for p in range(2) for k in range(int(s[H_COUNT + p]))]
    cells: list[list[dict | None]] = [[None] * cols for _ in range(rows)]
    for u in units:
        cells[u["r"]][u["c"]] = {"p": u["p"], "t": u["type"]}
    structures: list[dict[str, Any]] = []
    for si in range(int(g[G_NS])):
        c = int(g[G_STRUCT_CELL + si])
        code = int(g[G_TERRAIN + c])
        b = S_BASE + si * SF
        structures.append({"r": c // W - r0, "c": c % W - c0, "kind": STRUCTURE_NAMES[code],
                           "owner": int(s[b + S_OWNER]), "hp": int(s[b + S_HP]),
                           "max_hp": STRUCT_MAX_HP_BY_CODE[code], "regenerating": bool(s[b + S_REGEN])})
    mover = None if state.is_terminal() or state.is_chance_node() else state.current_player()
    offered = viewer is None or mover == viewer
    moves = [move_entry(game, state, a, origin) for a in picture_moves(state)] if offered else []
    if mover is not None and offered:
        busy = {tuple(m["from"]) for m in moves if "from" in m}
        for u in units:
            if u["p"] == mover and (u["r"], u["c"]) not in busy:
                u["why"] = idle_reason(u)
        recruits = {tuple(m["cell"]) for m in moves if m["kind"] == "create_unit"}
        for st in structures:
            if st["owner"] == mover and (st["r"], st["c"]) not in recruits:
                st["why"] = structure_reason(st, int(s[H_GOLD + mover]), cells[st["r"]][st["c"]] is not None,
                                             int(s[H_COUNT + mover]))
    more: dict[str, Any] = {}
    gold: list[int | None] = [int(s[H_GOLD]), int(s[H_GOLD + 1])]
    if game.params.get("fog"):
        more["fog"] = [fog_view(g, s, p, (r0, c0, rows, cols)) if viewer in (None, p) else None for p in range(2)]
    if viewer is not None:
        more["viewer"] = viewer
        gold[1 - viewer] = None
    return picture_frame(state, "reinforce_tactics", cells, PLAYERS, moves, terrain=terrain, origin=[r0, c0],
                         structures=structures, units=units, gold=gold,
                         turn=int(s[H_TURN]), step=int(s[H_STEP]), episode_steps=int(g[G_EPISODE]),
                         costs={t: COST[i + 1] for i, t in enumerate(UNIT_CODES)}, unit_names=UNIT_NAMES, **more)


def fog_view(g: Any, s: Any, p: int, crop: tuple[int, int, int, int]) -> dict:
    """Player ``p``'s view under fog of war (:mod:`core.reinforce_tactics.fog`), in the picture's
    crop: ``cells``, a string a row of each cell's state (0 unexplored, 1 shrouded, 2 visible);
    ``remembered``, the enemy units it remembers out of sight (cell, type, hit points, turn seen);
    ``structures``, each structure's owner as it believes it (-1 neutral). The data of point 5's
    per-player view (``static/game-rt.js`` shades it)."""
    from core.reinforce_tactics import fog as F

    r0, c0, rows, cols = crop
    cells = ["".join(str(F.cell_state(s, p, (r0 + r) * W + c0 + c)) for c in range(cols)) for r in range(rows)]
    remembered = []
    for c in range(W * H):
        w = int(s[F.fb(p) + F.FB_MEMORY + c])
        if w and F.cell_state(s, p, c) != F.VISIBLE:
            remembered.append({"r": c // W - r0, "c": c % W - c0, "type": UNIT_CODES[w % 16 - 1],
                               "hp": (w // 16) % 64, "turn": w // 1024 - 1})
    believed = [int(F.believed_owner(g, s, p, si)) for si in range(int(g[G_NS]))]
    return {"cells": cells, "remembered": remembered, "structures": believed}


def seen_move_text(game: Any, state: Any, action: int, player: int) -> str | None:
    """The text ``player`` sees of ``action`` at ``state`` under fog (None: hidden): its own
    moves, the end of a turn and a chance outcome (combat's counter or evasion: the attack is
    seen or the outcome's cells are) always; an enemy's act when every cell it names (from, to,
    a recruit's or a seizure's cell) is visible to ``player`` after it."""
    from core.reinforce_tactics import fog as F

    entry = move_entry(game, state, action)
    if state.current_player() in (player, CHANCE) or entry["kind"] == "end_turn":
        return entry["text"]
    after = state.apply(action).words
    r0, c0 = extent(game.g)[:2]
    for key in ("from", "to", "cell"):
        if key in entry:
            r, c = entry[key]
            if F.cell_state(after, player, (r0 + r) * W + c0 + c) != F.VISIBLE:
                return None
    return entry["text"]


def why_illegal(game: Any, state: Any, action: int) -> str:
    """Why ``action`` is not legal at ``state``, in words for the person who tried it (the
    web app's answer to a refused move; the rules themselves are the kernels')."""
    from core.reinforce_tactics.kernels import unit_at
    from core.reinforce_tactics.layout import A_CREATE, A_END, A_UNIT, KIND_NAMES, NUM_ACTIONS, SUB_SEIZE, SUB_TARGET, UNIT_STRIDE

    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        return f"there is no action {action!r}: actions are 0 to {NUM_ACTIONS - 1}"
    if state.is_terminal():
        return "the game is over"
    if state.is_chance_node():
        return "a chance event comes next"
    g, s = game.g, state.words
    p = state.current_player()
    if action == A_END:
        return "the turn cannot end now"
    if action < A_UNIT:
        si, t = divmod(action - A_CREATE, 8)
        if si >= g[G_NS]:
            return "there is no such structure on this map"
        c = int(g[G_STRUCT_CELL + si])
        b = S_BASE + si * SF
        st = {"kind": STRUCTURE_NAMES[int(g[G_TERRAIN + c])]}
        if int(s[b + S_OWNER]) != p:
            return "that structure is not yours: recruit at your own buildings and HQ"
        if int(s[H_GOLD + p]) < COST[t + 1] and st["kind"] != "tower" and unit_at(s, c) < 0:
            return f"a {UNIT_NAMES[UNIT_CODES[t]]} costs {COST[t + 1]} gold; you have {int(s[H_GOLD + p])}"
        return structure_reason(st, int(s[H_GOLD + p]), unit_at(s, c) >= 0, int(s[H_COUNT + p]))
    k, sub = divmod(action - A_UNIT, UNIT_STRIDE)
    if k >= int(s[H_COUNT + p]):
        return f"you have no unit in slot {k}"
    u = _unit(s, p, k, (0, 0))
    name = f"that {u['name']}"
    if u["paralyzed"]:
        return idle_reason(u)
    if sub < SUB_TARGET:
        if not u["can_move"]:
            return f"{name} has already moved this turn" if u["moved"] or not u["can_act"] else f"{name} cannot move now"
        return f"that cell is out of reach: a {u['name']} moves {u['movement']} cells over land, not through enemy units, to an empty cell"
    if not u["can_act"]:
        return f"{name} has already acted this turn"
    if sub == SUB_SEIZE:
        return f"{name} stands on no structure it may seize"
    kind, j = divmod(sub - SUB_TARGET, UMAX)
    side = 1 - p if kind < 2 else p
    if j >= int(s[H_COUNT + side]):
        return f"there is no unit to {KIND_NAMES[kind]} there"
    return f"{name} cannot {KIND_NAMES[kind].replace('_', ' ')} that unit: out of range, not its ability, or on cooldown"
