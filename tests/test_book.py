"""The book builder and the packed book: optimal moves (checked by an independent solver),
resuming, symmetric keys, parallel workers, bad input; the committed book's consistency."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.connectx import book as builder
from agents.connectx.solver import Solver
from agents.connectx.solver_book import Book, BookError, default_path
from core.connectx import Position, Shape

ROOT = Path(__file__).resolve().parents[1]
SMALL = Shape(4, 5, 3)


def build(tmp_path: Path, *extra: str) -> int:
    argv = ["build", "--shape", "4x5x3", "--store", str(tmp_path / "s.store"), "--book", str(tmp_path / "b.npz"),
            "--slow-nodes", "0", "--tt-size", "4096", *extra]
    return builder.main(argv)


def test_build_solves_optimal_moves_and_resumes(tmp_path, capsys):
    assert build(tmp_path, "--max-ply", "4") == 0
    store = builder.Store(tmp_path / "s.store", SMALL)
    assert len(store.records) > 5
    judge = Solver(SMALL, tt_size=1 << 16)
    for rec in store.records.values():
        pos = Position.from_moves(rec.moves, SMALL)
        assert pos.ply % 2 == 0 and pos.ply <= 4  # only our (first player's) positions
        scores = judge.child_scores(pos)
        assert scores[rec.column - 1] == max(s for s in scores if s is not None) == rec.score, rec
    capsys.readouterr()
    assert build(tmp_path, "--max-ply", "4") == 0
    assert "solved 0 positions" in capsys.readouterr().out
    # A line cut short by an interrupt is dropped when the build reopens the store.
    with open(tmp_path / "s.store", "a") as f:
        f.write("3434 2 ")
    assert build(tmp_path, "--max-ply", "6") == 0
    again = builder.Store(tmp_path / "s.store", SMALL)
    assert again.bad_lines == 0 and len(again.records) > len(store.records)
    assert "3434 2 \n" not in (tmp_path / "s.store").read_text()


def test_store_cut_mid_line_is_repaired_and_the_resumed_build_loses_nothing(tmp_path, capsys):
    """A write cut short (disk full) leaves half a line: the resumed build drops it, solves
    that position again, and appends every new record on a line of its own."""
    assert build(tmp_path, "--max-ply", "4") == 0
    path = tmp_path / "s.store"
    whole = path.read_bytes()
    lines = whole.decode().splitlines(keepends=True)
    assert len(lines) > 5
    cut = whole[:len(whole) - len(lines[-1]) // 2]  # the last record half written
    path.write_bytes(cut)
    reader = builder.Store(path, SMALL)  # reading alone changes nothing
    assert reader.bad_lines == 1 and len(reader.records) == len(lines) - 1 and path.read_bytes() == cut
    capsys.readouterr()
    assert build(tmp_path, "--max-ply", "4") == 0
    assert "dropped a partial last line" in capsys.readouterr().err
    after = path.read_bytes().decode()
    assert after.startswith("".join(lines[:-1]))  # every complete record kept, as written
    redone = builder.parse_line(after[len("".join(lines[:-1])):])  # the cut position solved again, on its own line
    assert redone is not None and after.endswith("\n") and after.count("\n") == len(lines)
    assert dataclasses.replace(redone, seconds=0) == dataclasses.replace(builder.parse_line(lines[-1]), seconds=0)
    again = builder.Store(path, SMALL)
    assert again.bad_lines == 0 and len(again.records) == len(lines)


def test_append_starts_a_fresh_line_and_a_failed_write_leaves_no_half_line(tmp_path, monkeypatch):
    path = tmp_path / "s.store"
    path.write_text("- 3 1 100 0.010 strong\n3 2 ")  # a partial last line, not repaired (no build)
    store = builder.Store(path, SMALL)
    assert store.bad_lines == 1 and len(store.records) == 1
    pos = Position.from_moves("33", SMALL)
    store.add(pos, builder.Record("33", 3, 1, 50, 0.005, "strong"))
    assert builder.Store(path, SMALL).get(pos) == builder.Record("33", 3, 1, 50, 0.005, "strong")
    before = path.read_bytes()
    real_write = builder.os.write

    def disk_full(fd, data):
        real_write(fd, data[:7])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(builder.os, "write", disk_full)
    with pytest.raises(OSError):
        store.add(Position.from_moves("3333", SMALL), builder.Record("3333", 2, 0, 9, 0.001, "strong"))
    assert path.read_bytes() == before  # the half-written line was taken back


def test_pack_of_a_missing_or_foreign_store_exits_2_and_writes_nothing(tmp_path):
    """``pack --store data/book_6x7x4.stor`` (a typo) once replaced the shipped book with an
    empty one. The shipped book's bytes must stay as they are (restored if not, and failed)."""
    shipped = default_path(Shape())
    before = shipped.read_bytes() if shipped.is_file() else None
    not_text = tmp_path / "x.npz"
    not_text.write_bytes(b"PK\x03\x04\x00\xff\xfe")
    empty = tmp_path / "empty.store"
    empty.write_text("")
    try:
        for store, why in (("data/book_6x7x4.stor", "no book store"), ("README.md", "not a book store"),
                           (str(not_text), "not a book store"), (str(tmp_path), "not a file"),
                           (str(empty), "no solved position")):
            res = subprocess.run([sys.executable, "-m", "agents.connectx.book", "pack", "--store", store], capture_output=True,
                                 text=True, cwd=ROOT, timeout=120)
            assert res.returncode == 2 and why in res.stderr, (store, res.stderr)
            assert len(res.stderr.strip().split("\n")) == 1 and "Traceback" not in res.stderr
            assert (shipped.read_bytes() if shipped.is_file() else None) == before, store
    finally:
        if before is not None and shipped.read_bytes() != before:
            shipped.write_bytes(before)
    res = subprocess.run([sys.executable, "-m", "agents.connectx.book", "info", "--store", str(tmp_path / "none.store"),
                          "--book", str(tmp_path / "b.npz")], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 2 and "no book store" in res.stderr
    assert builder.main(["build", "--max-ply", "2", "--store", "README.md", "--book", str(tmp_path / "b.npz")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.store", "x.npz"]


def test_second_side_and_weak_moves_keep_the_value(tmp_path):
    assert build(tmp_path, "--side", "second", "--max-ply", "3", "--weak") == 0
    store = builder.Store(tmp_path / "s.store", SMALL)
    judge = Solver(SMALL, tt_size=1 << 16)
    assert {len(r.moves) for r in store.records.values()} == {1, 3}
    for rec in store.records.values():
        pos = Position.from_moves(rec.moves, SMALL)
        best = judge.solve(pos)
        assert rec.mode == "weak" and rec.score == (best > 0) - (best < 0)
        child = judge.child_scores(pos)[rec.column - 1]
        assert (child > 0) - (child < 0) == rec.score, rec


def test_pack_and_lookup_both_orientations(tmp_path):
    assert build(tmp_path, "--max-ply", "4") == 0
    assert builder.main(["pack", "--shape", "4x5x3", "--store", str(tmp_path / "s.store"), "--book", str(tmp_path / "b.npz")]) == 0
    store = builder.Store(tmp_path / "s.store", SMALL)
    book = Book.load(tmp_path / "b.npz")
    assert len(book) == len(store.records)
    for rec in store.records.values():
        pos = Position.from_moves(rec.moves, SMALL)
        assert book.lookup(pos) == (rec.column - 1, rec.score)
        if pos.key() != pos.mirror_key():  # a symmetric position has one entry, one orientation
            assert book.lookup(pos.mirror()) == (SMALL.columns - rec.column, rec.score)


def test_process_workers_give_the_same_store(tmp_path, monkeypatch):
    monkeypatch.setenv("CONNECTX_NUMBA", "0")  # workers on the plain path: no compile per process
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    assert build(one, "--max-ply", "4") == 0
    assert build(two, "--max-ply", "4", "--workers", "2") == 0
    a, b = builder.Store(one / "s.store", SMALL), builder.Store(two / "s.store", SMALL)
    assert {k: (r.column, r.score) for k, r in a.records.items()} == {k: (r.column, r.score) for k, r in b.records.items()}


def test_book_data_validation():
    shape = Shape()
    good = Book.from_entries(shape, {5: (3, 1), 9: (2, 0)}).to_data()
    Book.from_data(good)
    with pytest.raises(BookError, match="sorted"):
        Book.from_data({**good, "keys": np.array([9, 5])})
    with pytest.raises(BookError, match="columns"):
        Book.from_data({**good, "moves": np.array([3, 7], dtype=np.int8)})
    with pytest.raises(BookError, match="equal length"):
        Book.from_data({**good, "scores": np.array([1], dtype=np.int8)})
    with pytest.raises(BookError, match="shape"):
        Book.from_data({"keys": good["keys"]})


@pytest.mark.parametrize("args, message", [
    (["build"], "--max-ply"),
    (["build", "--max-ply", "2", "--shape", "6x7"], "ROWSxCOLUMNSxINAROW"),
    (["build", "--max-ply", "-1"], "--max-ply"),
    (["pack", "--min-nodes", "-5"], "--min-nodes"),
    (["frobnicate"], "invalid choice"),
])
def test_cli_bad_input_one_line_exit_2(args, message):
    res = subprocess.run([sys.executable, "-m", "agents.connectx.book", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 2
    assert message in res.stderr and "Traceback" not in res.stderr and len(res.stderr.strip().split("\n")) == 1, res.stderr


def test_committed_book_matches_its_store():
    """The packed book holds the store's positions, with the same moves."""
    path = default_path(Shape())
    if not path.is_file():
        pytest.skip("no book built yet")
    book = Book.load(path)
    store = builder.Store(builder.default_store(Shape()), Shape())
    assert store.bad_lines == 0
    for rec in store.records.values():
        pos = Position.from_moves(rec.moves)
        hit = book.lookup(pos)
        if hit is not None:
            assert hit == (rec.column - 1, rec.score), rec
    assert len(book) <= len(store.records)
    assert book.lookup(Position.empty(Shape()))[0] == 3  # the centre: the only winning first move


@pytest.mark.slow
def test_ray_backend_gives_the_same_store(tmp_path, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    assert build(one, "--max-ply", "4") == 0
    assert build(two, "--max-ply", "4", "--backend", "ray", "--workers", "2") == 0
    a, b = builder.Store(one / "s.store", SMALL), builder.Store(two / "s.store", SMALL)
    assert {k: (r.column, r.score) for k, r in a.records.items()} == {k: (r.column, r.score) for k, r in b.records.items()}
