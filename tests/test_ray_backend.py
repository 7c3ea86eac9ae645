"""The Ray backend plays the same games as the process pool for the same seed, and only the
driver writes the store. Starts one local Ray instance (about 6-20 s here)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from util.arena.tournament import main

pytest.importorskip("ray")

ARGS = ["--agents", "random,random:seed=7,kaggle:random", "--games", "10", "--time", "1", "--seed", "3", "--workers", "2", "--quiet"]


def rows(db: Path) -> dict[str, tuple]:
    con = sqlite3.connect(db)
    try:
        return {r[0]: r[1:] for r in con.execute("SELECT key, moves, winner, termination, opening FROM games")}
    finally:
        con.close()


def test_ray_tournament_matches_process_pool(tmp_path: Path) -> None:
    assert main([*ARGS, "--backend", "process", "--db", str(tmp_path / "pool.sqlite")]) == 0
    assert main([*ARGS, "--backend", "ray", "--db", str(tmp_path / "ray.sqlite")]) == 0
    pool, ray = rows(tmp_path / "pool.sqlite"), rows(tmp_path / "ray.sqlite")
    assert len(pool) == 30
    assert ray == pool
