"""The README's front: exactly two commands for a fresh machine, the ones CI runs first, as written."""
from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands(text: str, tmp_path: Path) -> list[str]:
    path = tmp_path / "README.md"
    path.write_text(text, encoding="utf-8")
    out = subprocess.run(["bash", str(ROOT / ".ci" / "readme_commands"), str(path)], capture_output=True,
                         text=True, check=True)
    return out.stdout.splitlines()


def test_the_readme_starts_with_the_install_and_build_and_the_install_and_test_commands(tmp_path):
    build, test = readme_commands((ROOT / "README.md").read_text(encoding="utf-8"), tmp_path)
    install = "python -m pip install -r requirements.txt -c constraints.txt && python -m pip install --no-deps -r requirements-nodeps.txt"
    assert build.startswith(install) and build.endswith("&& python build_submission.py"), build
    assert test.startswith(install) and "&& python -m pytest" in test, test
    assert "requirements-optional" not in build + test  # the plain install: no extras


def test_the_ci_reads_the_first_two_bash_blocks_only(tmp_path):
    text = "# t\n\n```bash\na && b\n```\n\nsome prose\n\n```python\nx = 1\n```\n\n```bash\n\nc\n```\n\n```bash\nd\n```\n"
    assert readme_commands(text, tmp_path) == ["a && b", "c"]


def test_the_ci_runs_the_readme_commands_before_any_extra_is_installed():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    code = [line for line in ci if line.strip() and not line.lstrip().startswith("#")]
    first_readme = next(i for i, line in enumerate(code) if "README_COMMANDS[@]" in line and line.startswith("for "))
    first_extra = next(i for i, line in enumerate(code) if "requirements-optional" in line or "apt-get" in line)
    venv = next(i for i, line in enumerate(code) if line.startswith('python -m venv "$FRESH"'))
    assert venv < first_readme < first_extra
