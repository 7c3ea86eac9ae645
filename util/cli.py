"""Shared pieces of the command-line tools: bad input gets one line on stderr and exit code 2."""
from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from core.shape import Shape


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (``prog: error: ...``), exit 2, no usage dump."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def shape_type(text: str) -> Shape:
    """argparse type for ``ROWSxCOLUMNSxINAROW``."""
    try:
        return Shape.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    """argparse type for an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive integer")
    return value
