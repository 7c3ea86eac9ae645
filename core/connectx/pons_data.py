"""Where Pascal Pons' benchmark positions are, for tests and benchmarks: ``data/pons/`` in this
repository (public data, provenance and sha256 in ``data/pons/PROVENANCE.md``), or the folder
named by the ``CONNECTX_PONS_DIR`` environment variable. Format: ``<moves> <score>`` a line."""
from __future__ import annotations

import os
from pathlib import Path

PONS = Path(os.environ.get("CONNECTX_PONS_DIR") or Path(__file__).resolve().parents[2] / "data" / "pons")


def pons_lines(name: str) -> list[tuple[str, int]]:
    """``(moves, score)`` of every line of ``Test_<name>`` (``name`` like ``L2_R2``)."""
    out = []
    for line in (PONS / f"Test_{name}").read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            out.append((moves, int(score)))
    return out
