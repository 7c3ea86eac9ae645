"""The layers of the tree, read from the imports (every ``import`` statement, also those inside
functions): the low layer never reaches up. A test that fails names the file and the import.

- ``core/`` (games and the engine's contract) imports no agents, heuristics or arena;
- ``heuristics/`` imports no agents or arena;
- ``util/`` outside ``util/arena/`` (jit, clocks, codec, cli, files, backends) imports no agents,
  heuristics or arena;
- ``agents/`` imports no arena; the engine's searches import no game package (they know games
  only through :func:`core.game.bind`).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("core.connectx", "core.quantik", "core.quixo", "core.einstein", "core.tictactoe", "core.connect4_count")
GENERIC_SEARCHES = ("negamax", "solver", "mcts", "mcts_kernels", "expectimax", "tree", "perft", "agents", "solve",
                    "random_agent")


def imports(path: Path) -> list[str]:
    """Every module name ``path`` imports (``from x import y`` gives x and x.y)."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def reaches(name: str, banned: tuple[str, ...]) -> bool:
    return any(name == b or name.startswith(b + ".") for b in banned)


def violations(paths: list[Path], banned: tuple[str, ...]) -> list[str]:
    return [f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p} imports {n}"
            for p in paths for n in imports(p) if reaches(n, banned)]


@pytest.mark.parametrize("folder,banned", [
    ("core", ("agents", "heuristics", "util.arena")),
    ("heuristics", ("agents", "util.arena")),
    ("agents", ("util.arena",)),
])
def test_lower_layers_do_not_import_upper_ones(folder, banned):
    assert violations(modules(folder), banned) == []


def test_util_low_layer_never_imports_agents_or_the_arena():
    low = [p for p in modules("util") if "arena" not in p.relative_to(ROOT / "util").parts]
    assert low, "no util modules found"
    assert violations(low, ("agents", "heuristics", "util.arena")) == []


def test_engine_searches_know_no_game():
    paths = [ROOT / "agents" / "engine" / f"{m}.py" for m in GENERIC_SEARCHES]
    assert all(p.is_file() for p in paths), [str(p) for p in paths if not p.is_file()]
    assert violations(paths, GAMES) == []


def test_the_checker_sees_imports_inside_functions(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from agents.engine import negamax\n    import util.arena.store as s\n")
    assert set(imports(f)) >= {"agents.engine", "agents.engine.negamax", "util.arena.store"}
    assert violations([f], ("util.arena",)) != []
