"""util.arena.play driven through stdin: validation, undo, agent info, the finished game in the store."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from util.arena.store import Store

ROOT = Path(__file__).resolve().parent.parent

LEFTMOST = """
def agent(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""
CENTRE = """
def agent(obs, config):
    legal = [c for c in range(config.columns) if obs.board[c] == 0]
    return 3 if 3 in legal else legal[0]
"""


def run(tmp_path: Path, agent: str, typed: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "util.arena.play", "--agent", agent, "--db", str(tmp_path / "p.sqlite"), "--time", "1", *extra],
                          cwd=ROOT, input=typed, capture_output=True, text=True, timeout=120)


def test_validation_undo_and_saved_win(tmp_path: Path) -> None:
    agent = tmp_path / "leftmost.py"
    agent.write_text(LEFTMOST)
    proc = run(tmp_path, str(agent), "x\n9\n0\n4\nu\nu\n4\n4\n4\n4\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("is not a column") == 3
    assert "undone" in out and "nothing to undo" in out
    assert out.count("agent plays 1") == 4  # once before the undo, three times after
    assert "you win" in out and "saved as game" in out
    with Store(tmp_path / "p.sqlite") as store:
        games = list(store.games())
        people = store.players()
    assert len(games) == 1
    game = games[0]
    assert game.moves == (3, 0, 3, 0, 3, 0, 3) and game.winner == 1 and game.engine == "human"
    assert people[game.first][0] == "human" and people[game.second][0] == str(agent.resolve())


def test_full_column_is_refused_and_quit_saves_nothing(tmp_path: Path) -> None:
    agent = tmp_path / "centre.py"
    agent.write_text(CENTRE)
    proc = run(tmp_path, str(agent), "4\n4\n4\n4\nq\n")
    assert proc.returncode == 0, proc.stderr
    assert "column 4 is full" in proc.stdout and "not saved" in proc.stdout
    with Store(tmp_path / "p.sqlite") as store:
        assert store.count() == 0


def test_agent_evaluation_is_shown_and_agent_can_start(tmp_path: Path) -> None:
    proc = run(tmp_path, "rules", "q\n", "--first", "agent")
    assert proc.returncode == 0, proc.stderr
    assert "agent plays 4   [rule=centre]" in proc.stdout


def test_bad_agent_is_one_line_exit_2(tmp_path: Path) -> None:
    proc = run(tmp_path, "nosuch:depth=3", "")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "unknown agent 'nosuch'" in proc.stderr


def test_tree_of_each_agent_move_is_written_and_a_bad_tree_path_is_refused(tmp_path: Path) -> None:
    """``--tree FILE`` (the seed's tree export): before each agent move, the tree a depth-limited
    alpha-beta explores from that position, as Graphviz DOT, numbered from the second move on."""
    path = tmp_path / "t.dot"
    proc = run(tmp_path, "random:seed=1", "a3\nb1\nquit\n", "--game", "tictactoe", "--first", "agent",
               "--tree", str(path), "--tree-depth", "2")
    assert proc.returncode == 0, proc.stderr
    first, second = path.read_text(), (tmp_path / "t-2.dot").read_text()
    assert first.startswith("digraph") and second.startswith("digraph")
    assert first.count("->") == 9 + 9 * 8  # the empty board to depth 2: every child drawn, searched or cut off
    assert "cut off" in first  # alpha-beta's cut-offs are marked
    assert second.count("->") < first.count("->")
    for where in (path / "t.dot", tmp_path):  # under a file; a directory (was an IsADirectoryError traceback)
        bad = run(tmp_path, "random", "", "--game", "tictactoe", "--tree", str(where))
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "--tree" in bad.stderr, bad.stderr
