"""``fogplan``: determinized plan cross-evaluation for Reinforce Tactics under fog of war
(``reinforce_tactics:fog=1``; Frank & Basin's fix of PIMC's strategy fusion). At each decision
it draws ``samples`` determinizations of the mover's information state
(:meth:`core.game.Game.determinize`), plans a whole turn on each with the greedy turn planner
(:mod:`agents.reinforce_tactics.greedy`), and on the view as if it were all
(:meth:`core.game.Game.seen_state`: the baseline's own plan is a candidate too); every candidate
turn is then replayed on every sample (its sub-actions legal there, in order: one compiled call,
:mod:`agents.reinforce_tactics.cross`) and scored by the heuristic for the mover where the turn
ends, or after the opponent's greedy reply (``reply``); it plays the first sub-action, legal at
the true state, of the candidate with the best mean. It plans again at the next decision, from
what that sub-action revealed. It reads the state only through the information state's hooks
(``determinize``, ``seen_state``) and the legal actions, which follow from it."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from agents.engine.info import SearchInfo
from agents.engine.spec import AGENT_SPEC
from agents.reinforce_tactics import cross
from base import jit as J
from base.budget import deadline_ns
from core.game import State, constants_array
from core.reinforce_tactics.layout import A_END, STATE_LEN

SEED_RANGE = 2 ** 31  # determinization seeds are drawn below it


@dataclass
class FogPlanAgent:
    game: Any = None  # the ReinforceTactics game played (set by the registry)
    # the turn planner run on each sample: the greedy agent's spec (its weights score the candidates too)
    search: str = field(default="greedy", metadata=AGENT_SPEC)
    samples: int = 8  # determinizations a decision (each gives a candidate turn, each scores every candidate)
    reply: bool = False  # score a candidate after the opponent's greedy reply on the sample, not at its turn's end
    seen: bool = True  # the plan on the seen view (as if it were all) is a candidate too
    share: float = 0.5  # share of the turn's time left that one decision may use (the turn's later decisions share the rest)
    seed: int = 0  # random seed of the determinizations
    games: ClassVar[tuple[str, ...] | None] = ("reinforce_tactics",)
    observation_only: ClassVar[bool] = True  # decides from the mover's information state: fair under fog
    _rng: random.Random = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]
    _planner: Any = field(default=None, init=False, repr=False, compare=False)
    _last: SearchInfo = field(default_factory=SearchInfo, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, got {self.samples}")
        if not 0 < self.share <= 1:
            raise ValueError(f"share must be in (0, 1], got {self.share}")
        from agents.registry import make

        self._planner = make(self.search, self.game, inner=True)  # it sees the samples (or the seen view) only
        if not hasattr(self._planner, "plan_turn") or not hasattr(self._planner, "kernel_params"):
            raise ValueError(f"search must be the greedy turn planner, got {self.search!r}")
        if not self._planner.hand_evaluation:  # the cross kernels score with planner.value, the hand heuristic
            raise ValueError(f"search must score with the hand heuristic (heuristic=standard), got {self.search!r}")
        self.reset()

    def reset(self) -> None:
        self._rng = random.Random(self.seed)
        self._planner.reset()

    def _kernels(self) -> Any:
        return J.compiled(cross) if self._planner.wants_jit else cross

    def warm_up(self) -> float:
        """Compile the planner's and the cross-evaluation's kernels now; seconds taken."""
        t0 = time.perf_counter()
        self._planner.warm_up()
        state = self.game.initial()
        self.cross(state, [state], [[A_END]], state.current_player(), None)
        return time.perf_counter() - t0

    def cross(self, state: State, samples: list[State], lines: list[list[int]], me: int,
              deadline: float | None) -> np.ndarray:
        """``values[i, j]``: candidate ``lines[i]`` replayed on ``samples[j]`` (:mod:`cross`)."""
        p = self._planner
        g = constants_array(self.game, p.wants_jit)
        width = max(len(line) for line in lines)
        arr = np.full((len(lines), width), A_END, np.int64)
        for i, line in enumerate(lines):
            arr[i, :len(line)] = line
        words = np.array([s.words[:STATE_LEN] for s in samples], np.int64)
        values = np.empty((len(lines), len(samples)), np.float64)
        self._kernels().cross_values(g, words, arr, me, p.kernel_params, self.reply, p.lookahead, p.min_gain,
                                     deadline_ns(deadline), values)
        return values

    def choose(self, state: State, deadline: float) -> int:
        legal = state.legal_actions()
        if state.is_chance_node() or state.is_terminal() or len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        me = state.current_player()
        stop = start + self.share * max(0.0, deadline - start)
        views: list[State] = [self.game.seen_state(state, me)] if self.seen else []
        samples: list[State] = []
        lines: list[list[int]] = []
        for _ in range(self.samples):
            now = time.perf_counter()
            if samples and now >= stop:
                break
            sample = self.game.determinize(state, me, self._rng.randrange(SEED_RANGE))
            samples.append(sample)
            views.append(sample)
        for i, v in enumerate(views):
            now = time.perf_counter()
            left = max(0.0, stop - now) / (len(views) - i)
            self._planner.reset()
            line = self._planner.plan_turn(v, now + left)
            if line and line not in lines:
                lines.append(line)
        if not lines:
            lines.append([A_END])
        values = self.cross(state, samples, lines, me, stop)
        means = values.mean(axis=1)
        order = sorted(range(len(lines)), key=lambda i: (-means[i], i))
        action = A_END if A_END in legal else legal[0]
        for i in order:
            a = next((a for a in lines[i] if a in legal), None)
            if a is not None:
                action = a
                break
        self._last = SearchInfo(action=action, seconds=time.perf_counter() - start, value=float(means[order[0]]),
                                extra={"samples": len(samples), "candidates": len(lines), "value_unit": "heuristic"})
        return action

    def info(self) -> SearchInfo:
        return self._last
