"""Reinforce Tactics boards: Kaggle's built-in maps as its environment sets them up, and the
game's constants ``g`` and first state for a board.

The environment (``_init_game`` in kaggle-environments' ``reinforce_tactics.py``): an empty or
unknown ``mapName`` picks ``sorted(catalog)[seed % len(catalog)]``; the map then gets up to
four point-symmetric flips among grass, forest and mountain drawn by ``random.Random(seed)``
(:func:`mutate`), and is centred in a 20 x 20 ocean (:func:`pad`). Cells are tile codes with
an optional owner, ``h_1`` (player 1's HQ), ``b_2``, ``t``. The catalog itself is read from
the installed kaggle-environments (data, not rules).
"""
from __future__ import annotations

import random

import numpy as np

from core.reinforce_tactics.layout import (
    CELLS,
    G_CELL_STRUCT,
    G_EPISODE,
    G_LEN,
    G_NS,
    G_STRUCT_CELL,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_PEND_ATT,
    H_PEND_TGT,
    H_WINNER,
    NSMAX,
    S_BASE,
    S_HP,
    S_OWNER,
    SF,
    STATE_LEN,
    STRUCT_MAX_HP_BY_CODE,
    TILE_CODES,
    H,
    W,
)

MUTABLE = ("p", "f", "m")
MUTATIONS = 4


def catalog() -> dict[str, list[list[str]]]:
    """Kaggle's built-in maps: name -> rows of cell codes."""
    from base.kaggle_import import kaggle_environments

    kaggle_environments()  # its import prints to stdout otherwise
    from kaggle_environments.envs.reinforce_tactics.maps import BUILTIN_MAPS

    return BUILTIN_MAPS


def map_names() -> list[str]:
    return sorted(catalog())


def pick(name: str, seed: int) -> str:
    """The map the environment plays for ``mapName`` and ``seed``."""
    names = map_names()
    if name in names:
        return name
    if seed < 0:
        raise ValueError(f"map {name!r} is not built in and no seed picks one; "
                         f"name one of {', '.join(names)} or give a seed >= 0")
    return names[seed % len(names)]


def mutate(rows: list[list[str]], seed: int) -> list[list[str]]:
    """The environment's seed-driven terrain flips (none for a negative seed)."""
    rows = [list(r) for r in rows]
    if seed < 0:
        return rows
    rng = random.Random(seed)
    height, width = len(rows), len(rows[0])
    cands = [(x, y) for y in range(height) for x in range(width) if rows[y][x] in MUTABLE]
    if not cands:
        return rows
    done = tries = 0
    while done < MUTATIONS and tries < MUTATIONS * 10:
        tries += 1
        x, y = rng.choice(cands)
        mx, my = width - 1 - x, height - 1 - y
        if (x, y) == (mx, my) or rows[my][mx] not in MUTABLE:
            continue
        new = rng.choice([t for t in MUTABLE if t != rows[y][x]])
        rows[y][x] = rows[my][mx] = new
        done += 1
    return rows


def pad(rows: list[list[str]]) -> list[list[str]]:
    """``rows`` centred in a W x H ocean (the left and top margins take the smaller half)."""
    height, width = len(rows), len(rows[0])
    if height > H or width > W:
        raise ValueError(f"a map of {width}x{height} does not fit the {W}x{H} board")
    oy, ox = (H - height) // 2, (W - width) // 2
    out = [["o"] * W for _ in range(H)]
    for y in range(height):
        for x in range(width):
            out[oy + y][ox + x] = rows[y][x]
    return out


def board(name: str, seed: int) -> list[list[str]]:
    """The 20 x 20 cells (codes with owners) the environment plays for ``mapName`` and ``seed``."""
    return pad(mutate(catalog()[pick(name, seed)], seed))


def parse_cell(code: str) -> tuple[int, int]:
    """(terrain code, owner: -1, 0 or 1) of a cell such as ``h_1``; unknown codes are ocean, as
    in the engine."""
    parts = str(code).strip().split("_")
    kind = parts[0].strip()
    t = TILE_CODES.index(kind) if len(kind) == 1 and kind in TILE_CODES else TILE_CODES.index("o")
    owner = int(parts[1]) - 1 if len(parts) > 1 and parts[1].strip().isdigit() else -1
    return t, owner


def constants(rows: list[list[str]], episode_steps: int) -> list[int]:
    """``g`` for a board (rows of cell codes, owners ignored)."""
    if len(rows) != H or any(len(r) != W for r in rows):
        raise ValueError(f"a board must be {W}x{H} cells")
    g = [0] * G_LEN
    g[G_EPISODE] = episode_steps
    for c in range(CELLS):
        g[G_CELL_STRUCT + c] = -1
    ns = 0
    for y in range(H):
        for x in range(W):
            t, _ = parse_cell(rows[y][x])
            c = y * W + x
            g[G_TERRAIN + c] = t
            if STRUCT_MAX_HP_BY_CODE[t]:
                if ns == NSMAX:
                    raise ValueError(f"a board may hold at most {NSMAX} structures")
                g[G_CELL_STRUCT + c] = ns
                g[G_STRUCT_CELL + ns] = c
                ns += 1
    g[G_NS] = ns
    return g


def initial_state(rows: list[list[str]], g: list[int], gold: int) -> np.ndarray:
    """Turn 0, player 0 (Kaggle's player 1) to move, no units, structures as the map owns them."""
    s = np.zeros(STATE_LEN, np.int64)
    s[H_GOLD] = s[H_GOLD + 1] = gold
    s[H_WINNER] = -1
    s[H_PEND_ATT] = s[H_PEND_TGT] = -1
    s[H_COUNT] = s[H_COUNT + 1] = 0
    for si in range(g[G_NS]):
        c = g[G_STRUCT_CELL + si]
        t, owner = parse_cell(rows[c // W][c % W])
        s[S_BASE + si * SF + S_OWNER] = owner
        s[S_BASE + si * SF + S_HP] = STRUCT_MAX_HP_BY_CODE[t]
    return s
