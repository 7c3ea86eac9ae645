"""Perfect Quixo on the solved sizes: the retrograde table's best action (quickest win, else a
draw, else the slowest loss), alpha-beta elsewhere.

3×3 is solved when first needed (plain Python, about 2 s; the compiled solver would spend
longer compiling); 4×4 loads ``data/quixo_4x4.npz`` (``python -m core.quixo.retrograde --size 4``
writes it). 5×5, or a table that cannot be loaded (one line on stderr says why), plays the
``fallback`` agent. Loaded tables are read-only and cached per process (one copy of 43 MB
however many agents use it).
"""
from __future__ import annotations

import functools
import io
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from agents.engine.info import SearchInfo
from agents.engine.spec import AGENT_SPEC
from core.game import State

DEFAULT_TABLES = {4: Path(__file__).resolve().parents[2] / "data" / "quixo_4x4.npz"}


@functools.lru_cache(maxsize=4)
def load_table(n: int, path: str = "") -> Any:
    """The :class:`core.quixo.retrograde.Table` of the n×n board: solved now for n = 3, read from
    ``path`` (or the default file) for n = 4. Raises OSError/ValueError when it cannot."""
    import numpy as np

    from core.quixo.retrograde import Table, pack, solve

    if path:
        try:
            return Table(path)
        except OSError:
            raise
        except Exception as exc:  # a damaged or foreign file: BadZipFile, EOFError, KeyError, ...
            raise ValueError(f"cannot read table {path}: {exc}") from None
    if n == 3:
        sol = solve(3, jit=False)
        code, bad = pack(sol, jit=False)
        if bad:
            raise ValueError(f"3×3 solve: {bad} states differ from their symmetric images")
        buf = io.BytesIO()
        np.savez(buf, code=code, n=np.int64(3))
        buf.seek(0)
        return Table(buf)
    if n in DEFAULT_TABLES:
        return Table(DEFAULT_TABLES[n])
    raise ValueError(f"no retrograde table for {n}×{n} Quixo (only 3×3 and 4×4 are solved)")


@dataclass
class QuixoPerfectAgent:
    """The table's move on 3×3 and 4×4; ``fallback`` on 5×5 or when the table cannot be read (a
    table the spec names must exist when the agent is built: :func:`agents.registry.spec_tree`)."""

    game: Any = None  # the core.quixo.Quixo played (set by the registry)
    table: str = ""  # npz of the board's table (empty: data/quixo_4x4.npz on 4×4, solved on the fly on 3×3)
    fallback: str = field(default="alphabeta", metadata=AGENT_SPEC)  # agent spec played without a table (5×5, missing file)

    games: ClassVar[tuple[str, ...]] = ("quixo",)
    _table: Any = field(default=None, init=False, repr=False)
    _fallback: Any = field(default=None, init=False, repr=False)
    _tried: bool = field(default=False, init=False, repr=False)
    _info: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.table and not self.table.endswith(".npz"):
            raise ValueError(f"table {self.table!r} must be an .npz written by python -m core.quixo.retrograde")

    def _load(self) -> Any:
        if not self._tried:
            self._tried = True
            n = self.game.n
            if self.table or n in (3, 4):
                try:
                    self._table = load_table(n, self.table)
                except (OSError, ValueError, KeyError) as exc:
                    print(f"[quixo_perfect] no table for {n}×{n} ({exc}); playing {self.fallback}", file=sys.stderr)
                else:
                    if self._table.n != n:
                        print(f"[quixo_perfect] {self.table} is a {self._table.n}×{self._table.n} table, not {n}×{n}; "
                              f"playing {self.fallback}", file=sys.stderr)
                        self._table = None
        return self._table

    def load_data(self) -> None:
        """Read a table the spec names now (the arena's check before the first game): ValueError
        when it is missing, damaged or of another board (without a named table: the shipped one,
        or the fallback, as in play)."""
        if self.table:
            table = load_table(self.game.n, self.table)
            if table.n != self.game.n:
                raise ValueError(f"{self.table} is a {table.n}×{table.n} table, not {self.game.n}×{self.game.n}")

    def warm_up(self) -> None:
        """Load the table (or build the fallback and warm it up: compile its kernels) now rather
        than in the first move."""
        if self._load() is None:
            warm = getattr(self._fallback_agent(), "warm_up", None)
            if callable(warm):
                warm()

    def _fallback_agent(self) -> Any:
        if self._fallback is None:
            from agents.registry import make

            self._fallback = make(self.fallback, self.game)
        return self._fallback

    def reset(self) -> None:
        if self._fallback is not None and hasattr(self._fallback, "reset"):
            self._fallback.reset()

    def choose(self, state: State, deadline: float) -> int:
        t0 = time.perf_counter()
        table = self._load()
        if table is None:
            action = self._fallback_agent().choose(state, deadline)
            self._info = dict(self._fallback.info()) if hasattr(self._fallback, "info") else {}
            self._info["fallback"] = self.fallback
            return action
        action, scores = table.best_action(state)
        value, plies = scores[action]
        self._info = {"action_values": {a: float(v) for a, (v, _d) in scores.items()},
                      "plies_to_end": {a: d for a, (v, d) in scores.items() if v},
                      "value": float(value), "exact": True, "pv": [action],
                      "seconds": time.perf_counter() - t0}
        if value:
            self._info["plies"] = plies
        return action

    def info(self) -> SearchInfo:
        return SearchInfo.from_dict(self._info)
