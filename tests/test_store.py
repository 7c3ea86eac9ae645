"""The SQLite store: round trip, idempotent keys, players by (spec, version), bad files."""
from __future__ import annotations

from pathlib import Path

import pytest

from util.arena.store import Store, StoreError

RESULT = {"moves": [3, 3, 2, 4], "winner": 2, "termination": "error", "errors": {1: "ValueError: boom"},
          "move_times": [0.01, 0.02], "opening": [3, 3]}


def test_game_round_trip(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        a = store.player_id("random", "v1", {})
        b = store.player_id("rules", "v2", {"x": 1})
        gid = store.add_game("k1", a, b, "6x7x4", RESULT, time_per_move=0.5, engine="direct", seed=7, source="tournament")
    with Store(tmp_path / "s.sqlite") as store:  # reopened: the game was committed
        game = store.game(gid)
        assert game is not None
        assert (game.first, game.second, game.shape) == (a, b, "6x7x4")
        assert game.moves == (3, 3, 2, 4) and game.opening == (3, 3)
        assert (game.winner, game.termination, game.errors) == (2, "error", {"1": "ValueError: boom"})
        assert game.move_times == (0.01, 0.02) and game.time_per_move == 0.5
        assert store.done_keys() == {"k1"}


def test_same_key_is_stored_once(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        a, b = store.player_id("a", "1", {}), store.player_id("b", "1", {})
        store.add_game("k", a, b, "6x7x4", RESULT, time_per_move=1, engine="direct", seed=0, source="tournament")
        store.add_game("k", a, b, "6x7x4", RESULT, time_per_move=1, engine="direct", seed=0, source="tournament")
        assert store.count() == 1


def test_players_are_spec_and_version(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        first = store.player_id("alphabeta:depth=6", "aaa", {"depth": 6})
        assert store.player_id("alphabeta:depth=6", "aaa", {"depth": 6}) == first
        assert store.player_id("alphabeta:depth=6", "bbb", {"depth": 6}) != first
        assert store.players()[first] == ("alphabeta:depth=6", "aaa")


def test_games_filtered_by_shape(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        a, b = store.player_id("a", "1", {}), store.player_id("b", "1", {})
        store.add_game("k1", a, b, "6x7x4", RESULT, time_per_move=1, engine="direct", seed=0, source="tournament")
        store.add_game("k2", a, b, "5x6x4", RESULT, time_per_move=1, engine="direct", seed=0, source="tournament")
        assert [g.shape for g in store.games("5x6x4")] == ["5x6x4"]
        assert len(list(store.games())) == 2


def test_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError) as err:
        Store(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    import sqlite3
    path = tmp_path / "new.sqlite"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="schema version 99"):
        Store(path)
