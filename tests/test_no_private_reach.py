"""ConnectX's MCTS and its opening cache drive the engine's MCTS through its public API
(:class:`agents.engine.mcts.MCTSAgent`: ``tree``, ``follow``, ``prepare``, ``find``,
``write_settings``, ``bound_kernels``, ``compiled_possible``, ``forget_root``), never through
its private members: checked on the source, so a new ``search._x`` fails here. The whole shipped
tree is checked too, against a short list of known reaches, each with its reason."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("agents/connectx/mcts.py", "agents/connectx/mcts_cache.py")
ALLOWED: set[str] = set()  # private names another module may reach (none)


def _own(value: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the object's own members."""
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"


def private_reaches(source: str) -> list[str]:
    """``obj._name`` in ``source`` where ``obj`` is not ``self``/``cls``/``super()`` (dunders aside)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if not _own(node.value) and node.attr not in ALLOWED:
                out.append(f"line {node.lineno}: {ast.unparse(node)}")
    return out


def test_the_scan_finds_a_private_reach():
    assert private_reaches("search._kernels(1)\nself._own = 1\nx.__dict__\nsearch._hp_array(True)\n") == ["line 1: search._kernels", "line 4: search._hp_array"]


def test_connectx_mcts_uses_no_private_member_of_another_object():
    for path in MODULES:
        assert private_reaches((ROOT / path).read_text()) == [], path


# The shipped tree: what may still reach a private member of another object, each with why.
SHIPPED = ("agents", "base", "core", "heuristics", "util", "build_submission.py", "build_submission_rt.py")
KNOWN = {
    "base/backends.py": {"os._exit"},  # the standard library's documented exit for forked children
    "agents/reinforce_tactics/jit_worker.py": {"os._exit"},
    "base/jitcache.py": {"caching._CacheLocator", "dispatcher._cache"},  # numba's cache hooks (docs/compile-cache.md)
    "base/hints.py": {"ary._getvalue"},  # numba's array model, inside an intrinsic
    "agents/quixo/harness.py": {"view._board"},  # the course's Quixo game object: its board has no public setter
}


def test_the_shipped_tree_reaches_no_other_private_member():
    found = {}
    for top in SHIPPED:
        paths = [ROOT / top] if top.endswith(".py") else sorted((ROOT / top).rglob("*.py"))
        for path in paths:
            rel = path.relative_to(ROOT).as_posix()
            reached = {line.split(": ", 1)[1] for line in private_reaches(path.read_text())} - KNOWN.get(rel, set())
            if reached:
                found[rel] = sorted(reached)
    assert found == {}
