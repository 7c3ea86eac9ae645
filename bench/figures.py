"""The machine-readable line a benchmark ends with, so that :mod:`bench.ab` can put two commits'
figures side by side: ``FIGURES {"name": value, ...}`` (JSON, numbers only, higher or lower is
the figure's own business; :mod:`bench.ab` prints the ratio after / before of each)."""
from __future__ import annotations

import json
import math

PREFIX = "FIGURES "


def emit(figures: dict[str, float]) -> None:
    """Print the figures line (finite numbers only; others are left out)."""
    clean = {k: float(v) for k, v in figures.items() if isinstance(v, (int, float)) and math.isfinite(v)}
    print(PREFIX + json.dumps(clean, sort_keys=True), flush=True)


def parse(text: str) -> dict[str, float]:
    """The figures of the last ``FIGURES`` line in ``text`` (empty when there is none)."""
    for line in reversed(text.splitlines()):
        if line.startswith(PREFIX):
            return {k: float(v) for k, v in json.loads(line[len(PREFIX):]).items()}
    return {}
