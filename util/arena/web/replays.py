"""Games to replay in the play page: a Kaggle episode (kaggle-environments' ``env.toJSON()``) of a
game that replays them (:meth:`core.game.Game.kaggle_episode_states`: Reinforce Tactics,
:mod:`core.reinforce_tactics.replay`) turned into our states, one per action, within this
module's limits. Every error is a ValueError whose one line says what is wrong.
"""
from __future__ import annotations

from typing import Any

from core.game import Game, State

MAX_EPISODE_STEPS = 10_000  # steps a replayed episode may have (Kaggle's games have 200)
MAX_LOG = 2_000  # entries one turn's action log may have (a side has at most 50 units)
MAX_STATES = 20_000  # states a replay may make (a 181-step episode: 1,226, replayed in 0.3 s of CPU here): its CPU is bounded


def replayable() -> dict[str, type[Game]]:
    """kaggle-environments' name -> the game class that replays its episodes."""
    from core.games import game_class, names

    classes = (game_class(n) for n in names())
    return {c.kaggle_env: c for c in classes if c.kaggle_env and _replays(c)}


def _replays(cls: type[Game]) -> bool:
    """Whether ``cls`` has its own :meth:`core.game.Game.kaggle_episode_states` (not the default's refusal)."""
    return any("kaggle_episode_states" in vars(k) for k in cls.__mro__ if k is not Game)


def kaggle_states(episode: Any) -> list[State]:
    """The states of a Kaggle episode from the start, one per action (chance outcomes too), by
    the game whose environment played it (``name``; the one replayable game when it is missing)."""
    if not isinstance(episode, dict):
        raise ValueError("the episode must be a JSON object")
    games = replayable()
    name = episode.get("name", next(iter(games), ""))
    if name not in games:
        raise ValueError(f"the episode is of {str(name)[:40]!r}; only {', '.join(games) or 'no'} episodes can be replayed here")
    limits = {"steps": MAX_EPISODE_STEPS, "log": MAX_LOG, "states": MAX_STATES}
    return games[name].kaggle_episode_states(episode, limits)
