"""PNG charts of a tournament: ratings with their intervals, and the cross-table of scores."""
from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np

from base.atomic import write_bytes
from util.arena.ratings import Rating

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Target = str | Path | IO[bytes]
"""Where a chart goes: a file path (written atomically) or a binary file object."""


def _save(fig: Figure, path: Target) -> None:
    """PNG to ``path`` (atomically), or into a binary file object (the web app's responses)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    if isinstance(path, (str, Path)):
        write_bytes(path, buf.getvalue())
    else:
        path.write(buf.getvalue())


def ratings_png(ratings: Sequence[Rating], path: Target, title: str = "Bradley-Terry ratings (Elo, 95% interval)") -> None:
    """Horizontal bars: each player's rating with its interval, strongest at the top."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(ratings))
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.2))
    y = np.arange(len(rows))
    elo = np.array([r.elo for r in rows])
    err = np.array([[r.elo - r.low for r in rows], [r.high - r.elo for r in rows]])
    ax.errorbar(elo, y, xerr=err, fmt="o", capsize=4)
    ax.set_yticks(y, [r.name for r in rows])
    ax.axvline(0.0, color="grey", lw=0.5)
    ax.set_xlabel("Elo (mean 0)")
    ax.set_title(title)
    _save(fig, path)
    plt.close(fig)


def crosstable_png(labels: Sequence[str], games: np.ndarray, scores: np.ndarray, path: Target) -> None:
    """Heat map of the row player's score fraction against the column player, with counts."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(labels)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(games > 0, scores / np.maximum(games, 1), np.nan)
    fig, ax = plt.subplots(figsize=(1.1 * k + 3, 0.8 * k + 2))
    im = ax.imshow(frac, cmap="RdYlGn", vmin=0, vmax=1)
    for i in range(k):
        for j in range(k):
            if games[i, j]:
                ax.text(j, i, f"{scores[i, j]:g}/{games[i, j]:g}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(k), labels, rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    ax.set_title("score of row against column")
    fig.colorbar(im, ax=ax, fraction=0.04)
    _save(fig, path)
    plt.close(fig)
