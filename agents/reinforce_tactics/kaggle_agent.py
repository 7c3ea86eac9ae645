"""Kaggle's Reinforce Tactics ``agent(observation, configuration) -> list of action dicts``
around any of our agents, never raising.

:class:`RTKaggleAdapter` reads the observation into our game and state (the game's map is the
observation's ``board``, so a seed's terrain flips come along; ``episodeSteps`` from the
configuration), creates the agent for that game (once per board), notices a new game (calls
``reset()``), takes the deadline from Kaggle's clock (:mod:`base.clock`: ``actTimeout`` 5 s
and the bank), asks the agent for the turn (``plan_labels(state, deadline)`` of
:class:`agents.engine.turn_plan.TurnPlanAgent`; an agent with only ``choose`` is asked one
decision at a time until it ends the turn) and turns the plan into Kaggle's action dicts.

Before answering it replays the plan on our rules and keeps only what the engine executes: an
entry that is not legal where it stands is dropped (Kaggle would skip it); after a Rogue's attack
(the engine draws the evasion after the list is committed) an entry is kept only where it is
legal whichever way the dice fall; the list stops at the end of the game; ``{"type": "end_turn"}`` closes it. Our legal actions
equal the engine's (tests/test_reinforce_tactics_oracle.py), so no entry sent is skipped.

Whatever goes wrong (an observation that is not a Reinforce Tactics position: missing keys,
wrong types, a unit on water or off the board, two units on a cell; an agent that raises or
answers nonsense; no time left), the answer is a list of dicts, at least
:data:`END_TURN_ONLY`. Problems are written to stderr as one line starting ``[rt] ERROR``
(Kaggle keeps an agent's stderr in the episode's logs; validation fails on them) or
``[rt] LATE``.
"""
from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable, Hashable
from typing import Any

from base.clock import RT_ACT_TIMEOUT, ClockPolicy, kaggle_times, read_field
from core.game import State
from core.reinforce_tactics import ReinforceTactics
from core.reinforce_tactics.kaggle import OBS_FIELDS
from core.reinforce_tactics.layout import TILE_CODES, UNIT_CODES, H, W

END_TURN_ONLY: list[dict] = [{"type": "end_turn"}]
EPISODE_STEPS = (2, 100_000)  # accepted range of configuration.episodeSteps (Kaggle's default 200)
VALUE_MAX = 10_000  # largest hit points, gold/1000, counter or turn number an observation may hold
MAX_BOARDS = 4  # games on different boards kept (a Kaggle process plays one; a local one may play many)
MAX_LINES = 8  # lines of dice a checked turn follows (a Rogue's attack doubles them); then it is cut
MAX_DECISIONS = 400  # decisions one turn may hold when built through choose() (50 units, a few acts each)


def _int(value: Any, lo: int, hi: int) -> int:
    """``value`` as an int in [lo, hi] (bools count as 0/1); ValueError otherwise."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not lo <= int(value) <= hi:
        raise ValueError(f"{value!r} is not an integer in [{lo}, {hi}]")
    return int(value)


def board_code(board: Any) -> str:
    """The 400 tile letters of an observation's ``board`` (20 rows of 20 codes such as ``p``,
    ``h``, ``b_1``); ValueError for anything else."""
    if not isinstance(board, (list, tuple)) or len(board) != H:
        raise ValueError("board is not a list of 20 rows")
    out = []
    for row in board:
        if not isinstance(row, (list, tuple)) or len(row) != W:
            raise ValueError("a board row is not a list of 20 cells")
        for cell in row:
            kind = cell.split("_")[0] if isinstance(cell, str) else ""
            if len(kind) != 1 or kind not in TILE_CODES:
                raise ValueError(f"board cell {cell!r} is not a tile code of {TILE_CODES!r}")
            out.append(kind)
    return "".join(out)


def check_observation(obs: Any, code: str) -> None:
    """ValueError unless the observation's units and counters are a position the rules can hold
    on the board ``code`` (:func:`board_code`): what
    :func:`core.reinforce_tactics.kaggle.state_from_observation` does not check itself."""
    _int(read_field(obs, "player"), 0, 1)
    _int(read_field(obs, "turnNumber"), 0, VALUE_MAX)
    gold = read_field(obs, "gold")
    if not isinstance(gold, (list, tuple)) or len(gold) != 2:
        raise ValueError("gold is not a pair")
    for x in gold:
        _int(x, 0, VALUE_MAX * 1000)
    units = read_field(obs, "units")
    structures = read_field(obs, "structures")
    if not isinstance(units, list) or not isinstance(structures, list):
        raise ValueError("units or structures is not a list")
    cells = set()
    for u in units:
        if not isinstance(u, dict) or u.get("type") not in tuple(UNIT_CODES):
            raise ValueError(f"unit {u!r} has no known type")
        _int(u.get("owner"), 1, 2)
        c = _int(u.get("y"), 0, H - 1) * W + _int(u.get("x"), 0, W - 1)
        if c in cells or code[c] in "wo":
            raise ValueError(f"a unit on water, ocean or another unit at {c % W},{c // W}")
        cells.add(c)
        _int(u.get("hp"), 1, VALUE_MAX)
        for key, _ in OBS_FIELDS:
            _int(u.get(key), 0, VALUE_MAX)
    for st in structures:
        if not isinstance(st, dict):
            raise ValueError(f"structure {st!r} is not a dict")
        _int(st.get("x"), 0, W - 1), _int(st.get("y"), 0, H - 1), _int(st.get("hp"), 0, VALUE_MAX)
        _int(st.get("owner") or 0, 0, 2)


class RTKaggleAdapter:
    """A callable ``(observation, configuration) -> list of action dicts`` around one agent.
    One adapter per seat (a submission file makes one when it loads); not thread-safe."""

    def __init__(self, factory: Callable[[Any], Any], *, policy: ClockPolicy | None = None,
                 started_at: float | None = None, verbose: bool = True, worker: Any = None) -> None:
        """
        factory: ``factory(game) -> agent`` for a :class:`ReinforceTactics` game (called once per board).
        policy: the turn's budget from Kaggle's clock; ClockPolicy() by default.
        started_at: perf_counter() when the submission file started loading (the first turn's
            timer may cover loading; counted from there while within one budget, as ConnectX's adapter does).
        verbose: write ERROR/LATE lines to stderr.
        worker: a compiled planner in another process
            (:class:`agents.reinforce_tactics.jit_worker.CompiledWorker`: ``plan(board, steps,
            words, deadline, new_game) -> labels or None``); a turn it answers is its plan, else
            the factory's agent plans (plain). None: the factory's agent always.
        """
        self.worker = worker
        self.last_path = ""  # who planned the last turn: "worker", "agent" or "" (no plan)
        self._worker_was_ready = False  # the worker said ready once (a turn it does not plan from then on is a fallback)
        self._wait_from = float(getattr(worker, "started", time.perf_counter()))  # when the worker (or this adapter) started
        self._factory = factory
        self.policy = policy if policy is not None else ClockPolicy()
        self._started_at = started_at
        self._verbose = verbose
        self._boards: dict[tuple[str, int], ReinforceTactics] = {}  # (board, episodeSteps) -> game
        self._agent_game: ReinforceTactics | None = None  # the game self._agent_now plays
        self._agent_now: Any = None
        self._last: tuple[str, int, int] | None = None  # (board, player, step) of the last turn
        self._calls = 0
        # Who planned each turn the agent was asked for (validation reads them: util/bundle_validate_rt.py):
        # worker_turns by the compiled worker; plain_turns by the plain agent before the worker was ready
        # (or with none); fallback_turns not by the worker although it had been ready (it failed, or no time was left);
        # worker_wait_s: seconds from the worker's start (or this adapter's) to the last turn planned plain before it was ready.
        self.stats = {"turns": 0, "games": 0, "fallbacks": 0, "errors": 0, "late": 0, "dropped": 0, "worker_turns": 0,
                      "plain_turns": 0, "fallback_turns": 0, "worker_wait_s": 0.0}
        self.worker_stopped = ""  # why the compiled worker was stopped, once it was ('' while it may serve)

    def __call__(self, observation: Any, configuration: Any = None) -> list[dict]:
        now = time.perf_counter()
        started = now
        act, bank = kaggle_times(observation, configuration, RT_ACT_TIMEOUT)
        if self._calls == 0 and self._started_at is not None and 0 <= now - self._started_at < self.policy.budget(act, bank):
            started = self._started_at
        self._calls += 1
        self.stats["turns"] += 1
        try:
            return self._turn(observation, configuration, self.policy.deadline(started, act, bank))
        except Exception as exc:  # a bug here or in the agent: still answer
            self.stats["fallbacks"] += 1
            self._log("ERROR", f"turn failed ({type(exc).__name__}: {exc}); ending the turn", trace=True)
            return [dict(d) for d in END_TURN_ONLY]

    # --- one turn --------------------------------------------------------------------------
    def _turn(self, obs: Any, config: Any, deadline: float) -> list[dict]:
        try:
            code = board_code(read_field(obs, "board"))
            steps = read_field(config, "episodeSteps")
            steps = 200 if steps is None else _int(steps, *EPISODE_STEPS)
            check_observation(obs, code)
            game = self._game(code, steps)
            state = game.from_observation(obs)
        except Exception as exc:
            self.stats["fallbacks"] += 1
            self._log("ERROR", f"not a Reinforce Tactics position ({type(exc).__name__}: {exc}); ending the turn")
            return [dict(d) for d in END_TURN_ONLY]
        if state.is_terminal() or state.is_chance_node():
            return [dict(d) for d in END_TURN_ONLY]
        agent = self._agent(game)
        if agent is None:
            self.stats["fallbacks"] += 1
            return [dict(d) for d in END_TURN_ONLY]
        new_game = self._notice_game(agent, code, state)
        self.last_path = ""
        labels = self._by_worker(code, steps, state, deadline, new_game)
        if labels is None:
            self._count_plain()
            if time.perf_counter() >= deadline:
                self.stats["late"] += 1
                self._log("LATE", "no time left before the agent could plan; ending the turn")
                return [dict(d) for d in END_TURN_ONLY]
            labels = self._plan(agent, state, deadline)
            self.last_path = "agent"
        late = time.perf_counter() - deadline
        if late > 0:
            self.stats["late"] += 1
            self._log("LATE", f"the plan came {late * 1000:.0f} ms after the deadline (turn {self.stats['turns']})")
        return self.checked(game, state, labels)

    def _count_plain(self) -> None:
        """Count a turn the worker did not plan (``stats``: plain before it was ready, or a fallback after)."""
        if self._worker_was_ready:
            self.stats["fallback_turns"] += 1
        else:
            self.stats["plain_turns"] += 1
            self.stats["worker_wait_s"] = time.perf_counter() - self._wait_from

    def _game(self, code: str, steps: int) -> ReinforceTactics:
        """The game on board ``code`` (the last few kept: a Kaggle process plays one game)."""
        key = (code, steps)
        if key not in self._boards:
            if len(self._boards) >= MAX_BOARDS:
                self._boards.pop(next(iter(self._boards)))
            self._boards[key] = ReinforceTactics(board=code, episode_steps=steps)
        return self._boards[key]

    def _agent(self, game: ReinforceTactics) -> Any:
        """The agent for ``game``: made by the factory once per game; None when that failed
        (logged once; the turns of that game then end at once)."""
        if self._agent_game is not game:
            self._agent_game = game
            try:
                self._agent_now = self._factory(game)
            except Exception as exc:
                self._agent_now = None
                self._log("ERROR", f"could not create the agent ({type(exc).__name__}: {exc}); every turn on this board ends at once", trace=True)
        return self._agent_now

    def _notice_game(self, agent: Any, code: str, state: State) -> bool:
        """A new game starts when the board or our side changes or the step does not grow;
        True then."""
        key = (code, state.current_player(), self_step(state))
        last, self._last = self._last, key
        if last is not None and last[:2] == key[:2] and key[2] > last[2]:
            return False
        self.stats["games"] += 1
        reset = getattr(agent, "reset", None)
        if last is not None and callable(reset):
            reset()
        return True

    def _by_worker(self, code: str, steps: int, state: State, deadline: float, new_game: bool) -> list[Hashable] | None:
        """The compiled worker's plan of this turn, or None (no worker, not ready yet, failed:
        the factory's agent plans). A worker that fails is stopped by itself and said once."""
        if self.worker is None:
            return None
        try:
            labels = self.worker.plan(code, steps, state.words, deadline, new_game)
            self._worker_was_ready = self._worker_was_ready or getattr(self.worker, "ready_after", None) is not None
        except Exception as exc:
            labels = None
            self._log("ERROR", f"the compiled worker failed ({type(exc).__name__}: {exc}); planning plain", trace=True)
            self.worker_stopped = self.worker_stopped or f"{type(exc).__name__}: {exc}"
            self.worker = None
        if labels is None:
            why = getattr(self.worker, "dead", "")
            if why:
                self._log("NOTE", f"the compiled worker is stopped ({why}); planning plain from now on")
                self.worker_stopped = self.worker_stopped or str(why)
                self.worker = None
            return None
        self.stats["worker_turns"] += 1
        self.last_path = "worker"
        return list(labels)

    def _plan(self, agent: Any, state: State, deadline: float) -> list[Hashable]:
        """The agent's turn as labels; on any failure of the agent, what it gave so far (none)."""
        try:
            planner = getattr(agent, "plan_labels", None)
            if callable(planner):
                return list(planner(state, deadline))
            labels: list[Hashable] = []
            end = state.game.end_turn_action
            s = state
            while len(labels) < MAX_DECISIONS and not s.is_terminal() and not s.is_chance_node():
                a = agent.choose(s, deadline)
                labels.append(state.game.action_label(s, a))
                if a == end:
                    break
                s = s.apply(a)
            return labels
        except Exception as exc:
            self.stats["fallbacks"] += 1
            self._log("ERROR", f"the agent raised {type(exc).__name__}: {exc}; ending the turn", trace=True)
            return []

    def checked(self, game: ReinforceTactics, state: State, labels: list[Hashable]) -> list[dict]:
        """``labels`` as Kaggle's action dicts, replayed on our rules along every line the dice
        may take: after a Rogue's attack the turn goes on in each outcome of the evasion (at most
        :data:`MAX_LINES` lines), and an entry is kept only where it is legal on every line (else
        dropped, counted in ``stats["dropped"]``), so that whatever the engine draws after the
        list is committed, no entry sent is skipped. Cut where a line ends the game; closed by
        ``end_turn``."""
        out: list[dict] = []
        lines = [state]
        end = game.end_turn_action
        for label in labels:
            found = [game.label_action(s, label) for s in lines] if isinstance(label, tuple) else [None]
            acts = [a for a in found if a is not None]
            if not isinstance(label, tuple) or len(acts) < len(lines):
                self.stats["dropped"] += 1
                continue
            if acts[0] == end:
                break
            out.append(dict(label))  # a label is the action dict's sorted items
            lines = [t for s, a in zip(lines, acts) for t in outcomes(s.apply(a))]
            if len(lines) > MAX_LINES or any(t.is_terminal() for t in lines):
                break
        return out + [dict(d) for d in END_TURN_ONLY]

    def _log(self, kind: str, message: str, trace: bool = False) -> None:
        if kind == "ERROR":
            self.stats["errors"] += 1
        if not self._verbose:
            return
        try:
            sys.stderr.write(f"[rt] {kind} {message}\n")
            if trace:
                sys.stderr.write("".join(traceback.format_exc(limit=6)))
        except Exception:
            pass


def outcomes(state: State) -> list[State]:
    """``state`` past its chance nodes: one state for each way the dice may fall."""
    if not state.is_chance_node():
        return [state]
    return [t for a, _p in state.chance_outcomes() for t in outcomes(state.apply(a))]


def self_step(state: State) -> int:
    """Kaggle's step of ``state`` (single turns played)."""
    return int(state.game.turn_index(state))
