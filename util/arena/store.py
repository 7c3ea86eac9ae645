"""The SQLite store of finished games: one row per game, committed as soon as it finishes.

Why SQLite: a tournament interrupted at any moment keeps every finished game (each insert is
its own transaction, WAL journal), and rerunning the same command skips them by their ``key``
(a hash of everything that defines the game). Only the driver process writes; workers return
results to it. Players are (spec, code version) pairs: changed code is a new player, so old
results never pass for new code.

Runs: each tournament command belongs to a *run* (its ``--tag``, or a hash of what it
schedules, so that rerunning the command continues the same run); the run lists the keys of
its games, and reports show one run, not every game ever stored. Claims: a runner takes a game
by writing a claim row (its id, an expiry) before playing it, so that several runners pointed
at one store split the work; the runner pushes the expiry back as its games finish. A claim
left by a runner that died is taken over at once when that runner was a process of this host
(:func:`runner_gone`: its id holds host, pid and the process's start time), else when it
expires.

Games: every game row names its game and parameters (``game``: :meth:`core.game.Game.spec`,
e.g. ``tictactoe`` or ``connectx:rows=6,columns=7,inarow=4``); reports never pool two specs.
Moves are the game's actions (ConnectX: 0-based columns), chance outcomes (dice) among them
with their indices in ``chance``. Stores of schema 1 or 2 (ConnectX only, a ``shape`` column)
are upgraded in place when opened: their ``game`` is derived from the shape.
"""
from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from base.cli import unwritable

SCHEMA_VERSION = 3  # 2: runs, run_games, claims; 3: game, chance, movers, returns

_SCHEMA = """
CREATE TABLE IF NOT EXISTS players(
    id INTEGER PRIMARY KEY,
    spec TEXT NOT NULL,          -- agent spec as typed, canonical form (see util.arena.players)
    version TEXT NOT NULL,       -- code version: source hash of the agent's modules or file
    params TEXT NOT NULL,        -- JSON object of the parameters the agent was built with
    UNIQUE(spec, version)
);
CREATE TABLE IF NOT EXISTS games(
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,    -- identity of the scheduled game: resume skips known keys
    first INTEGER NOT NULL REFERENCES players(id),   -- mark 1
    second INTEGER NOT NULL REFERENCES players(id),  -- mark 2
    shape TEXT NOT NULL,         -- ConnectX: rows x columns x inarow, e.g. 6x7x4; '' for other games
    opening TEXT NOT NULL,       -- actions (ConnectX: 0-based columns), comma-separated
    moves TEXT NOT NULL,         -- every action played (opening and chance outcomes included), comma-separated
    winner INTEGER NOT NULL,     -- 0 draw, 1 or 2 the winning mark
    termination TEXT NOT NULL,   -- win, draw, illegal, error, timeout
    errors TEXT NOT NULL,        -- JSON object mark -> message of the side that forfeited
    move_times TEXT NOT NULL,    -- JSON list of seconds per agent move
    time_per_move REAL NOT NULL,
    engine TEXT NOT NULL,        -- direct, kaggle, or human (util.arena.play)
    seed INTEGER NOT NULL,
    source TEXT NOT NULL,        -- tournament, play, tune
    finished REAL NOT NULL,      -- unix time
    game TEXT NOT NULL DEFAULT '',     -- core.game.Game.spec(), e.g. connectx:rows=6,columns=7,inarow=4
    chance TEXT NOT NULL DEFAULT '',   -- indices in moves of chance outcomes, comma-separated
    movers TEXT NOT NULL DEFAULT '',   -- mark (1, 2) of each timed move, as digits ('': alternating from the opening)
    returns TEXT NOT NULL DEFAULT ''   -- JSON [player 0's, player 1's] returns when the rules ended the game ('' after a forfeit)
);
CREATE INDEX IF NOT EXISTS games_shape ON games(shape);
CREATE INDEX IF NOT EXISTS games_game ON games(game);
CREATE TABLE IF NOT EXISTS runs(
    id INTEGER PRIMARY KEY,
    tag TEXT NOT NULL UNIQUE,    -- --tag, or a hash of the schedule (same command, same run)
    command TEXT NOT NULL,       -- JSON: what the latest command of this run scheduled
    started REAL NOT NULL,       -- unix time
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS run_games(
    run INTEGER NOT NULL REFERENCES runs(id),
    key TEXT NOT NULL,           -- a scheduled game's key (its row in games once played)
    PRIMARY KEY(run, key)
);
CREATE TABLE IF NOT EXISTS claims(
    key TEXT PRIMARY KEY,        -- a game being played
    runner TEXT NOT NULL,        -- who plays it (host, process, random part)
    expires REAL NOT NULL        -- unix time after which another runner may take it
);
"""
FOREIGN_HINT = "give --db another file (a new path is created)"
_NEW_COLUMNS = ("game", "chance", "movers", "returns")  # added by schema 3


def legacy_spec(shape: str) -> str:
    """The game spec of a row written before games had specs, by its ``shape`` (ConnectX's board
    ``RxCxK``: :meth:`core.game.Game.from_legacy_key` of :data:`core.games.DEFAULT_GAME`), what
    schema-3 rows hold in ``game``."""
    from core.games import DEFAULT_GAME, game_class

    return game_class(DEFAULT_GAME).from_legacy_key(shape).spec()


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
    key: str = ""  # the scheduled game's identity (see util.arena.match.GameJob.key)
    game: str = ""  # the game's spec (core.game.Game.spec())
    chance: tuple[int, ...] = ()  # indices in moves of chance outcomes
    movers: tuple[int, ...] = ()  # mark of each timed move (empty: alternating from the opening)
    returns: tuple[float, float] | None = None  # the players' returns; None after a forfeit

    def mover_marks(self) -> list[int]:
        """The mark (1, 2) of each of ``move_times``: as recorded, else alternating after the
        opening (ConnectX games stored before schema 3)."""
        if self.movers:
            return list(self.movers)
        return [1 + (len(self.opening) + k) % 2 for k in range(len(self.move_times))]


class Store:
    """An open store. Use as a context manager; every write commits at once.

    ``create``: make the file if it is missing (False for read-only uses such as reports:
    a missing file is then an error, and nothing is created); ``timeout``: seconds to wait
    for another process's write lock before giving up."""

    def __init__(self, path: str | Path, create: bool = True, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        if not create and not self.path.is_file():
            raise StoreError(f"no database at {self.path}; give --db the file a tournament wrote")
        why = unwritable(self.path) if create else None
        if why:  # a device, a directory, a read-only place: said before any game is played
            raise StoreError(f"--db {why}; give a writable file such as results/tournament.sqlite")
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(str(self.path), timeout=timeout)
            else:
                self._db = sqlite3.connect(self.path.absolute().as_uri() + "?mode=rw", timeout=timeout, uri=True)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot use database {self.path}: {exc}; {FOREIGN_HINT}") from None
        try:
            tables = {name for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and "games" not in tables:
                what = "Optuna studies (util.arena.tune's --storage)" if {"studies", "trials"} & tables else \
                    f"other tables ({', '.join(sorted(tables)[:4])})"
                raise StoreError(f"database {self.path} holds {what}, not tournament games; {FOREIGN_HINT}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"database {self.path} has schema version {version}; this code reads up to {SCHEMA_VERSION}")
            self._db.execute("PRAGMA journal_mode=WAL")
            if "games" in tables:
                self._upgrade()
            # One transaction: another runner opening the file at the same time sees all the
            # tables or none (statement by statement, it saw `players` without `games` and took
            # the file for someone else's database).
            self._db.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}\nPRAGMA user_version={SCHEMA_VERSION};\nCOMMIT;")
        except StoreError:
            self._db.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            self._db.close()
            raise StoreError(f"cannot use database {self.path}: {exc}; give --db a new path or an SQLite file written by this tool") from None

    def _upgrade(self) -> None:
        """Schema 1-2 -> 3 in one transaction: the new columns, ``game`` from each shape."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
        missing = [c for c in _NEW_COLUMNS if c not in columns]
        if not missing:
            return
        with self._db:
            for c in missing:
                self._db.execute(f"ALTER TABLE games ADD COLUMN {c} TEXT NOT NULL DEFAULT ''")
            shapes = [s for (s,) in self._db.execute("SELECT DISTINCT shape FROM games WHERE game=''")]
            for shape in shapes:
                self._db.execute("UPDATE games SET game=? WHERE shape=? AND game=''", (legacy_spec(shape), shape))

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction; a failing write (disk full, lock held too long) becomes a
        one-line StoreError that says what is kept."""
        try:
            with self._db:
                yield self._db
        except sqlite3.Error as exc:
            why = str(exc)
            if "locked" in why or "busy" in why:
                why += f" (another process held its lock for over {self.timeout:g} s)"
            try:
                kept = f"the {self.count()} games finished before are kept"
            except sqlite3.Error:
                kept = "the games finished before are kept"
            raise StoreError(f"cannot write to database {self.path}: {why}; {kept}: fix that and rerun the same command to resume") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def player_id(self, spec: str, version: str, params: dict[str, Any]) -> int:
        """Id of (spec, version), added if new."""
        row = self._db.execute("SELECT id FROM players WHERE spec=? AND version=?", (spec, version)).fetchone()
        if row:
            return int(row[0])
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO players(spec, version, params) VALUES (?,?,?)", (spec, version, json.dumps(params, sort_keys=True, default=str))
            )
        if cur.lastrowid is None:  # sqlite sets it on every INSERT
            raise RuntimeError("the player row was not inserted")
        return cur.lastrowid

    def players(self) -> dict[int, tuple[str, str]]:
        """id -> (spec, version)."""
        return {int(i): (s, v) for i, s, v in self._db.execute("SELECT id, spec, version FROM players")}

    def done_keys(self) -> set[str]:
        return {k for (k,) in self._db.execute("SELECT key FROM games")}

    def add_game(self, key: str, first: int, second: int, shape: str, result: dict[str, Any], *,
                 time_per_move: float, engine: str, seed: int, source: str, game: str | None = None) -> int:
        """Insert one finished game (``result``: moves, winner, termination, errors, move_times,
        opening; optionally chance, movers, returns, see :func:`util.arena.match.play`) in its own
        transaction; a key already present is left as it is. ``game``: the game's spec (default:
        ConnectX on ``shape``); ``shape``: ConnectX's board, ``""`` for other games."""
        game = game or legacy_spec(shape)
        returns = result.get("returns")
        row = (
            key, first, second, shape, ",".join(map(str, result["opening"])), ",".join(map(str, result["moves"])),
            int(result["winner"]), result["termination"], json.dumps({str(k): v for k, v in result["errors"].items()}),
            json.dumps([round(t, 6) for t in result["move_times"]]), float(time_per_move), engine, int(seed), source, time.time(),
            game, ",".join(map(str, result.get("chance") or ())), "".join(map(str, result.get("movers") or ())),
            json.dumps([float(x) for x in returns]) if returns is not None else "",
        )
        with self._write() as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO games(key, first, second, shape, opening, moves, winner, termination, errors,"
                " move_times, time_per_move, engine, seed, source, finished, game, chance, movers, returns)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                row,
            )
            db.execute("DELETE FROM claims WHERE key=?", (key,))
        return int(cur.lastrowid or 0)

    def games(self, shape: str | None = None, runs: Iterable[int] | None = None, since: int = 0,
              game: str | None = None) -> Iterator[Game]:
        """Stored games, oldest first: of one ConnectX board ``shape``, of one ``game`` spec, of
        the ``runs`` given (ids), with an id above ``since`` (those stored after a game seen
        before), or all."""
        query = f"SELECT {_COLUMNS} FROM games"
        where: list[str] = ["id>?"]
        args: list[int | str] = [since]
        if shape is not None:
            where.append("shape=?")
            args.append(shape)
        if game is not None:
            where.append("game=?")
            args.append(game)
        if runs is not None:
            ids = [int(r) for r in runs]
            where.append(f"key IN (SELECT key FROM run_games WHERE run IN ({','.join('?' * len(ids))}))")
            args.extend(ids)
        if where:
            query += " WHERE " + " AND ".join(where)
        for row in self._db.execute(query + " ORDER BY id", args):
            yield _game(row)

    def game(self, game_id: int) -> Game | None:
        row = self._db.execute(f"SELECT {_COLUMNS} FROM games WHERE id=?", (game_id,)).fetchone()
        return _game(row) if row else None

    def game_specs(self, runs: Iterable[int] | None = None) -> list[str]:
        """The game specs among the stored games (of ``runs``, if given), first stored first."""
        seen: dict[str, None] = {}
        for g in self.games(runs=runs):
            seen.setdefault(g.game, None)
        return list(seen)

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    # --- runs ----------------------------------------------------------------------------------
    def start_run(self, tag: str, command: dict[str, Any], keys: Iterable[str]) -> int:
        """Id of the run ``tag`` (added if new, its command replaced by ``command``), with
        ``keys`` added to its games."""
        now = time.time()
        with self._write() as db:
            db.execute("INSERT INTO runs(tag, command, started, updated) VALUES (?,?,?,?) ON CONFLICT(tag) DO UPDATE"
                       " SET command=excluded.command, updated=excluded.updated", (tag, json.dumps(command, sort_keys=True), now, now))
            run = int(db.execute("SELECT id FROM runs WHERE tag=?", (tag,)).fetchone()[0])
            db.executemany("INSERT OR IGNORE INTO run_games(run, key) VALUES (?,?)", ((run, k) for k in keys))
        return run

    def runs(self) -> list[tuple[int, str, dict[str, Any], float, int]]:
        """(id, tag, command, last updated, games played) of every run, latest first."""
        rows = self._db.execute(
            "SELECT r.id, r.tag, r.command, r.updated, (SELECT COUNT(*) FROM run_games k JOIN games g ON g.key=k.key"
            " WHERE k.run=r.id) FROM runs r ORDER BY r.updated DESC, r.id DESC")
        return [(int(i), t, json.loads(c), float(u), int(n)) for i, t, c, u, n in rows]

    def run_id(self, tag: str) -> int | None:
        row = self._db.execute("SELECT id FROM runs WHERE tag=?", (tag,)).fetchone()
        return int(row[0]) if row else None

    # --- claims --------------------------------------------------------------------------------
    def claim(self, key: str, runner: str, lease: float) -> bool:
        """Take game ``key`` for ``runner`` for ``lease`` seconds: False if it is already played
        or another runner holds an unexpired claim on it and is not known dead (:func:`runner_gone`)."""
        now = time.time()
        with self._write() as db:
            db.execute("BEGIN IMMEDIATE")  # the check and the claim in one locked step: no two runners both win
            if db.execute("SELECT 1 FROM games WHERE key=?", (key,)).fetchone():
                return False
            row = db.execute("SELECT runner, expires FROM claims WHERE key=?", (key,)).fetchone()
            if row and row[0] != runner and row[1] > now and not runner_gone(row[0]):
                return False
            db.execute("INSERT OR REPLACE INTO claims(key, runner, expires) VALUES (?,?,?)", (key, runner, now + lease))
        return True

    def renew(self, runner: str, lease: float) -> None:
        """Push back the expiry of every claim ``runner`` holds (it is alive)."""
        with self._write() as db:
            db.execute("UPDATE claims SET expires=? WHERE runner=?", (time.time() + lease, runner))

    def release(self, runner: str) -> None:
        """Drop ``runner``'s claims (it stops; its unfinished games are free to take)."""
        with self._write() as db:
            db.execute("DELETE FROM claims WHERE runner=?", (runner,))

    def claimed_elsewhere(self, runner: str, keys: Iterable[str]) -> dict[str, tuple[str, float]]:
        """Those of ``keys`` that another runner holds an unexpired claim on: key -> (runner,
        expiry as unix time). Claims of runners known dead (:func:`runner_gone`) are left out:
        :meth:`claim` takes them over."""
        wanted = set(keys)
        rows = self._db.execute("SELECT key, runner, expires FROM claims WHERE runner<>? AND expires>?", (runner, time.time()))
        return {k: (r, float(e)) for k, r, e in rows if k in wanted and not runner_gone(r)}

    def dead_claims(self, keys: Iterable[str]) -> dict[str, int]:
        """Runners known dead (:func:`runner_gone`) that still hold unexpired claims on some of
        ``keys``: runner -> how many (:meth:`claim` takes them over)."""
        wanted = set(keys)
        out: dict[str, int] = {}
        for k, r in self._db.execute("SELECT key, runner FROM claims WHERE expires>?", (time.time(),)):
            if k in wanted and runner_gone(r):
                out[r] = out.get(r, 0) + 1
        return out


def _host() -> str:
    """This host's name, with the pid namespace on Linux (two containers may share a name and a
    database, never their pids)."""
    try:
        return f"{socket.gethostname()}/pidns{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        return socket.gethostname()


def _started(pid: int) -> str:
    """When process ``pid`` started (Linux: clock ticks since boot; '' elsewhere or if none):
    with the pid, it names one process even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def runner_id() -> str:
    """This process's name in claims: ``host:pid:start time:random part`` (the random part
    tells apart two runners of one process, e.g. threads)."""
    return f"{_host()}:{os.getpid()}:{_started(os.getpid())}:{uuid.uuid4().hex[:8]}"


def runner_gone(runner: str) -> bool:
    """Whether the runner of a claim is known dead: a process of this host (and pid namespace)
    whose pid no longer exists, or now names a process started at another time. A runner of
    another host is never known dead: its claims expire."""
    parts = runner.split(":")
    if os.name == "nt" or len(parts) != 4 or parts[0] != _host() or not parts[1].isdigit():  # Windows: os.kill kills
        return False
    pid = int(parts[1])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        pass
    return bool(parts[2]) and _started(pid) != parts[2]


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x != "")


_COLUMNS = ("id, first, second, shape, opening, moves, winner, termination, errors, move_times, time_per_move, engine, key,"
            " game, chance, movers, returns")


def _game(row: tuple) -> Game:
    gid, first, second, shape, opening, moves, winner, term, errors, times, tpm, engine, key, game, chance, movers, returns = row
    return Game(int(gid), int(first), int(second), shape, _ints(opening), _ints(moves), int(winner), term,
                json.loads(errors), tuple(json.loads(times)), float(tpm), engine, key, game, _ints(chance),
                tuple(int(c) for c in movers), tuple(json.loads(returns)) if returns else None)
