"""Hot kernels of the turn searches (:mod:`agents.engine.macro_mcts`, :mod:`agents.engine.naive_mcts`,
:mod:`agents.engine.evolution`): building, perturbing, playing and scoring whole turns.

Bound to a game with :func:`core.game.bind` (every game kernel below is imported by name from
:mod:`core.kernel_defaults`), compiled by numba or run as plain Python from the same source.
Compiled with numba's reference counting (a game's ``play`` may allocate: Reinforce Tactics').

**A turn** is a list of the mover's decisions ending with the game's end-turn action ``end``
(-1 for a game whose turn is one decision). It is *played* as Kaggle plays a Reinforce Tactics
action list: an entry that is not legal when its turn comes is skipped, chance inside the turn
is sampled (``chance_prob``) after each decision (open loop: the turn is committed before its
dice are known), and a list that runs out before ``end`` ends the turn there.

**Actors.** The game's ``actor(g, s, a)`` hook names who does a decision (a unit, a recruitment
site); a turn is seen as one order per actor: an actor's decisions follow one another (a
Reinforce Tactics unit moves, then attacks) and an actor that has stopped does not act again.

**Values.** :func:`reward` scores a state for player ``me`` in [-1, 1]: a terminal state by
``outcome / win_value`` (clipped), any other by the heuristic (``evaluate``, for the side to
move, negated when that is the opponent) through ``2 / (1 + exp(-v / width)) - 1``.

**The search's constants** ``c``, a tuple laid out by :data:`CTX` (``TC_G``: the game's
constants, ``TC_END``: the end-turn action, ``TC_PARAMS``, ``TC_WIDTH``, ``TC_INVWIN``: the
heuristic's parameters, the sigmoid width and ``1 / win_value``, ``TC_WORK``: the work array,
``TC_NA``: the game's number of actions): what every turn kernel takes first, unchanged through
a turn's search (numba reads its slots at constant indices).

**The work array** ``work`` (int64, :func:`work_size` long) holds, at the offsets of
:func:`regions`: a stamp counter (``W_STAMP``), the legal-action buffer, per-actor option
counts, per-actor stop stamps, the chance outcomes' buffer and one turn's buffer (the
opponent's turn in a lookahead). Turns are written to ``out[ob:]`` (an offset, so that the plain
path, where a list slice is a copy, writes in place).
"""
from __future__ import annotations

import math

from base.jit import hot
from base.layout import Layout
from base.xorshift import rng_next
from core.kernel_defaults import actor, chance_prob, evaluate, key, legal, outcome, play, terminal, to_move

CHANCE = -1  # core.game.CHANCE (a literal: numba reads module globals as constants)
W_STAMP = 0  # work[W_STAMP]: the last stamp handed out (stops are marked with a turn's stamp)
W_HEAD = 1  # the regions start here
HASH_MASK = (1 << 40) - 1  # state hashes stay below 2**40 (times the multiplier: below 2**63)
HASH_MUL = 1000003
CTX = Layout("TC_", "G END PARAMS WIDTH INVWIN WORK NA")  # the search's constants ``c`` (module docstring)
(TC_G, TC_END, TC_PARAMS, TC_WIDTH, TC_INVWIN, TC_WORK, TC_NA) = CTX.slots


def context(g, end: int, params, width: float, invwin: float, work, na: int) -> tuple:
    """The search's constants ``c`` in :data:`CTX`'s order."""
    return (g, end, params, width, invwin, work, na)


@hot
def regions(na: int) -> tuple:
    """Offsets in ``work`` of the legal buffer, the option counts, the stop stamps, the chance
    buffer and the turn buffer, for a game of ``na`` actions."""
    return W_HEAD, W_HEAD + na, W_HEAD + 2 * na, W_HEAD + 3 * na, W_HEAD + 4 * na


def work_size(na: int, cap: int) -> int:
    """Length of the work array for ``na`` actions and turns of at most ``cap`` decisions."""
    return W_HEAD + 4 * na + cap + 1


@hot
def uniform(rng: int) -> tuple:
    """(a float in [0, 1), the next rng state)."""
    rng = rng_next(rng)
    return (rng & 0xFFFFFF) / 16777216.0, rng


@hot
def settle(g, s, rng, work, na: int) -> tuple:
    """(``s`` with its chance nodes resolved by sampling, rng)."""
    cb = regions(na)[3]
    while not terminal(g, s) and to_move(g, s) == CHANCE:
        n = legal(g, s, work, cb)
        r, rng = uniform(rng)
        a = work[cb + n - 1]
        acc = 0.0
        for i in range(n):
            acc += chance_prob(g, s, work[cb + i])
            if r < acc:
                a = work[cb + i]
                break
        s = play(g, s, a)
    return s, rng


@hot
def reward(c, s, me: int) -> float:
    """The value of ``s`` for player ``me`` in [-1, 1] (module docstring)."""
    g = c[TC_G]
    if terminal(g, s):
        o = outcome(g, s) * c[TC_INVWIN]
        if me == 1:
            o = -o
        return max(-1.0, min(1.0, o))
    v = evaluate(g, s, c[TC_PARAMS])
    if to_move(g, s) != me:
        v = -v
    x = max(-500.0, min(500.0, v / c[TC_WIDTH]))
    return 2.0 / (1.0 + math.exp(-x)) - 1.0


@hot
def is_legal(g, s, a: int, work, na: int) -> bool:
    lb = regions(na)[0]
    n = legal(g, s, work, lb)
    for i in range(n):
        if work[lb + i] == a:
            return True
    return False


@hot
def pick_actor(c, s, eps: float, rng, stamp: int) -> tuple:
    """(an actor that may still act at ``s``, rng): the most constrained (fewest options; ties:
    the lowest id), or with probability ``eps`` the actor of a random option; -1 for none."""
    g, end, work, na = c[TC_G], c[TC_END], c[TC_WORK], c[TC_NA]
    lb, cnt, stop = regions(na)[0], regions(na)[1], regions(na)[2]
    n = legal(g, s, work, lb)
    m = 0
    for i in range(n):
        a = work[lb + i]
        if a != end:
            work[cnt + actor(g, s, a)] = 0
    for i in range(n):
        a = work[lb + i]
        if a != end:
            u = actor(g, s, a)
            if work[stop + u] != stamp:
                work[cnt + u] += 1
                m += 1
    if m == 0:
        return -1, rng
    r, rng = uniform(rng)
    if r < eps:
        rng = rng_next(rng)
        k = rng % m
        for i in range(n):
            a = work[lb + i]
            if a != end and work[stop + actor(g, s, a)] != stamp:
                if k == 0:
                    return actor(g, s, a), rng
                k -= 1
    best, best_n = -1, 1 << 62
    for i in range(n):
        a = work[lb + i]
        if a != end:
            u = actor(g, s, a)
            c = work[cnt + u]
            if work[stop + u] != stamp and (c < best_n or (c == best_n and u < best)):
                best, best_n = u, c
    return best, rng


@hot
def best_of_actor(c, s, me: int, u: int, eps: float, rng) -> tuple:
    """(actor ``u``'s next decision at ``s`` or -1 to stop, the state after it, rng): the
    decision whose state (chance sampled) scores best for ``me`` if it beats stopping (a game
    without an end-turn action cannot stop); with probability ``eps`` a random one of them
    (stopping included)."""
    g, end, work, na = c[TC_G], c[TC_END], c[TC_WORK], c[TC_NA]
    lb = regions(na)[0]
    n = legal(g, s, work, lb)
    k = 0
    for i in range(n):
        if work[lb + i] != end and actor(g, s, work[lb + i]) == u:
            k += 1
    if k == 0:
        return -1, s, rng
    r, rng = uniform(rng)
    if r < eps:
        rng = rng_next(rng)
        j = rng % (k + 1 if end >= 0 else k)
        if j == k:
            return -1, s, rng
        for i in range(n):
            a = work[lb + i]
            if a != end and actor(g, s, a) == u:
                if j == 0:
                    nxt, rng = settle(g, play(g, s, a), rng, work, na)
                    return a, nxt, rng
                j -= 1
    best_a, best_s = -1, s
    best_r = reward(c, s, me) if end >= 0 else -2.0
    for i in range(n):
        a = work[lb + i]
        if a != end and actor(g, s, a) == u:
            nxt, rng = settle(g, play(g, s, a), rng, work, na)
            r = reward(c, nxt, me)
            if r > best_r:
                best_a, best_s, best_r = a, nxt, r
    return best_a, best_s, rng


@hot
def finish_turn(c, s, me: int, rng, out, ob: int, n: int) -> tuple:
    """Append ``end`` and play it when the turn is still ``me``'s: (decisions, state, rng)."""
    g, end, work, na = c[TC_G], c[TC_END], c[TC_WORK], c[TC_NA]
    if end >= 0 and not terminal(g, s) and to_move(g, s) == me:
        out[ob + n] = end
        n += 1
        s, rng = settle(g, play(g, s, end), rng, work, na)
    return n, s, rng


@hot
def build_turn(c, s, me: int, eps: float, rng, out, ob: int, cap: int) -> tuple:
    """A turn for ``me`` from ``s`` built unit by unit (the seed's greedy sample): see
    :func:`continue_turn`. Writes it to ``out[ob:]``; returns (its length, the state after it, rng)."""
    work = c[TC_WORK]
    work[W_STAMP] += 1
    return continue_turn(c, s, me, eps, rng, out, ob, 0, cap, work[W_STAMP])


@hot
def continue_turn(c, s, me: int, eps: float, rng, out, ob: int, n: int, cap: int, stamp: int) -> tuple:
    """Go on with ``me``'s turn greedily, the actors stopped under ``stamp`` left out: the most
    constrained actor first, each actor's decisions while they beat stopping (``eps``: random
    actors and decisions, :func:`pick_actor`, :func:`best_of_actor`); then the end of the turn.
    Appends to ``out[ob + n:]``; returns (length, state after, rng)."""
    g, work = c[TC_G], c[TC_WORK]
    stop = regions(c[TC_NA])[2]
    u = -1
    while n < cap - 1 and not terminal(g, s) and to_move(g, s) == me:
        if u < 0:
            u, rng = pick_actor(c, s, eps, rng, stamp)
            if u < 0:
                break
        a, nxt, rng = best_of_actor(c, s, me, u, eps, rng)
        if a < 0:
            work[stop + u] = stamp
            u = -1
            continue
        out[ob + n] = a
        n += 1
        s = nxt
    return finish_turn(c, s, me, rng, out, ob, n)


@hot
def perturb_turn(c, s, me: int, turn, tn: int, pos: int, rng, out, ob: int, cap: int) -> tuple:
    """``turn`` with one actor's order replaced (the seed's perturbation): the actor of the
    ``pos``-th decision as replayed (past the last: an actor that did not act) gets a random
    first decision (or none), then its best ones; its old decisions are dropped, the others
    replayed, then the actors that have not acted (one may be free now) greedily. Writes to ``out[ob:]``; returns (length, state after, rng)."""
    g, end, work, na = c[TC_G], c[TC_END], c[TC_WORK], c[TC_NA]
    work[W_STAMP] += 1
    stamp = work[W_STAMP]
    stop = regions(na)[2]
    n, u, i, seen = 0, -1, 0, 0
    while i < tn and n < cap - 1 and not terminal(g, s) and to_move(g, s) == me:
        a = turn[i]
        i += 1
        if a == end:
            break
        if not is_legal(g, s, a, work, na):
            continue
        ua = actor(g, s, a)
        if u >= 0 and ua == u:
            continue
        if u < 0 and seen == pos:
            u = ua
            n, s, rng = redo_actor(c, s, me, u, rng, out, ob, n, cap)
            work[stop + u] = stamp
            continue
        seen += 1
        work[stop + ua] = stamp
        s, rng = settle(g, play(g, s, a), rng, work, na)
        out[ob + n] = a
        n += 1
    if u < 0 and not terminal(g, s) and to_move(g, s) == me:
        u, rng = pick_actor(c, s, 1.0, rng, stamp)
        if u >= 0:
            n, s, rng = redo_actor(c, s, me, u, rng, out, ob, n, cap)
            work[stop + u] = stamp
    return continue_turn(c, s, me, 0.0, rng, out, ob, n, cap, stamp)


@hot
def redo_actor(c, s, me: int, u: int, rng, out, ob: int, n: int, cap: int) -> tuple:
    """Actor ``u``'s new order: a random first decision (or none), then its best ones while they
    beat stopping. Appends to ``out[ob + n:]``; returns (length, state, rng)."""
    g = c[TC_G]
    eps = 1.0
    while n < cap - 1 and not terminal(g, s) and to_move(g, s) == me:
        a, nxt, rng = best_of_actor(c, s, me, u, eps, rng)
        if a < 0:
            break
        out[ob + n] = a
        n += 1
        s = nxt
        eps = 0.0
    return n, s, rng


@hot
def replay(c, s, me: int, turn, tn: int, rng) -> tuple:
    """(the state after ``me`` plays ``turn`` from ``s``, rng): illegal entries skipped, chance
    sampled, ``end`` played when the list runs out first."""
    g, end, work, na = c[TC_G], c[TC_END], c[TC_WORK], c[TC_NA]
    for i in range(tn):
        if terminal(g, s) or to_move(g, s) != me:
            return s, rng
        a = turn[i]
        if is_legal(g, s, a, work, na):
            s, rng = settle(g, play(g, s, a), rng, work, na)
            if a == end:
                return s, rng
    if end >= 0 and not terminal(g, s) and to_move(g, s) == me and is_legal(g, s, end, work, na):
        s, rng = settle(g, play(g, s, end), rng, work, na)
    return s, rng


@hot
def turn_value(c, s, me: int, turn, tn: int, lookahead: int, gamma: float, opp_eps: float, rng, cap: int) -> tuple:
    """(one sample of ``turn``'s value for ``me``, rng): the turn played (chance sampled), then
    ``lookahead`` turns of the players to move built by :func:`build_turn` (randomness
    ``opp_eps``), each discounting the final :func:`reward` by ``gamma`` (urgency)."""
    g = c[TC_G]
    s, rng = replay(c, s, me, turn, tn, rng)
    disc = 1.0
    tb = regions(c[TC_NA])[4]
    for _ in range(lookahead):
        if terminal(g, s):
            break
        p = to_move(g, s)
        m, s, rng = build_turn(c, s, p, opp_eps, rng, c[TC_WORK], tb, cap)
        disc *= gamma
    return disc * reward(c, s, me), rng


@hot
def turn_key(c, s, me: int, turn, tn: int, seed: int) -> int:
    """A hash (below 2**40) of the state ``turn`` reaches with chance drawn from ``seed``: two
    turns reaching the same state (another order of the same acts) get the same key."""
    s, rng = replay(c, s, me, turn, tn, seed)
    k = key(c[TC_G], s)
    h = 1469598103
    for i in range(len(k)):
        h = ((h * HASH_MUL) ^ (k[i] & 0xFFFFFFFF)) & HASH_MASK
    return h


@hot
def turn_actors(c, s, me: int, turn, tn: int, seed: int, out, ob: int) -> int:
    """Writes the actor of each entry of ``turn`` as replayed (chance from ``seed``) to
    ``out[ob:]``: -1 for ``end``, -2 for an entry skipped; returns how many entries were seen."""
    g, end, work, na = c[TC_G], c[TC_END], c[TC_WORK], c[TC_NA]
    rng = seed
    for i in range(tn):
        a = turn[i]
        if terminal(g, s) or to_move(g, s) != me or not is_legal(g, s, a, work, na):
            out[ob + i] = -2
            continue
        out[ob + i] = -1 if a == end else actor(g, s, a)
        s, rng = settle(g, play(g, s, a), rng, work, na)
    return tn


@hot
def play_combo(c, s, me: int, firsts, m: int, eps: float, rng, out, ob: int, cap: int) -> tuple:
    """A turn from one first decision per actor (naive sampling's combination; -1: the actor
    stays idle), in order: each first decision, when still legal, followed by that actor's best
    next ones; then the actors the combination did not move (blocked at the turn's start, or
    recruited during it) greedily with randomness ``eps`` (:func:`continue_turn`). Writes to ``out[ob:]``; returns
    (length, state after, rng)."""
    g, work, na = c[TC_G], c[TC_WORK], c[TC_NA]
    work[W_STAMP] += 1
    stamp = work[W_STAMP]
    stop = regions(na)[2]
    for i in range(m):
        a = firsts[i]
        if a >= 0 and not terminal(g, s) and to_move(g, s) == me:
            work[stop + actor(g, s, a)] = stamp
    n = 0
    for i in range(m):
        a = firsts[i]
        if n >= cap - 1 or terminal(g, s) or to_move(g, s) != me:
            break
        if a < 0 or not is_legal(g, s, a, work, na):
            continue
        u = actor(g, s, a)
        s, rng = settle(g, play(g, s, a), rng, work, na)
        out[ob + n] = a
        n += 1
        while n < cap - 1 and not terminal(g, s) and to_move(g, s) == me:
            b, nxt, rng = best_of_actor(c, s, me, u, 0.0, rng)
            if b < 0:
                break
            out[ob + n] = b
            n += 1
            s = nxt
    return continue_turn(c, s, me, eps, rng, out, ob, n, cap, stamp)


@hot
def likeliest(g, s, work, na: int):
    """``s`` past its chance nodes, each resolved by its most probable outcome."""
    cb = regions(na)[3]
    while not terminal(g, s) and to_move(g, s) == CHANCE:
        n = legal(g, s, work, cb)
        a, best = work[cb], -1.0
        for i in range(n):
            p = chance_prob(g, s, work[cb + i])
            if p > best:
                a, best = work[cb + i], p
        s = play(g, s, a)
    return s


@hot
def legal_turn(c, s, me: int, turn, tn: int, out, ob: int) -> int:
    """Writes to ``out[ob:]`` the entries of ``turn`` legal when their time comes along the
    likeliest line of the turn's chance (what a plan's labels follow), up to the end of the
    turn; returns how many. :func:`turn_line` without the states (none written: ``nw`` 0)."""
    return turn_line(c, s, me, turn, tn, out, ob, c[TC_WORK], 0)


@hot
def turn_line(c, s, me: int, turn, tn: int, out, ob: int, states, nw: int) -> int:
    """The entries of ``turn`` legal along the likeliest line (:func:`legal_turn`), and the
    states of that line (what serving the plan compares the game's states with): to ``states`` (flat, ``nw`` words a row) row ``i`` the state entry
    ``i`` is played from, row ``n`` the state after the last entry (its chance resolved the
    likeliest way); returns ``n``. ``states`` holds ``(tn + 1) * nw`` words."""
    g, end, work, na = c[TC_G], c[TC_END], c[TC_WORK], c[TC_NA]
    n = 0
    for i in range(tn):
        s = likeliest(g, s, work, na)
        if terminal(g, s) or to_move(g, s) != me:
            break
        a = turn[i]
        if is_legal(g, s, a, work, na):
            for j in range(nw):
                states[n * nw + j] = s[j]
            out[ob + n] = a
            n += 1
            s = play(g, s, a)
            if a == end:
                break
    if nw > 0:
        s = likeliest(g, s, work, na)
        for j in range(nw):
            states[n * nw + j] = s[j]
    return n
