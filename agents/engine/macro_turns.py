"""What the turn searches share (:mod:`agents.engine.macro_mcts`, :mod:`agents.engine.naive_mcts`,
:mod:`agents.engine.evolution`): their common parameters, the game's heuristic, the bound hot
kernels (:mod:`agents.engine.macro_kernels`) and one turn's search context (:class:`Turns`),
whose methods build, perturb, score and key whole turns. Game-generic: the game's turn
structure comes from its ``end_turn_action`` and its ``actor`` hook (``core/game.py``).
"""
from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.engine import macro_kernels as K
from agents.engine.info import SearchInfo
from agents.engine.params import NAMED, heuristic_array, resolve_heuristic
from agents.engine.turn_plan import TurnPlanAgent
from base.jit import CompileGate, numba_available
from base.xorshift import seed_state
from core.game import CHANCE, State, as_words, bind, kernel_state, search_constants

CHANCE_SEED = 0x2545F491  # the fixed chance stream under which turns are keyed (merging duplicates)


@dataclass
class TurnSearch(TurnPlanAgent):
    """Parameters every turn search has, and its kernels. Subclasses write :meth:`search`."""

    game: Any = None  # the core.game.Game played (set by the registry)
    heuristic: str = ""  # a name of the game's HEURISTICS ("": its first; none: the kernels' own evaluate hook)
    # the heuristic's parameters by name ("w_gold=0.5/top=0.8"; a spec may name them directly:
    # macro_mcts:w_gold=0.5), or all its numbers in order; "": its defaults (agents.engine.params)
    params: str = field(default="", metadata=NAMED)
    weights: str = ""  # the data file of a heuristic read from one (heuristic=learned: a model's .npz; agents.engine.params.file_heuristics)
    width: float = 0.0  # sigmoid width: reward = 2 / (1 + exp(-score / width)) - 1; 0: the game's win_value
    lookahead: int = 0  # turns of the following players, built greedily, played before evaluating (0: the heuristic right after the turn)
    opp_eps: float = 0.1  # randomness of those turns (chance of a random actor or decision)
    gamma: float = 0.95  # discount per lookahead turn (urgency: a win sooner is worth more)
    max_len: int = 64  # decisions in one turn at most (the end of the turn included)
    max_iters: int = 0  # turn evaluations per turn (0: until the deadline); tests fix it
    seed: int = 0  # random seed; each turn's search starts from seed and the turn number
    margin: float = 0.02  # seconds kept before the deadline
    plan_share: float = 0.9  # share of the turn's time spent searching; the rest labels and serves the plan (milliseconds: plan_line)
    jit: bool = True  # numba-compiled kernels when numba is importable and the state fits int64
    background_compile: bool = True  # short turns: compile in a thread, search on the plain path meanwhile
    compile_share: float = 0.7  # while it compiles: fraction of a turn's time spent waiting for it
    wait_plan: bool = True  # while it compiles in the background: end the turn at once rather than search on the plain path

    games = None  # every game whose turn is several decisions (turn_games_only)
    turn_games_only = True  # on a game of one decision a turn these would be flat bandits over moves: not offered

    _info: dict = field(default_factory=dict, init=False, repr=False)
    _gate: CompileGate = field(default_factory=lambda: CompileGate("turn-search"), init=False, repr=False)
    _hfn: Any = field(default=None, init=False, repr=False)
    heuristic_values: list = field(default_factory=list, init=False, repr=False)  # the heuristic's parameters in the kernel's order (agents.engine.params)
    _line: tuple | None = field(default=None, init=False, repr=False)  # (start words, plan, rows) of the last plan_turn

    def __post_init__(self) -> None:
        checks = [(self.width >= 0, "width must be >= 0 (0: the game's win_value)"),
                  (self.lookahead >= 0, "lookahead must be >= 0"),
                  (0.0 <= self.opp_eps <= 1.0, "opp_eps must be in [0, 1]"),
                  (0.0 < self.gamma <= 1.0, "gamma must be in (0, 1]"),
                  (self.max_len >= 2, "max_len must be at least 2"),
                  (0.0 < self.plan_share <= 1.0, "plan_share must be in (0, 1]"),
                  (self.max_iters >= 0, "max_iters must be 0 (no limit) or positive"),
                  (0.0 <= self.compile_share < 1.0, "compile_share must be in [0, 1)")]
        for ok, message in checks + self.checks():
            if not ok:
                raise ValueError(message)
        if self.game is not None:
            self._resolve_heuristic()

    def checks(self) -> list[tuple[bool, str]]:
        """The subclass's (condition, message) parameter checks."""
        return []

    # --- the agent ---------------------------------------------------------------------------
    def reset(self) -> None:
        super().reset()
        self._info = {}
        self._line = None

    def info(self) -> SearchInfo:
        """The last turn's search: ``plan`` (actions), ``value`` (its mean reward for the mover in
        [-1, 1]; ``value_unit`` "reward"), ``evaluations``, ``candidates`` (distinct turns tried),
        ``alternatives`` (the best turns tried: :func:`agents.engine.turn_plan.alternatives`),
        ``seconds``, ``compiled``."""
        return SearchInfo.from_dict(self._info)

    def plan_turn(self, state: State, deadline: float) -> list[int]:
        start = time.perf_counter()
        if self.game is None:
            self.game = state.game
            self._resolve_heuristic()
        if state.is_terminal() or state.current_player() == CHANCE:
            raise ValueError("a turn starts at a decision node of a game not over")
        k, jit = self.kernels(deadline)
        end = self.game.end_turn_action
        if not jit and self._compiled_possible() and self.wait_plan and end is not None:
            # Compiling in the background: the plain path's first greedy sample alone may not fit
            # a short turn (Reinforce Tactics: over a second at load 12), so this turn just ends.
            self._info = {"plan": [end], "reason": "compiling", "seconds": time.perf_counter() - start,
                          "compiled": False, "evaluations": 0}
            return [end]
        turns = Turns(self, state, k, jit)
        plan, info = self.search(turns, start + self.plan_share * (deadline - start) - self.margin)
        plan, rows = turns.line(plan)
        self._line = (state.words, plan, rows)
        info.update(plan=list(plan), seconds=time.perf_counter() - start, compiled=jit, evaluations=turns.evaluations,
                    value_unit="reward")
        self._info = info
        return list(plan)

    def plan_line(self, state: State, plan: Sequence[int]) -> tuple[list[tuple[State, int]], State]:
        """The line :meth:`plan_turn` computed with its kernels, when ``plan`` is that plan (else
        :meth:`TurnPlanAgent.plan_line`'s plain one)."""
        if self._line is None or self._line[0] != state.words or list(self._line[1]) != list(plan):
            return super().plan_line(state, plan)
        _words, acts, rows = self._line
        return ([(State(self.game, w), a) for w, a in zip(rows, acts)], State(self.game, rows[-1]))

    def search(self, turns: Turns, deadline: float) -> tuple[tuple[int, ...], dict]:
        """(the turn to play, info) for the turn of ``turns``."""
        raise NotImplementedError

    def more(self, turns: Turns, deadline: float) -> bool:
        """Whether another evaluation fits (the budget, else the clock)."""
        if self.max_iters:
            return turns.evaluations < self.max_iters
        return time.perf_counter() < deadline

    # --- heuristic and kernels ---------------------------------------------------------------
    def _resolve_heuristic(self) -> None:
        self._hfn, self.heuristic_values = None, [0.0]
        path = getattr(self.game, "heuristics", "")
        if not path:
            if str(self.weights or "").strip():
                raise ValueError(f"weights= is for a heuristic read from a file; {self.game.name} has no heuristics")
            return  # the kernels' own evaluate hook (or the default 0)
        self._hfn, self.heuristic_values = resolve_heuristic(self.game, self.heuristic, self.params, self.weights)

    def _compiled_possible(self) -> bool:
        return bool(self.jit and numba_available() and self.game.fits_int64())

    def kernels(self, deadline: float) -> tuple[Any, bool]:
        plain = bind(self.game, K, self._hfn, jit=False)
        if not self._compiled_possible():
            return plain, False
        ns = bind(self.game, K, self._hfn, jit=True)
        ready = self._gate.admit(deadline, self.warm_up, lambda: len(ns.turn_value.signatures) > 0,
                                 self.background_compile, self.compile_share)
        return (ns, True) if ready else (plain, False)

    def warm_up(self) -> float:
        """Compile every kernel a turn calls, on the game's first decision; returns the seconds."""
        from core.game import first_decision

        t = time.perf_counter()
        state = first_decision(self.game)
        if not self._compiled_possible() or state is None:
            return 0.0
        turns = Turns(self, state, bind(self.game, K, self._hfn, jit=True), True)
        turns.exercise()
        self._gate.ready = True
        return time.perf_counter() - t


class Turns:
    """One turn's search context: the kernels, the state as they take it, buffers, the mover,
    the random streams (Python's for the search's choices, xorshift for the kernels')."""

    def __init__(self, agent: TurnSearch, state: State, k: Any, jit: bool) -> None:
        game = agent.game
        self.k, self.jit, self.agent = k, jit, agent
        self.g = search_constants(game, jit)
        self.hp = heuristic_array(agent, jit)
        self.me = state.current_player()
        self.end = -1 if game.end_turn_action is None else int(game.end_turn_action)
        self.na = int(game.num_actions)
        self.cap = agent.max_len
        self.width = float(agent.width or game.win_value)
        self.invwin = 1.0 / float(game.win_value)
        turn_no = int(game.turn_index(state))
        self.random = random.Random(agent.seed * 1_000_003 + turn_no)
        self.rng = seed_state(agent.seed * 7919 + turn_no)
        self.evaluations = 0
        self.words = kernel_state(game, state.words, jit)  # a tuple, or an int64 array (array-state games, compiled)
        if jit:
            import numpy as np

            self.work: Any = np.zeros(K.work_size(self.na, self.cap), dtype=np.int64)
            self.out: Any = np.zeros(self.cap + 1, dtype=np.int64)
        else:
            self.work = [0] * K.work_size(self.na, self.cap)
            self.out = [0] * (self.cap + 1)
        self.c = K.context(self.g, self.end, self.hp, self.width, self.invwin, self.work, self.na)  # the kernels' constants

    def arr(self, turn: tuple[int, ...]) -> Any:
        if self.jit:
            import numpy as np

            return np.asarray(turn if turn else (0,), dtype=np.int64)
        return list(turn) or [0]

    def built(self, n: int) -> tuple[int, ...]:
        return tuple(int(a) for a in self.out[:n])

    def greedy(self, eps: float = 0.0) -> tuple[int, ...]:
        """A turn built unit by unit (most constrained first); ``eps``: that much randomness."""
        n, _s, self.rng = self.k.build_turn(self.c, self.words, self.me, eps, self.rng, self.out, 0, self.cap)
        return self.built(n)

    def perturb(self, turn: tuple[int, ...], pos: int) -> tuple[int, ...]:
        """``turn`` with the order of the actor of its ``pos``-th decision (past the last: an
        idle actor) redone: a random first decision, then its best ones."""
        n, _s, self.rng = self.k.perturb_turn(self.c, self.words, self.me, self.arr(turn), len(turn), pos, self.rng,
                                              self.out, 0, self.cap)
        return self.built(n)

    def combo(self, firsts: list[int], eps: float = 0.0) -> tuple[int, ...]:
        """The turn of one first decision per actor (-1: idle), each completed by its best next
        ones, then the other actors greedily (randomness ``eps``)."""
        n, _s, self.rng = self.k.play_combo(self.c, self.words, self.me, self.arr(tuple(firsts)), len(firsts), eps,
                                            self.rng, self.out, 0, self.cap)
        return self.built(n)

    def value(self, turn: tuple[int, ...]) -> float:
        """One sample of ``turn``'s value for the mover (chance drawn afresh: open loop)."""
        a = self.agent
        v, self.rng = self.k.turn_value(self.c, self.words, self.me, self.arr(turn), len(turn), a.lookahead, a.gamma,
                                        a.opp_eps, self.rng, self.cap)
        self.evaluations += 1
        return float(v)

    def key(self, turn: tuple[int, ...]) -> int:
        """The state ``turn`` reaches under a fixed chance stream, hashed: equal for two orders
        of the same acts (duplicates merged)."""
        return int(self.k.turn_key(self.c, self.words, self.me, self.arr(turn), len(turn), CHANCE_SEED))

    def actors(self, turn: tuple[int, ...]) -> list[int]:
        """The actor of each entry of ``turn`` (-1 the end, -2 skipped)."""
        turn = turn[:self.cap]
        self.k.turn_actors(self.c, self.words, self.me, self.arr(turn), len(turn), CHANCE_SEED, self.out, 0)
        return [int(x) for x in self.out[:len(turn)]]

    def root_options(self) -> dict[int, list[int]]:
        """Each actor's decisions at the turn's start (the end of the turn left out)."""
        game = self.agent.game
        km = game.kernel_module
        actor = getattr(km, "actor", None)
        state = game.new_state(self.words)
        out: dict[int, list[int]] = {}
        for a in state.legal_actions():
            if a != self.end:
                out.setdefault(int(actor(game.g, state.words, a)) if actor else 0, []).append(a)
        return out

    def legal_line(self, turn: tuple[int, ...]) -> tuple[int, ...]:
        """``turn`` without the entries the kernels would skip as illegal, along the likeliest
        line of the turn's chance (what :meth:`TurnPlanAgent.plan_labels` labels)."""
        turn = turn[:self.cap]
        n = self.k.legal_turn(self.c, self.words, self.me, self.arr(turn), len(turn), self.out, 0)
        return self.built(n)

    def line(self, turn: tuple[int, ...]) -> tuple[tuple[int, ...], list[tuple]]:
        """:meth:`legal_line` and the states along it, as :class:`core.game.State` words: the
        state each entry is played from, then the state after the last one (chance resolved the
        likeliest way), computed by the kernels (serving the plan then needs no plain ``legal``)."""
        turn = turn[:self.cap]
        nw = len(self.words)
        if self.jit:
            import numpy as np

            states: Any = np.zeros((len(turn) + 1) * nw, dtype=np.int64)
        else:
            states = [0] * ((len(turn) + 1) * nw)
        n = self.k.turn_line(self.c, self.words, self.me, self.arr(turn), len(turn), self.out, 0, states, nw)
        rows = [as_words(states[i * nw:(i + 1) * nw]) for i in range(n + 1)]
        return self.built(n), rows

    def exercise(self) -> None:
        """Call every kernel once (compiles them all)."""
        t = self.greedy()
        self.perturb(t, 0)
        self.value(t)
        self.key(t)
        self.actors(t)
        self.combo([-1])
        self.legal_line(t)
        self.line(t)
