"""A command's ``main(argv)`` as a test sees it: its exit code, returned or raised (argparse
exits through SystemExit)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def exit_code(main: Callable[[list[str]], Any], argv: list[str]) -> object:
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code
