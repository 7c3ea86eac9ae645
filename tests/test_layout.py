"""The layers of the tree, read from the imports (every ``import`` statement, also those inside
functions), checked by folder and rule, not by a list of modules: a module added anywhere is
checked. A test that fails names the file and the import.

The floors, from the ground up (``docs/architecture.md`` draws them); a module imports nothing of
a floor above its own, and the rule has no exception:

0. ``base/``: the ground helpers (jit and hints, layouts, codec, clock and budget, cli, atomic
   writes, bundling);
1. ``core/``: the game contract and the games;
2. ``heuristics/``: evaluations of positions;
3. ``agents/``: the searches (``agents/engine/``, game-generic) and each game's agents;
4. ``util/``: the applications (the arena: matches, players, store, ratings, SPRT, tournaments,
   tuning, play, the web app; submission building and validation);
5. ``bench/`` and the top-level scripts (``build_submission.py``, ``build_submission_rt.py``).

Besides, ``agents/engine/`` (the game-generic searches) imports no game: no ``core.<game>``, no
``heuristics.<game>``, nothing of ``agents`` outside ``agents.engine`` (a game's agents, or
:mod:`agents.registry`, which knows every game's table); and no two packages (a package: the
folder a module is in) import each other, directly or round a circle, and no two modules (files)
either: the piece both need moves down into a module of its own.

And ``util/arena/`` (the game-generic arena: matches, players, store, tournaments, tuning, play,
the web app) names no game: no import of a game's package (``core.<game>``,
``heuristics.<game>``, ``agents.<game>``; :mod:`agents.registry` is how it asks a game's agents
package) and no comparison of a ``.name`` with a game's name (``game.name == "connectx"``, found
by ast). What differs between games is asked of the game (:class:`core.game.Game`'s hooks) or of
its agents package (:mod:`agents.registry`), so a new game edits only its own folders.

The games are the sub-packages of ``core/`` and ``agents/`` (folders), found on disk.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLOORS: tuple[tuple[str, ...], ...] = (  # from the ground up; a name ending in .py is a top-level module
    ("base",), ("core",), ("heuristics",), ("agents",), ("util",),
    ("bench", "build_submission.py", "build_submission_rt.py"))
FOLDERS = tuple(n for floor in FLOORS for n in floor if not n.endswith(".py"))  # the packages whose circles are checked
SCRIPTS = tuple(n for floor in FLOORS for n in floor if n.endswith(".py"))  # top-level modules, each a node of its own


def imports(path: Path) -> list[str]:
    """Every module name ``path`` imports (``from x import y`` gives x and x.y)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


def modules(folder: str, root: Path = ROOT) -> list[Path]:
    if folder.endswith(".py"):
        return [root / folder] if (root / folder).is_file() else []
    return sorted((root / folder).rglob("*.py"))


def subpackages(folder: str, root: Path = ROOT) -> tuple[str, ...]:
    """Dotted names of the packages directly under ``folder`` (``core.connectx``, ...)."""
    return tuple(sorted(f"{folder}.{p.name}" for p in (root / folder).iterdir() if (p / "__init__.py").is_file()))


def game_packages(root: Path = ROOT) -> tuple[str, ...]:
    """Every game's own packages: ``core.<game>``, ``heuristics.<game>``, ``agents.<game>``
    (every sub-package of ``agents`` but the engine), and :mod:`agents.registry` (it loads
    every game's agent table)."""
    agents = tuple(p for p in subpackages("agents", root) if p != "agents.engine")
    return subpackages("core", root) + subpackages("heuristics", root) + agents + ("agents.registry",)


def game_names(root: Path = ROOT) -> tuple[str, ...]:
    """The games' names: the sub-packages of ``core/`` (``connectx``, ``quixo``, ...)."""
    return tuple(p.rpartition(".")[2] for p in subpackages("core", root))


def reaches(name: str, banned: tuple[str, ...]) -> bool:
    return any(name == b or name.startswith(b + ".") for b in banned)


def violations(paths: list[Path], banned: tuple[str, ...], root: Path = ROOT) -> list[str]:
    return [f"{p.relative_to(root) if p.is_relative_to(root) else p} imports {n}"
            for p in paths for n in imports(p) if reaches(n, banned)]


def floor_violations(root: Path = ROOT) -> list[str]:
    """Every import of a module on a higher floor than the importer's."""
    found = []
    for i, floor in enumerate(FLOORS):
        above = tuple(n.removesuffix(".py") for upper in FLOORS[i + 1:] for n in upper)
        for name in floor:
            found += violations(modules(name, root), above, root)
    return found


def engine_violations(root: Path = ROOT) -> list[str]:
    """Imports of a game by a module of ``agents/engine/``."""
    return violations(modules("agents/engine", root), game_packages(root), root)


ARENA = "util/arena"


def names_compared(path: Path, games: tuple[str, ...]) -> list[str]:
    """``line: text`` of each comparison in ``path`` of a ``.name`` (``game.name``,
    ``state.game.name``, ...) with a game's name: ``==``, ``!=``, ``in``/``not in`` a literal."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if not any(isinstance(x, ast.Attribute) and x.attr == "name" for x in sides):
            continue
        literals = [c for x in sides for c in ast.walk(x) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        if any(c.value in games for c in literals):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def arena_violations(root: Path = ROOT) -> list[str]:
    """Where ``util/arena/`` names a game: an import of a game's package (:mod:`agents.registry`
    allowed: the arena asks a game's agents through it), or a ``.name`` compared with a game's name."""
    paths = modules(ARENA, root)
    banned = tuple(p for p in game_packages(root) if p != "agents.registry")
    games = game_names(root)
    found = violations(paths, banned, root)
    for p in paths:
        found += [f"{p.relative_to(root)}:{where} names a game" for where in names_compared(p, games)]
    return found


def _modules(root: Path, folders: tuple[str, ...], scripts: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> its file, for every module of ``folders`` and the ``scripts``."""
    mods: dict[str, Path] = {}
    for folder in folders:
        for p in modules(folder, root):
            parts = p.relative_to(root).with_suffix("").parts
            mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    for script in scripts:
        if (root / script).is_file():
            mods[Path(script).stem] = root / script
    return mods


# --- packages and their circles -----------------------------------------------------------------
def package_graph(root: Path = ROOT, folders: tuple[str, ...] = FOLDERS,
                  scripts: tuple[str, ...] = SCRIPTS) -> dict[tuple[str, str], list[str]]:
    """``(package, package it imports) -> ["module -> imported module", ...]``: an import of a
    name counts for the longest prefix of it that is a module or package in the tree; a top-level
    script (``scripts``) is a package of its own."""
    mods = _modules(root, folders, scripts)

    def package(m: str) -> str:
        return m if mods[m].name == "__init__.py" or "." not in m else m.rpartition(".")[0]

    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m, p in mods.items():
        for name in imports(p):
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name and package(m) != package(name):
                edges[package(m), package(name)].append(f"{m} -> {name}")
    return dict(edges)


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan), each sorted."""
    graph: dict[str, list[str]] = defaultdict(list)
    for a, b in edges:
        graph[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def explain(edges: dict[tuple[str, str], list[str]], comp: list[str]) -> list[str]:
    return [f"{a} -> {b}: {via[0]}" for (a, b), via in sorted(edges.items()) if a in comp and b in comp]


def module_graph(root: Path = ROOT, folders: tuple[str, ...] = FOLDERS,
                 scripts: tuple[str, ...] = SCRIPTS) -> dict[tuple[str, str], list[str]]:
    """``(module, module it imports) -> [imported name, ...]`` between the files of the tree (a
    package is its ``__init__.py``): ``from p import m`` of a module ``m`` counts for ``p.m``
    alone, a name imported from ``p`` for ``p``; ``import a.b`` for the longest prefix that is a
    module. The package ``__init__`` files Python runs on the way are not counted."""
    mods = _modules(root, folders, scripts)

    def resolve(name: str) -> str:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m, p in mods.items():
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in mods]
                names = subs + ([node.module] if len(subs) < len(node.names) else [])
            else:
                continue
            for name in names:
                target = resolve(name)
                if target and target != m:
                    edges[m, target].append(name)
    return dict(edges)


# --- the rules on this tree -----------------------------------------------------------------------
def test_every_floor_is_found():
    for floor in FLOORS:
        for name in floor:
            assert modules(name), f"{name} not found"


def test_no_module_imports_a_higher_floor():
    assert floor_violations() == []


def test_engine_imports_no_game():
    assert len(modules("agents/engine")) >= 10, "agents/engine/ not found"
    assert "core.connectx" in game_packages() and "agents.connectx" in game_packages()
    assert engine_violations() == []


def test_the_arena_names_no_game():
    assert len(modules(ARENA)) >= 20 and "connectx" in game_names(), "util/arena/ or the games not found"
    assert arena_violations() == []


def test_no_import_circle_between_packages():
    edges = package_graph()
    assert ("agents", "agents.engine") in edges, "the graph misses a known edge"  # the registry's
    assert ("build_submission_rt", "util") in edges, "the graph misses the builder alias's import of the one builder"
    assert [explain(edges, c) for c in cycles(edges)] == []


def test_no_import_circle_between_modules():
    edges = module_graph()
    assert ("agents.engine.mccfr", "agents.engine.game_tree") in edges, "the graph misses a known edge"
    assert ("core.quantik", "core.quantik.kernels") in edges, "the graph misses a `from package import module`"
    assert [explain(edges, c) for c in cycles(edges)] == []


def test_the_module_circle_check_finds_a_circle_inside_one_package(tmp_path):
    write_tree(tmp_path, {**TOY, "agents/engine/tree.py": "from agents.engine.search import f\n",
                          "agents/engine/search.py": "def g():\n    from agents.engine import tree\n"})
    edges = module_graph(tmp_path)
    assert ("agents.engine.search", "agents.engine") not in edges  # `from p import m` names the module alone
    assert cycles(edges) == [["agents.engine.search", "agents.engine.tree"]]
    assert cycles(package_graph(tmp_path)) == []  # one package: the package check cannot see it


def test_the_module_circle_check_passes_a_tree_that_keeps_it(tmp_path):
    write_tree(tmp_path, {**TOY, "core/toy/kernels.py": "import core.game\n",
                          "core/toy/__init__.py": "from core.toy import kernels\n"})
    assert cycles(module_graph(tmp_path)) == []


def test_the_checker_sees_a_circle_between_two_scripts(tmp_path):
    write_tree(tmp_path, {"base/__init__.py": "", "base/x.py": "", "a.py": "def f():\n    import b\n", "b.py": "import a\n"})
    edges = package_graph(tmp_path, ("base",), ("a.py", "b.py"))
    assert cycles(edges) == [["a", "b"]]


# --- the checker sees what it must --------------------------------------------------------------
def test_the_checker_sees_imports_inside_functions(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from agents.engine import negamax\n    import util.arena.store as s\n")
    assert set(imports(f)) >= {"agents.engine", "agents.engine.negamax", "util.arena.store"}
    assert violations([f], ("util.arena",)) != []


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


TOY = {  # a small tree by the rules: every package's __init__, one module each
    "core/__init__.py": "", "core/game.py": "import base.jit\n",
    "core/toy/__init__.py": "from core.game import x\n",
    "heuristics/__init__.py": "", "heuristics/toy/__init__.py": "import core.toy\n",
    "agents/__init__.py": "", "agents/registry.py": "from agents.engine import search\n",
    "agents/engine/__init__.py": "", "agents/engine/search.py": "import core.game\nimport base.jit\n",
    "agents/toy/__init__.py": "from agents.engine.search import f\nimport core.toy\nimport heuristics.toy\n",
    "base/__init__.py": "", "base/jit.py": "import numpy\n", "util/__init__.py": "",
    "util/arena/__init__.py": "", "util/arena/match.py": "import agents.registry\nimport core.game\n",
    "util/toy_train.py": "import core.toy\nimport heuristics.toy\n",  # an application of one game, outside the arena
}


def test_the_rules_pass_a_tree_that_keeps_them(tmp_path):
    write_tree(tmp_path, TOY)
    assert engine_violations(tmp_path) == []
    assert floor_violations(tmp_path) == []
    assert arena_violations(tmp_path) == []
    edges = package_graph(tmp_path)
    assert ("agents.toy", "agents.engine") in edges and ("agents", "agents.engine") in edges
    assert cycles(edges) == []


@pytest.mark.parametrize("rel,line", [
    ("agents/engine/search.py", "import core.toy.kernels\n"),  # a game's core
    ("agents/engine/search.py", "def f():\n    from agents.toy import strategy\n"),  # a game's agent, inside a function
    ("agents/engine/search.py", "from heuristics.toy import evaluate\n"),  # a game's heuristic
    ("agents/engine/search.py", "from agents.registry import make\n"),  # every game's table
])
def test_the_engine_rule_sees_a_game_import(tmp_path, rel, line):
    write_tree(tmp_path, {**TOY, rel: TOY[rel] + line})
    found = engine_violations(tmp_path)
    assert len(found) >= 1 and all(s.startswith(rel) for s in found), found


@pytest.mark.parametrize("rel,line", [
    ("base/jit.py", "from core.game import Game\n"),  # the ground imports the game contract
    ("base/jit.py", "def f():\n    import heuristics.toy\n"),  # inside a function
    ("core/game.py", "import agents.engine.search\n"),
    ("heuristics/toy/__init__.py", "from util.arena import match\n"),
    ("agents/toy/__init__.py", "import util.arena.match\n"),
    ("util/arena/match.py", "import build_submission\n"),  # a top-level script
])
def test_the_floor_rule_sees_an_import_of_a_higher_floor(tmp_path, rel, line):
    write_tree(tmp_path, {**TOY, rel: TOY[rel] + line})
    found = floor_violations(tmp_path)
    assert found and all(s.startswith(rel) for s in found), found


@pytest.mark.parametrize("line", [
    "import core.toy.kernels\n",  # a game's core
    "def f():\n    from agents.toy import strategy\n",  # a game's agents, inside a function
    "from heuristics.toy import evaluate\n",  # a game's heuristic
    "def f(game):\n    return game.name == 'toy'\n",  # a test of the game's name
    "def f(state):\n    return 'toy' != state.game.name\n",  # either side, through attributes
    "def f(game):\n    return game.name in ('other', 'toy')\n",  # one of a tuple
])
def test_the_arena_rule_sees_a_game_named(tmp_path, line):
    rel = "util/arena/match.py"
    write_tree(tmp_path, {**TOY, rel: TOY[rel] + line})
    found = arena_violations(tmp_path)
    assert found and all(f.startswith(rel) for f in found), found


def test_the_arena_rule_allows_what_names_no_game(tmp_path):
    rel = "util/arena/match.py"
    text = ("import agents.registry\nimport core.games\n"
            "def f(game, d):\n    return game.name == d.name or game.name == 'other' or d.kind == 'toy'\n")
    write_tree(tmp_path, {**TOY, rel: text})
    assert arena_violations(tmp_path) == []


def test_the_floor_rule_allows_imports_of_lower_floors(tmp_path):
    write_tree(tmp_path, {**TOY, "util/arena/match.py": "import base.jit\nimport core.game\nimport heuristics.toy\n",
                          "build_submission.py": "import util.arena.match\nimport base.jit\n"})
    assert floor_violations(tmp_path) == []


def test_the_circle_check_finds_a_circle_and_names_its_imports(tmp_path):
    write_tree(tmp_path, {**TOY, "agents/engine/search.py": "def f():\n    import agents.registry\n"})
    edges = package_graph(tmp_path)
    assert cycles(edges) == [["agents", "agents.engine"]]
    assert explain(edges, ["agents", "agents.engine"]) == [
        "agents -> agents.engine: agents.registry -> agents.engine",
        "agents.engine -> agents: agents.engine.search -> agents.registry"]


def test_cycles_on_a_synthetic_graph():
    e = {("a", "b"): ["x"], ("b", "c"): ["x"], ("c", "a"): ["x"], ("c", "d"): ["x"], ("d", "e"): ["x"], ("e", "d"): ["x"]}
    assert cycles(e) == [["a", "b", "c"], ["d", "e"]]
    assert cycles({("a", "b"): ["x"], ("b", "c"): ["x"], ("a", "c"): ["x"]}) == []
