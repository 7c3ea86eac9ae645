"""ConnectX's hook for the arena's ``--engine kaggle``: one of its agents as Kaggle's
``agent(obs, config)`` (:data:`agents.connectx.registry.KAGGLE_ADAPTER`)."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from core.connectx.position import Position
from core.connectx.shape import Shape


def kaggle_adapter(agent: Any) -> Callable[[Any, Any], int]:
    """``agent`` (a :class:`agents.connectx.base.PositionAgent`) behind the adapter a submission
    uses (:mod:`agents.connectx.kaggle`: Kaggle's clock, never raises), or a plain one when that
    module cannot be imported."""
    try:
        from agents.connectx.kaggle import kaggle_agent
    except ImportError:
        return lambda obs, config: plain_adapter(agent, obs, config)
    # No numba retry: it would switch this whole worker process to pure Python.
    return kaggle_agent(lambda: agent, verbose=False, numba_retry=False)


def plain_adapter(agent: Any, obs: Any, config: Any) -> int:
    """``agent``'s column for Kaggle's observation, 90% of ``actTimeout`` to think."""
    start = time.perf_counter()
    shape = Shape(int(config["rows"]), int(config["columns"]), int(config["inarow"]))
    pos = Position.from_board(list(obs["board"]), shape, obs["mark"])
    return int(agent.choose_position(pos, start + 0.9 * float(config["actTimeout"])))
