"""Interop with the Politecnico di Torino Computational Intelligence course's Quixo harness.

Their convention: ``Player.make_move(game) -> ((x, y), Move)`` with ``x`` the column and ``y``
the row of the cube taken, ``Move`` TOP/BOTTOM/LEFT/RIGHT (0..3) the side where it is pushed
back in; ``game.get_board()`` a numpy array ``board[y, x]`` with -1 blank and 0/1 players;
``game.get_current_player()`` the player to move.

- :class:`EnginePlayer`: any engine agent (``choose(state, deadline)``) as such a ``Player``.
- :class:`CoursePlayerAgent`: one of their ``Player`` objects as an engine agent.
- :class:`CourseGame`: a stand-in with their ``Game``'s API (``get_board``,
  ``get_current_player``, ``check_winner``, ``print``, ``play``), numpy-2 safe (their board
  constructor overflows a uint8 there) and applying the both-lines rule (theirs does not). Its
  pushes are written here on the 2-D array, apart from the engine's kernels, so tests that
  play through it check the adapter's conventions against the engine.
- :class:`CourseMinimaxPlayer`: a course-style minimax on copied boards, a stand-in opponent.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from agents.engine.info import SearchInfo
from core.game import State


class Move(Enum):
    """The course's ``Move``: the side where the cube is pushed back in."""

    TOP = 0
    BOTTOM = 1
    LEFT = 2
    RIGHT = 3


# --- the course's rules on a 2-D array --------------------------------------------------------
def course_moves(board: np.ndarray, player: int) -> list[tuple[tuple[int, int], Move]]:
    """The legal ``((x, y), Move)`` of ``player`` on ``board`` (``board[y, x]``)."""
    n = board.shape[0]
    out = []
    for y in range(n):
        for x in range(n):
            if (x in (0, n - 1) or y in (0, n - 1)) and board[y, x] in (-1, player):
                for side in Move:
                    if _end(n, x, y, side) != (x, y):
                        out.append(((x, y), side))
    return out


def _end(n: int, x: int, y: int, side: Move) -> tuple[int, int]:
    return {Move.TOP: (x, 0), Move.BOTTOM: (x, n - 1), Move.LEFT: (0, y), Move.RIGHT: (n - 1, y)}[side]


def course_slide(board: np.ndarray, from_pos: tuple[int, int], side: Move, player: int) -> np.ndarray:
    """A new board: ``player`` takes the cube at ``from_pos`` = (x, y), pushes it in at ``side``."""
    b = board.copy()
    x, y = from_pos
    n = b.shape[0]
    if side == Move.TOP:
        b[1:y + 1, x] = board[0:y, x]
        b[0, x] = player
    elif side == Move.BOTTOM:
        b[y:n - 1, x] = board[y + 1:n, x]
        b[n - 1, x] = player
    elif side == Move.LEFT:
        b[y, 1:x + 1] = board[y, 0:x]
        b[y, 0] = player
    else:
        b[y, x:n - 1] = board[y, x + 1:n]
        b[y, n - 1] = player
    return b


def course_lines(board: np.ndarray):
    n = board.shape[0]
    yield from (board[i, :] for i in range(n))
    yield from (board[:, i] for i in range(n))
    yield np.diagonal(board)
    yield np.diagonal(np.fliplr(board))


def course_winner(board: np.ndarray, last_mover: int) -> int:
    """-1, or the winner after ``last_mover``'s move: a line of the other player wins for
    them even if the mover made its own line too."""
    other = 1 - last_mover
    lines = list(course_lines(board))
    if any(np.all(line == other) for line in lines):
        return other
    if any(np.all(line == last_mover) for line in lines):
        return last_mover
    return -1


class CourseGame:
    """A stand-in for the course's ``Game`` with the same API (see the module docstring)."""

    def __init__(self, size: int = 5, max_plies: int = 400) -> None:
        self._board = np.full((size, size), -1, dtype=np.int8)
        self.current_player_idx = 1  # as theirs: ``play`` advances it before each move
        self.max_plies = max_plies  # a draw (-1) after this many plies: play can cycle
        self.plies = 0

    def get_board(self) -> np.ndarray:
        return self._board.copy()

    def get_current_player(self) -> int:
        return self.current_player_idx

    def print(self) -> None:
        for row in self._board:
            print(" ".join({-1: ".", 0: "X", 1: "O"}[int(v)] for v in row))

    def check_winner(self) -> int:
        return course_winner(self._board, self.current_player_idx)

    def move(self, from_pos: tuple[int, int], slide: Any, player_id: int) -> bool:
        """Apply a move if legal (their ``__move``); ``slide`` may be any enum with their names."""
        side = Move[getattr(slide, "name", str(slide))]
        pos = tuple(from_pos)  # their players may give a list
        if (pos, side) not in course_moves(self._board, player_id):
            return False
        self._board = course_slide(self._board, (pos[0], pos[1]), side, player_id)
        return True

    _Game__move = move  # players that simulate with ``deepcopy(game)._Game__move`` keep working

    def play(self, player1: Any, player2: Any, max_tries: int = 1000) -> int:
        """Their game loop: the winner (0 or 1), or -1 for a draw at the ply cap."""
        players = [player1, player2]
        winner = -1
        while winner < 0 and self.plies < self.max_plies:
            self.current_player_idx = (self.current_player_idx + 1) % 2
            for _ in range(max_tries):
                from_pos, slide = players[self.current_player_idx].make_move(self)
                if self.move(from_pos, slide, self.current_player_idx):
                    break
            else:
                raise RuntimeError(f"player {self.current_player_idx} gave no legal move in {max_tries} tries")
            self.plies += 1
            winner = self.check_winner()
        return winner


# --- conversions --------------------------------------------------------------------------------
def state_from_board(game: Any, board: Any, current_player: int, ply: int = 0) -> State:
    """The engine state of a course board (``board[y, x]``: -1, 0, 1) with ``current_player``
    to move. ``game`` is a :class:`core.quixo.Quixo` of the board's size."""
    b = np.asarray(board)
    n = game.n
    if b.shape != (n, n):
        raise ValueError(f"board of shape {b.shape} does not fit {game.spec()}")
    x_plane = sum(1 << (y * n + x) for y in range(n) for x in range(n) if b[y, x] == 0)
    o_plane = sum(1 << (y * n + x) for y in range(n) for x in range(n) if b[y, x] == 1)
    return game.new_state((x_plane, o_plane, int(current_player) | (ply << 1)))


def action_to_course(game: Any, action: int, move_enum: Any = Move) -> tuple[tuple[int, int], Any]:
    x, y, side = game.decode(action)
    return (x, y), move_enum[side]


def course_to_action(game: Any, from_pos: tuple[int, int], slide: Any) -> int:
    """The engine action of a course move (``slide``: any enum with their names, or a name)."""
    x, y = (int(v) for v in from_pos)
    return game.encode(x, y, getattr(slide, "name", str(slide)))


# --- adapters ------------------------------------------------------------------------------
class EnginePlayer:
    """An engine agent as a course ``Player``: ``make_move(game) -> ((x, y), Move)``."""

    def __init__(self, agent: Any, game: Any = None, seconds: float = 1.0, move_enum: Any = Move) -> None:
        from core.games import make_game

        self.agent = agent  # anything with choose(state, deadline) -> action
        self.game = game or getattr(agent, "game", None) or make_game("quixo", size=5)  # the engine's Quixo
        self.seconds = seconds  # thinking time per move
        self.move_enum = move_enum  # pass their Move class so their Game's == comparisons hold

    def make_move(self, game: Any) -> tuple[tuple[int, int], Any]:
        state = state_from_board(self.game, game.get_board(), game.get_current_player())
        action = self.agent.choose(state, time.perf_counter() + self.seconds)
        return action_to_course(self.game, action, self.move_enum)


class _View:
    """What a course ``Player`` sees of an engine state: a fresh :class:`CourseGame`."""

    @staticmethod
    def of(state: State) -> CourseGame:
        n = int(state.game.params["size"])  # Quixo's board side
        view = CourseGame(n)
        x_plane, o_plane, meta = state.words
        for c in range(n * n):
            if (x_plane >> c) & 1:
                view._board[c // n, c % n] = 0
            elif (o_plane >> c) & 1:
                view._board[c // n, c % n] = 1
        view.current_player_idx = meta & 1
        view.plies = meta >> 1
        return view


@dataclass
class CoursePlayerAgent:
    """A course ``Player`` object played as an engine agent (tournaments, play)."""

    player: Any = None  # their Player instance (make_move(game) -> ((x, y), Move))
    game: Any = None  # the core.quixo.Quixo played (set by the registry)
    max_tries: int = 100  # their players may answer illegal moves; asked again up to this many times
    games = ("quixo",)
    _last: dict = field(default_factory=dict, init=False, repr=False)

    def choose(self, state: State, deadline: float) -> int:
        legal = set(state.legal_actions())
        t0 = time.perf_counter()
        for tries in range(1, self.max_tries + 1):
            from_pos, slide = self.player.make_move(_View.of(state))
            try:
                action = course_to_action(state.game, from_pos, slide)
            except (ValueError, KeyError):
                continue
            if action in legal:
                self._last = {"tries": tries, "seconds": time.perf_counter() - t0}
                return action
        action = min(legal)  # never hang a tournament on a player that keeps answering illegally
        self._last = {"tries": self.max_tries, "fallback": True, "seconds": time.perf_counter() - t0}
        return action

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._last)


class CourseRandomPlayer:
    """The course's random player: any border cell and side, legal or not (the game re-asks)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def make_move(self, game: Any) -> tuple[tuple[int, int], Move]:
        n = game.get_board().shape[0]
        return (self.rng.randrange(n), self.rng.randrange(n)), self.rng.choice(list(Move))


class CourseMinimaxPlayer:
    """Course-style depth-limited minimax on copied numpy boards: a stand-in opponent.

    Leaves score +-1000 for a won/lost game (sooner is better) and otherwise the mover's
    longest line minus the opponent's; ties are broken by a seeded generator."""

    def __init__(self, depth: int = 2, seed: int | None = 0) -> None:
        self.depth = depth  # plies searched
        self.rng = random.Random(seed)

    def make_move(self, game: Any) -> tuple[tuple[int, int], Move]:
        board, me = game.get_board(), game.get_current_player()
        best, best_moves = -np.inf, []
        for mv in course_moves(board, me):
            v = -self._negamax(course_slide(board, mv[0], mv[1], me), 1 - me, self.depth - 1)
            if v > best:
                best, best_moves = v, [mv]
            elif v == best:
                best_moves.append(mv)
        return self.rng.choice(best_moves)

    def _negamax(self, board: np.ndarray, to_move: int, depth: int) -> float:
        w = course_winner(board, 1 - to_move)
        if w >= 0:
            return (1000 + depth) * (1 if w == to_move else -1)
        if depth == 0:
            return self._longest(board, to_move) - self._longest(board, 1 - to_move)
        return max(-self._negamax(course_slide(board, m[0], m[1], to_move), 1 - to_move, depth - 1)
                   for m in course_moves(board, to_move))

    @staticmethod
    def _longest(board: np.ndarray, who: int) -> int:
        return max(int(np.sum(line == who)) for line in course_lines(board))
