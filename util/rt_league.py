"""The self-play league of Reinforce Tactics' learned evaluation, kept in the arena's store
(:mod:`util.arena.store`): ``util.rt_train selfplay --store DB`` records every self-play game
there (players by spec and version: the source of their code and the bytes of their weights,
so a new generation written at an old path is a new player), ``--league DB`` adds the past
players still playable (their weights unchanged on disk) to the sides a game draws from, and
``util.rt_train league DB`` prints the league's table: each player's Elo (95% interval), games
and score over all maps, and the cross-table.

A self-play game is stored under its base spec (the ``--agents`` entry, before greedy's
per-game weight jitter: ``source`` names the jitter), its map and terrain flips in its game
spec, so ``python -m util.arena.tournament --db DB --replay ID`` and the web app's replays show it.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from agents.engine.spec import SpecError, names_file, parse_spec
from util.arena import players
from util.arena.store import Store

SOURCE = "rt_train selfplay"  # the ``source`` of a self-play game's row (``... jitter=J`` after it)


def run_tag(args: Any) -> str:
    """The store's run of a self-play command: a hash of what defines its games (as the
    tournament's tag), so a rerun continues it."""
    what = {"seed": args.seed, "agents": list(args.agents), "maps": list(args.maps or []), "time": args.time,
            "jitter": args.jitter, "episode_steps": args.episode_steps, "games": args.games}
    return "selfplay-" + hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:12]


def game_key(tag: str, i: int) -> str:
    return f"{tag}:{i}"


class Recorder:
    """Writes finished self-play games into a store (the driver's side: workers only play)."""

    def __init__(self, path: str, tag: str, command: dict[str, Any], keys: list[str]) -> None:
        self.store = Store(path)
        self.store.start_run(tag, command, keys)
        self.ids: dict[str, int] = {}

    def player(self, spec: str, game: Any) -> int:
        if spec not in self.ids:
            p = players.resolve(spec, game)
            self.ids[spec] = self.store.player_id(p.text, p.version, dict(p.params))
        return self.ids[spec]

    def add(self, key: str, record: dict[str, Any], time: float, seed: int, jitter: float) -> None:
        """Game ``key``: ``record`` is :func:`util.arena.match.play`'s result with the game's spec
        (``spec``) and the two sides' base specs (``bases``)."""
        from core.games import parse_game

        game = parse_game(record["spec"])
        first, second = (self.player(b, game) for b in record["bases"])
        self.store.add_game(key, first, second, "", record, time_per_move=time, engine="direct", seed=seed,
                            source=f"{SOURCE} jitter={jitter:g}", game=game.spec())

    def close(self) -> None:
        self.store.close()


def league_specs(path: str, game: Any) -> list[str]:
    """The past players of the store at ``path`` that read a data file (weights) and still
    resolve to the version they were stored with (the file unchanged), first stored first."""
    if not Path(path).is_file():
        return []
    with Store(path, create=False) as store:
        stored = list(store.players().values())
    out: list[str] = []
    for spec, version in stored:
        _, params = parse_spec(spec)
        if not any(names_file(k, v) for k, v in params.items()) or spec in out:
            continue
        try:
            if players.resolve(spec, game).version == version:
                out.append(spec)
        except SpecError:  # its file is gone or damaged: no longer playable
            continue
    return out


def newcomers(path: str, specs: list[str], game: Any) -> list[str]:
    """:func:`league_specs` less the players ``specs`` already name (compared canonically)."""
    have = {players.resolve(s, game).text for s in specs}
    return [p for p in league_specs(path, game) if p not in have]


def report(path: str) -> str:
    """The league's table: every player's Elo with its 95% interval, games and score over all
    the store's games (maps pooled), and the cross-table (:func:`util.arena.tournament.standings`)."""
    from util.arena.tournament import format_report, standings

    with Store(path, create=False) as store:
        return format_report(*standings(store, None))
