"""One convention for people: columns are 1-based wherever a person reads or types one; agent
specs shown in help texts and docstrings build; an agent file without an agent function says so.
"""
from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents.connectx import mcts_cache, registry
from agents.connectx.solver import run as solver_run
from core.connectx import Position, Shape
from core.connectx.cli import parse_moves
from util.arena import players

ROOT = Path(__file__).resolve().parents[1]


def test_parse_moves_speaks_1_based():
    assert parse_moves("4453", Shape()) == Position.from_moves("4453")
    for text, says in (("4444444", "move 7: column 4 is full"), ("448", "move 3 ('8') is not a column"),
                       ("4x", "move 2 ('x') is not a column"), ("44556677", "move 8 (column 7) comes after the game has ended")):
        with pytest.raises(ValueError) as info:
            parse_moves(text, Shape())
        assert says in str(info.value)


def test_solver_cli_names_the_full_column_1_based():
    out, err = io.StringIO(), io.StringIO()
    assert solver_run(io.StringIO("4444444\n1111118\n"), out, err, Shape(), False, False, 1024, False) == 2
    lines = err.getvalue().strip().split("\n")
    assert len(lines) == 2 and out.getvalue() == ""
    assert "column 4 is full" in lines[0] and "column 3" not in lines[0]
    assert "move 7 ('8') is not a column: digits 1-7" in lines[1]


def test_cache_show_prints_columns_1_based(capsys):
    path = mcts_cache.default_path("rollout")
    assert mcts_cache._main(["show", str(path)]) == 0
    shown = re.findall(r"column (\d+):", capsys.readouterr().out)
    assert sorted(map(int, shown)) == list(range(1, 8))  # every first move is in the cache


# --- specs in help texts -----------------------------------------------------------------------
HELP_FILES = ("util/arena/players.py", "util/arena/play.py", "agents/registry.py", "agents/connectx/submission.py")  # the last: build_submission.py --help
SPEC = re.compile(r"\b((?:%s):[A-Za-z_]+=[^\s,`'\")]+(?:,[A-Za-z_]+=[^\s,`'\")]+)*)" % "|".join(registry.AGENT_CLASSES))  # noqa: UP031


def shown_specs() -> list[str]:
    found = []
    for name in HELP_FILES:
        text = (ROOT / name).read_text()
        found += SPEC.findall(text)
        # build_submission.py --help's example: --agent NAME --param KEY=VALUE
        found += [f"{a}:{p}" for a, p in re.findall(r"--agent (\w+) --param (\S+=\S+)", text)]
    return found


def test_help_texts_show_specs_that_build():
    specs = shown_specs()
    assert len(specs) >= 6 and any("max_depth" in s for s in specs), specs
    for spec in specs:
        name, params = registry.parse_spec(spec)
        agent = registry.make(name, **params)  # raises SpecError for a field that does not exist
        assert all(str(getattr(agent, k)) == v for k, v in params.items()), spec
        assert players.resolve(spec).kind == "agent"


def test_split_specs_example_of_the_docstring_holds():
    assert players.split_specs("alphabeta:max_depth=6,tt_bits=18,rules") == ["alphabeta:max_depth=6,tt_bits=18", "rules"]


# --- agent files without an agent function ----------------------------------------------------
@pytest.mark.parametrize("source, says", [
    ("x = 1\n", "no agent function"),
    ("import math\n", "no agent function"),
    ("class Bot:\n    pass\n", "the last callable, Bot()"),
    ("def agent(obs config):\n", "syntax error at line 1"),
])
def test_agent_file_without_agent_says_what_is_missing(tmp_path, source, says):
    path = tmp_path / "bot.py"
    path.write_text(source)
    with pytest.raises(players.AgentFileError) as info:
        players.load_agent_file(str(path))
    assert says in str(info.value) and "IndexError" not in str(info.value)


def test_agent_file_with_a_function_loads(tmp_path):
    path = tmp_path / "bot.py"
    path.write_text("import math\n\ndef helper(x):\n    return x\n\ndef agent(observation, configuration):\n    return 3\n")
    assert players.load_agent_file(str(path))(None, None) == 3


@pytest.mark.parametrize("module", ["util.arena.play", "util.arena.tournament"])
def test_clis_refuse_an_agent_file_without_agent_in_one_line(tmp_path, module):
    path = tmp_path / "empty_bot.py"
    path.write_text("x = 1\n")
    args = ["--agent", str(path)] if module == "util.arena.play" else ["--agents", f"{path},random", "--games", "2"]
    res = subprocess.run([sys.executable, "-m", module, *args, "--db", str(tmp_path / "t.sqlite")], cwd=ROOT,
                         input="q\n", capture_output=True, text=True, timeout=120)
    lines = res.stderr.strip().split("\n")
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "no agent function" in lines[0] and "def agent(observation, configuration)" in lines[0]
    assert "IndexError" not in res.stderr and "Traceback" not in res.stderr
