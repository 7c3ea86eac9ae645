"""Kaggle glue for Reinforce Tactics: observations and engine states to our states, our actions
to Kaggle's action dicts and back, a turn's ``actionLog`` to our actions.

Kaggle numbers players 1 and 2 (``owner``) and agents 0 and 1 (``observation.player``); we
number players 0 and 1. Coordinates are ``x`` (column) and ``y`` (row) on the 20 x 20 board.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from core.reinforce_tactics import kernels as K
from core.reinforce_tactics.layout import (
    A_CREATE,
    A_END,
    A_UNIT,
    G_CELL_STRUCT,
    G_NS,
    G_STRUCT_CELL,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_OVER,
    H_PEND_ATT,
    H_PEND_TGT,
    H_PLAYER,
    H_STEP,
    H_TURN,
    H_WINNER,
    K_HEAL,
    KIND_NAMES,
    MAX_HP,
    OUT_COUNTER,
    OUT_EVADE,
    S_BASE,
    S_HP,
    S_OWNER,
    S_REGEN,
    SF,
    STATE_LEN,
    STRUCT_MAX_HP_BY_CODE,
    SUB_SEIZE,
    SUB_TARGET,
    TILE_CODES,
    U_ATK_CD,
    U_ATK_TURNS,
    U_BASE,
    U_CAN_ACT,
    U_CAN_MOVE,
    U_CELL,
    U_DEF_CD,
    U_DEF_TURNS,
    U_DIST,
    U_HASTE_CD,
    U_HASTED,
    U_HP,
    U_MOVED,
    U_ORIG,
    U_PARA_CD,
    U_PARALYZED,
    U_TYPE,
    UF,
    UMAX,
    UNIT_CODES,
    UNIT_STRIDE,
    W,
)

# observation unit key -> unit field (type, position and hit points apart)
OBS_FIELDS = (("canMove", U_CAN_MOVE), ("canAttack", U_CAN_ACT), ("paralyzedTurns", U_PARALYZED),
              ("isHasted", U_HASTED), ("distanceMoved", U_DIST), ("defenceBuffTurns", U_DEF_TURNS),
              ("attackBuffTurns", U_ATK_TURNS), ("paralyzeCooldown", U_PARA_CD),
              ("hasteCooldown", U_HASTE_CD), ("defenceBuffCooldown", U_DEF_CD),
              ("attackBuffCooldown", U_ATK_CD))
# the engine's Unit attribute for each observation key
ENGINE_ATTRS = {"canMove": "can_move", "canAttack": "can_attack", "paralyzedTurns": "paralyzed_turns",
                "isHasted": "is_hasted", "distanceMoved": "distance_moved",
                "defenceBuffTurns": "defence_buff_turns", "attackBuffTurns": "attack_buff_turns",
                "paralyzeCooldown": "paralyze_cooldown", "hasteCooldown": "haste_cooldown",
                "defenceBuffCooldown": "defence_buff_cooldown", "attackBuffCooldown": "attack_buff_cooldown"}


def _get(obj: Any, key: str) -> Any:
    return obj[key] if isinstance(obj, dict) else getattr(obj, key)


def state_from_observation(g, obs: Any) -> np.ndarray:
    """Our state at the start of the observing agent's turn (``obs.player`` to move)."""
    s = np.zeros(STATE_LEN, np.int64)
    p = int(_get(obs, "player"))
    turn = int(_get(obs, "turnNumber"))
    s[H_PLAYER] = p
    s[H_TURN] = turn
    try:
        s[H_STEP] = int(_get(obs, "step"))
    except (KeyError, AttributeError, TypeError):
        s[H_STEP] = 2 * turn + p
    gold = _get(obs, "gold")
    s[H_GOLD], s[H_GOLD + 1] = int(gold[0]), int(gold[1])
    s[H_WINNER] = -1
    s[H_PEND_ATT] = s[H_PEND_TGT] = -1
    for st in _get(obs, "structures"):
        si = g[G_CELL_STRUCT + int(st["y"]) * W + int(st["x"])]
        if si < 0:
            raise ValueError(f"the observation has a structure at ({st['x']}, {st['y']}) where the board has none")
        b = S_BASE + si * SF
        s[b + S_OWNER] = int(st["owner"] or 0) - 1
        s[b + S_HP] = int(st["hp"])
        s[b + S_REGEN] = int(bool(st.get("regenerating", False)))
    for u in _get(obs, "units"):
        q = int(u["owner"]) - 1
        values = {key: int(u[key]) for key, _ in OBS_FIELDS}
        _put_unit(s, q, UNIT_CODES.index(u["type"]) + 1, int(u["y"]) * W + int(u["x"]), int(u["hp"]), values,
                  None, False)
    return s


def state_from_engine(g, game: Any, step: int) -> np.ndarray:
    """Our state for a kaggle-environments ``GameState`` after ``step`` single turns (at any
    point of a turn; the engine's unit order is recruitment order)."""
    s = np.zeros(STATE_LEN, np.int64)
    s[H_PLAYER] = game.current_player - 1
    s[H_TURN] = game.turn_number
    s[H_STEP] = step
    s[H_GOLD], s[H_GOLD + 1] = game.player_gold[1], game.player_gold[2]
    s[H_OVER] = int(bool(game.game_over))
    s[H_WINNER] = game.winner - 1 if game.winner else -1
    s[H_PEND_ATT] = s[H_PEND_TGT] = -1
    for si in range(g[G_NS]):
        c = g[G_STRUCT_CELL + si]
        tile = game.grid.get_tile(c % W, c // W)
        b = S_BASE + si * SF
        s[b + S_OWNER] = tile.player - 1 if tile.player else -1
        s[b + S_HP] = tile.health
        s[b + S_REGEN] = int(bool(tile.regenerating))
    for u in game.units:
        values = {key: int(getattr(u, attr)) for key, attr in ENGINE_ATTRS.items()}
        mover = u.player == game.current_player  # the other side's start cells are dead values
        _put_unit(s, u.player - 1, UNIT_CODES.index(u.type) + 1, u.y * W + u.x, u.health, values,
                  u.original_y * W + u.original_x if mover else None, u.has_moved and mover)
    return s


def _put_unit(s, q: int, typ: int, cell: int, hp: int, values: dict, orig: int | None, moved: bool) -> None:
    k = int(s[H_COUNT + q])
    if k >= UMAX:
        raise ValueError(f"player {q + 1} has more than {UMAX} units")
    b = U_BASE + (q * UMAX + k) * UF
    s[b + U_TYPE] = typ
    s[b + U_CELL] = cell
    s[b + U_HP] = hp
    for key, f in OBS_FIELDS:
        s[b + f] = values[key]
    s[b + U_ORIG] = cell if orig is None else orig
    s[b + U_MOVED] = int(bool(moved))
    s[H_COUNT + q] = k + 1


def _xy(c: int) -> tuple[int, int]:
    return int(c % W), int(c // W)


def unit_cell(s, p: int, k: int) -> int:
    return int(s[U_BASE + (p * UMAX + k) * UF + U_CELL])


def action_to_dict(g, s, a: int) -> dict:
    """Kaggle's action dict for our action ``a`` (a player's action, not a chance outcome)."""
    p = int(s[H_PLAYER])
    if a == A_END:
        return {"type": "end_turn"}
    if a < A_UNIT:
        x, y = _xy(g[G_STRUCT_CELL + (a - A_CREATE) // 8])
        return {"type": "create_unit", "unit_type": UNIT_CODES[(a - A_CREATE) % 8], "x": x, "y": y}
    k, sub = divmod(a - A_UNIT, UNIT_STRIDE)
    fx, fy = _xy(unit_cell(s, p, k))
    if sub == SUB_SEIZE:
        return {"type": "seize", "x": fx, "y": fy}
    if sub < SUB_TARGET:
        tx, ty = _xy(K.offset_cell(unit_cell(s, p, k), sub))
        return {"type": "move", "from_x": fx, "from_y": fy, "to_x": tx, "to_y": ty}
    kind, j = divmod(sub - SUB_TARGET, UMAX)
    tx, ty = _xy(unit_cell(s, p if kind >= K_HEAL else 1 - p, j))
    return {"type": KIND_NAMES[kind], "from_x": fx, "from_y": fy, "to_x": tx, "to_y": ty}


def _slot_at(s, c: int) -> tuple[int, int] | None:
    gu = K.unit_at(s, c)
    return None if gu < 0 else divmod(gu, UMAX)


def dict_to_action(g, s, d: Any, check: bool = True) -> int | None:
    """Our action for Kaggle's action dict ``d``, or None when the interpreter would skip it
    (malformed, illegal, or naming a unit that is not there; ``check=False``: None only when
    no action of ours says it, accepted or not)."""
    try:
        kind = d.get("type", "")
        if kind == "end_turn":
            return A_END
        p = int(s[H_PLAYER])
        if kind == "create_unit":
            x, y = int(d.get("x", -1)), int(d.get("y", -1))
            code = d.get("unit_type", "")
            if not (0 <= x < W and 0 <= y < W) or code not in UNIT_CODES or len(code) != 1:
                return None
            si = g[G_CELL_STRUCT + y * W + x]
            a = A_CREATE + 8 * si + UNIT_CODES.index(code) if si >= 0 else None
        elif kind == "seize":
            a = _unit_action(s, p, int(d.get("x", -1)), int(d.get("y", -1)), SUB_SEIZE)
        elif kind == "move":
            fx, fy, tx, ty = (int(d.get(f, -1)) for f in ("from_x", "from_y", "to_x", "to_y"))
            if not (0 <= tx < W and 0 <= ty < W):
                return None
            src = _unit_action(s, p, fx, fy, 0)
            off = K.offset_of(fy * W + fx, ty * W + tx) if src is not None else -1
            a = None if src is None or off < 0 else src + off
        elif kind in KIND_NAMES:
            fx, fy, tx, ty = (int(d.get(f, -1)) for f in ("from_x", "from_y", "to_x", "to_y"))
            src = _unit_action(s, p, fx, fy, 0)
            target = _slot_at(s, ty * W + tx) if 0 <= tx < W and 0 <= ty < W else None
            ki = KIND_NAMES.index(kind)
            if src is None or target is None or target[0] != (p if ki >= K_HEAL else 1 - p):
                return None
            a = src + SUB_TARGET + ki * UMAX + target[1]
        else:
            return None
    except (TypeError, ValueError, AttributeError):
        return None
    return a if a is not None and (not check or K.accepted(g, s, a)) else None


def _unit_action(s, p: int, x: int, y: int, sub: int) -> int | None:
    if not (0 <= x < W and 0 <= y < W):
        return None
    at = _slot_at(s, y * W + x)
    if at is None or at[0] != p:
        return None
    return A_UNIT + UNIT_STRIDE * at[1] + sub


LOG_POSITIONS = {"attack": ("attacker_pos", "target_pos"), "heal": ("healer_pos", "target_pos"),
                 "cure": ("curer_pos", "target_pos"), "paralyze": ("paralyzer_pos", "target_pos"),
                 "haste": ("sorcerer_pos", "target_pos"), "defence_buff": ("sorcerer_pos", "target_pos"),
                 "attack_buff": ("sorcerer_pos", "target_pos")}


def log_entry_to_dict(entry: dict) -> dict:
    """An ``actionLog`` entry as the action dict that made it."""
    kind = entry["type"]
    if kind == "seize":
        x, y = entry["position"]
        return {"type": "seize", "x": x, "y": y}
    if kind in LOG_POSITIONS:
        (fx, fy), (tx, ty) = (entry[k] for k in LOG_POSITIONS[kind])
        return {"type": kind, "from_x": fx, "from_y": fy, "to_x": tx, "to_y": ty}
    return dict(entry)


def log_to_actions(g, s, log: Iterable[dict]) -> list[int]:
    """Our actions (chance outcomes included) for one turn's ``actionLog``, played from ``s``
    (the state before the turn). Raises ValueError at an entry we cannot replay."""
    out = []
    for entry in log:
        a = dict_to_action(g, s, log_entry_to_dict(entry))
        if a is None:
            raise ValueError(f"action log entry {entry} is not an action the game accepts here")
        s = K.play(g, s, a)
        out.append(a)
        if K.to_move(g, s) == K.CHANCE:
            o = OUT_EVADE if entry.get("evade") else OUT_COUNTER
            s = K.play(g, s, o)
            out.append(o)
        if s[H_OVER]:
            break
    return out


def observation_from_state(g, s, remaining: float = 60.0) -> dict:
    """Kaggle's observation for the side to move at ``s`` (the inverse of
    :func:`state_from_observation` at a turn's start): board, structures, units, gold, player,
    turnNumber, step, map size. Units are listed player 1's first, each side in its slot order
    (recruitment order, as the engine's); the engine interleaves the two sides by recruitment,
    which our state does not keep, so an agent that breaks ties by list order may break them
    differently. ``actionLog`` is empty (the previous turn's log is not kept)."""
    board = [[TILE_CODES[int(g[G_TERRAIN + y * W + x])] for x in range(W)] for y in range(W)]
    structures = []
    for si in sorted(range(int(g[G_NS])), key=lambda i: int(g[G_STRUCT_CELL + i])):
        c = int(g[G_STRUCT_CELL + si])
        b = S_BASE + si * SF
        code = int(g[G_TERRAIN + c])
        structures.append({"x": c % W, "y": c // W, "type": TILE_CODES[code], "owner": int(s[b + S_OWNER]) + 1,
                           "hp": int(s[b + S_HP]), "maxHp": STRUCT_MAX_HP_BY_CODE[code],
                           "regenerating": bool(s[b + S_REGEN])})
    units = []
    for q in range(2):
        for k in range(int(s[H_COUNT + q])):
            u = U_BASE + (q * UMAX + k) * UF
            typ = int(s[u + U_TYPE])
            unit = {"type": UNIT_CODES[typ - 1], "owner": q + 1, "x": int(s[u + U_CELL]) % W,
                    "y": int(s[u + U_CELL]) // W, "hp": int(s[u + U_HP]), "maxHp": MAX_HP[typ]}
            for key, f in OBS_FIELDS:
                unit[key] = bool(s[u + f]) if key in BOOL_FIELDS else int(s[u + f])
            units.append(unit)
    return {"board": board, "structures": structures, "units": units,
            "gold": [int(s[H_GOLD]), int(s[H_GOLD + 1])], "player": int(s[H_PLAYER]),
            "turnNumber": int(s[H_TURN]), "step": int(s[H_STEP]), "mapWidth": W, "mapHeight": W,
            "actionLog": [], "remainingOverageTime": remaining}


BOOL_FIELDS = ("canMove", "canAttack", "isHasted")  # observation keys the engine gives as booleans
