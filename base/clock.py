"""The move budget: Kaggle's clock turned into one absolute ``time.perf_counter()`` deadline.

Kaggle's rules (kaggle-environments 1.33.2, ``Agent.act`` and ``Environment``): each move may
take ``configuration.actTimeout`` seconds (2 by default); time beyond that is taken from a
bank, ``observation.remainingOverageTime`` (60 s for the whole game); the agent times out when
a move overruns what is left of the bank. The obsolete ``configuration.timeout`` and
``agentTimeout`` are never read. The timer runs around the whole call of the agent, and for the
first move it also covers loading the submission file.

Agents never see these numbers: :meth:`ClockPolicy.deadline` gives them an absolute deadline.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

KAGGLE_ACT_TIMEOUT = 2.0  # seconds; Kaggle's default for ConnectX, used when the configuration has no valid actTimeout
RESUME_SECONDS = 0.1  # seconds the move that loaded the agent still gets once it exists (ClockPolicy.resumed)
RT_ACT_TIMEOUT = 5.0  # seconds; Kaggle's default actTimeout for reinforce_tactics (design.md section 9)


@dataclass(frozen=True)
class ClockPolicy:
    """How much of Kaggle's clock one move may use.

    ``margin`` default (0.25 s): kept back from ``actTimeout`` for what Kaggle's timer sees but
    the agent's search does not. Measured with ``python -m bench.kaggle_overhead``: Kaggle's
    in-process wrapper (argument handling, stdout/stderr capture) about 0.01 ms a move; this
    adapter (reading the observation, building the Position, checks) about 0.1 ms, a few ms at
    worst. But when Kaggle runs an agent behind its HTTP agent server
    (``kaggle_environments.main``), every move also rebuilds the environment with
    ``make("connectx")`` inside the caller's timer: 85 ms median, 120 ms worst here, plus the
    HTTP round trip. 0.25 s covers that twice, plus an agent's granularity in checking its
    deadline and scheduler noise. An overrun of actTimeout is not a loss by itself (it comes
    out of the bank), so the margin covers the usual case, not the worst one.

    ``overage_per_move`` (default 0): seconds of the bank a move may add on top of
    ``actTimeout - margin``, for agents that profit from thinking longer in the opening or
    middle game. It is capped so that ``reserve`` seconds of the bank are never planned for:
    the reserve absorbs overruns (a slow first move that loads data or compiles kernels, a
    pause of the machine). With the defaults, a game never plans to touch the bank.

    ``bank_margin`` (default 0.5 s): what :meth:`latest` keeps back from the bank. An agent
    that overruns its deadline on purpose (``perfect`` waiting for numba's compile) must stop
    by :meth:`latest`, never later: a move that overruns what is left of the bank is a timeout,
    a lost game. The margin covers what Kaggle's timer sees beyond the agent's clock, like
    ``margin`` does for ``actTimeout``.
    """

    margin: float = 0.25  # seconds kept back from actTimeout (see above)
    overage_per_move: float = 0.0  # seconds of the bank a move may plan to use
    reserve: float = 15.0  # seconds of the bank never planned for
    min_budget: float = 0.02  # floor of a budget, so a move with no time left still gets to the fallback rule
    bank_margin: float = 0.5  # seconds of the bank no move may use, even on purpose (see latest())

    def __post_init__(self) -> None:
        for name in ("margin", "overage_per_move", "reserve", "min_budget", "bank_margin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"ClockPolicy.{name} must be a finite number >= 0, got {value!r}")

    def budget(self, act_timeout: float, remaining_overage: float) -> float:
        """Seconds this move may take, counted from when Kaggle's timer started."""
        base = max(0.0, act_timeout - self.margin)
        extra = min(self.overage_per_move, max(0.0, remaining_overage - self.reserve))
        return max(self.min_budget, base + extra)

    def deadline(self, started: float, act_timeout: float, remaining_overage: float) -> float:
        """Absolute ``perf_counter()`` deadline for a move whose timer started at ``started``."""
        return started + self.budget(act_timeout, remaining_overage)

    def latest(self, started: float, act_timeout: float, remaining_overage: float) -> float:
        """The latest ``perf_counter()`` time a move whose timer started at ``started`` may end
        when it overruns its deadline on purpose: ``actTimeout - margin`` plus the bank less
        ``bank_margin``; never before :meth:`deadline`. Every wait past a deadline stops here."""
        hard = max(0.0, act_timeout - self.margin) + max(0.0, remaining_overage - self.bank_margin)
        return started + max(self.budget(act_timeout, remaining_overage), hard)

    def resumed(self, started: float, ready: float, act_timeout: float, remaining_overage: float) -> float:
        """The deadline of a move whose timer started at ``started`` but whose agent could only
        start thinking at ``ready``: on Kaggle the first call's timer also covers loading the
        file and creating the agent (importing numba, allocating tables, unpacking the book),
        which at a short ``actTimeout`` took the whole budget (at 0.5 s the first move had
        nothing left and the fast rule played). The move gets at least :data:`RESUME_SECONDS`
        (or its whole :meth:`budget`, if shorter) from ``ready``, the overrun paid from the bank,
        never past :meth:`latest`; never earlier than :meth:`deadline`. Only that little: enough
        for a book move, or for an agent that waits for its compile from the bank anyway
        (``perfect``); a longer grant made the first move of a fresh process at load 20 take
        2.65 s, over the 2 s ``actTimeout`` the builder's validation holds it to."""
        ordinary = self.deadline(started, act_timeout, remaining_overage)
        latest = self.latest(started, act_timeout, remaining_overage)
        grant = min(RESUME_SECONDS, self.budget(act_timeout, remaining_overage))
        return max(ordinary, min(ready + grant, latest))


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None when it is not a real number."""
    if isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return x if math.isfinite(x) else None


def read_field(obj: Any, key: str) -> Any:
    """``obj[key]`` or ``obj.key`` (Kaggle passes dict-like Structs; users pass either), or
    None. Never raises, whatever ``obj`` is."""
    try:
        if isinstance(obj, dict):
            return obj.get(key)
    except Exception:
        return None
    try:
        return getattr(obj, key, None)
    except Exception:
        return None


def kaggle_times(observation: Any, configuration: Any, default_act: float = KAGGLE_ACT_TIMEOUT) -> tuple[float, float]:
    """``(actTimeout, remainingOverageTime)`` in seconds, read defensively.

    A missing or invalid ``actTimeout`` counts as the game's Kaggle default ``default_act``
    (ConnectX 2 s, :data:`KAGGLE_ACT_TIMEOUT`; Reinforce Tactics 5 s, :data:`RT_ACT_TIMEOUT`); a missing or invalid
    bank counts as empty (0 s), so that a bad observation never makes us plan on time we may not
    have. Negative values count as 0.
    """
    act = _number(read_field(configuration, "actTimeout"))
    bank = _number(read_field(observation, "remainingOverageTime"))
    return (default_act if act is None else max(0.0, act), 0.0 if bank is None else max(0.0, bank))


KAGGLE_OVERAGE = 60.0  # seconds; the bank kaggle-environments 1.33.2 gives ConnectX and Reinforce Tactics alike


def kaggle_overage(env: str) -> float:
    """The overage bank a game of kaggle-environments' environment ``env`` starts with: the
    default of ``observation.remainingOverageTime`` in the environment's own specification file
    (``envs/<env>/<env>.json``; 60 s for ``connectx`` and ``reinforce_tactics``), read without
    importing kaggle-environments; :data:`KAGGLE_OVERAGE` when the file is missing or unreadable."""
    import importlib.util
    import json
    from pathlib import Path

    try:
        found = importlib.util.find_spec("kaggle_environments")
        folders = list(found.submodule_search_locations or []) if found else []
        for folder in folders:
            spec_file = Path(folder) / "envs" / env / f"{env}.json"
            if spec_file.is_file():
                field = json.loads(spec_file.read_text(encoding="utf-8"))["observation"]["remainingOverageTime"]
                value = _number(field.get("default") if isinstance(field, dict) else field)
                if value is not None and value >= 0:
                    return value
    except (ImportError, ValueError, KeyError, TypeError, OSError):
        pass
    return KAGGLE_OVERAGE


class KaggleBank:
    """Kaggle's clock of one agent for one game, as kaggle-environments 1.33.2 keeps it
    (``Agent.act`` and ``Environment.__loop_through_interpreter``): each call may take
    ``act_timeout`` seconds; what it takes beyond that comes out of the bank; a call that takes
    more than ``act_timeout`` plus what the bank held when it started is a timeout (Kaggle's
    ``DeadlineExceeded``, a lost game). The first call's time includes loading the file, since
    kaggle-environments loads an agent file inside the first timed call (``build_agent``'s
    ``callable_agent``). The arena's game loop charges an agent file's moves here
    (:func:`util.arena.match.play`), and the file reads :attr:`left` as its
    ``remainingOverageTime``."""

    def __init__(self, act_timeout: float, overage: float) -> None:
        self.act_timeout = float(act_timeout)  # seconds a call may take without touching the bank
        self.overage = float(overage)  # seconds in the bank when the game starts
        self.reset()

    def reset(self) -> None:
        """A new game: the bank full again."""
        self.bank = self.overage  # seconds left; negative once a call overran it
        self.started_with = self.overage  # the bank when the current call (or turn) started

    @property
    def left(self) -> float:
        """The bank the next call is told (``remainingOverageTime``), never negative."""
        return max(0.0, self.bank)

    def spend(self, used: float, first: bool = True) -> bool:
        """Charge a call that has taken ``used`` seconds; ``first``: False when ``used`` is the
        running total of a turn whose earlier decisions were charged already (the arena's
        decisions of one Kaggle call). Returns False when the call ran past ``act_timeout`` plus
        the bank it started with: the agent timed out."""
        if first:
            self.started_with = self.bank
        self.bank = self.started_with - max(0.0, used - self.act_timeout)
        return self.bank >= 0.0
