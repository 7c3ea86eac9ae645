"""The hot kernels' shape: named layouts (each slot named once, distinct, within its header;
no prefixed name owned by two layouts) and hot functions a reader can follow (length and
parameter counts, every ``@hot`` function of the tree, found by rule), so that neither
regresses. Static checks: no search runs here."""
import ast
import importlib
import re
from pathlib import Path

import pytest

from base.layout import Layout
from tests.test_layout import FLOORS, ROOT, modules


def layout_modules(root: Path = ROOT) -> list[str]:
    """The modules of the floors that name a layout at module level (``NAME = Layout(...)``)."""
    found = re.compile(r"^[A-Z_]+ = Layout\(", re.MULTILINE)
    return sorted(".".join(p.relative_to(root).with_suffix("").parts) for floor in FLOORS for name in floor
                  for p in modules(name, root) if found.search(p.read_text()))


KERNEL_MODULES = layout_modules()
MAX_LINES = 80  # a hot function's lines, from ``def`` (decorators not counted), docstring included
MAX_PARAMS = 10
# Hot functions allowed past a limit, with the reason (file, function):
EXEMPT = {
    # the opening cache's kernels, whose signature agents/connectx/mcts_cache.py calls (a change
    # belongs with that module's API)
    ("agents/engine/mcts_kernels.py", "collect"), ("agents/engine/mcts_kernels.py", "graft"),
}


def layouts(module):
    return {name: v for name, v in vars(module).items() if isinstance(v, Layout)}


@pytest.mark.parametrize("name", KERNEL_MODULES)
def test_each_layout_slot_is_a_module_constant_distinct_and_within_the_header(name):
    module = importlib.import_module(name)
    found = layouts(module)
    assert found, f"{name} names no layout"
    for lname, lay in found.items():
        slots = lay.slots
        assert len(set(slots)) == len(slots), lname
        assert all(0 <= i < lay.size for i in slots), lname
        for const, index in lay.constants().items():
            assert getattr(module, const, None) == index, f"{name}.{const} is not {lname}'s slot {index}"


def test_no_slot_name_is_owned_by_two_layouts():
    owner = {}
    for name in KERNEL_MODULES:
        for lname, lay in layouts(importlib.import_module(name)).items():
            for const in lay.constants():
                assert const not in owner, f"{const}: {owner.get(const)} and {name}.{lname}"
                owner[const] = f"{name}.{lname}"


def test_a_layout_refuses_a_name_twice_or_too_small_a_size():
    with pytest.raises(ValueError):
        Layout("T_", "A B A")
    with pytest.raises(ValueError):
        Layout("T_", "A B C", size=2)
    lay = Layout("T_", "A B C", size=5, start=1)
    assert lay.slots == (1, 2, 3) and lay.header(9, b=4) == [9, 9, 4, 9, 9]


def is_hot_decorator(node: ast.expr) -> bool:
    """``@hot``, ``@hot(...)``, ``@J.hot``, ``@jit.hot(...)``."""
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id == "hot") or (isinstance(target, ast.Attribute) and target.attr == "hot")


def hot_functions(root: Path = ROOT) -> list[tuple[str, str, int, int]]:
    """``(file, function, lines, parameters)`` of every ``@hot`` function in the tree's floors."""
    out = []
    for name in (n for floor in FLOORS for n in floor):
        for path in modules(name, root):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.FunctionDef) and any(is_hot_decorator(d) for d in node.decorator_list):
                    a = node.args
                    params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                    out.append((path.relative_to(root).as_posix(), node.name, node.end_lineno - node.lineno + 1, params))
    return out


def too_big(found: list[tuple[str, str, int, int]]) -> list[str]:
    return [f"{f}: {fn}: {lines} lines, {params} parameters" for f, fn, lines, params in found
            if (lines > MAX_LINES or params > MAX_PARAMS) and (f, fn) not in EXEMPT]


def test_hot_functions_are_short_and_take_few_parameters():
    assert too_big(hot_functions()) == []


def test_the_layout_checks_find_the_kernel_modules_by_rule():
    assert {"agents.engine.mcts_kernels", "agents.engine.negamax", "agents.engine.exact",
            "agents.engine.macro_kernels"} <= set(KERNEL_MODULES)


def test_the_size_check_sees_every_hot_function_and_can_fail(tmp_path):
    names = {(f, fn) for f, fn, _, _ in hot_functions()}
    assert len(names) > 300 and ("agents/engine/mcts_kernels.py", "simulate") in names
    assert ("agents/engine/negamax.py", "node") in names and ("core/connectx/bitboard.py", "has_won") in names
    assert not {pair for pair in EXEMPT if pair not in names}, "an exemption names no hot function"
    (tmp_path / "core").mkdir()
    wide = ", ".join(f"p{i}" for i in range(MAX_PARAMS + 1))
    body = "    x = 0\n" * MAX_LINES
    (tmp_path / "core" / "k.py").write_text(
        "from base.jit import hot\nfrom base import jit as J\n\n\n"
        f"@hot\ndef wide({wide}):\n    return 0\n\n\n"
        f"@J.hot(inline=True)\ndef long(a):\n{body}    return x\n\n\n"
        f"@hot\ndef fits({', '.join(f'p{i}' for i in range(MAX_PARAMS))}):\n    return 0\n\n\n"
        "def not_hot(a, b, c, d, e, f, g, h, i, j, k, l):\n    return 0\n")
    found = hot_functions(tmp_path)
    assert {fn for _, fn, _, _ in found} == {"wide", "long", "fits"}
    assert too_big(found) == [f"core/k.py: wide: 2 lines, {MAX_PARAMS + 1} parameters",
                              f"core/k.py: long: {MAX_LINES + 2} lines, 1 parameters"]


def test_mcts_bindings_leave_out_the_code_an_agent_never_runs():
    from agents.engine.mcts import MCTSAgent
    from core.games import make_game

    closed = MCTSAgent(game=make_game("connect4_count")).bound_kernels(False)
    dice = MCTSAgent(game=make_game("einstein"), open_loop=True).bound_kernels(False)
    assert (closed.CHANCE_CODE, closed.OPEN_CODE) == (False, False)
    assert (dice.CHANCE_CODE, dice.OPEN_CODE) == (True, True)
