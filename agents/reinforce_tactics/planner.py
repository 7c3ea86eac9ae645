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

from base.hotclock import clock_ns
from base.jit import hot
from core.reinforce_tactics.kernels import chance_prob, legal, occupancy, play, unit_legal
from core.reinforce_tactics.layout import (
    A_CREATE,
    A_END,
    A_UNIT,
    CELLS,
    COST,
    G_CELL_STRUCT,
    G_STRUCT_CELL,
    G_TERRAIN,
    H_COUNT,
    H_GOLD,
    H_OVER,
    H_PEND_ATT,
    H_PLAYER,
    H_WINNER,
    NUM_ACTIONS,
    OUT_COUNTER,
    OUT_EVADE,
    S_BASE,
    S_OWNER,
    SF,
    STATE_LEN,
    SUB_TARGET,
    TR_BUILDING,
    TR_HQ,
    U_BASE,
    U_CELL,
    UF,
    UMAX,
    UNIT_STRIDE,
)
from heuristics.reinforce_tactics import evaluate

WIN = 2.0  # a won game's value: above every estimate (the heuristic's top is at most 1)
NEG = -1.0e18  # below every value: "none yet"
ABORTED = -1  # score_actions' answer when the deadline passed before it finished
RANK_ACT, RANK_RECRUIT, RANK_MOVE, RANK_END = range(4)
SWEEP_RESERVE = 3  # plan sweeps the rest of the turn once less than this many greedy decisions' time is left
UNIT_STEPS = 3  # sub-actions one unit takes in a sweep at most (move, act; a haste's second act)


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
    if si < 0 or not recruits_at(g, t, me, si, occ):
        return best
    for typ in range(1, 9):
        if t[H_GOLD + me] >= COST[typ]:
            v = value(g, play(g, t, A_CREATE + 8 * si + typ - 1), me, params)
            if v > best:
                best = v
    return best


@hot
def recruits_at(g, t, me: int, si: int, occ) -> bool:
    """Player ``me`` may recruit on structure ``si`` in ``t`` (its Building or HQ, empty in
    ``occ``, below the unit cap): the recruits :func:`legal` lists there, for the gold."""
    c = g[G_STRUCT_CELL + si]
    tr = g[G_TERRAIN + c]
    return ((tr == TR_BUILDING or tr == TR_HQ) and t[S_BASE + si * SF + S_OWNER] == me
            and occ[c] < 0 and t[H_COUNT + me] < UMAX)


@hot
def score_one(g, s, a: int, me: int, params, lookahead: bool, work, buf) -> float:
    """The value of sub-action ``a`` (not ``A_END``) at decision node ``s`` (module docstring)."""
    t = play(g, s, a)
    v = expected(g, t, me, params)
    if lookahead and rank(a) == RANK_MOVE and t[H_OVER] == 0:
        k = (a - A_UNIT) // UNIT_STRIDE
        f = follow_up(g, t, me, k, s[U_BASE + (me * UMAX + k) * UF + U_CELL], params, work, buf)
        if f > v:
            v = f
    return v


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
        scores[i] = value(g, s, me, params) if a == A_END else score_one(g, s, a, me, params, lookahead, work, buf)
    return n


@hot
def score_unit(g, s, k: int, params, lookahead: bool, acts, scores, work, buf) -> int:
    """:func:`score_actions` for the sub-actions of the mover's unit in slot ``k`` only (its
    moves, acts and seizure; no recruit, no end of turn); returns their number."""
    me = s[H_PLAYER]
    occ = work[0:CELLS]
    occupancy(s, occ)
    n = unit_legal(g, s, occ, work[CELLS:2 * CELLS], work[2 * CELLS:3 * CELLS], me, k, acts, 0, 0)
    for i in range(n):
        scores[i] = score_one(g, s, acts[i], me, params, lookahead, work, buf)
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
def settle(g, t):
    """``t`` past a pending Rogue's chance node, along its likelier outcome (the evasion is at
    most 0.3 likely); ``t`` itself when none is pending."""
    while t[H_OVER] == 0 and t[H_PEND_ATT] >= 0:
        pe = chance_prob(g, t, OUT_EVADE)
        t = play(g, t, OUT_EVADE if pe > 0.5 else OUT_COUNTER)
    return t


@hot
def sweep(g, t, params, lookahead: bool, min_gain: float, deadline_ns: int, out, n: int, scratch):
    """The rest of the turn from decision node ``t`` unit by unit, in one pass over the units:
    each unit in slot order takes its best sub-action while one beats the current state by more
    than ``min_gain`` (a move, then an act), then recruits are taken best first likewise. Costs
    about one :func:`score_actions` in all, where the greedy loop costs one a sub-action: what
    :func:`plan` falls back to when the clock is short. Appends to ``out[n:]``; returns
    ``(n, state)`` (the turn is not ended here); stops at ``deadline_ns``. ``scratch`` is the
    buffers :func:`score_unit` takes, ``(acts, scores, work, buf)``."""
    acts, scores, work, buf = scratch
    me = t[H_PLAYER]
    base = value(g, t, me, params)
    k = 0
    steps = 0
    while k < t[H_COUNT + me] and n < len(out) - 1:
        if clock_ns() > deadline_ns or t[H_OVER] != 0:
            return n, t
        m = score_unit(g, t, k, params, lookahead, acts, scores, work, buf)
        best = -1
        for i in range(m):
            if best < 0 or scores[i] > scores[best] or (scores[i] == scores[best] and rank(acts[i]) < rank(acts[best])):
                best = i
        if best < 0 or scores[best] <= base + min_gain or steps >= UNIT_STEPS:
            k += 1
            steps = 0
            continue
        count = t[H_COUNT + me]
        out[n] = acts[best]
        n += 1
        t = settle(g, play(g, t, acts[best]))
        base = value(g, t, me, params)
        steps += 1
        if t[H_COUNT + me] < count:  # the unit fell to a counter-attack: the next one moved into slot k
            steps = 0
    while n < len(out) - 1 and t[H_OVER] == 0 and clock_ns() <= deadline_ns:
        m = legal(g, t, acts, 0)
        best = -1
        for i in range(m):
            if acts[i] >= A_UNIT:
                break  # legal lists recruits first
            v = value(g, play(g, t, acts[i]), me, params)
            if best < 0 or v > scores[0]:
                best = i
                scores[0] = v
        if best < 0 or scores[0] <= base + min_gain:
            break
        out[n] = acts[best]
        n += 1
        t = play(g, t, acts[best])
        base = value(g, t, me, params)
    return n, t


@hot
def plan(g, s, params, lookahead: bool, min_gain: float, deadline_ns: int, out) -> int:
    """The greedy turn from decision node ``s`` into ``out``; returns its length. Chance inside
    the turn follows the likelier outcome (a Rogue's evasion is at most 0.3 likely): the one
    line that :class:`agents.engine.turn_plan.TurnPlanAgent` replays. Each decision is the
    greedy choice (:func:`best_action`) while the clock allows another ``SWEEP_RESERVE`` of the
    last one's time; then the rest of the turn is one :func:`sweep`, so that every unit still
    gets its turn when a decision is slow (50 units on a 20 x 20 map). Ends with ``A_END``
    unless the game ends first or ``out`` fills up; past ``deadline_ns``, ends the turn."""
    acts = np.empty(NUM_ACTIONS, np.int64)
    buf = np.empty(NUM_ACTIONS, np.int64)
    scores = np.empty(NUM_ACTIONS, np.float64)
    work = np.empty(3 * CELLS, np.int64)
    t = np.empty(STATE_LEN, np.int64)
    t[:] = s[:]
    me = t[H_PLAYER]
    n = 0
    last = 0
    while n < len(out) and t[H_OVER] == 0:
        t = settle(g, t)
        if t[H_OVER] != 0 or t[H_PLAYER] != me:
            break
        start = clock_ns()
        if start + SWEEP_RESERVE * last > deadline_ns and n < len(out) - 1:
            n, t = sweep(g, t, params, lookahead, min_gain, deadline_ns, out, n, (acts, scores, work, buf))
            if t[H_OVER] == 0:
                out[n] = A_END
                n += 1
            break
        a = best_action(g, t, params, lookahead, min_gain, deadline_ns, acts, scores, work, buf)
        last = clock_ns() - start
        out[n] = a
        n += 1
        if a == A_END:
            break
        t = play(g, t, a)
    return n
