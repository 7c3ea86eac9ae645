"""ConnectX's MCTS and its opening cache drive the engine's MCTS through its public API
(:class:`agents.engine.mcts.MCTSAgent`: ``tree``, ``follow``, ``prepare``, ``find``,
``write_settings``, ``bound_kernels``, ``compiled_possible``, ``forget_root``), never through
its private members: checked on the source, so a new ``search._x`` fails here."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("agents/connectx/mcts.py", "agents/connectx/mcts_cache.py")
ALLOWED: set[str] = set()  # private names another module may reach (none)


def private_reaches(source: str) -> list[str]:
    """``obj._name`` in ``source`` where ``obj`` is not ``self``/``cls`` (dunders aside)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")) and node.attr not in ALLOWED:
                out.append(f"line {node.lineno}: {ast.unparse(node)}")
    return out


def test_the_scan_finds_a_private_reach():
    assert private_reaches("search._kernels(1)\nself._own = 1\nx.__dict__\nsearch._hp_array(True)\n") == ["line 1: search._kernels", "line 4: search._hp_array"]


def test_connectx_mcts_uses_no_private_member_of_another_object():
    for path in MODULES:
        assert private_reaches((ROOT / path).read_text()) == [], path
