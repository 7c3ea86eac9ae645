"""The SQLite store of finished games: one row per game, committed as soon as it finishes.

Why SQLite: a tournament interrupted at any moment keeps every finished game (each insert is
its own transaction, WAL journal), and rerunning the same command skips them by their ``key``
(a hash of everything that defines the game). Only the driver process writes; workers return
results to it. Players are (spec, code version) pairs: changed code is a new player, so old
results never pass for new code.
"""
from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS players(
    id INTEGER PRIMARY KEY,
    spec TEXT NOT NULL,          -- agent spec as typed, canonical form (see util.players)
    version TEXT NOT NULL,       -- code version: source hash of the agent's modules or file
    params TEXT NOT NULL,        -- JSON object of the parameters the agent was built with
    UNIQUE(spec, version)
);
CREATE TABLE IF NOT EXISTS games(
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,    -- identity of the scheduled game: resume skips known keys
    first INTEGER NOT NULL REFERENCES players(id),   -- mark 1
    second INTEGER NOT NULL REFERENCES players(id),  -- mark 2
    shape TEXT NOT NULL,         -- rows x columns x inarow, e.g. 6x7x4
    opening TEXT NOT NULL,       -- 0-based columns, comma-separated
    moves TEXT NOT NULL,         -- every column played (opening included), comma-separated
    winner INTEGER NOT NULL,     -- 0 draw, 1 or 2 the winning mark
    termination TEXT NOT NULL,   -- win, draw, illegal, error, timeout
    errors TEXT NOT NULL,        -- JSON object mark -> message of the side that forfeited
    move_times TEXT NOT NULL,    -- JSON list of seconds per agent move
    time_per_move REAL NOT NULL,
    engine TEXT NOT NULL,        -- direct, kaggle, or human (util.play)
    seed INTEGER NOT NULL,
    source TEXT NOT NULL,        -- tournament, play, tune
    finished REAL NOT NULL       -- unix time
);
CREATE INDEX IF NOT EXISTS games_shape ON games(shape);
"""


class StoreError(RuntimeError):
    """The database cannot be opened or is not ours: the message says which file and why."""


@dataclass(frozen=True)
class Game:
    id: int
    first: int  # player id (mark 1)
    second: int  # player id (mark 2)
    shape: str
    opening: tuple[int, ...]
    moves: tuple[int, ...]
    winner: int
    termination: str
    errors: dict[str, str]
    move_times: tuple[float, ...]
    time_per_move: float
    engine: str


class Store:
    """An open store. Use as a context manager; every write commits at once."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=30)
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"database {self.path} has schema version {version}; this code reads up to {SCHEMA_VERSION}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self._db.commit()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot use database {self.path}: {exc}; give --db a new path or an SQLite file written by this tool") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def player_id(self, spec: str, version: str, params: dict[str, Any]) -> int:
        """Id of (spec, version), added if new."""
        row = self._db.execute("SELECT id FROM players WHERE spec=? AND version=?", (spec, version)).fetchone()
        if row:
            return int(row[0])
        with self._db:
            cur = self._db.execute(
                "INSERT INTO players(spec, version, params) VALUES (?,?,?)", (spec, version, json.dumps(params, sort_keys=True, default=str))
            )
        return int(cur.lastrowid)

    def players(self) -> dict[int, tuple[str, str]]:
        """id -> (spec, version)."""
        return {int(i): (s, v) for i, s, v in self._db.execute("SELECT id, spec, version FROM players")}

    def done_keys(self) -> set[str]:
        return {k for (k,) in self._db.execute("SELECT key FROM games")}

    def add_game(self, key: str, first: int, second: int, shape: str, result: dict[str, Any], *,
                 time_per_move: float, engine: str, seed: int, source: str) -> int:
        """Insert one finished game (``result``: moves, winner, termination, errors, move_times,
        opening) in its own transaction; a key already present is left as it is."""
        row = (
            key, first, second, shape, ",".join(map(str, result["opening"])), ",".join(map(str, result["moves"])),
            int(result["winner"]), result["termination"], json.dumps({str(k): v for k, v in result["errors"].items()}),
            json.dumps([round(t, 6) for t in result["move_times"]]), float(time_per_move), engine, int(seed), source, time.time(),
        )
        with self._db:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO games(key, first, second, shape, opening, moves, winner, termination, errors,"
                " move_times, time_per_move, engine, seed, source, finished) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                row,
            )
        return int(cur.lastrowid or 0)

    def games(self, shape: str | None = None) -> Iterator[Game]:
        query = "SELECT id, first, second, shape, opening, moves, winner, termination, errors, move_times, time_per_move, engine FROM games"
        args: tuple = ()
        if shape is not None:
            query += " WHERE shape=?"
            args = (shape,)
        for row in self._db.execute(query + " ORDER BY id", args):
            yield _game(row)

    def game(self, game_id: int) -> Game | None:
        row = self._db.execute(
            "SELECT id, first, second, shape, opening, moves, winner, termination, errors, move_times, time_per_move, engine"
            " FROM games WHERE id=?", (game_id,)
        ).fetchone()
        return _game(row) if row else None

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x != "")


def _game(row: tuple) -> Game:
    gid, first, second, shape, opening, moves, winner, term, errors, times, tpm, engine = row
    return Game(int(gid), int(first), int(second), shape, _ints(opening), _ints(moves), int(winner), term,
                json.loads(errors), tuple(json.loads(times)), float(tpm), engine)
