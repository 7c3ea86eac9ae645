"""The opening book as the perfect agent reads it: sorted symmetric keys and a move per entry.

A position and its mirror image share one entry, keyed by ``min(key, mirror_key)`` (exact
keys, :meth:`core.Position.symmetric_key`); the stored move and score are those of the
position whose own key is that minimum, and a lookup from the mirrored side mirrors the move.
Packed numpy arrays (``keys`` int64 sorted, ``moves`` int8, ``scores`` int8) keep the book
small in the submission and a lookup a binary search. Built by ``python -m agents.connectx.book``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from core.connectx.position import Position
from core.connectx.shape import Shape

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


def default_path(shape: Shape) -> Path:
    """Where the book of ``shape`` lives in the repo (``data/book_6x7x4.npz``)."""
    return DATA_DIR / f"book_{shape}.npz"


class BookError(ValueError):
    """A book file or its embedded data is malformed."""


def _reason(exc: BaseException) -> str:
    """Why a book file did not load, in words that fit a damaged file. numpy's own message for
    a file that is not plain arrays suggests ``allow_pickle``, which a book never needs: a
    pickle inside a book file means damage or a foreign file, never a reason to unpickle it."""
    text = str(exc)
    if "pickle" in text.lower():
        return "it is not an .npz of plain arrays (damaged, or not a book file)"
    if isinstance(exc, KeyError):
        return f"it lacks the array {text} (not a book file)"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Book:
    """Immutable lookup table; build one with :meth:`from_entries`, :meth:`load` or :meth:`from_data`."""

    def __init__(self, shape: Shape, keys: np.ndarray, moves: np.ndarray, scores: np.ndarray) -> None:
        self.shape = shape
        self.keys = keys
        self.moves = moves
        self.scores = scores

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @classmethod
    def from_entries(cls, shape: Shape, entries: dict[int, tuple[int, int]]) -> Book:
        """``entries``: symmetric key -> (move in the key's orientation, score)."""
        keys = np.array(sorted(entries), dtype=np.int64)
        moves = np.array([entries[int(k)][0] for k in keys], dtype=np.int8)
        scores = np.array([entries[int(k)][1] for k in keys], dtype=np.int8)
        return cls(shape, keys, moves, scores)

    def lookup(self, position: Position) -> tuple[int, int] | None:
        """``(column, score)`` for ``position`` if the book holds it, else None."""
        if position.shape != self.shape or len(self) == 0:
            return None
        key, mirror = position.key(), position.mirror_key()
        sym = min(key, mirror)
        i = int(np.searchsorted(self.keys, sym))
        if i >= len(self) or int(self.keys[i]) != sym:
            return None
        col = int(self.moves[i])
        if sym != key:
            col = self.shape.columns - 1 - col
        if not position.can_play(col):  # a corrupt entry: ignore it rather than lose the game
            return None
        return col, int(self.scores[i])

    # --- plain data (the submission) and files -----------------------------------------------
    def to_data(self) -> dict[str, Any]:
        s = self.shape
        return {"shape": (s.rows, s.columns, s.inarow), "keys": self.keys, "moves": self.moves, "scores": self.scores}

    @classmethod
    def from_data(cls, data: Any) -> Book:
        """Rebuild from :meth:`to_data`'s output, checking types and lengths (BookError)."""
        try:
            shape = Shape(*(int(x) for x in data["shape"]))
            keys = np.asarray(data["keys"], dtype=np.int64)
            moves = np.asarray(data["moves"], dtype=np.int8)
            scores = np.asarray(data["scores"], dtype=np.int8)
        except (KeyError, TypeError, ValueError) as exc:
            raise BookError(f"book data must hold shape, keys, moves and scores ({exc})") from None
        if not (keys.ndim == moves.ndim == scores.ndim == 1 and len(keys) == len(moves) == len(scores)):
            raise BookError("book arrays must be one-dimensional and of equal length")
        if len(keys) > 1 and not bool(np.all(keys[1:] > keys[:-1])):
            raise BookError("book keys must be sorted and unique")
        if len(moves) and (int(moves.min()) < 0 or int(moves.max()) >= shape.columns):
            raise BookError(f"book moves must be columns 0..{shape.columns - 1}")
        return cls(shape, keys, moves, scores)

    @classmethod
    def load(cls, path: str | Path) -> Book:
        try:
            with np.load(path, allow_pickle=False) as z:
                return cls.from_data({k: z[k] for k in ("shape", "keys", "moves", "scores")})
        except Exception as exc:  # damaged (zip, CRC, truncation), foreign, or missing arrays
            raise BookError(f"cannot read book {path}: {_reason(exc)}; rebuild it with `python -m agents.connectx.book pack`") from None

    def save(self, path: str | Path) -> None:
        """Write atomically (a reader never sees half a book)."""
        import io

        from base.atomic import write_bytes

        buf = io.BytesIO()
        s = self.shape
        np.savez_compressed(buf, shape=np.array([s.rows, s.columns, s.inarow], dtype=np.int64),
                            keys=self.keys, moves=self.moves, scores=self.scores)
        write_bytes(path, buf.getvalue())
