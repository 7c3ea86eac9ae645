"""Agents for the compiled worker's tests (tests/test_build_submission_rt.py), imported by a
worker process started on the repo (``root`` header): cheap stand-ins for greedy with ``jit=True``
whose warm-up and planning fail in chosen ways."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass

from agents.reinforce_tactics.random_turn import RandomTurnAgent


@dataclass
class Gated(RandomTurnAgent):
    """Ready once the file ``gate`` exists (a compile the test ends when it chooses); ``fail``:
    the warm-up raises instead, ``hang``: planning never answers, ``die``: planning kills the worker."""

    gate: str = ""  # file whose existence ends the warm-up ("" : at once)
    fail: bool = False  # the warm-up raises (a compile error)
    hang: bool = False  # plan_labels sleeps for an hour
    die: bool = False  # plan_labels ends the process
    jit: bool = False  # True would have the worker label plans by the compiled rules (a real compile: not here)

    def warm_up(self) -> float:
        while self.gate and not os.path.exists(self.gate):
            time.sleep(0.05)
        if self.fail:
            raise RuntimeError("planned compile failure")
        return 0.0

    def plan_labels(self, state, deadline):
        if self.hang:
            time.sleep(3600)
        if self.die:
            os._exit(1)
        return super().plan_labels(state, deadline)
