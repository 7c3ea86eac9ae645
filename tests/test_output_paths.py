"""Every command's output path goes through one check (:func:`base.cli.unwritable`) before its
work: an existing device (``/dev/full``), a FIFO, a directory, or a place where no file can be
made (under ``/proc``) is one line on stderr, exit 2, no traceback, and nothing is replaced. As
root (CI is root) an atomic write would swap ``/dev/full`` for a regular file: the device is
checked to be a character device after every case. Input files that are binary are one line too.

Each command runs in this process with a small amount of work, so that a missing check shows as
a wrong exit code (or a replaced device), not as an hour of work.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from base.cli import read_text_file, unwritable
from tests.test_bounds import _book, _build, _cache, _play, _tournament, one_line

DEVICE = Path("/dev/full")


def _main(module: str, name: str = "main") -> Callable:
    """A command's entry point, imported when called (the test ids name it)."""
    def main(argv):
        import importlib
        if module == "util.arena.tune":
            pytest.importorskip("optuna")
        return getattr(importlib.import_module(module), name)(argv)
    main.__name__ = "_" + module.rsplit(".", 1)[-1]
    return main


_tune = _main("util.arena.tune")
_solve = _main("agents.engine.solve")
_opening_book = _main("agents.engine.opening_book")
_mc_learner = _main("agents.engine.mc_learner")
_retrograde = _main("core.quixo.retrograde")


def _bench(name: str) -> Callable:
    main = _main(f"bench.{name}")
    main.__name__ = f"_bench.{name}"
    return main


QUICK = ["--agents", "random,random:seed=1", "--games", "1", "--time", "0.05", "--quiet"]
# (command, its arguments with {P} for the output path, the flag, the suffix the command wants, a folder?)
OUTPUTS: list[tuple[Callable, list[str], str, str, bool]] = [
    (_build, ["--agent", "random", "--no-validate", "--output", "{P}"], "--output", ".py", False),
    (_build, ["--game", "reinforce_tactics", "--agent", "random_turn", "--no-validate", "--output", "{P}"], "--output", ".py", False),
    (_tournament, [*QUICK, "--db", "{P}"], "--db", ".sqlite", False),
    (_tournament, [*QUICK, "--db", "{T}/t.sqlite", "--plot", "{P}"], "--plot", "", True),
    (_tournament, ["--replay", "1", "--db", "{T}/t.sqlite", "--out", "{P}"], "--out", "", True),
    (_tune, ["--agent", "random", "--space", "seed=int:0:9", "--opponents", "random", "--trials", "1", "--games", "1",
             "--time", "0.05", "--storage", "sqlite:///{T}/s.db", "--out", "{P}"], "--out", ".json", False),
    (_tune, ["--agent", "random", "--space", "seed=int:0:9", "--opponents", "random", "--trials", "1", "--games", "1",
             "--time", "0.05", "--storage", "sqlite:///{P}", "--out", "{T}/p.json"], "--storage", ".db", False),
    (_play, ["--agent", "random", "--db", "{P}"], "--db", ".sqlite", False),
    (_play, ["--agent", "random", "--db", "{T}/t.sqlite", "--tree", "{P}"], "--tree", ".json", False),
    (_solve, ["--game", "tictactoe", "--no-jit", "--tree", "{P}"], "--tree", ".json", False),
    (_opening_book, ["--game", "tictactoe", "--plies", "0", "--no-jit", "--out", "{P}"], "--out", ".npz", False),
    (_mc_learner, ["train", "--game", "tictactoe", "--episodes", "1", "--quiet", "--out", "{P}"], "--out", ".npz", False),
    (_retrograde, ["--size", "3", "--no-jit", "--quiet", "--out", "{P}"], "--out", ".npz", False),
    (_cache, ["grow", "--seconds", "0.2", "--agent", "mcts:leaf=rollout", "--out", "{P}"], "--out", ".npz", False),
    (_book, ["build", "--shape", "4x4x3", "--max-ply", "0", "--store", "{P}", "--book", "{T}/b.npz"], "--store", ".store", False),
    (_book, ["pack", "--shape", "4x4x3", "--store", "{T}/b.store", "--book", "{P}"], "--book", ".npz", False),
    # benchmarks that write files
    (_bench("quixo_depth"), ["--seconds", "0.01", "--positions", "1", "--plies", "0", "--json", "{P}"], "--json", ".json", False),
    (_bench("quantik_timer"), ["--agents", "random", "--games", "1", "--seconds", "0.01", "--out", "{P}"], "--out", ".json", False),
    (_bench("quixo_learning_curve"), ["--size", "3", "--checkpoints", "10", "--games", "1", "--out", "{P}"], "--out", ".npz", False),
    (_bench("perfect_kaggle"), ["{T}/missing.py", "--cache", "{P}"], "--cache", ".json", False),
    (_bench("pons_verify"), ["--set", "L3_R1", "--log", "{P}"], "--log", ".log", False),
]
KINDS = ["device", "fifo", "directory", "unwritable"]


def place(kind: str, tmp: Path, suffix: str) -> Path:
    """The output path of ``kind``: ``/dev/full`` itself (a link to it where the command wants a
    suffix), a FIFO, an existing directory, or a path under /proc (no file can be made there)."""
    if kind == "device":
        if not suffix:
            return DEVICE
        link = tmp / f"full{suffix}"
        link.symlink_to(DEVICE)
        return link
    if kind == "fifo":
        os.mkfifo(tmp / f"pipe{suffix}")
        return tmp / f"pipe{suffix}"
    if kind == "directory":
        (tmp / f"folder{suffix}").mkdir()
        (tmp / f"folder{suffix}" / "keep").write_text("kept")
        return tmp / f"folder{suffix}"
    return Path("/proc/no-such-folder") / f"out{suffix}"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", range(len(OUTPUTS)), ids=[f"{c[0].__name__[1:]} {c[2]}" for c in OUTPUTS])
def test_every_output_path_is_checked_before_any_work(capsys, monkeypatch, tmp_path, k, kind) -> None:
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    monkeypatch.chdir(tmp_path)
    main, template, flag, suffix, folder = OUTPUTS[k]
    if kind == "directory" and folder:
        pytest.skip("a folder is what this flag wants")
    path = place(kind, tmp_path, suffix)
    argv = [a.replace("{P}", str(path)).replace("{T}", str(tmp_path)) for a in template]
    if flag == "--book" and "pack" in argv:  # pack needs a store to pack
        from agents.connectx import book
        from core.connectx import Shape
        book.Store(tmp_path / "b.store", Shape(4, 4, 3))
    before = sorted(p.name for p in tmp_path.iterdir())
    line = one_line(capsys, main, argv)
    assert flag in line and (str(path) in line or str(path.resolve()) in line), line
    assert stat.S_ISCHR(os.stat(DEVICE).st_mode)  # /dev/full is still the device
    if kind == "device" and suffix:
        assert path.is_symlink() and os.readlink(path) == str(DEVICE)
    if kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(path).st_mode)
    if kind == "directory":
        assert [p.name for p in path.iterdir()] == ["keep"]
    after = sorted(p.name for p in tmp_path.iterdir())
    assert after == before, "nothing is written before the check"


@pytest.mark.parametrize("path, folder, words", [
    (DEVICE, False, "is not a regular file"), (DEVICE, True, "is not a directory"),
    (Path("/proc/no-such-folder/x.json"), False, "cannot be written"),
    (Path("/proc/no-such-folder"), True, "cannot be written"),
])
def test_the_one_check_refuses_devices_and_unwritable_places(path, folder, words) -> None:
    why = unwritable(path, folder)
    assert why is not None and words in why and str(path) in why, why


def test_the_one_check_names_a_file_above_and_accepts_a_new_file(tmp_path) -> None:
    (tmp_path / "afile").write_text("x")
    why = unwritable(tmp_path / "afile" / "out.json")
    assert why is not None and "afile is a file, not a folder" in why, why
    assert unwritable(tmp_path / "new" / "out.json") is None and (tmp_path / "new").is_dir()
    assert unwritable(tmp_path / "afile") is None  # an existing regular file is replaced atomically
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == []  # the probe is gone


def test_binary_and_non_text_input_files_are_one_line(tmp_path) -> None:
    binary = tmp_path / "params.json"
    binary.write_bytes(bytes(range(128, 256)))
    os.mkfifo(tmp_path / "pipe.json")
    for path, words in ((binary, "is not UTF-8 text"), (tmp_path / "pipe.json", "is not a regular file"),
                        (tmp_path, "cannot read"), (tmp_path / "missing.json", "cannot read")):
        with pytest.raises(ValueError) as exc:
            read_text_file(path, "--params file")
        assert words in str(exc.value) and "\n" not in str(exc.value), exc.value
    (tmp_path / "ok.json").write_text('{"é": 1}', encoding="utf-8")
    assert read_text_file(tmp_path / "ok.json", "") == '{"é": 1}'


@pytest.mark.parametrize("builder", [[], ["--game", "reinforce_tactics"]], ids=["connectx", "reinforce_tactics"])
def test_a_binary_params_file_is_one_line(capsys, tmp_path, builder) -> None:
    binary = tmp_path / "params.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    line = one_line(capsys, _build, [*builder, "--params", str(binary), "--no-validate", "--output", str(tmp_path / "s.py")])
    assert "--params file" in line and "not UTF-8 text" in line, line
    assert not (tmp_path / "s.py").exists()


def test_a_binary_agent_file_is_refused_in_one_line(tmp_path) -> None:
    from util.arena.players import AgentFileError, load_agent_file
    binary = tmp_path / "agent.py"
    binary.write_bytes(bytes(range(128, 256)))
    with pytest.raises(AgentFileError, match="is not UTF-8 text"):
        load_agent_file(str(binary))
