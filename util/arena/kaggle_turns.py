"""Kaggle's built-in agents of a game whose turn is a list of action dicts (Reinforce Tactics:
``kaggle:random``, ``kaggle:aggressive``) as arena players on our states.

At the first decision of a turn the player builds Kaggle's observation of the state
(:meth:`core.game.Game.kaggle_observation`), calls the built-in once and keeps the list it
returns; each decision of the turn then plays the list's next entry that the rules accept here,
found by its label (:meth:`core.game.Game.label_action`: a dict's sorted items), as Kaggle's
interpreter does: an entry it would skip (illegal, unaffordable, naming no unit) is skipped, an
``end_turn`` entry or the list's end ends the turn, and an entry that is not a dict forfeits
(Kaggle marks that agent as lost: here the player raises, and the arena records the error).
"""
from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any, Protocol

from agents.engine.info import EMPTY, SearchInfo
from base.clock import KaggleBank
from base.kaggle_import import kaggle_environments
from core.game import Game, State


def builtin_names(game: Game) -> list[str]:
    """The names of kaggle-environments' built-in agents for ``game`` (empty: none)."""
    if not game.kaggle_env:
        return []
    return sorted(builtins_of(game.kaggle_env))


def builtins_of(env: str) -> dict[str, Callable[[Any, Any], Any]]:
    """kaggle-environments' built-in agents of environment ``env``: name -> ``agent(obs, config)``."""
    kaggle_environments()  # its import prints to stdout otherwise
    module = importlib.import_module(f"kaggle_environments.envs.{env}.{env}")
    return dict(getattr(module, "agents", {}))


class TurnListPlayer:
    """A Kaggle ``agent(observation, configuration)`` of a game whose turn is a list of action
    dicts, played on our states (see the module docstring); ``label`` names it in errors."""

    def __init__(self, fn: Callable[[Any, Any], Any], label: str, game: Game, time_per_move: float, seed: int = 0) -> None:
        kaggle_environments()  # its import prints to stdout otherwise
        from kaggle_environments.utils import structify

        self.fn, self.label, self.game, self.seed = fn, label, game, seed
        self._structify = structify
        self._config = structify(game.kaggle_configuration(time_per_move))
        self.reset()

    def reset(self) -> None:
        random.seed(self.seed)
        self._turn: tuple[int, int] | None = None
        self._left: list[Any] = []

    def turn_actions(self, state: State) -> list[Any]:
        """The built-in's answer for the turn starting at ``state``, as Kaggle reads it (a lone
        answer becomes a list of one)."""
        obs = self._structify(self.game.kaggle_observation(state, self.remaining()))
        answer = self.fn(obs, self._config)
        return list(answer) if isinstance(answer, list) else [answer] if answer else []

    def remaining(self) -> float:
        """The ``remainingOverageTime`` the agent is told (a built-in never reads it)."""
        return 60.0

    def choose(self, state: State, deadline: float) -> int:
        end = self.game.end_turn_action
        turn = (self.game.turn_index(state), state.current_player())
        if turn != self._turn:
            self._turn = turn
            self._left = self.turn_actions(state)
        while self._left:
            entry = self._left.pop(0)
            if not isinstance(entry, dict):
                self._left = []
                raise ValueError(f"{self.label} returned {entry!r} in its turn's list, not an action dict (Kaggle forfeits it)")
            if entry.get("type", "") == "end_turn":
                self._left = []
                break
            try:
                a = self.game.label_action(state, tuple(sorted(entry.items())))
            except TypeError:  # keys that do not sort (not strings): no action of the game's
                a = None
            if a is not None:
                return a
        return end if end is not None else state.legal_actions()[0]

    def info(self) -> SearchInfo:
        return EMPTY

    def close(self) -> None:
        pass


class KaggleTurnPlayer(TurnListPlayer):
    """A built-in Kaggle agent ``name`` of ``game`` (see the module docstring). ``seed`` seeds
    the module-level ``random`` the built-ins draw from (this worker owns it for the game)."""

    def __init__(self, name: str, game: Game, time_per_move: float, seed: int = 0) -> None:
        agents = builtins_of(game.kaggle_env)
        if name not in agents:
            raise ValueError(f"kaggle-environments has no built-in {name!r} for {game.name}; valid: {', '.join(sorted(agents))}")
        self.name = name
        super().__init__(agents[name], f"kaggle:{name}", game, time_per_move, seed)


class AgentProcess(Protocol):
    """What :class:`FileTurnPlayer` needs of an agent file's process
    (:class:`util.arena.players.FilePlayer`, which the caller builds)."""

    path: str
    kaggle_clock: KaggleBank

    def call(self, obs: Any, config: Any) -> Any: ...

    def reset(self) -> None: ...

    def close(self) -> None: ...


class FileTurnPlayer(TurnListPlayer):
    """A Kaggle agent file of ``game`` in its own process (``file``, a
    :class:`util.arena.players.FilePlayer` built with ``game``'s configuration: Kaggle's clock,
    the file loaded inside its first call), asked once a turn; the turn's decisions are the
    list's entries. ``kaggle_clock`` is the file's bank, which the game loop charges with the
    turn's time (:class:`util.arena.match.TurnClock`: a turn is one Kaggle call)."""

    def __init__(self, file: AgentProcess, game: Game, time_per_move: float, seed: int = 0) -> None:
        self.file = file
        self.kaggle_clock = file.kaggle_clock
        super().__init__(file.call, file.path, game, time_per_move, seed)

    def reset(self) -> None:
        super().reset()
        self.file.reset()

    def remaining(self) -> float:
        return self.kaggle_clock.left

    def close(self) -> None:
        self.file.close()
