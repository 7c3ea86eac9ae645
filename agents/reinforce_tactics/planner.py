"""The greedy planner's inner loop, ``@hot``: score every legal sub-action of a state in one
call (:func:`score_actions`), pick the best (:func:`best_action`) and plan a whole turn
(:func:`plan`), with the heuristic :func:`heuristics.reinforce_tactics.evaluate` compiled in.

Values are for the player whose turn it is (``me``), in the heuristic's units; a won game
scores ``WIN`` (above any estimate), a lost one ``-WIN``, a draw 0. A sub-action's value:

- ending the turn: the current state's value (every candidate is scored as a state of the same
  turn, before the opponent's income and moves, so they compare like with like);
- any other: the value of the state it leads to, **expected over a Rogue's evasion** when it
  stops at that chance node (both outcomes, weighted by their probabilities);
- a move, with ``lookahead``: the better of that and the best follow-up in the state it leads
  to, where the follow-ups are the moved unit's acts (attack, seize, ability) and a recruit at
  the structure it left: a move that sets up a kill or frees the HQ is worth what it enables.

The best value wins; ties go to the earlier kind (``RANK_*``: acts, recruits, moves, end), then
to the earlier action in the legal list. That is the planner's ordering: an act is taken before
a move of equal value (a unit that acts may still have moved), a recruit before a move.
"""
from __future__ import annotations

import numpy as np

from core.reinforce_tactics.kernels import chance_prob, legal, occupancy, play, unit_legal
from core.reinforce_tactics.layout import (
    A_CREATE,
    A_END,
    A_UNIT,
    CELLS,
    G_CELL_STRUCT,
    H_OVER,
    H_PEND_ATT,
    H_PLAYER,
    H_WINNER,
    NUM_ACTIONS,
    OUT_COUNTER,
    OUT_EVADE,
    STATE_LEN,
    SUB_TARGET,
    U_BASE,
    U_CELL,
    UF,
    UMAX,
    UNIT_STRIDE,
)
from heuristics.reinforce_tactics import evaluate
from util.hotclock import clock_ns
from util.jit import hot

WIN = 2.0  # a won game's value: above every estimate (the heuristic's top is at most 1)
NEG = -1.0e18  # below every value: "none yet"
ABORTED = -1  # score_actions' answer when the deadline passed before it finished
RANK_ACT, RANK_RECRUIT, RANK_MOVE, RANK_END = range(4)


@hot
def value(g, t, me: int, params) -> float:
    """``t`` for player ``me``: the outcome of a finished game, else the heuristic."""
    if t[H_OVER] != 0:
        w = t[H_WINNER]
        return 0.0 if w < 0 else (WIN if w == me else -WIN)
    v = evaluate(g, t, params)
    return v if t[H_PLAYER] == me else -v


@hot
def expected(g, t, me: int, params) -> float:
    """:func:`value` of ``t``, averaged over the chance outcome when ``t`` awaits one."""
    if t[H_OVER] == 0 and t[H_PEND_ATT] >= 0:
        pe = chance_prob(g, t, OUT_EVADE)
        return (pe * value(g, play(g, t, OUT_EVADE), me, params)
                + (1.0 - pe) * value(g, play(g, t, OUT_COUNTER), me, params))
    return value(g, t, me, params)


@hot
def rank(a: int) -> int:
    if a == A_END:
        return RANK_END
    if a < A_UNIT:
        return RANK_RECRUIT
    return RANK_ACT if (a - A_UNIT) % UNIT_STRIDE >= SUB_TARGET else RANK_MOVE


@hot
def follow_up(g, t, me: int, k: int, left: int, params, work, buf) -> float:
    """The best value after unit ``k`` of ``me`` has moved (state ``t``, its old cell
    ``left``): its acts, and recruits at the structure on ``left``. ``NEG`` when none."""
    best = NEG
    occ = work[0:CELLS]
    occupancy(t, occ)
    n = unit_legal(g, t, occ, work[CELLS:2 * CELLS], work[2 * CELLS:3 * CELLS], me, k, buf, 0, 0)
    for i in range(n):
        a = buf[i]
        if (a - A_UNIT) % UNIT_STRIDE >= SUB_TARGET:
            v = expected(g, play(g, t, a), me, params)
            if v > best:
                best = v
    si = g[G_CELL_STRUCT + left]
    if si >= 0:
        n = legal(g, t, buf, 0)
        for i in range(n):
            a = buf[i]
            if a < A_UNIT and (a - A_CREATE) // 8 == si:
                v = value(g, play(g, t, a), me, params)
                if v > best:
                    best = v
    return best


@hot
def score_actions(g, s, params, lookahead: bool, deadline_ns: int, acts, scores, work, buf) -> int:
    """Write the legal actions of ``s`` (a decision node) into ``acts`` and each one's value
    (module docstring) into ``scores``; return their number, or ``ABORTED`` when the clock
    passed ``deadline_ns`` first. ``work``: 3 * CELLS ints; ``buf``: NUM_ACTIONS ints."""
    me = s[H_PLAYER]
    n = legal(g, s, acts, 0)
    for i in range(n):
        if clock_ns() > deadline_ns:
            return ABORTED
        a = acts[i]
        if a == A_END:
            scores[i] = value(g, s, me, params)
            continue
        t = play(g, s, a)
        v = expected(g, t, me, params)
        if lookahead and rank(a) == RANK_MOVE and t[H_OVER] == 0:
            k = (a - A_UNIT) // UNIT_STRIDE
            f = follow_up(g, t, me, k, s[U_BASE + (me * UMAX + k) * UF + U_CELL], params, work, buf)
            if f > v:
                v = f
        scores[i] = v
    return n


@hot
def pick(n: int, acts, scores, min_gain: float) -> int:
    """The best-scoring action (ties: lower rank, then earlier); ``A_END`` unless it beats
    ending the turn by more than ``min_gain``."""
    best = -1
    end_value = NEG
    for i in range(n):
        a = acts[i]
        if a == A_END:
            end_value = scores[i]
            continue
        if best < 0 or scores[i] > scores[best] or (scores[i] == scores[best] and rank(a) < rank(acts[best])):
            best = i
    if best < 0 or scores[best] <= end_value + min_gain:
        return A_END
    return acts[best]


@hot
def best_action(g, s, params, lookahead: bool, min_gain: float, deadline_ns: int, acts, scores, work, buf) -> int:
    """The greedy choice at decision node ``s`` (``A_END`` when the deadline passes)."""
    n = score_actions(g, s, params, lookahead, deadline_ns, acts, scores, work, buf)
    if n == ABORTED:
        return A_END
    return pick(n, acts, scores, min_gain)


@hot
def plan(g, s, params, lookahead: bool, min_gain: float, deadline_ns: int, out) -> int:
    """The greedy turn from decision node ``s`` into ``out``; returns its length. Chance inside
    the turn follows the likelier outcome (a Rogue's evasion is at most 0.3 likely): the one
    line that :class:`agents.engine.turn_plan.TurnPlanAgent` replays. Ends with ``A_END``
    unless the game ends first or ``out`` fills up; past ``deadline_ns``, ends the turn."""
    acts = np.empty(NUM_ACTIONS, np.int64)
    buf = np.empty(NUM_ACTIONS, np.int64)
    scores = np.empty(NUM_ACTIONS, np.float64)
    work = np.empty(3 * CELLS, np.int64)
    t = np.empty(STATE_LEN, np.int64)
    t[:] = s[:]
    me = t[H_PLAYER]
    n = 0
    while n < len(out) and t[H_OVER] == 0:
        if t[H_PEND_ATT] >= 0:
            pe = chance_prob(g, t, OUT_EVADE)
            t = play(g, t, OUT_EVADE if pe > 0.5 else OUT_COUNTER)
            continue
        if t[H_PLAYER] != me:
            break
        a = best_action(g, t, params, lookahead, min_gain, deadline_ns, acts, scores, work, buf)
        out[n] = a
        n += 1
        if a == A_END:
            break
        t = play(g, t, a)
    return n
