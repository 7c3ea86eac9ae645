"""The tail of a ConnectX submission file: what :mod:`base.bundle_file` renders after the
embedded modules and the bundle loader (this module's source below its mark), ending with
Kaggle's entry point ``agent(observation, configuration)``, the file's last callable.

It installs the bundle, builds :class:`agents.connectx.kaggle.KaggleAdapter` around the agent
(created on the adapter's first call) and answers every observation; should the bundle itself
fail to load, :func:`_last_resort` plays the most central legal column. Not imported by the
toolkit: the names declared above the mark are the file's literals (base.bundle_file.render).
"""
from __future__ import annotations

import sys as _sys
from typing import Any

from base.bundle_loader import install_bundle

_PREFIX = ""  # the bundle's private package
_AGENT_MODULE = ""
_AGENT_CLASS = ""
_PARAMS: dict[str, Any] = {}
_CLOCK: dict[str, float] = {}
_DATA: str | None = None  # the agent's packed data (base.codec)
_SOURCES: dict[str, tuple[bool, str]] = {}
_LOAD_STARTED = 0.0  # time.perf_counter() when the file began to load

# --- rendered from here: the end of every ConnectX submission file


def _make_agent():
    import importlib

    cls = getattr(importlib.import_module(_PREFIX + "." + _AGENT_MODULE), _AGENT_CLASS)
    return cls(**_PARAMS)


def _make_adapter():
    import importlib

    install_bundle(_PREFIX, _SOURCES)
    kaggle = importlib.import_module(_PREFIX + ".agents.connectx.kaggle")
    clock = importlib.import_module(_PREFIX + ".base.clock")
    return kaggle.KaggleAdapter(_make_agent, policy=clock.ClockPolicy(**_CLOCK), packed_data=_DATA, started_at=_LOAD_STARTED)


def _last_resort(observation, configuration):
    """Used only if the bundle itself cannot load: the most central column whose top cell is
    empty (Kaggle's legality test), else 0. Never raises."""
    try:
        get = lambda obj, key: obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)
        board, columns = list(get(observation, "board") or ()), int(get(configuration, "columns") or 0)
        order = sorted(range(min(columns, len(board))), key=lambda c: (abs(c - (columns - 1) / 2), c))
        return next((c for c in order if board[c] == 0), 0)
    except Exception:
        return 0


try:
    _ADAPTER = _make_adapter()
except Exception as _exc:  # a broken bundle: still answer, and say so in Kaggle's logs
    _sys.stderr.write(f"[connectx] ERROR the bundled modules failed to load ({type(_exc).__name__}: {_exc})\n")
    _ADAPTER = _last_resort


def agent(observation, configuration):
    """Kaggle's entry point: always a plain int, a legal column whenever one exists."""
    return _ADAPTER(observation, configuration)
