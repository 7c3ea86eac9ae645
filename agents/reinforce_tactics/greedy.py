"""``greedy``: a one-turn planner for Reinforce Tactics. It builds the turn sub-action by
sub-action, taking at each decision the sub-action whose resulting state the heuristic
(:mod:`heuristics.reinforce_tactics`) scores best for it, expected over a Rogue's evasion,
and ends the turn when nothing beats ending it (:mod:`agents.reinforce_tactics.planner`, one
compiled call scores every legal sub-action of a state).

In a match it plans the turn at its first decision (:meth:`plan_turn`, within ``plan_share``
of the turn's time) and plays the plan one sub-action per ``choose`` (the states it is shown
within a turn are its own successive ones: nothing is recomputed); after an act it checks the
state is the one the plan expects, and when it is not (a Rogue's evasion fell the less likely
way) it plans the rest of the turn again from there. :meth:`plan_turn` (and
:meth:`plan_labels`, for a Kaggle agent) gives the whole turn at once, following the likelier
outcome at a chance node. Its parameters are the heuristic's weights (inherited from
:class:`heuristics.reinforce_tactics.params.Weights`: ``greedy:w_gold=0.5``) and the
planner's own below.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.engine.info import SearchInfo
from agents.engine.params import resolve_heuristic
from agents.engine.turn_plan import ALTERNATIVES, TurnPlanAgent, likeliest_line
from agents.reinforce_tactics import planner
from base import jit as J
from base.budget import NO_DEADLINE_NS, deadline_ns
from base.jit import CompileGate
from base.params import declare
from core.game import State, constants_array
from core.reinforce_tactics.layout import A_END, A_UNIT, NUM_ACTIONS, STATE_LEN, SUB_TARGET, UNIT_STRIDE
from heuristics.reinforce_tactics.params import Weights, weights_of

MAX_TURN = 1000  # sub-actions a planned turn holds at most (each unit moves and acts once; a backstop)


@dataclass
class GreedyAgent(Weights, TurnPlanAgent):
    game: Any = None  # the ReinforceTactics game played (set by the registry)
    lookahead: bool = True  # score a move by the best follow-up it enables (the moved unit's act, a recruit where it stood)
    min_gain: float = declare(0.0, 0.0, 1.0, "a sub-action must beat ending the turn by more than this (heuristic units)")
    heuristic: str = "standard"  # the evaluation: "standard" (the hand heuristic, these weights) or "learned" (a model: weights=)
    weights: str = ""  # heuristic=learned: the model's weights file (.npz; heuristics.reinforce_tactics.learned)
    jit: bool | None = None  # compiled planner (None: when numba is available; False: plain Python, slow)
    games = ("reinforce_tactics",)

    compile_share: float = 0.7  # share of a move's time spent waiting for a background compile (then plain Python)
    plan_share: float = declare(0.6, 0.05, 1.0, "share of the time left at a turn's first decision that choose lets plan_turn use")

    def __post_init__(self) -> None:
        self._want_jit = J.numba_available() if self.jit is None else bool(self.jit)
        self._gate = CompileGate("rt-greedy")
        self._jit = False  # the path the last call ran
        self._hfn: Any = None  # the evaluation bound into the planner (None: the hand heuristic, imported by it)
        self._params = np.array(weights_of(self), np.float64)
        if self.heuristic != "standard" or str(self.weights or "").strip():
            if self.game is None:
                raise ValueError("greedy: a heuristic other than standard needs the game (the registry sets it)")
            fn, values = resolve_heuristic(self.game, self.heuristic, "", self.weights)
            self._hfn, self._params = fn, np.array(values, np.float64)  # standard with weights= was refused
        self._acts = np.empty(NUM_ACTIONS, np.int64)
        self._buf = np.empty(NUM_ACTIONS, np.int64)
        self._scores = np.empty(NUM_ACTIONS, np.float64)
        self._work = np.empty(3 * 400, np.int64)
        self._planned: tuple[State, list[int]] | None = None  # the last plan_turn's (state, plan), for info()
        self._line: list[int] = []  # what choose still has to play of its turn's plan
        self._turn: tuple[int, int] | None = None  # (turn index, player) of that plan
        self._expect: Any = None  # after an act, the words of the state the plan expects next (else None: no check)

    @property
    def kernel_params(self) -> np.ndarray:
        """The evaluation's parameters, as the planner's kernels take them (``params``)."""
        return self._params

    @property
    def wants_jit(self) -> bool:
        """Whether this agent's kernels run compiled (``jit``, or numba's presence when unset)."""
        return self._want_jit

    @property
    def hand_evaluation(self) -> bool:
        """Whether the planner scores with the hand heuristic (``heuristic=standard``), the one
        kernels importing :func:`planner.value` directly see."""
        return self._hfn is None

    def _planner(self, jit: bool) -> Any:
        """The planner's namespace on one path, with this agent's evaluation bound in."""
        if self._hfn is None:
            return J.compiled(planner) if jit else planner
        fn = getattr(J.compiled(self._hfn.__module__), self._hfn.__name__) if jit else self._hfn
        return J.bind(planner, {"evaluate": fn}, jit)

    def warm_up(self) -> float:
        """Compile the planner's entry points now (no-op on the plain path); seconds taken."""
        t0 = time.perf_counter()
        if self._want_jit:
            state = self.game.initial()
            k = self._planner(True)
            g, s = constants_array(self.game, True), np.asarray(state.words[:STATE_LEN], np.int64)
            k.best_action(g, s, self._params, self.lookahead, self.min_gain, NO_DEADLINE_NS,
                          self._acts, self._scores, self._work, self._buf)
            k.plan(g, s, self._params, self.lookahead, self.min_gain, NO_DEADLINE_NS, np.empty(MAX_TURN, np.int64))
        self._gate.ready = True
        return time.perf_counter() - t0

    def _compiled_before(self) -> bool:
        k = self._planner(True)
        return bool(k.best_action.signatures) and bool(k.plan.signatures)

    def _kernels(self, deadline: float | None) -> Any:
        """The planner's namespace for a call ending at ``deadline``: compiled once numba has
        compiled it (in place, or in the background while the plain path plays: CompileGate)."""
        jit = self._want_jit and (deadline is None or self._gate.admit(
            deadline, self.warm_up, self._compiled_before, True, self.compile_share))
        if jit and deadline is None and not self._gate.ready:
            self.warm_up()
        self._jit = jit
        return self._planner(jit)

    def _args(self, state: State) -> tuple[Any, Any]:
        """(g, s) for the planner: the fog-free words of a fog game's state (the planner plays
        the fog-free rules; :meth:`choose` skips what the fog forbids)."""
        return constants_array(self.game, self._jit), np.asarray(state.words[:STATE_LEN], np.int64)

    def scores(self, state: State, deadline: float | None = None) -> dict[int, float]:
        """Every legal sub-action's value at decision node ``state`` (planner's docstring)."""
        return self._scores_by(self._kernels(deadline), state, deadline)

    def _scores_by(self, k: Any, state: State, deadline: float | None = None) -> dict[int, float]:
        """:meth:`scores` by the planner's namespace ``k`` (its path: ``self._jit``)."""
        g, s = self._args(state)
        n = k.score_actions(g, s, self._params, self.lookahead, deadline_ns(deadline),
                                  self._acts, self._scores, self._work, self._buf)
        if n < 0:
            raise TimeoutError("the deadline passed before every sub-action was scored")
        return {int(self._acts[i]): float(self._scores[i]) for i in range(n)}

    def choose(self, state: State, deadline: float) -> int:
        if state.is_chance_node() or state.is_terminal():
            return state.legal_actions()[0]
        turn = (self.game.turn_index(state), state.current_player())
        if turn != self._turn or not self._line or (self._expect is not None and state.words != self._expect):
            now = time.perf_counter()
            self._line = self.plan_turn(state, now + self.plan_share * max(0.0, deadline - now))
            self._turn = turn
        self._planned = None  # info() is of this choice, not of a plan
        if not self.game.perfect_information:  # under fog: an attack the fog forbids is skipped
            legal = state.legal_actions()
            while self._line and self._line[0] not in legal:
                self._line.pop(0)
        a = self._line.pop(0) if self._line else A_END
        self._expect = None
        if a != A_END and (a - A_UNIT) % UNIT_STRIDE >= SUB_TARGET:  # an act: chance may follow (a Rogue's attack)
            nxt = likeliest_line(state.apply(a))
            self._expect = None if nxt.is_terminal() else nxt.words
        return a

    def plan_turn(self, state: State, deadline: float) -> list[int]:
        k = self._kernels(deadline)
        g, s = self._args(state)
        out = np.empty(MAX_TURN, np.int64)
        self._line = []  # a plan asked for from outside: choose plans its own turn again
        n = k.plan(g, s, self._params, self.lookahead, self.min_gain, deadline_ns(deadline), out)
        plan = [int(a) for a in out[:n]]
        self._planned = (state, plan)
        return plan

    def info(self) -> SearchInfo:
        """``jit`` (the path the last call ran); after :meth:`plan_turn` (not after ``choose``) also
        its ``plan``, its ``value`` (the heuristic, for the mover, where the plan ends its turn along
        the likelier chance outcomes; ``value_unit`` "heuristic") and ``alternatives``: the best
        scored sub-actions of the turn's first decision, each alone, with its score as ``value``.
        Computed here, when asked (two scoring calls), so that planning a turn costs nothing more."""
        out: dict = {"jit": self._jit}
        if self._planned is None:
            return SearchInfo.from_dict(out)
        state, plan = self._planned
        k = self._planner(self._jit)  # the plan's own path: no compile started here
        first = sorted(self._scores_by(k, state).items(), key=lambda kv: -kv[1])[:ALTERNATIVES]
        s = likeliest_line(state)
        for a in plan:
            if a == A_END or s.is_terminal():
                break
            if a in s.legal_actions():  # else skipped, as plan_labels skips it
                s = likeliest_line(s.apply(a))
        if not s.is_terminal() and s.current_player() == state.current_player():
            out["value"] = self._scores_by(k, s)[A_END]
        out.update(plan=list(plan), value_unit="heuristic",
                   alternatives=[{"actions": [a], "value": v} for a, v in first])
        return SearchInfo.from_dict(out)

    def reset(self) -> None:
        TurnPlanAgent.reset(self)
        self._planned = None
        self._line, self._turn, self._expect = [], None, None
