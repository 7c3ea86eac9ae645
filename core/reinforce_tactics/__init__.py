"""Reinforce Tactics, Kaggle's ``reinforce_tactics``: rules in :mod:`core.reinforce_tactics.kernels`,
state and action layout in :mod:`core.reinforce_tactics.layout`, boards in
:mod:`core.reinforce_tactics.maps`, Kaggle's observations and action dicts in
:mod:`core.reinforce_tactics.kaggle`; the rules in words: ``docs/reinforce-tactics.md``.

Notation: actions read as Kaggle's action dicts do, with ``x,y`` cells (column, row):
``create W 3,4``, ``move 3,4 5,5``, ``attack 5,5 6,5``, ``heal 1,1 2,2``, ``seize 5,5``,
``end``; chance outcomes are ``counter`` and ``evade``.
"""
from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from base.bounds import INT64
from base.params import Param, table
from core.game import CHANCE, Game, State
from core.reinforce_tactics import fog as FOG
from core.reinforce_tactics import kaggle as KG
from core.reinforce_tactics import kernels as K
from core.reinforce_tactics import maps
from core.reinforce_tactics import picture as PIC
from core.reinforce_tactics.layout import (
    A_END,
    CELLS,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_OVER,
    H_PLAYER,
    H_STEP,
    H_TURN,
    H_WINNER,
    INCOME,
    NSMAX,
    NUM_ACTIONS,
    OUT_EVADE,
    STATE_LEN,
    TILE_CODES,
    U_BASE,
    U_CELL,
    U_HP,
    U_TYPE,
    UF,
    UMAX,
    UNIT_CODES,
    H,
    W,
)

MAX_SEED = INT64[1]  # Kaggle's seed: any int; ours: -1 (no flips) to int64's largest (base.cli.SEED's range)
MAX_STEPS = 100_000  # episodeSteps: 500 times Kaggle's 200
MAX_GOLD = 10 ** 9  # with a turn's income at most NSMAX * 150 for MAX_STEPS turns, gold stays below 2**31
assert MAX_GOLD + NSMAX * max(INCOME) * MAX_STEPS < 2 ** 31

FOG_KERNELS = "core.reinforce_tactics.fog"  # the kernels of fog=1 (the fog-free ones wrapped)
PICTURE = ".~^T=BH# "  # by terrain code (Kaggle's text renderer; ocean blank); units: letters


class ReinforceTactics(Game):
    """Reinforce Tactics on a built-in map (``map``; ``""`` lets ``seed`` pick one, as Kaggle does)
    with Kaggle's seed-driven terrain flips (``seed``; -1: none, the map as written), or on any
    20 x 20 ``board`` of 400 tile codes (e.g. an observation's; structures start neutral)."""

    name = "reinforce_tactics"
    words = STATE_LEN
    num_actions = NUM_ACTIONS
    kernels = "core.reinforce_tactics.kernels"
    heuristics = "heuristics.reinforce_tactics"
    has_chance = True
    end_turn_action = A_END
    array_state = True
    PARAMS = table(
        Param("map", "beginner", doc="built-in map name; empty: picked by seed"),
        Param("seed", -1, -1, MAX_SEED, "Kaggle's episode seed (map pick and terrain flips); -1: no flips"),
        Param("episode_steps", 200, 2, MAX_STEPS, "Kaggle's episodeSteps: a draw after episode_steps - 1 single turns"),
        Param("starting_gold", 250, 0, MAX_GOLD, "each player's gold at the start"),
        Param("board", "", doc="400 tile codes, row by row, instead of a built-in map"),
        Param("fog", 0, 0, 1, "fog of war, the upstream project's rule (core/reinforce_tactics/fog.py); 0: none"),
    )

    def validate(self) -> None:
        p = self.params  # numbers: within PARAMS' bounds already (episode_steps >= 2: a game of at least one turn)
        if p["board"]:
            bad = set(p["board"]) - set(TILE_CODES)
            if len(p["board"]) != CELLS or bad:
                raise ValueError(f"board must be {CELLS} tile codes from {TILE_CODES!r}")
        else:
            maps.pick(p["map"], p["seed"])  # raises for an unknown map without a seed
        if p["fog"]:  # a game of hidden information: the fog kernels around the same rules, longer states
            self.kernels, self.words, self.perfect_information = FOG_KERNELS, FOG.FOG_STATE_LEN, False

    def rows(self) -> list[list[str]]:
        """The board's cells (codes with owners), row by row."""
        b = self.params["board"]
        if b:
            return [list(b[y * W:(y + 1) * W]) for y in range(H)]
        return maps.board(self.params["map"], self.params["seed"])

    def constants(self) -> list[int]:
        return maps.constants(self.rows(), self.params["episode_steps"])

    def initial_words(self):
        s = maps.initial_state(self.rows(), self.g, self.params["starting_gold"])
        if self.params["fog"]:
            s = FOG.start(self.g, s)
        return tuple(int(w) for w in s)

    def from_observation(self, obs) -> State:
        """The state an agent observes at the start of its turn."""
        return self.new_state(KG.state_from_observation(self.g, obs))

    def turn_index(self, state: State) -> int:
        return int(state.words[H_STEP])

    def action_label(self, state: State, action: int) -> Hashable:
        """Kaggle's action dict as sorted items: cells, not unit slots, name who acts."""
        return tuple(sorted(KG.action_to_dict(self.g, state.words, action).items()))

    def label_action(self, state: State, label: Hashable) -> int | None:
        if not isinstance(label, tuple):
            return None
        a = KG.dict_to_action(self.g, state.words, dict(label))
        return a if a is not None and a in state.legal_actions() else None

    kaggle_env = "reinforce_tactics"

    def kaggle_observation(self, state: State, remaining: float = 60.0) -> dict:
        return KG.observation_from_state(self.g, state.words, remaining)

    def kaggle_configuration(self, time_per_move: float) -> dict:
        p = self.params
        return {"episodeSteps": p["episode_steps"], "actTimeout": time_per_move, "runTimeout": 1200,
                "mapName": p["map"], "enabledUnits": ",".join(UNIT_CODES), "startingGold": p["starting_gold"]}

    @classmethod
    def kaggle_episode_states(cls, episode: dict, limits: dict[str, int]) -> list[State]:
        from core.reinforce_tactics.replay import episode_states  # the web app's replay of a Kaggle episode
        return episode_states(cls, episode, limits)

    def action_to_string(self, state: State, action: int) -> str:
        if state.current_player() == CHANCE:
            return "evade" if action == OUT_EVADE else "counter"
        d = KG.action_to_dict(self.g, state.words, action)
        kind = d["type"]
        if kind == "end_turn":
            return "end"
        if kind == "create_unit":
            return f"create {d['unit_type']} {d['x']},{d['y']}"
        if kind == "seize":
            return f"seize {d['x']},{d['y']}"
        return f"{kind} {d['from_x']},{d['from_y']} {d['to_x']},{d['to_y']}"

    def string_to_action(self, state: State, text: str) -> int:
        t = " ".join(text.strip().lower().split())
        legal = state.legal_actions()
        for a in legal:
            if self.action_to_string(state, a).lower() == t:
                return a
        examples = ", ".join(self.action_to_string(state, a) for a in legal[:3])
        raise ValueError(f"{text!r} is not a legal action here; write one like {examples}")

    def units(self, state: State) -> list[tuple[int, str, int, int, int]]:
        """(player, type letter, x, y, hit points) of every unit."""
        s = state.words
        out = []
        for p in range(2):
            for k in range(s[H_COUNT + p]):
                b = U_BASE + (p * UMAX + k) * UF
                out.append((p, UNIT_CODES[s[b + U_TYPE] - 1], s[b + U_CELL] % W, s[b + U_CELL] // W, s[b + U_HP]))
        return out

    def grid(self, state: State) -> list[list[str]]:
        cells = [["" for _ in range(W)] for _ in range(H)]
        for p, letter, x, y, _hp in self.units(state):
            cells[y][x] = f"{p}{letter}"
        return cells

    def picture(self, state: State) -> dict:
        """The web app's picture, cropped to the map: :func:`core.reinforce_tactics.picture.picture`."""
        return PIC.picture(self, state)

    def player_picture(self, state: State, player: int) -> dict:
        """``player``'s view: under fog the board as it sees it (:func:`core.reinforce_tactics.picture.picture`'s ``viewer``)."""
        return PIC.picture(self, state, None if self.perfect_information else player)

    def seen_move_text(self, state: State, action: int, player: int) -> str | None:
        """What ``player`` sees of ``action``: under fog an enemy's act out of its sight is hidden
        (:func:`core.reinforce_tactics.picture.seen_move_text`)."""
        if self.perfect_information:
            return self.action_to_string(state, action)
        return PIC.seen_move_text(self, state, action, player)

    def move_entry(self, state: State, action: int) -> dict:
        """One action's picture entry (text, kind, cells), as :meth:`picture` lists the legal ones."""
        return PIC.move_entry(self, state, action)

    def why_illegal(self, state: State, action: int) -> str:
        """Why ``action`` is not legal at ``state``, in words (the web app's refusal)."""
        return PIC.why_illegal(self, state, action)

    def render(self, state: State) -> str:
        rows = [[PICTURE[self.g[G_TERRAIN + y * W + x]] for x in range(W)] for y in range(H)]
        for p, letter, x, y, _hp in self.units(state):
            rows[y][x] = letter.upper() if p == 0 else letter.lower()
        s = state.words
        head = f"turn {s[H_TURN]}, player {s[H_PLAYER]} to move, gold {s[H_GOLD]}/{s[H_GOLD + 1]}"
        if s[H_OVER]:
            head += f", over: {'draw' if s[H_WINNER] < 0 else f'player {s[H_WINNER]} wins'}"
        return head + "\n" + "\n".join("".join(r) for r in rows) + "\n"


def as_array(state: State) -> np.ndarray:
    """A state's words as the int64 array the kernels use."""
    return np.array(state.words, np.int64)


__all__ = ["ReinforceTactics", "K", "as_array"]
