"""Which modules mypy checks, by rule: every module of the tree's floors (the folders and the
top-level scripts of :data:`tests.test_layout.FLOORS`), hot kernels included, named in
``pyproject.toml``'s ``[tool.mypy] files`` as folders, so that a new module is checked without
being listed; ``.ci/run`` runs ``python -m mypy``, which reads the same list. Static: mypy itself
runs in CI (``python -m mypy``), not here."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tests.test_layout import FLOORS, ROOT, modules


def mypy_config(root: Path = ROOT) -> dict:
    return tomllib.loads((root / "pyproject.toml").read_text())["tool"]["mypy"]


def floor_names() -> set[str]:
    return {name for floor in FLOORS for name in floor}


def unchecked(files: list[str], root: Path = ROOT) -> list[str]:
    """The modules of the floors that none of ``files`` (folders or files) covers, and the
    top-level scripts outside the floors."""
    covered = [root / f for f in files]
    out = [str(p.relative_to(root)) for name in sorted(floor_names()) for p in modules(name, root)
           if not any(p == c or c in p.parents for c in covered)]
    return out + sorted(p.name for p in root.glob("*.py") if p.name not in floor_names())


def test_mypy_checks_the_floors_and_nothing_is_listed_by_module():
    assert set(mypy_config()["files"]) == floor_names()


def test_every_module_of_the_tree_is_checked():
    assert unchecked(mypy_config()["files"]) == []


def test_no_module_of_ours_is_excused():
    """Overrides only for third-party packages (missing stubs); no ``ignore_errors`` and no
    ``# mypy: ignore-errors`` line in a module of the floors."""
    ours = {n.removesuffix(".py") for n in floor_names()}
    for override in mypy_config().get("overrides", []):
        names = override["module"] if isinstance(override["module"], list) else [override["module"]]
        assert not any(n.split(".")[0] in ours for n in names), names
        assert not override.get("ignore_errors"), names
    flag = re.compile(r"^#\s*mypy:\s*ignore-errors", re.MULTILINE)
    excused = [str(p.relative_to(ROOT)) for name in floor_names() for p in modules(name) if flag.search(p.read_text())]
    assert excused == []


def test_the_coverage_check_sees_a_module_left_out(tmp_path):
    for rel in ("base/jit.py", "core/game.py", "build_submission.py", "new_script.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert unchecked(["base", "build_submission.py"], tmp_path) == ["core/game.py", "new_script.py"]
    assert unchecked(["base", "core/game.py", "build_submission.py"], tmp_path) == ["new_script.py"]
