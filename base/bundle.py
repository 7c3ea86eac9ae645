"""Bundle an agent and every project module it needs into one self-contained Kaggle file.

Why this shape (see ``submissions/README.md`` for the user's view):

- **Import graph with ast.** :func:`import_graph` follows ``import`` and ``from ... import``
  statements (anywhere in a module, relative ones included; not those under
  ``if TYPE_CHECKING:``), transitively, for the project's packages only (base, core, util,
  heuristics, agents, and the agent module's own top package). Parent packages come along
  (importing ``core.connectx.position`` runs ``core/__init__.py``).
- **Each module keeps its own namespace,** under a private top package ``_connectx_<hash>``
  (``<hash>`` from the bundle's content). The file installs a meta-path finder that serves
  exactly those names from embedded source. A process that already imported the toolkit (a
  local tournament) is left alone and cannot serve the bundle by accident: the names differ.
  Two different bundles in one process do not mix; the same bundle loaded twice reuses its
  modules (and their compiled kernels).
- **Imports are rewritten in place** (:func:`rewrite_imports`): the module name of each
  project import gets the prefix, on the same line, so line numbers in tracebacks stay right.
  ``base.jit.compiled`` keeps working: it finds modules by ``__module__`` in ``sys.modules``,
  which now holds the prefixed names.
- Dynamic imports by string (``importlib.import_module("agents.x")``) cannot be rewritten:
  :func:`dynamic_imports` lists them so the builder can warn; validation in a process without
  the repo catches any that matter.
"""
from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PROJECT_PACKAGES = ("base", "core", "util", "heuristics", "agents")


@dataclass(frozen=True)
class ModuleSource:
    name: str  # dotted module name in the repo, e.g. "core.connectx.position"
    is_package: bool  # an __init__.py
    source: str  # the file's text
    path: str = ""  # where it was read from


class BundleError(ValueError):
    """A module that cannot be bundled (missing, not parsable): the message says which."""


def module_file(root: Path, name: str) -> tuple[Path, bool] | None:
    """The file of module ``name`` under ``root`` and whether it is a package, or None."""
    base = root.joinpath(*name.split("."))
    if (base / "__init__.py").is_file():
        return base / "__init__.py", True
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py"), False
    return None


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (never run)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                for sub in node.body:
                    skip.update(id(n) for n in ast.walk(sub))
    return skip


def _resolve(module: str | None, level: int, name: str, is_package: bool) -> str:
    """Absolute module name of ``from <level dots><module> import ...`` inside module ``name``."""
    if level == 0:
        return module or ""
    parts = name.split(".") if is_package else name.split(".")[:-1]
    if level - 1 > len(parts):
        raise BundleError(f"{name}: relative import goes above the top package")
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imported_names(mod: ModuleSource) -> list[tuple[str, bool]]:
    """Every module name ``mod`` may import (absolute), with whether it must be a module:
    ``from X import y`` gives ``(X, True)`` and ``(X.y, False)`` (y may be a plain name)."""
    tree = ast.parse(mod.source, filename=mod.name)
    skip = _type_checking_nodes(tree)
    out: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.extend((alias.name, True) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module, node.level, mod.name, mod.is_package)
            out.append((base, True))
            out.extend((f"{base}.{alias.name}", False) for alias in node.names if alias.name != "*")
    return out


def import_graph(
    root: Path | dict[str, Path], roots: Iterable[str], packages: Iterable[str] = PROJECT_PACKAGES
) -> tuple[dict[str, ModuleSource], list[str]]:
    """Every project module reachable from ``roots`` by imports (sorted by name), and the
    project modules that are imported but have no file (an optional import in a ``try``,
    or a mistake: the builder warns; validation tells which).

    ``root`` is the folder holding the packages, or a dict from top package name to its folder
    (an agent kept outside the repo); ``packages`` are the top names that count as the project.
    Raises BundleError when a root module has no file or a module does not parse.
    """
    tops = set(packages)
    where = dict(root) if isinstance(root, dict) else {}
    default = None if isinstance(root, dict) else Path(root)

    def locate(name: str) -> tuple[Path, bool] | None:
        folder = where.get(name.split(".")[0], default)
        return None if folder is None else module_file(Path(folder), name)

    found: dict[str, ModuleSource] = {}
    missing: set[str] = set()
    todo = [(name, True) for name in roots]
    for name, _ in todo:
        if locate(name) is None:
            raise BundleError(f"module {name} has no file under {where.get(name.split('.')[0], default)}")
    while todo:
        name, must = todo.pop()
        if name in found or name.split(".")[0] not in tops:
            continue
        located = locate(name)
        if located is None:
            if must:
                missing.add(name)
            continue
        path, is_pkg = located
        mod = ModuleSource(name, is_pkg, path.read_text(encoding="utf-8"), str(path))
        found[name] = mod
        parts = name.split(".")
        todo.extend((".".join(parts[:i]), True) for i in range(1, len(parts)))
        try:
            todo.extend(imported_names(mod))
        except SyntaxError as exc:
            raise BundleError(f"{path}: cannot parse ({exc})") from None
    return dict(sorted(found.items())), sorted(missing - set(found))


def rewrite_imports(source: str, prefix: str, packages: Iterable[str]) -> str:
    """``source`` with every absolute project import moved under ``prefix``, in place.

    ``from core.x import y`` -> ``from P.core.x import y``; ``import core.x as b`` ->
    ``import P.core.x as b``; a bare ``import core.x`` also binds ``core``:
    ``import P.core.x; core = P.core``. Relative imports need no change. Line numbers are kept.
    """
    tops = set(packages)
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str, str]] = []  # (line, col, end col, old, new) on one line
    tails: list[tuple[int, int, str]] = []  # (end line, end col, text) appended after a statement

    def segment_edit(lineno: int, col: int, text: str, old: str, new: str) -> None:
        line = lines[lineno - 1]
        at = line.find(old, col)
        if at < 0:
            raise BundleError(f"cannot rewrite import of {old} at line {lineno}: {line.strip()}")
        edits.append((lineno, at, at + len(old), old, new))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] in tops:
            # the module name follows "from" on the statement's first line or a continuation line
            for ln in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                col = node.col_offset + 4 if ln == node.lineno else 0
                if lines[ln - 1].find(node.module, col) >= 0:
                    segment_edit(ln, col, lines[ln - 1], node.module, f"{prefix}.{node.module}")
                    break
            else:
                raise BundleError(f"cannot find the module name {node.module} at line {node.lineno}")
        elif isinstance(node, ast.Import):
            bare = []
            for alias in node.names:
                if alias.name.split(".")[0] not in tops:
                    continue
                segment_edit(alias.lineno, alias.col_offset, "", alias.name, f"{prefix}.{alias.name}")
                if alias.asname is None:
                    bare.append(alias.name.split(".")[0])
            if bare:
                binds = "".join(f"; {top} = {prefix}.{top}" for top in dict.fromkeys(bare))
                tails.append((node.end_lineno or node.lineno, node.end_col_offset or 0, binds))
    by_line: dict[int, list[tuple[int, int, str]]] = {}
    for lineno, start, end, _old, new in edits:
        by_line.setdefault(lineno, []).append((start, end, new))
    for lineno, end_col, text in tails:
        by_line.setdefault(lineno, []).append((end_col, end_col, text))
    for lineno, changes in by_line.items():
        line = lines[lineno - 1]
        for start, end, new in sorted(changes, reverse=True):
            line = line[:start] + new + line[end:]
        lines[lineno - 1] = line
    out = "".join(lines)
    ast.parse(out)  # the rewrite must stay valid Python
    return out


def dynamic_imports(mod: ModuleSource, packages: Iterable[str] = PROJECT_PACKAGES) -> list[str]:
    """Calls in ``mod`` that name a project module in a string (``importlib.import_module("agents.x")``,
    ``kernels("core.connectx.bitboard", bits)``): such strings are not rewritten, so inside a submission
    they would miss the bundle. Names computed at run time (``value.__module__``) are fine, and
    so is a call whose line says ``# not in submissions`` (a command-line path that a submission
    never takes, kept out of the bundle on purpose)."""
    tops = set(packages)
    out = []
    lines = mod.source.splitlines()
    for node in ast.walk(ast.parse(mod.source)):
        if isinstance(node, ast.Call) and "# not in submissions" not in lines[node.lineno - 1]:
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.split(".")[0] in tops:
                    out.append(f"{mod.name}:{node.lineno} ({arg.value!r})")
    return out


def bundle_prefix(modules: dict[str, ModuleSource], extra: str) -> str:
    """``_connectx_<12 hex>`` from the modules' names and sources and ``extra`` (params, data)."""
    h = hashlib.sha256()
    for name, mod in sorted(modules.items()):
        h.update(name.encode() + b"\0" + mod.source.encode() + b"\0")
    h.update(extra.encode())
    return f"_connectx_{h.hexdigest()[:12]}"
