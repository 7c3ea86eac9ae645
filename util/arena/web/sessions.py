"""Server-side game sessions: one game between a person and an agent, owned by the server.

A session is reached only through its id (a random token from :mod:`secrets`), holds its own
agent instance (agents keep per-game state, so sessions never share one) and a lock, so two
requests on one session run one after the other. The store keeps at most ``capacity`` sessions
and drops the least recently used one beyond that.
"""
from __future__ import annotations

import contextlib
import logging
import queue
import random
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from agents import registry
from agents.engine.spec import parse_spec, table_bytes
from base.bounds import as_float, shown
from core.game import Game, State
from util.arena.web.render import report_dict

LOG = logging.getLogger(__name__)


class RequestError(ValueError):
    """A request the rules or the API do not allow: ``status`` is the HTTP code to answer;
    ``retry_after`` (seconds) when the same request will be served later (a 503 while the
    agent warms up, a 409 while it thinks)."""

    def __init__(self, message: str, status: int = 400, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


MAX_TIME = 30.0  # seconds an agent may think for one move, at most
MAX_TURN_ACTIONS = 1000  # decisions an agent's turn may have before the server ends it (a turn of many moves)
MAX_ANALYSTS = 3  # analysing agents a session keeps (each may hold a search tree)
MEMORY = 1 << 30  # bytes the sessions' agents' tables may hold together (registry.table_bytes); the oldest go beyond
STATE_MEMORY = 256 << 20  # bytes the sessions' histories of states may hold together (an estimate: state_bytes)
WORD_BYTES = 12  # a state word's share of memory in a tuple: its 8-byte slot, and its int object when not a small one
ACTION_BYTES = 8  # an action's slot in a state's history (every state holds the actions from the start: n**2 / 2 slots a game)
STATE_BYTES = 250  # a state's own share: the State, its two tuples' headers, its large ints, its info's slot (150-290 measured; Session.push)
TRIM_EVERY = 10.0  # seconds between two returns of freed memory to the system (malloc_trim) after sessions are dropped
LOCK_WAIT = 0.5  # seconds a request waits for a session another request is using; a 409 after (never a held thread)
WARM_RETRY = 2.0  # seconds a client is told to wait (Retry-After) while an agent warms up
WARM_STUCK = 300.0  # seconds a warm-up may run before the next one gets a thread of its own (a compile at load: 40 s)
WARM_THREADS = 4  # warm-up threads at most
WARM_WAIT = 1.0  # seconds a move or an analysis waits for its agent's warm-up before that 503 (a quick one is served at once)


def warming(what: str) -> RequestError:
    """The 503 a request on an agent still warming up gets (:class:`Warmer`, :func:`warm_up`)."""
    return RequestError(f"{what} is warming up (compiling its search, loading its tables): "
                        f"try again in {WARM_RETRY:g} s", 503, WARM_RETRY)


def request_time(value: Any, name: str = "time") -> float:
    """A request's seconds for ``name``, within the server's bounds; else a RequestError (400)."""
    try:
        return as_float(value, f"{name} (seconds)", 0.01, MAX_TIME)
    except ValueError as exc:
        raise RequestError(str(exc)) from None


def make_agent(spec: str, game: Game) -> Any:
    """The agent of ``spec`` for ``game`` as a request may have it: no parameter naming a file,
    tables within the server's bounds (:func:`agents.engine.spec.convert_params`); else a 400.
    An agent that can add every move's exact value after its move (an ``exact_values`` switch:
    ConnectX's perfect) does so for the analysis panel unless the spec says otherwise."""
    try:
        agent = registry.make(spec, game, server=True)
        if getattr(agent, "exact_values", None) is False and "exact_values" not in parse_spec(spec)[1]:
            agent.exact_values = True
        return agent
    except (ValueError, TypeError, OverflowError) as exc:  # SpecError is a ValueError; whatever layer refuses a value: a 400
        raise RequestError(str(exc)) from None


@dataclass
class Session:
    id: str
    game: Game
    agent_spec: str
    agent: Any
    time_per_move: float
    human: int  # the person's player (0 moves first); the agent plays 1 - human
    states: list[State] = field(default_factory=list)  # from the initial state, one per action
    infos: list[dict] = field(default_factory=list)  # the agent's info for each of its moves (None for the person's)
    lock: threading.Lock = field(default_factory=threading.Lock)
    touched: float = field(default_factory=time.monotonic)
    rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))  # this session's dice
    analysts: OrderedDict = field(default_factory=OrderedDict)  # spec -> the agent analysing for this session
    analysis_lock: threading.Lock = field(default_factory=threading.Lock)
    ready: threading.Event = field(default_factory=threading.Event)  # set once the agent is warm (warm_up, in the store's Warmer)
    warmer: Any = None  # the store's warm-up queue, for the analysts this session adds
    dropped: bool = False  # the store has let it go (its queued warm-ups are skipped)

    @contextlib.contextmanager
    def busy(self, lock: threading.Lock | None = None):
        """Hold this session's ``lock`` (default :attr:`lock`) for a request, or a 409 after
        :data:`LOCK_WAIT` seconds: a request never waits for another one's search."""
        lock = lock or self.lock
        if not lock.acquire(timeout=LOCK_WAIT):
            raise RequestError("this game is busy with another request (the agent is thinking): "
                               "try again when it is done", 409, 1.0)
        try:
            yield
        finally:
            lock.release()

    def roll(self) -> None:
        """Play chance outcomes (dice, a random set-up) by their probabilities until a player is
        to move: the server rolls, so neither side can choose its luck."""
        while not self.state.is_terminal() and self.state.is_chance_node():
            outcomes = self.state.chance_outcomes()
            actions = [a for a, _p in outcomes]
            weights = [p for _a, p in outcomes]
            self.push(self.state.apply(self.rng.choices(actions, weights)[0]))

    def push(self, state: State, info: dict | None = None) -> None:
        """Append the next state (and what the mover said of it); the one before it keeps no cache
        of its legal actions, so the history's memory is :meth:`SessionStore.state_bytes`' estimate."""
        self.states[-1].forget_legal()
        self.states.append(state)
        self.infos.append({} if info is None else info)

    @property
    def state(self) -> State:
        return self.states[-1]

    def agent_to_move(self) -> bool:
        return not self.state.is_terminal() and self.state.current_player() == 1 - self.human

    def human_move(self, action: Any) -> None:
        s = self.state
        if s.is_terminal():
            raise RequestError("the game is over: start a new game or undo", 409)
        if s.current_player() != self.human:
            raise RequestError("it is the agent's turn, not yours: ask the agent to move", 409)
        if isinstance(action, str):
            try:
                action = s.string_to_action(action)
            except ValueError as exc:
                raise RequestError(str(exc)) from None
        if isinstance(action, bool) or not isinstance(action, int):
            raise RequestError(f"action must be an integer or the game's text for one, got {action!r}")
        if action not in s.legal_actions():
            why = getattr(s.game, "why_illegal", None)  # a game of many legal actions says why instead of listing them
            if callable(why):
                raise RequestError(f"{s.action_to_string(action) if 0 <= action < s.game.num_actions else 'action'} "
                                   f"({shown(action)}) is not legal here: {why(s, action)}", 422)
            raise RequestError(f"action {shown(action)} is not legal here; legal: {s.legal_text()}", 422)
        self.push(s.apply(action))
        self.roll()

    def agent_move(self) -> dict:
        """The agent's move; in a game whose turn is several decisions
        (:attr:`core.game.Game.end_turn_action`) its whole turn, within one time budget
        (at most :data:`MAX_TURN_ACTIONS` decisions). The info is of its last decision."""
        if not self.agent_to_move():
            raise RequestError("it is not the agent's turn", 409)
        if not self.ready.wait(WARM_WAIT):
            raise warming(f"agent {self.agent_spec!r}")
        if self.game.end_turn_action is None:
            return self.agent_decision(time.perf_counter() + self.time_per_move)
        deadline = time.perf_counter() + self.time_per_move
        mover = self.state.current_player()
        info: dict = {}
        for _ in range(MAX_TURN_ACTIONS):
            if not self.agent_to_move() or self.state.current_player() != mover:
                break
            info = self.agent_decision(deadline)
        else:
            if self.agent_to_move() and self.game.end_turn_action in self.state.legal_actions():
                self.push(self.state.apply(self.game.end_turn_action))  # a turn without end: ended
                self.roll()
        return info

    def agent_decision(self, deadline: float) -> dict:
        """One decision of the agent, to be made by ``deadline`` (perf_counter seconds)."""
        s = self.state
        start = time.perf_counter()
        try:
            action = self.agent.choose(s, max(deadline, start + 0.01))
        except Exception as exc:  # an agent's failure must not become a 500: report it
            raise RequestError(f"agent {self.agent_spec!r} failed: {type(exc).__name__}: {exc}", 502) from None
        seconds = time.perf_counter() - start
        if action not in s.legal_actions():
            raise RequestError(f"agent {self.agent_spec!r} returned an illegal action {action!r}", 502)
        info = analysis_of(self.agent, s, seconds)
        info["action"] = int(action)
        self.push(s.apply(int(action)), info)
        self.roll()
        return info

    def analyse(self, spec: str, state: State, seconds: float) -> tuple[dict, int]:
        """What agent ``spec`` thinks of ``state`` in ``seconds``: its report and its choice.
        A new analyst is warmed up first, outside the search's time (numba's compile, once a
        machine with the kernel cache; tables and opening data, such as ConnectX MCTS's cache,
        which its first search otherwise loaded inside its 0.5 s: 2.8 s and 0 simulations), and
        the session keeps its last few analysts, so that every analysis searches for the whole
        time it is given."""
        with self.busy(self.analysis_lock):
            agent, ready = self.analysts.pop(spec, (None, None))
            if agent is None:
                agent = make_agent(spec, self.game)
                ready = threading.Event()
                if self.warmer is not None:
                    self.warmer.submit(warm_up, agent, ready, self)
                else:  # a session made outside a store
                    warm_up(agent, ready)
            self.analysts[spec] = agent, ready
            while len(self.analysts) > MAX_ANALYSTS:
                self.analysts.popitem(last=False)
            if not ready.wait(WARM_WAIT):
                raise warming(f"analyst {spec!r}")
            start = time.perf_counter()
            planner = self.game.end_turn_action is not None and callable(getattr(agent, "plan_turn", None))
            try:
                action = plan_first(agent, state, start + seconds) if planner else agent.choose(state, start + seconds)
            except Exception as exc:  # an agent's failure must not become a 500: report it
                self.analysts.pop(spec, None)
                raise RequestError(f"agent {spec!r} failed: {type(exc).__name__}: {exc}", 502) from None
            report = report_dict(agent, state, time.perf_counter() - start, turn=planner)
            warm = getattr(ready, "seconds", 0.0)
            ready.seconds = 0.0  # said once, in the analysis that follows it
            if warm >= 0.05:
                report["notes"].append(f"warmed up first in {warm:.1f} s (compiling, loading its tables), outside the search's time")
            return report, int(action)

    def undo(self) -> None:
        """Take back the last move and the agent's reply to it: the person is to move again."""
        if not any(st.current_player() == self.human for st in self.states[:-1]):
            raise RequestError("nothing to undo: you have not moved yet", 409)
        self.states.pop()
        self.infos.pop()
        while len(self.states) > 1 and self.state.current_player() != self.human:
            self.states.pop()
            self.infos.pop()
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset()


def plan_first(agent: Any, state: State, deadline: float) -> int:
    """A turn planner's (:class:`agents.engine.turn_plan.TurnPlanAgent`) first decision at
    ``state``: it plans the whole turn afresh (``choose`` would replay a plan made earlier in the
    same turn), so that its ``info()`` is of this position; the end of the turn when no planned
    action is legal here."""
    legal = state.legal_actions()
    plan = agent.plan_turn(state, deadline)
    first = next((a for a in plan if a in legal), None)
    if first is None:
        end = state.game.end_turn_action
        first = end if end in legal else legal[0]
    return int(first)


def warm_up(agent: Any, ready: threading.Event, session: Session | None = None) -> None:
    """Run ``agent``'s own ``warm_up`` (compiles and loads what its moves use; every agent's
    takes no argument: ConnectX's compile for the board of their game), then set ``ready``
    with the seconds it took as ``ready.seconds``. A warm-up that fails sets ``ready`` all the
    same: the agent's moves then compile as they would have (its own failure is reported there).
    Nothing is done once ``session`` is dropped from its store."""
    fn = getattr(agent, "warm_up", None)
    t = time.perf_counter()
    try:
        if callable(fn) and not (session is not None and session.dropped):  # a dropped session's agent: no work
            fn()
    except Exception:  # noqa: BLE001 - reported by the move that follows
        LOG.warning("warming up %r failed", agent, exc_info=True)
    finally:
        ready.seconds = time.perf_counter() - t  # type: ignore[attr-defined]
        ready.set()


def analysis_of(agent: Any, state: State, seconds: float) -> dict:
    """The agent's search for its last choice at ``state`` as the page shows it: one typed
    report (:class:`util.arena.web.render.SearchReport`) of its ``info()`` (ENGINE.md keys)."""
    return report_dict(agent, state, seconds)


def give_back_memory() -> None:
    """Return the C heap's free pages to the system (glibc's ``malloc_trim``; nothing elsewhere):
    a dropped session's states and tables are freed by Python, but glibc keeps the pages (a
    process that held four replayed episodes stayed at 162 MiB with one left; 95 MiB after)."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


class Warmer:
    """Daemon threads that run warm-ups in the order they come (a stopping server does not wait
    for a compile), one at a time: a second thread starts only when the running warm-up has
    lasted :data:`WARM_STUCK` seconds (an agent stuck on something, not compiling), at most
    :data:`WARM_THREADS` in all. A warm-up whose session is gone by its turn is skipped."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._started: dict[str, float | None] = {}  # thread name -> when its warm-up started (None: waiting)
        self._lock = threading.Lock()

    def submit(self, fn: Any, *args: Any) -> None:
        self._queue.put((fn, args))
        now = time.monotonic()
        with self._lock:
            stuck = all(t is not None and now - t > WARM_STUCK for t in self._started.values())
            if stuck and len(self._started) < WARM_THREADS:
                name = f"agent-warm-up{len(self._started) or ''}"
                self._started[name] = None
                threading.Thread(target=self._run, args=(name,), name=name, daemon=True).start()

    def _run(self, name: str) -> None:
        while True:
            fn, args = self._queue.get()
            with self._lock:
                self._started[name] = time.monotonic()
            try:
                fn(*args)  # warm_up never raises
            finally:
                with self._lock:
                    self._started[name] = None


class SessionStore:
    """At most ``capacity`` sessions whose agents' tables take at most ``memory`` bytes
    together (an upper estimate, :func:`agents.engine.spec.table_bytes`) and whose states about
    ``state_memory`` bytes (:meth:`state_bytes`): the least recently used go first, so a big
    table or a long replayed game does not stay for ever after its request."""

    def __init__(self, capacity: int = 200, memory: int = MEMORY, state_memory: int = STATE_MEMORY) -> None:
        self.capacity = capacity
        self.memory = memory
        self.state_memory = state_memory  # a replayed Reinforce Tactics game holds thousands of 1,804-word states
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()
        # Agents warm up (compile, load tables) one at a time in this thread, never in a request:
        # a move or an analysis asked for before its agent is warm gets a 503 with Retry-After.
        self.warmer = Warmer()
        self._trimmed = 0.0  # when give_back_memory last ran

    def create(self, game: Game, agent_spec: str, time_per_move: Any, human: Any) -> Session:
        t = request_time(time_per_move)
        if isinstance(human, bool) or human not in (0, 1, "0", "1"):
            raise RequestError(f"human must be 0 (you move first) or 1 (the agent moves first), got {human!r}")
        agent = make_agent(agent_spec, game)
        session = Session(secrets.token_urlsafe(16), game, agent_spec, agent, t, 0, [game.initial()], [{}], warmer=self.warmer)
        if callable(getattr(agent, "warm_up", None)):
            self.warmer.submit(warm_up, agent, session.ready, session)
        else:
            session.ready.set()
        session.roll()
        # ``human`` is a seat: 0 moves first, 1 second; which player moves first is the game's
        # (EinStein: White, player 1).
        first = session.state.current_player()
        session.human = first if int(human) == 0 else 1 - first
        with self._lock:
            self._sessions[session.id] = session
        self.trim()
        return session

    def trim(self) -> None:
        """Drop the least recently used sessions while there are too many or their tables (the
        agent's and the analysts') take more than ``memory``: after a session is made and after
        an analysis adds an analyst."""
        dropped = 0
        with self._lock:
            while len(self._sessions) > self.capacity or (len(self._sessions) > 1 and (
                    self.table_bytes() > self.memory or self.state_bytes() > self.state_memory)):
                self._sessions.popitem(last=False)[1].dropped = True
                dropped += 1
        if dropped and time.monotonic() - self._trimmed > TRIM_EVERY:
            self._trimmed = time.monotonic()
            give_back_memory()

    def state_bytes(self) -> int:
        """An estimate of the memory the sessions' states take: :data:`STATE_BYTES` a state,
        :data:`WORD_BYTES` a word and :data:`ACTION_BYTES` an action of each state's history
        (within a factor of two of tracemalloc's count: tests/test_web_bounds.py)."""
        return sum(len(s.states) * (STATE_BYTES + s.game.words * WORD_BYTES + ACTION_BYTES * len(s.states) // 2)
                   for s in list(self._sessions.values()))

    def table_bytes(self) -> int:
        return sum(table_bytes(a) for s in list(self._sessions.values()) for a in (s.agent, *(a for a, _r in list(s.analysts.values()))))

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, sid: str) -> Session:
        with self._lock:
            session = self._sessions.get(sid)
            if session is None:
                raise RequestError(f"no game session {sid!r} (expired or never made): start a new game", 404)
            self._sessions.move_to_end(sid)
            session.touched = time.monotonic()
            return session
