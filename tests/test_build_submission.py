"""build_submission.py and base.bundle*: the import graph, import rewriting, the command line's
errors, and built files loaded the way Kaggle loads them: in a clean process (with numba, with
CONNECTX_NUMBA=0, with numba unimportable), next to an imported toolkit, with embedded data."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from base.bundle import PROJECT_PACKAGES, BundleError, ModuleSource, dynamic_imports, import_graph, rewrite_imports

ROOT = Path(__file__).resolve().parents[1]
BUILD = [sys.executable, str(ROOT / "build_submission.py")]

TINY_AGENT = '''
"""A small agent for the builder's tests: data, hot kernels, and a switch to misbehave."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import core.connectx.bitboard as bb
from core.connectx.position import Position
from base.jit import kernels


@dataclass
class TinyAgent:
    first: int = 2  # column played on the empty board when the data arrived intact
    fail_at_ply: int = -1  # raise on this ply (to test validation failures)
    bad_data: bool = False  # bundle_data returns an object that is not plain data
    _data: Any = field(default=None, init=False, repr=False)
    _compiled: bool = field(default=False, init=False, repr=False)

    def bundle_data(self):
        if self.bad_data:
            return {"position": Position.empty()}
        import numpy as np
        return {"first": self.first, "arr": np.arange(5, dtype=np.int64)}

    def use_data(self, data):
        self._data = data

    def choose_position(self, position: Position, deadline: float) -> int:
        if position.ply == self.fail_at_ply:
            raise RuntimeError("planned failure")
        k = kernels(bb, position.shape.bits)
        self._compiled = k is not bb
        s = position.shape
        if position.ply == 0 and self._data is not None and int(self._data["arr"].sum()) == 10:
            return self._data["first"]
        for col in position.legal_columns():
            if k.has_won(position.current | k.move_bit(position.mask, s.rows, col), s.rows, s.inarow):
                return col
        return position.legal_columns()[0]

    def info(self):
        return {"compiled": self._compiled, "data": self._data is not None}
'''

LOAD_AND_PLAY = '''
import json, sys, os
{prelude}
from kaggle_environments.agent import get_last_callable
from kaggle_environments.utils import structify
path = sys.argv[1]
fn = get_last_callable(open(path).read(), path=path)
adapter = fn.__globals__["_ADAPTER"]
cfg = structify({{"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2}})
answers = []
board = [0] * 42
for ply in range(6):
    obs = structify({{"board": board, "mark": 1 + ply % 2, "remainingOverageTime": 60}})
    col = fn(obs, cfg)
    answers.append(col)
    row = max(r for r in range(6) if board[r * 7 + col] == 0)
    board[row * 7 + col] = 1 + ply % 2
agent = adapter.agent
print(json.dumps({{
    "name": fn.__name__, "answers": answers, "types": sorted({{type(a).__name__ for a in answers}}),
    "stats": adapter.stats, "agent_module": type(agent).__module__ if agent is not None else None,
    "info": agent.info() if agent is not None else None,
    "numba_loaded": sys.modules.get("numba") is not None,
    "toolkit_core": {toolkit_check},
}}))
'''


def write_tiny_package(folder: Path) -> Path:
    pkg = folder / "tinyagents"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""Test agents kept outside the repo."""\n')
    (pkg / "agent.py").write_text(TINY_AGENT)
    return folder


def build(tmp: Path, *args: str, extra_path: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if extra_path is not None:
        env["PYTHONPATH"] = str(extra_path)
    proc = subprocess.run([*BUILD, *args], cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
    if check:
        assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc


def load_and_play(path: Path, cwd: Path, *, env_extra: dict | None = None, prelude: str = "", isolated: bool = True) -> dict:
    """Run the built file in a fresh Python (``-I``: no repo, no cwd, no PYTHONPATH on sys.path)."""
    toolkit_check = "id(sys.modules.get('core')) == TOOLKIT_CORE_ID" if "TOOLKIT_CORE_ID" in prelude else "None"
    code = LOAD_AND_PLAY.format(prelude=prelude, toolkit_check=toolkit_check)
    env = {**{k: v for k, v in os.environ.items() if k != "CONNECTX_NUMBA"}, **(env_extra or {})}
    cmd = [sys.executable, *(["-I"] if isolated else []), "-c", code, str(path)]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "stderr": proc.stderr}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict:
    """The tiny agent built once (data included), without validation."""
    tmp = tmp_path_factory.mktemp("tiny")
    write_tiny_package(tmp)
    out = tmp / "tiny_submission.py"
    proc = build(tmp, "--agent", "tinyagents.agent:TinyAgent", "--param", "first=1", "--output", str(out), "--no-validate", extra_path=tmp)
    return {"tmp": tmp, "path": out, "stdout": proc.stdout}


# --- import graph and rewriting ---------------------------------------------------------------
def make_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def test_import_graph_follows_project_imports_transitively_and_nothing_else(tmp_path):
    make_tree(tmp_path, {
        "core/__init__.py": "from core.a import A\n",
        "core/a.py": "import numpy\nA = 1\n",
        "core/unused.py": "",
        "util/__init__.py": "",
        "util/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core import unused\n",
        "agents/__init__.py": "",
        "agents/x.py": "import os\ndef f():\n    from util.b import thing\n    from . import y\n    import core.a as ca\n",
        "agents/y.py": "try:\n    from agents.optional import z\nexcept ImportError:\n    z = None\n",
    })
    modules, missing = import_graph(tmp_path, ["agents.x"], PROJECT_PACKAGES)
    assert list(modules) == ["agents", "agents.x", "agents.y", "core", "core.a", "util", "util.b"]
    assert missing == ["agents.optional"]
    assert modules["core"].is_package and not modules["core.a"].is_package


def test_import_graph_of_the_real_loader_modules():
    modules, missing = import_graph(ROOT, ["agents.connectx.kaggle", "base.codec"], PROJECT_PACKAGES)
    assert {"agents.connectx.kaggle", "base.clock", "base.codec", "core", "core.connectx.position", "core.connectx.bitboard", "base.jit"} <= set(modules)
    assert missing == [] and not any(name.startswith(("tests", "heuristics")) for name in modules)


def test_import_graph_reports_a_missing_root(tmp_path):
    with pytest.raises(BundleError, match="no file"):
        import_graph(tmp_path, ["agents.nothing"], PROJECT_PACKAGES)


def test_rewrite_moves_every_import_form_under_the_prefix_and_keeps_line_numbers():
    src = textwrap.dedent('''\
        import os, core.connectx.bitboard
        import base.jit as j
        from core.connectx.position import (
            Position,
        )
        from . import sibling
        if True: import agents; x = 1
        import numpy as np
    ''')
    out = rewrite_imports(src, "_P", PROJECT_PACKAGES)
    assert out.count("\n") == src.count("\n")
    assert "import os, _P.core.connectx.bitboard; core = _P.core" in out
    assert "import _P.base.jit as j" in out
    assert "from _P.core.connectx.position import (" in out
    assert "from . import sibling" in out
    assert "if True: import _P.agents; agents = _P.agents; x = 1" in out
    assert "import numpy as np" in out


def test_dynamic_imports_of_project_names_are_reported():
    mod = ModuleSource("agents.z", False, "import importlib\nm = importlib.import_module('agents.connectx.rules')\nn = __import__(name)\n")
    assert dynamic_imports(mod) == ["agents.z:2 ('agents.connectx.rules')"]


def test_a_marked_command_line_import_is_not_reported_and_the_default_file_stays_small():
    """agents.connectx.solver routes ``--game`` to the engine's solver by a marked run-time import: the
    default submission carries only the engine it plays with (perfect's fallback is the generic
    depth-first agent on ConnectX), never the registry, the other searches, other games or the arena."""
    mod = ModuleSource("agents.z", False, "import importlib\nm = importlib.import_module('agents.connectx.rules')  # not in submissions\n")
    assert dynamic_imports(mod) == []
    modules, _missing = import_graph(ROOT, ["agents.connectx.perfect", "agents.connectx.kaggle"], PROJECT_PACKAGES)
    banned = ("agents.engine.registry", "agents.engine.mcts", "agents.engine.expectimax", "agents.engine.tree",
              "agents.engine.opening_book", "core.games", "core.quantik", "core.quixo", "core.einstein",
              "core.tictactoe", "core.connect4_count", "util.arena", "agents.connectx.mcts", "agents.registry",
              "agents.connectx.registry", "agents.engine.spec")
    assert not [m for m in modules if m.startswith(banned)]


# --- the command line ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, expected",
    [
        (["--agent", "nosuch"], "valid agents: "),
        (["--agent", "random", "--param", "nosuch=1"], "valid parameters: seed"),
        (["--agent", "random", "--param", "seed=abc"], "seed"),
        (["--agent", "random", "--param", "seed"], "key=value"),
        (["--agent", "nosuch.module:Thing"], "valid agents: "),
        (["--clock", "nosuch=1"], "valid settings: margin"),
        (["--clock", "margin=-1"], "margin"),
        (["--games", "0"], "at least 1"),
        (["--params", "/nonexistent/params.json"], "cannot read"),
        (["--frobnicate"], "unrecognized arguments"),
        (["--max-bank", "-1"], "--max-bank"),
        (["--max-bank", "61"], "at most 60"),
        (["--timeout", "0"], "--timeout"),
        (["--max-first-move", "nan"], "--max-first-move"),
        (["--output", "/proc/x.py"], "--output /proc/x.py cannot be written"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, args, expected):
    proc = build(tmp_path, *args, "--no-validate", check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr
    assert not (tmp_path / "submissions").exists()


@pytest.mark.parametrize("kind", ["directory", "under a file"])
def test_an_output_that_cannot_be_written_exits_2_before_any_work(tmp_path, kind):
    (tmp_path / "afile").write_text("x")
    output = tmp_path if kind == "directory" else tmp_path / "afile" / "s.py"
    proc = build(tmp_path, "--agent", "random", "--output", str(output), check=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "--output" in lines[0], proc.stderr
    assert ("is a directory" if kind == "directory" else "is a file, not a folder") in lines[0]
    assert proc.stdout == "" and sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_a_build_that_fails_validation_leaves_the_good_file_and_keeps_itself_beside_it(tmp_path):
    # The case: a good file, then a build whose validation fails (here it runs out of
    # --timeout at once) with the good file as --output.
    good = tmp_path / "good.py"
    good.write_text("# a good submission\n")
    proc = build(tmp_path, "--agent", "random", "--timeout", "0.01", "--output", str(good), check=False)
    assert proc.returncode == 1 and "--timeout" in proc.stderr, proc.stderr
    assert good.read_text() == "# a good submission\n"
    failed = tmp_path / "good.failed.py"
    assert "def agent(observation, configuration):" in failed.read_text()
    assert "kept at" in proc.stderr and "good.failed.py" in proc.stderr and "good.py is unchanged" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.failed.py", "good.py"]  # no temporary file left


def test_a_build_replaces_the_output_whole(tmp_path):
    out = tmp_path / "s.py"
    out.write_text("# old\n")
    build(tmp_path, "--agent", "random", "--output", str(out), "--no-validate")
    assert out.read_text().rstrip().endswith("return _ADAPTER(observation, configuration)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.py"]


def copy_without_data(tmp_path: Path) -> Path:
    """The repo's code without data/: a clone whose data files are missing."""
    import shutil

    clone = tmp_path / "clone"
    for name in ("base", "core", "util", "heuristics", "agents"):
        shutil.copytree(ROOT / name, clone / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "build_submission.py", clone)
    return clone


@pytest.mark.parametrize("agent, missing", [("perfect", "book_6x7x4.npz"), ("mcts", "mcts_cache_mixed_oddeven_6x7x4.npz")])
def test_a_missing_data_file_is_an_error_unless_no_data_is_asked_for(tmp_path, agent, missing):
    clone = copy_without_data(tmp_path)
    cmd = [sys.executable, str(clone / "build_submission.py"), "--agent", agent, "--output", str(tmp_path / "s.py"), "--no-validate"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and missing in lines[0] and "--no-data" in lines[0], proc.stderr
    assert not (tmp_path / "s.py").exists()
    proc = subprocess.run([*cmd, "--no-data"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "embedded data none (--no-data)" in proc.stdout, proc.stderr
    assert "_DATA = None" in (tmp_path / "s.py").read_text()


@pytest.mark.parametrize("content", [b"", b"garbage", "truncated"])
@pytest.mark.parametrize("agent, param, real", [("perfect", "book", "book_6x7x4.npz"), ("mcts", "cache", "mcts_cache_rollout_6x7x4.npz")])
def test_a_damaged_data_file_is_refused_by_name_without_suggesting_pickle(tmp_path, capsys, content, agent, param, real):
    import build_submission

    bad = tmp_path / "bad.npz"
    bad.write_bytes(content if isinstance(content, bytes) else (ROOT / "data" / real).read_bytes()[:5000])
    code = build_submission.main(["--agent", f"{agent}:{param}={bad}", "--output", str(tmp_path / "s.py"), "--no-validate"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and str(bad) in lines[0], err
    assert "pickle" not in err and not (tmp_path / "s.py").exists()


def test_rules_submission_runs_without_numba_and_its_first_move_is_quick(tmp_path):
    out = tmp_path / "rules.py"
    proc = build(tmp_path, "--agent", "rules", "--output", str(out), "--no-validate")
    assert "submission defaults of RulesAgent: jit=False" in proc.stdout and "'jit': False" in out.read_text()
    code = (
        "import sys, time\nfrom kaggle_environments import make\n"
        "env = make('connectx', debug=False)\nenv.run([sys.argv[1], 'negamax'])\n"
        "first = [log[0]['duration'] for log in env.logs if log and 'duration' in log[0]][0]\n"
        "print(env.steps[-1][0]['status'], first, 'numba' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONNECTX_NUMBA")}
    run = subprocess.run([sys.executable, "-I", "-c", code, str(out)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    status, first, numba_loaded = printed_words(run.stdout)[-3:]
    assert status == "DONE" and numba_loaded == "False", run.stdout + run.stderr
    assert float(first) < 1.0  # actTimeout is 2 s; it took 2.6 s when the first move imported numba and compiled
    forced = build(tmp_path, "--agent", "rules", "--param", "jit=true", "--output", str(out), "--no-validate")
    assert "submission defaults" not in forced.stdout and "'jit': True" in out.read_text()


def test_list_shows_agents_with_parameter_defaults(tmp_path):
    proc = build(tmp_path, "--list")
    assert "random: seed=None" in proc.stdout and "default (no --agent): " in proc.stdout


def test_help_works(tmp_path):
    proc = build(tmp_path, "--help")
    assert "--no-validate" in proc.stdout and "--params" in proc.stdout


def test_params_file_and_param_override(tmp_path):
    write_tiny_package(tmp_path)
    (tmp_path / "p.json").write_text(json.dumps({"params": {"first": 5, "fail_at_ply": 9}}))
    out = tmp_path / "s.py"
    build(tmp_path, "--agent", "tinyagents.agent:TinyAgent", "--params", "p.json", "--param", "first=4", "--output", str(out),
          "--no-validate", extra_path=tmp_path)
    text = out.read_text()
    assert "_PARAMS = {'first': 4, 'fail_at_ply': 9}" in text


def test_data_that_is_not_plain_fails_the_build(tmp_path):
    write_tiny_package(tmp_path)
    proc = build(tmp_path, "--agent", "tinyagents.agent:TinyAgent", "--param", "bad_data=true", "--output", str(tmp_path / "s.py"), "--no-validate",
                 extra_path=tmp_path, check=False)
    assert proc.returncode == 1 and "cannot be embedded" in proc.stderr and "Position" in proc.stderr
    assert not (tmp_path / "s.py").exists()


# --- built files --------------------------------------------------------------------------------
def test_built_file_ends_with_agent_and_embeds_modules_and_data(tiny):
    text = tiny["path"].read_text()
    assert text.rstrip().splitlines()[-1].strip().startswith("return _ADAPTER(")
    assert "def agent(observation, configuration):" in text.split("_ADAPTER = _make_adapter()")[1]
    assert "'tinyagents.agent': (False," in text and "'core.connectx.bitboard': (False," in text
    assert "_DATA = 'cxdata1:" in text
    assert "from _connectx_" in text and "\nfrom core." not in text


def test_built_file_loads_and_plays_in_a_clean_process_with_numba(tiny):
    pytest.importorskip("numba")
    result = load_and_play(tiny["path"], tiny["tmp"])
    assert result["name"] == "agent" and result["types"] == ["int"]
    assert result["answers"][0] == 1  # the data arrived: first=1 was embedded
    assert result["stats"]["errors"] == 0 and result["info"] == {"compiled": True, "data": True}
    assert result["agent_module"].startswith("_connectx_") and result["agent_module"].endswith(".tinyagents.agent")
    assert result["numba_loaded"]


def test_built_file_plays_with_connectx_numba_0(tiny):
    result = load_and_play(tiny["path"], tiny["tmp"], env_extra={"CONNECTX_NUMBA": "0"})
    assert result["answers"][0] == 1 and result["stats"]["errors"] == 0
    assert result["info"] == {"compiled": False, "data": True} and not result["numba_loaded"]


def test_built_file_plays_with_numba_unimportable(tiny):
    result = load_and_play(tiny["path"], tiny["tmp"], prelude="sys.modules['numba'] = None")
    assert result["answers"][0] == 1 and result["stats"]["errors"] == 0
    assert result["info"] == {"compiled": False, "data": True} and not result["numba_loaded"]


def test_built_file_next_to_an_imported_toolkit_uses_its_own_modules(tiny):
    prelude = f"sys.path.insert(0, {str(ROOT)!r})\nimport core, base.jit, agents.connectx.kaggle\nTOOLKIT_CORE_ID = id(sys.modules['core'])"
    result = load_and_play(tiny["path"], tiny["tmp"], prelude=prelude, env_extra={"CONNECTX_NUMBA": "0"})
    assert result["toolkit_core"] is True  # the toolkit's modules were left alone
    assert result["agent_module"].startswith("_connectx_") and result["answers"][0] == 1


def printed_words(stdout: str) -> list[str]:
    """Words a subprocess printed, without kaggle-environments' import notice (it prints
    "Loading environment open_spiel_env failed: ..." when open_spiel is not installed)."""
    return " ".join(ln for ln in stdout.splitlines() if not ln.startswith("Loading environment ")).split()


def test_two_different_bundles_in_one_process_do_not_mix(tiny, tmp_path):
    other = tmp_path / "other.py"
    build(tiny["tmp"], "--agent", "tinyagents.agent:TinyAgent", "--param", "first=5", "--output", str(other), "--no-validate", extra_path=tiny["tmp"])
    code = (
        "import sys\nfrom kaggle_environments.agent import get_last_callable\nfrom kaggle_environments.utils import structify\n"
        "cfg = structify({'rows': 6, 'columns': 7, 'inarow': 4, 'actTimeout': 2})\n"
        "obs = structify({'board': [0] * 42, 'mark': 1, 'remainingOverageTime': 60})\n"
        "for p in sys.argv[1:] + sys.argv[1:]:\n    print(get_last_callable(open(p).read(), path=p)(obs, cfg))\n"
    )
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(tiny["path"]), str(other)], env={**os.environ, "CONNECTX_NUMBA": "0"},
                          capture_output=True, text=True, timeout=300)
    assert printed_words(proc.stdout) == ["1", "5", "1", "5"], proc.stderr


def test_corrupted_data_in_a_built_file_is_reported_and_the_agent_plays_without_it(tiny, tmp_path):
    text = tiny["path"].read_text()
    start = text.index("_DATA = 'cxdata1:")
    i = start + 100
    damaged = text[:i] + ("A" if text[i] != "A" else "B") + text[i + 1:]
    path = tmp_path / "damaged.py"
    path.write_text(damaged)
    result = load_and_play(path, tmp_path, env_extra={"CONNECTX_NUMBA": "0"})
    assert "[connectx] ERROR embedded data unusable (CodecError" in result["stderr"]
    assert result["stderr"].count("[connectx] ERROR") == 1 and result["stats"]["fallbacks"] == 0
    # the agent itself plays, without its data: column 0 (its no-data move), not 1 (the data's), nor the fast rule's 3
    assert result["answers"][0] == 0 and result["info"] == {"compiled": False, "data": False} and result["types"] == ["int"]


def test_build_and_validate_in_kaggle_environments(tmp_path):
    write_tiny_package(tmp_path)
    out = tmp_path / "v.py"
    proc = build(tmp_path, "--agent", "tinyagents.agent:TinyAgent", "--output", str(out), "--games", "1", "--workers", "2", extra_path=tmp_path)
    assert "OK: ready to submit" in proc.stdout
    for expected in ("vs negamax: 1 games", "vs random: 1 games", "move time: median", "without numba: 1 game", "KB"):
        assert expected in proc.stdout, proc.stdout
    progress = [line for line in proc.stdout.splitlines() if line.startswith("  game ")]  # one a game, as it ends
    assert [line.split(":")[0] for line in progress] == [f"  game {k}/3" for k in (1, 2, 3)], proc.stdout
    assert all(" left" in line and "moves, slowest" in line for line in progress) and sum("(no numba)" in line for line in progress) == 1, progress


def test_progress_prints_each_game_once_as_its_report_shows_it(tmp_path, capsys):
    """util.submission_build.Progress: a line per game the validators' reports add (they are
    replaced whole after each game), with the running count and an estimate of the time left;
    a report not there yet, or unreadable, adds nothing."""
    from util.submission_build import Progress

    reports = [tmp_path / "w0.json", tmp_path / "w1.json", tmp_path / "missing.json"]
    progress = Progress(4, lambda g, report: f"{g['name']}{' (no numba)' if report.get('no_numba') else ''}", reports)
    reports[0].write_text(json.dumps({"games": [{"name": "a"}]}))
    reports[1].write_text("{half a repo")
    progress()
    progress()  # nothing new
    reports[0].write_text(json.dumps({"games": [{"name": "a"}, {"name": "b"}], "finished": True}))
    reports[1].write_text(json.dumps({"games": [{"name": "c"}], "no_numba": True}))
    progress()
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(";")[0] for line in lines] == ["  game 1/4: a", "  game 2/4: b", "  game 3/4: c (no numba)"], lines
    assert all(" so far, about " in line and line.endswith(" left") for line in lines), lines


def test_wait_for_ticks_while_it_waits_and_still_gives_up_at_the_timeout():
    from util.submission_build import BuildFailed, wait_for

    ticks: list[float] = []
    quick = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.5)"])
    wait_for(quick, 60.0, 60.0, lambda: ticks.append(1))
    assert quick.returncode == 0 and len(ticks) >= 2, ticks  # at least one tick while waiting, one at the end
    hanging = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(BuildFailed, match="--timeout"):
            wait_for(hanging, 0.3, 0.3, lambda: ticks.append(2))
        assert hanging.poll() is None and ticks[-1] == 2
    finally:
        hanging.kill()
        hanging.wait()


def test_validation_fails_when_the_agent_raises(tmp_path):
    write_tiny_package(tmp_path)
    out = tmp_path / "f.py"
    proc = build(tmp_path, "--agent", "tinyagents.agent:TinyAgent", "--param", "fail_at_ply=2", "--output", str(out), "--games", "1",
                 extra_path=tmp_path, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "validation failed" in proc.stderr and "planned failure" in proc.stderr


@pytest.mark.slow
def test_rules_submission_validates_with_twenty_games(tmp_path):
    proc = build(tmp_path, "--agent", "rules", "--output", str(tmp_path / "rules.py"), "--workers", "2")
    assert "OK: ready to submit" in proc.stdout and "vs negamax: 20 games" in proc.stdout


def test_a_file_whose_bundle_cannot_load_still_answers_legal_columns(tiny, tmp_path):
    text = tiny["path"].read_text().replace('_PREFIX + ".agents.connectx.kaggle"', '_PREFIX + ".agents.no_such_module"')
    path = tmp_path / "broken.py"
    path.write_text(text)
    code = (
        "import sys\nfrom kaggle_environments.agent import get_last_callable\n"
        "fn = get_last_callable(open(sys.argv[1]).read(), path=sys.argv[1])\n"
        "cfg = {'rows': 6, 'columns': 7, 'inarow': 4}\n"
        "print(fn.__name__, fn({'board': [0] * 42, 'mark': 1}, cfg), fn({'board': [1, 2, 1, 0, 2, 1, 2] + [1] * 35, 'mark': 1}, cfg), fn(None, None))\n"
    )
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert printed_words(proc.stdout) == ["agent", "3", "3", "0"], proc.stderr
    assert "[connectx] ERROR the bundled modules failed to load (ModuleNotFoundError" in proc.stderr


def test_no_agent_means_the_strongest_available_and_the_default_output():
    from agents.connectx import registry
    from agents.connectx import submission as build_submission  # ConnectX's submission hooks

    target, params = build_submission.resolve_agent(None)
    assert target.label == registry.names()[0] and params == {}
    assert ROOT / build_submission.DEFAULT_OUTPUT == ROOT / "submissions" / "submission.py"


def test_agent_specs_and_module_class_forms_resolve():
    from agents.connectx import submission as build_submission  # ConnectX's submission hooks

    target, params = build_submission.resolve_agent("random:seed=3")
    assert target.label == "random" and params == {"seed": "3"}
    target, _ = build_submission.resolve_agent("agents.connectx.random_agent:RandomAgent")
    assert target.module == "agents.connectx.random_agent" and target.cls.__name__ == "RandomAgent"


def fake_reports(**game_changes) -> tuple[list[dict], dict]:
    """Validation reports as util/bundle_validate.py writes them: one clean game per opponent."""
    def game(opponent, seat):
        g = {"opponent": opponent, "seat": seat, "status": "DONE", "reward": 1, "durations": [0.5, 0.01, 0.02],
             "errors": [], "error_count": 0, "late": 0, "bank_used": 0.0, "act_timeout": 2.0}
        return {**g, **game_changes} if opponent == "negamax" else g
    load = {"callable": "agent", "argcount": 2, "load_s": 0.03, "errors": []}
    main = {"load": load, "games": [game("negamax", 0), game("random", 1)], "numba_loaded": True}
    no_numba = {"load": load, "games": [game("random", 0)], "numba_loaded": False, "no_numba": True}
    return [main], no_numba


def test_summary_of_clean_reports_passes():
    from agents.connectx import submission as build_submission  # ConnectX's submission hooks

    lines, failures = build_submission.summary(*fake_reports())
    assert failures == []
    assert any("vs negamax: 1 games, 1 won" in line for line in lines)
    assert any("max 500 ms" in line and "our move 1 as first player against negamax" in line for line in lines)


@pytest.mark.parametrize(
    "changes, reason",
    [
        ({"status": "TIMEOUT", "reward": None}, "timeouts 1"),
        ({"status": "INVALID", "reward": None}, "invalid 1"),
        ({"status": "ERROR", "reward": None}, "errors 1"),
        ({"error_count": 1, "errors": ["[connectx] ERROR agent raised X"]}, "adapter errors 1"),
        ({"bank_used": 50.0}, "overage bank"),
    ],
)
def test_summary_fails_on_each_kind_of_problem(changes, reason):
    from agents.connectx import submission as build_submission  # ConnectX's submission hooks

    _, failures = build_submission.summary(*fake_reports(**changes))
    assert any(reason in f for f in failures), failures


def test_summary_reports_the_first_move_of_each_fresh_process_and_fails_a_slow_one():
    from agents.connectx import submission as build_submission  # ConnectX's submission hooks

    reports, no_numba = fake_reports()
    second = json.loads(json.dumps(reports[0]))
    second["games"][0]["durations"][0] = 2.4  # over actTimeout (2 s)
    second["games"][0]["seat"] = 1
    lines, failures = build_submission.summary(reports + [second], no_numba)
    assert any("0.50 s (process 1, as first player), 2.40 s (process 2, as second player), 0.50 s (without numba" in line for line in lines), lines
    assert any("first move of a fresh process took 2.40 s (process 2, as second player), over actTimeout 2 s" in f for f in failures), failures
    _, failures = build_submission.summary(reports + [second], no_numba, max_first_move=3.0)
    assert failures == []


def test_summary_fails_when_the_last_callable_is_not_agent():
    from agents.connectx import submission as build_submission  # ConnectX's submission hooks

    reports, no_numba = fake_reports()
    reports[0]["load"] = {**reports[0]["load"], "callable": "helper"}
    _, failures = build_submission.summary(reports, no_numba)
    assert any("last callable is helper" in f for f in failures)
