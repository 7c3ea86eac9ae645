"""The tail of a Reinforce Tactics submission file: what :mod:`base.bundle_file` renders after
the embedded modules and the bundle loader (this module's source below its mark), ending with
Kaggle's entry point ``agent(observation, configuration)``, the file's last callable.

It installs the bundle, starts the compiled worker when the file names one (``_WORKER``:
:mod:`agents.reinforce_tactics.jit_worker`) and numba is here, builds
:class:`agents.reinforce_tactics.kaggle_agent.RTKaggleAdapter` around the agent, and answers
every observation with a list of action dicts; should the bundle itself fail to load,
``[{"type": "end_turn"}]``. Not imported by the toolkit: the names declared above the mark are
the file's literals (base.bundle_file.render).
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
_SOURCES: dict[str, tuple[bool, str]] = {}
_LOAD_STARTED = 0.0  # time.perf_counter() when the file began to load
_WORKER: dict[str, Any] | None = None  # the compiled worker's agent (None: none)

# --- rendered from here: the end of every Reinforce Tactics submission file


def _make_adapter():
    import importlib

    install_bundle(_PREFIX, _SOURCES)
    rt = importlib.import_module(_PREFIX + ".agents.reinforce_tactics.kaggle_agent")
    clock = importlib.import_module(_PREFIX + ".base.clock")

    def factory(game):
        cls = getattr(importlib.import_module(_PREFIX + "." + _AGENT_MODULE), _AGENT_CLASS)
        return cls(game=game, **_PARAMS)

    return rt.RTKaggleAdapter(factory, policy=clock.ClockPolicy(**_CLOCK), started_at=_LOAD_STARTED, worker=_start_worker())


def _start_worker():
    """The compiled planner in a second process (_WORKER: the agent with jit on), or None: no
    numba here, built without one, or it could not start (the factory's agent then plans plain)."""
    if _WORKER is None:
        return None
    import importlib

    try:
        jw = importlib.import_module(_PREFIX + ".agents.reinforce_tactics.jit_worker")
        if not jw.numba_present():
            return None
        return jw.shared_worker(dict(_WORKER, prefix=_PREFIX, sources=_SOURCES), nice=_WORKER.get("nice", jw.NICE))
    except Exception as exc:
        _sys.stderr.write(f"[rt] NOTE no compiled worker ({type(exc).__name__}: {exc}); planning plain\n")
        return None


def _last_resort(observation, configuration):
    """Used only if the bundle itself cannot load: end the turn."""
    return [{"type": "end_turn"}]


try:
    _ADAPTER = _make_adapter()
except Exception as _exc:  # a broken bundle: still answer, and say so in Kaggle's logs
    _sys.stderr.write(f"[rt] ERROR the bundled modules failed to load ({type(_exc).__name__}: {_exc})\n")
    _ADAPTER = _last_resort


def agent(observation, configuration):
    """Kaggle's entry point: always a list of dicts (a non-dict entry forfeits), at least end_turn."""
    try:
        out = _ADAPTER(observation, configuration)
        if isinstance(out, list) and all(type(d) is dict for d in out):
            return out
        _sys.stderr.write(f"[rt] ERROR the adapter answered {out!r}; ending the turn\n")
    except BaseException as exc:  # noqa: BLE001 (nothing may escape to Kaggle)
        _sys.stderr.write(f"[rt] ERROR {type(exc).__name__}: {exc}; ending the turn\n")
    return [{"type": "end_turn"}]
