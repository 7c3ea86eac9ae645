"""EinStein würfelt nicht!: a dice game on the engine (rules in :mod:`core.einstein.kernels`).

The same rules, set-up chance nodes and action numbers as OpenSpiel's
``einstein_wurfelt_nicht``; move and roll texts are OpenSpiel's too (``W3-up``, ``B5-diag*``,
``roll 4``). Set-up outcomes read ``black 153426``: the cube numbers on the triangle's cells in
row-major order (OpenSpiel writes ``Placing black cubes on the board - action N``).
"""
from __future__ import annotations

from core.einstein import kernels as K
from core.game import Game, State, picture_frame, picture_moves

_COLOURS = "BW"
_NAMES = ("Black", "White")


def _direction(d: int) -> str:
    dr, dc = K.DR[d], K.DC[d]
    if dr == dc:
        return "diag"
    return {(-1, 0): "up", (1, 0): "down", (0, 1): "right", (0, -1): "left"}[(dr, dc)]


def permutation(a: int) -> tuple[int, ...]:
    """Set-up outcome ``a`` as the cube numbers on the triangle's cells (row-major)."""
    b = K.place(K.ALL_GONE, 0, a)
    cells = {K.cube_cell(b, 0, k): k for k in range(1, 7)}
    return tuple(cells[c] for c in K.BLACK_CELLS)


def board_cells(words) -> list[tuple[int, int] | None]:
    """The 25 cells: ``(player, cube)`` or None."""
    cells: list[tuple[int, int] | None] = [None] * 25
    for p in range(2):
        for k in range(1, 7):
            c = K.cube_cell(words[0], p, k)
            if c != K.GONE:
                cells[c] = (p, k)
    return cells


class Einstein(Game):
    """EinStein würfelt nicht! (5×5, six cubes each, a die names the cube; OpenSpiel's rules)."""

    name = "einstein"
    words = 2
    num_actions = K.NUM_ACTIONS
    kernels = "core.einstein.kernels"
    heuristics = "heuristics.einstein"
    win_value = 1.0
    has_chance = True

    def initial_words(self):
        return (K.ALL_GONE, 4 | K.SETUP_BLACK)  # White (player 1) rolls first

    @staticmethod
    def phase(state: State) -> int:
        return state.words[1] & 3

    @staticmethod
    def die(state: State) -> int:
        """The die showing for the move to make (0 before the roll)."""
        return (state.words[1] >> 3) & 7

    def action_to_string(self, state: State, action: int) -> str:
        phase = self.phase(state)
        if phase in (K.SETUP_BLACK, K.SETUP_WHITE):
            return f"{'black' if phase == K.SETUP_BLACK else 'white'} {''.join(map(str, permutation(action)))}"
        if phase == K.ROLL:
            return f"roll {action + 1}"
        cell, d, cap = action // 12, (action >> 1) % 6, action & 1
        owner = board_cells(state.words)[cell]
        colour = _COLOURS[owner[0]] if owner else _COLOURS[(state.words[1] >> 2) & 1]
        return f"{colour}{owner[1] if owner else '?'}-{_direction(d)}{'*' if cap else ''}"

    def string_to_action(self, state: State, text: str) -> int:
        t = " ".join(text.strip().split())
        legal = state.legal_actions()
        for a in legal:
            if self.action_to_string(state, a).lower() == t.lower():
                return a
        if t.isascii() and t.isdigit() and len(t) <= 4 and int(t) in legal:
            return int(t)
        examples = ", ".join(self.action_to_string(state, a) for a in legal[:3])
        raise ValueError(f"{text!r} is not a legal action here; write one like {examples}")

    def render(self, state: State) -> str:
        cells = board_cells(state.words)
        rows = []
        for r in range(5):
            rows.append("".join(f"|{'bw'[c[0]]}{c[1]}|" if c else "|__|" for c in cells[5 * r:5 * r + 5]))
        text = "\n".join(rows) + "\n"
        extra = self.extra(state)
        return text + "".join(f"{k}: {v}\n" for k, v in extra.items())

    def grid(self, state: State) -> list[list[str]]:
        cells = board_cells(state.words)
        return [[f"{c[0]}{c[1]}" if c else "" for c in cells[5 * r:5 * r + 5]] for r in range(5)]

    def action_cell(self, state: State, action: int) -> tuple[int, int] | None:
        """A move's target cell (a cube's three moves differ there); chance outcomes: buttons."""
        if self.phase(state) != K.MOVE:
            return None
        cell, d = action // 12, (action >> 1) % 6
        return cell // 5 + K.DR[d], cell % 5 + K.DC[d]

    def picture(self, state: State) -> dict:
        """Numbered cubes ``{"p", "n"}``, the ``die`` (0 before the roll), each player's ``goals``
        corner, a move per (``from``, ``to``) with ``capture``; the movable cubes are the froms."""
        cells = board_cells(state.words)
        grid = [[None if (c := cells[5 * r + col]) is None else {"p": c[0], "n": c[1]} for col in range(5)] for r in range(5)]
        moves = []
        for a in picture_moves(state):
            cell, d, cap = a // 12, (a >> 1) % 6, a & 1
            moves.append({"action": a, "text": self.action_to_string(state, a), "from": [cell // 5, cell % 5],
                          "to": [cell // 5 + K.DR[d], cell % 5 + K.DC[d]], "capture": bool(cap)})
        note = ""
        if state.is_terminal():
            b = state.words[0]
            winner = 0 if state.returns()[0] > 0 else 1
            corner = 24 if winner == 0 else 0
            reached = any(K.cube_cell(b, winner, k) == corner for k in range(1, 7))
            note = f"{_NAMES[winner]} wins: " + ("a cube reached the goal corner" if reached else "the opponent has no cube left")
        return picture_frame(state, "einstein", grid, _NAMES, moves, die=self.die(state), goals=[[4, 4], [0, 0]],
                             mover=(state.words[1] >> 2) & 1, note=note)

    def extra(self, state: State) -> dict:
        phase = self.phase(state)
        mover = _NAMES[(state.words[1] >> 2) & 1]
        if phase == K.SETUP_BLACK:
            return {"set-up": "Black's cubes are placed at random"}
        if phase == K.SETUP_WHITE:
            return {"set-up": "White's cubes are placed at random"}
        if state.is_terminal():
            r = state.returns()[0]
            return {"result": "Black wins" if r > 0 else "White wins"}
        if phase == K.ROLL:
            return {"die": f"{mover} rolls next"}
        return {"die": f"{self.die(state)} ({mover} to move)"}
