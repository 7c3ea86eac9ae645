"""Reinforce Tactics' Kaggle episodes (kaggle-environments' ``env.toJSON()``) as our states, one
per action: :meth:`core.reinforce_tactics.ReinforceTactics.kaggle_episode_states`, the web app's
replay hook (:mod:`util.arena.web.replays`).

The episode's ``configuration`` (``mapName``, ``episodeSteps``, ``startingGold``) and seed
(``configuration.seed``, else ``info.seed``, as kaggle-environments records it) make the game;
the first observation's board must be that game's terrain (else the episode is refused: it was
played on another map or version). Step ``i``'s ``actionLog`` (in the first agent's observation)
is the turn played between steps ``i - 1`` and ``i``; it is replayed through
:func:`core.reinforce_tactics.kaggle.log_to_actions` (chance outcomes as the log says), which
checks that our rules accept every action. Every error is a ValueError whose one line says what is wrong.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from base.bounds import as_int
from core.game import Game, State, as_words
from core.reinforce_tactics import kaggle as KG
from core.reinforce_tactics.layout import G_TERRAIN, TILE_CODES, H, W


def _obj(value: Any, what: str) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object")
    return value


def kaggle_game(cls: type[Game], episode: Any, max_steps: int) -> Game:
    """The game (of class ``cls``) an episode was played in (map, seed, steps, gold from its
    configuration; at most ``max_steps`` steps)."""
    ep = _obj(episode, "the episode")
    cfg = _obj(ep.get("configuration"), "the episode's configuration")
    seed = cfg.get("seed")
    if seed is None:
        seed = (ep.get("info") or {}).get("seed") if isinstance(ep.get("info"), dict) else None
    seed = -1 if seed is None else as_int(seed, "the episode's seed", 0, 2 ** 63 - 1)
    map_name = cfg.get("mapName") or ""
    if not isinstance(map_name, str):
        raise ValueError("the episode's mapName must be text")
    steps = as_int(cfg.get("episodeSteps", 200), "the episode's episodeSteps", 2, max_steps)
    gold = as_int(cfg.get("startingGold", 250), "the episode's startingGold", 0, 10 ** 9)
    try:
        return cls(map=map_name, seed=seed, episode_steps=steps, starting_gold=gold)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the episode's configuration makes no game here: {exc}") from None


def _first_observation(steps: list, i: int) -> dict:
    step = steps[i]
    if not isinstance(step, list) or not step:
        raise ValueError(f"step {i} of the episode must be a list of the agents' entries")
    entry = _obj(step[0], f"step {i}'s first agent entry")
    return _obj(entry.get("observation"), f"step {i}'s observation")


def check_board(game: Game, obs: dict) -> None:
    """ValueError unless the observation's ``board`` is ``game``'s terrain."""
    board = obs.get("board")
    if not (isinstance(board, list) and len(board) == H and all(isinstance(r, list) and len(r) == W for r in board)):
        raise ValueError(f"the episode's first observation has no {H} x {W} board")
    ours = [[TILE_CODES[game.g[G_TERRAIN + y * W + x]] for x in range(W)] for y in range(H)]
    if [[str(c)[:1] for c in row] for row in board] != ours:
        raise ValueError(f"the episode's board is not {game.spec()} as this toolkit builds it "
                         "(another map, seed or version of the environment)")


def _play(state: State, action: int) -> State:
    """``state.apply(action)`` without its legal-set check: the action is one the Kaggle engine
    executed and :func:`core.reinforce_tactics.kaggle.dict_to_action` found accepted (a superset
    of the legal set: the interpreter also runs attacks its engine does not offer), and the
    legal set costs 13 ms a call in plain Python (a 2,000-action episode: 30 s)."""
    k = state.game.kernel_module
    words = k.play(state.game.g, np.array(state.words, np.int64), action)
    return State(state.game, as_words(words), state.history + (action,))


def episode_states(cls: type[Game], episode: Any, limits: dict[str, int]) -> list[State]:
    """The states of a Kaggle episode from the start, one per action (chance outcomes too);
    ``limits``: the most ``steps``, ``log`` entries of a turn and ``states`` replayed."""
    max_steps, max_log, max_states = limits["steps"], limits["log"], limits["states"]
    game = kaggle_game(cls, episode, max_steps)
    steps = episode.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ValueError("the episode has no steps")
    if len(steps) > max_steps:
        raise ValueError(f"the episode has {len(steps)} steps; at most {max_steps} are replayed")
    check_board(game, _first_observation(steps, 0))
    states = [game.initial()]
    end = game.end_turn_action
    for i in range(1, len(steps)):
        if states[-1].is_terminal():
            break
        log = _first_observation(steps, i).get("actionLog", [])
        if not isinstance(log, list) or len(log) > max_log or not all(isinstance(e, dict) for e in log):
            raise ValueError(f"step {i}'s actionLog must be a list of at most {max_log} objects")
        mover = states[-1].current_player()
        try:
            actions = KG.log_to_actions(game.g, np.array(states[-1].words, np.int64), log)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"step {i} (turn of player {mover + 1}) cannot be replayed: {str(exc)[:200]}") from None
        if len(states) + len(actions) > max_states:
            raise ValueError(f"the episode has more than {max_states:,} actions by step {i}; at most that many are replayed")
        for a in actions:  # each one the engine executed and our rules accept (log_to_actions checks)
            states.append(_play(states[-1], int(a)))
        s = states[-1]
        if not s.is_terminal() and not s.is_chance_node() and s.current_player() == mover and end in s.legal_actions():
            states.append(s.apply(end))  # a log without its end_turn (a timed-out agent): the turn ended
    return states
