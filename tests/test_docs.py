"""The docs name what exists: every ``python -m X`` (a module of ours as a file on disk), every
``python FILE.py`` and every relative link (its target, the ``#anchor`` not checked) in the README,
CONTRIBUTING.md, submissions/README.md, data/README.md and docs/*.md; and one index of the pages
(the README's "Documentation" table, which docs/README.md points to). Static: nothing runs."""
from __future__ import annotations

import re
from pathlib import Path

from tests.test_layout import ROOT

EXTERNAL = {"pip", "pytest", "venv", "mypy", "ruff"}  # other people's modules the docs run
MODULE = re.compile(r"\bpython3? -m ([A-Za-z_][\w.]*\w)")
SCRIPT = re.compile(r"\bpython3? ([\w./-]+\.py)\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def doc_pages(root: Path = ROOT) -> list[Path]:
    named = [root / n for n in ("README.md", "CONTRIBUTING.md", "submissions/README.md", "data/README.md")]
    return [p for p in named if p.is_file()] + sorted((root / "docs").glob("*.md"))


def module_exists(name: str, root: Path = ROOT) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__main__.py").is_file()


def missing(page: Path, root: Path = ROOT) -> list[str]:
    """What ``page`` names that does not exist, one line each."""
    text = page.read_text(encoding="utf-8")
    where = page.relative_to(root)
    out = []
    for name in MODULE.findall(text):
        # a placeholder (``python -m bench.NAME``) names no module
        if name.split(".")[0] not in EXTERNAL and not any(part.isupper() for part in name.split(".")) \
                and not module_exists(name, root):
            out.append(f"{where}: python -m {name}: no such module")
    for script in SCRIPT.findall(text):
        if not (root / script).is_file():
            out.append(f"{where}: python {script}: no such file")
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor of the page itself
        if not (page.parent / target.split("#")[0]).exists():
            out.append(f"{where}: link {target}: no such file")
    return out


def index_links(root: Path = ROOT) -> set[Path]:
    """The pages the README's "Documentation" table links to."""
    text = (root / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    return {(root / t.split("#")[0]).resolve() for t in LINK.findall(section) if not re.match(r"[a-z]+:", t)}


def test_every_command_and_link_in_the_docs_exists():
    pages = doc_pages()
    assert len(pages) >= 10 and ROOT / "docs" / "architecture.md" in pages
    assert [line for page in pages for line in missing(page)] == []


def test_the_readme_indexes_every_page_and_docs_readme_points_to_it():
    listed = index_links()
    pages = [p for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "README.md"]
    assert [p.name for p in pages if p.resolve() not in listed] == []
    assert "../README.md#documentation" in (ROOT / "docs" / "README.md").read_text(encoding="utf-8")


def test_the_check_finds_a_missing_module_script_and_link(tmp_path):
    (tmp_path / "agents" / "engine").mkdir(parents=True)
    (tmp_path / "agents" / "engine" / "solve.py").write_text("")
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "__main__.py").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("")
    page = tmp_path / "docs" / "b.md"
    page.write_text("Run `python -m agents.engine.solve`, `python -m core --list`, `python -m pip install x`,\n"
                    "`python -m bench.NAME`, `python -m agents.engine.solver`, `python build.py`;\n"
                    "see [a](a.md#top), [here](#x), [web](https://example.org), [gone](gone.md).\n")
    assert missing(page, tmp_path) == ["docs/b.md: python -m agents.engine.solver: no such module",
                                       "docs/b.md: python build.py: no such file",
                                       "docs/b.md: link gone.md: no such file"]
