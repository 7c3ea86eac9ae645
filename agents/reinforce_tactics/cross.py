"""``@hot`` kernels of the plan cross-evaluation (:mod:`agents.reinforce_tactics.fog_plan`):
every candidate turn (a list of sub-actions) replayed on every determinization, on the
fog-free words (the planner's rules), each scored by the heuristic for the mover where the
turn ends, or after the opponent's greedy reply (``reply``)."""
from __future__ import annotations

import numpy as np

from agents.reinforce_tactics.planner import plan, settle, value
from base.jit import hot
from core.reinforce_tactics.kernels import legal, play
from core.reinforce_tactics.layout import A_END, H_OVER, H_PLAYER, NUM_ACTIONS, STATE_LEN

REPLY_LEN = 400  # sub-actions of the opponent's reply planned at most


@hot
def replay(g, s, line, me: int, params, reply: bool, lookahead: bool, min_gain: float, deadline_ns: int,
           scratch) -> float:
    """``line`` (sub-actions up to its first ``A_END``, which ends the turn) played by ``me`` from
    ``s``, each sub-action when it is legal there (else skipped: a path blocked by a unit of this
    sample, a target absent from it), chance along its likelier outcome, up to the end of the
    turn; the value for ``me`` there, or, with ``reply``, after the turn is ended and the
    opponent's greedy turn (planned by :func:`plan`) is played. ``scratch``: ``NUM_ACTIONS +
    REPLY_LEN`` words, the legal actions' buffer then the reply's plan."""
    buf = scratch[:NUM_ACTIONS]
    out = scratch[NUM_ACTIONS:]
    t = np.empty(STATE_LEN, np.int64)
    t[:] = s[:STATE_LEN]
    for i in range(line.shape[0]):
        t = settle(g, t)
        if t[H_OVER] != 0 or t[H_PLAYER] != me:
            break
        a = line[i]
        if a == A_END:
            break
        m = legal(g, t, buf, 0)
        for j in range(m):
            if buf[j] == a:
                t = play(g, t, a)
                break
    t = settle(g, t)
    if reply and t[H_OVER] == 0 and t[H_PLAYER] == me:
        t = settle(g, play(g, t, A_END))
        if t[H_OVER] == 0 and t[H_PLAYER] != me:
            k = plan(g, t, params, lookahead, min_gain, deadline_ns, out)
            for i in range(k):
                t = settle(g, t)
                if t[H_OVER] != 0 or t[H_PLAYER] == me:
                    break
                t = play(g, t, out[i])
            t = settle(g, t)
    return value(g, t, me, params)


@hot
def cross_values(g, samples, lines, me: int, params, reply: bool, lookahead: bool, min_gain: float,
                 deadline_ns: int, values) -> None:
    """``values[i, j]``: candidate ``lines[i]`` (padded with ``A_END``) replayed on ``samples[j]``
    by :func:`replay`."""
    scratch = np.empty(NUM_ACTIONS + REPLY_LEN, np.int64)
    for i in range(lines.shape[0]):
        for j in range(samples.shape[0]):
            values[i, j] = replay(g, samples[j], lines[i], me, params, reply, lookahead, min_gain, deadline_ns,
                                  scratch)
