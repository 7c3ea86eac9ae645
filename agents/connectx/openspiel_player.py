"""OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``) as a tournament player on ConnectX: an independent
opponent, one of ConnectX's players (:data:`agents.connectx.registry.PLAYERS`).

OpenSpiel states are built by replaying moves, and our agents see only a position, so the
player rebuilds a legal move order from the board (:func:`move_order`) at each move.
"""
from __future__ import annotations

import time
from typing import Any

from agents.connectx.base import PositionAgent
from agents.engine.info import EMPTY, SearchInfo
from agents.engine.spec import SpecError
from base.params import Param, table
from core.connectx.position import Position
from core.connectx.shape import Shape

# MCTSBot settings (a move's work stays finite)
PARAMS = table(
    Param("sims", 1000, 1, 10_000_000, "simulations a move"),
    Param("uct_c", 2.0, 0.0, 1e6, "UCT exploration constant"),
    Param("rollouts", 1, 1, 10_000, "random rollouts a leaf"),
    Param("solve", True, doc="back up proven values (MCTS-Solver)"),
    Param("timed", False, doc="instead of sims a move, simulations until the move's deadline (MCTSBot's "
          "max_wall_clock_time), for strength at equal time"),
)


def resolve_params(params: dict[str, str]) -> tuple:
    """(text, name, params, version) of a :class:`util.arena.players.PlayerSpec`; SpecError (one
    line) for an unknown parameter, a value out of bounds, or no open_spiel."""
    try:
        import pyspiel
    except ImportError:
        raise SpecError("openspiel_mcts needs open_spiel: pip install open_spiel") from None
    values: dict[str, Any] = {}
    for key, text in params.items():
        if key not in PARAMS:
            raise SpecError(f"openspiel_mcts has no parameter {key!r}; valid parameters: {', '.join(PARAMS)}")
        try:
            values[key] = PARAMS[key].parse(text, f"parameter {key} of openspiel_mcts")
        except ValueError as exc:
            raise SpecError(str(exc)) from None
    text = "openspiel_mcts" + (":" + ",".join(f"{k}={values[k]}" for k in sorted(values)) if values else "")
    version = f"open_spiel=={getattr(pyspiel, '__version__', 'unknown')}"
    return text, "openspiel_mcts", tuple(sorted(values.items())), version


def build(game: Any, seed: int, **params: Any) -> OpenSpielMCTS:
    """The player of ``params`` (:func:`resolve_params`' values) on ``game`` (a ConnectX)."""
    return OpenSpielMCTS(game.shape, seed=seed, **params)


def move_order(position: Position) -> list[int]:
    """A legal order of 0-based moves that reaches ``position`` (a non-terminal position).

    Works backwards, taking the top stone of the side that moved last. Every earlier
    position holds a subset of the final stones, so none of them has a line either; only the
    alternation of colours can block a choice, and depth-first search backtracks from that."""
    s = position.shape
    board = position.to_board()
    stacks = [[board[(s.rows - 1 - r) * s.columns + c] for r in range(s.rows) if board[(s.rows - 1 - r) * s.columns + c]]
              for c in range(s.columns)]
    heights = [len(x) for x in stacks]
    failed: set[tuple[int, ...]] = set()

    def back(mover: int, order: list[int]) -> bool:
        if sum(heights) == 0:
            return True
        key = tuple(heights)
        if key in failed:
            return False
        for c in range(s.columns):
            if heights[c] and stacks[c][heights[c] - 1] == mover:
                heights[c] -= 1
                order.append(c)
                if back(3 - mover, order):
                    return True
                order.pop()
                heights[c] += 1
        failed.add(key)
        return False

    order: list[int] = []
    if not back(2 - (position.ply & 1), order):
        raise ValueError("no legal move order reaches this position")
    return order[::-1]


class OpenSpielMCTS(PositionAgent):
    """``pyspiel.MCTSBot`` with random rollouts on ``shape``. By default it ignores the deadline
    and plays ``sims`` simulations a move (a reproducible reference); with ``timed`` it searches
    until the deadline (less :attr:`MARGIN`) with MCTSBot's own wall-clock limit, so that strength
    compares at equal time."""

    MARGIN = 0.01  # seconds a timed move keeps before the deadline (building the state, returning)
    MEMORY_MB = 1000  # MCTSBot's tree memory limit

    def __init__(self, shape: Shape, seed: int = 0, sims: int = 1000, uct_c: float = 2.0, rollouts: int = 1,
                 solve: bool = True, timed: bool = False) -> None:
        import pyspiel
        self._pyspiel = pyspiel
        self._game = pyspiel.load_game("connect_four", {"rows": shape.rows, "columns": shape.columns, "x_in_row": shape.inarow})
        self._seed = seed % 2**31  # a C++ int
        self._uct_c, self._solve, self._timed = uct_c, solve, timed
        evaluator = pyspiel.RandomRolloutEvaluator(rollouts, self._seed)
        self._evaluator = evaluator  # the bot keeps a reference in C++; keep the Python object alive
        self._bot = None if timed else self._make_bot(sims, -1.0)
        self._last_seconds = 0.0

    def _make_bot(self, sims: int, seconds: float) -> Any:
        ps = self._pyspiel
        return ps.MCTSBot(self._game, self._evaluator, self._uct_c, sims, self.MEMORY_MB, self._solve, self._seed,
                          False, ps.ChildSelectionPolicy.UCT, seconds)

    def choose_position(self, position: Position, deadline: float) -> int:
        state = self._game.new_initial_state()
        for col in move_order(position):
            state.apply_action(col)
        if self._bot is not None:  # not timed: one bot for the whole game
            return int(self._bot.step(state))
        # A wall-clock limit is read after each simulation: at least one runs, so a move always has an action.
        seconds = max(1e-3, deadline - time.perf_counter() - self.MARGIN)
        t = time.perf_counter()
        action = int(self._make_bot(10**9, seconds).step(state))
        self._last_seconds = time.perf_counter() - t
        return action

    def info(self) -> SearchInfo:
        return SearchInfo(seconds=self._last_seconds) if self._timed else EMPTY
