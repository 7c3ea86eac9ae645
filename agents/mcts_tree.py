"""Hot kernels of the Monte Carlo tree search family: an array-based tree, UCT or pheromone
selection, rollout or heuristic leaves, MCTS-solver proofs, compaction and cache transfer.

The tree is a set of preallocated numpy arrays indexed by node id, so the compiled loop touches
no Python object:

- ``children[n, col]``: id of the child reached by playing ``col`` at ``n``; ``UNEXPANDED``
  (-1) for a legal move not yet in the tree, ``ILLEGAL`` (-2) for a full column. A node knows
  its legal moves without storing its position.
- ``visits[n]``: simulations through ``n``.
- ``values[n]``: sum of the rewards (in [-1, 1]) of those simulations **for the player who
  moved into n** (the side to move at its parent). The parent picks the child with the largest
  ``values / visits + c * sqrt(ln N / n)``: the mean is already on the mover's side, so nothing
  is negated and the exploration bonus is always added.
- ``lo[n]``, ``hi[n]``: proven bounds (-1 loss, 0 draw, +1 win) on the game value for the side
  to move at ``n`` (score-bounded MCTS-solver, after Cazenave and Saffidine): a node is proven
  when ``lo == hi``. Bounds only ever tighten. A draw needs both bounds, so a win/loss-only
  solver never proves one; with bounds, a child that cannot beat what its parent already has
  (``-lo[child] <= lo[parent]``) is no longer selected, which is what makes draws provable.
- ``pher[n]``: pheromone on the edge into ``n`` (ant colony only; length 1 otherwise).
- ``state``: int64 ``[nodes used, rng state]``, so a batch resumes where the last one stopped.

Positions are never stored: a simulation replays them from the root's ``(current, mask)``, so
the same source runs on Python ints for boards over 63 bits. Random numbers come from our own
xorshift32 kept in ``state`` (not numba's global generator): two agents never share a stream,
and the compiled and plain paths draw the very same numbers.

Every node is created after its parent, so a parent's id is always smaller than its
children's; :func:`compact` relies on this to move nodes in place.
"""
from __future__ import annotations

import math

import numpy as np

from core.connectx.bitboard import can_play, has_won, move_bit, position_key
from heuristics.connectx.evaluate import evaluate
from core.connectx.mcts_hooks import playout
from util.jit import hot
from util.xorshift import rng_next  # noqa: F401  (the tree's random numbers; agents.mcts_cache uses it too)
UNEXPANDED = -1
ILLEGAL = -2

# Indexes into the float64 ``params`` array of :func:`run`.
P_C = 0  # UCT exploration constant c
P_LEAF = 1  # 0: random rollout, 1: heuristic, 2: both mixed
P_KIND = 2  # heuristic id (heuristics.connectx.params.HEURISTIC_IDS)
P_WIDTH = 3  # sigmoid width: reward = 2 / (1 + exp(-score / width)) - 1
P_POLICY = 4  # 0: UCT, 1: ant colony
P_POWER = 5  # ant: selection weight pheromone ** power
P_EVAP = 6  # ant: share of a child's pheromone that evaporates when its parent is visited
P_TAU0 = 7  # ant: pheromone of a new edge
P_DEPOSIT = 8  # ant: pheromone laid per simulation, times the mover's reward mapped to [0, 1]
P_FLOOR = 9  # ant: a child's pheromone counts as at least floor * its best sibling's
P_MIX = 10  # mixed leaves: weight of the squashed heuristic (the rollout gets 1 - mix)
N_PARAMS = 11

LEAF_ROLLOUT = 0
LEAF_HEURISTIC = 1
LEAF_MIXED = 2
POLICY_UCT = 0
POLICY_ANT = 1


@hot
def uct_score(value: float, visits: float, log_parent: float, c: float) -> float:
    """``value / visits + c * sqrt(ln N / visits)``; ``value`` is on the mover's side."""
    if visits <= 0.0:
        return math.inf
    return value / visits + c * math.sqrt(log_parent / visits)


@hot
def rollout(current: int, mask: int, ply: int, rows: int, columns: int, inarow: int, rng: int):
    """Uniformly random moves to the end: (+1 win / -1 loss / 0 draw for the side to move, rng)."""
    bottom = 0
    for c in range(columns):
        bottom |= 1 << (c * (rows + 1))
    played, won, rng = playout(current, mask, ply, rows, inarow, bottom * ((1 << rows) - 1), bottom, rows * columns, rng)
    if not won:
        return 0.0, rng
    return (1.0 if played & 1 else -1.0), rng


@hot
def known_bounds(current: int, mask: int, ply: int, rows: int, columns: int, inarow: int):
    """Bounds known without search: the last move won (-1, -1), the board is full (0, 0), the
    side to move wins at once (1, 1), the opponent threatens to win in two columns at once so
    one block cannot stop both (-1, -1), else (-1, 1)."""
    other = current ^ mask
    if has_won(other, rows, inarow):
        return -1, -1
    if ply >= rows * columns:
        return 0, 0
    threats = 0
    for col in range(columns):
        if can_play(mask, rows, col):
            move = move_bit(mask, rows, col)
            if has_won(current | move, rows, inarow):
                return 1, 1
            if has_won(other | move, rows, inarow):
                threats += 1
    if threats >= 2:
        return -1, -1
    return -1, 1


@hot
def assess(current: int, mask: int, ply: int, rows: int, columns: int, inarow: int, params, hparams, rng: int):
    """A position just reached: (lower bound, upper bound, reward for the side to move, rng).
    The reward of an unproven position is a rollout, the squashed heuristic, or a mix of both
    (the heuristic knows shape, which random playouts miss; the playout sees tactics)."""
    low, high = known_bounds(current, mask, ply, rows, columns, inarow)
    if low == high:
        return low, high, float(low), rng
    leaf = params[P_LEAF]
    h = 0.0
    if leaf != LEAF_ROLLOUT:
        score = evaluate(int(params[P_KIND]), current, mask, rows, columns, inarow, hparams)
        h = 2.0 / (1.0 + math.exp(-score / params[P_WIDTH])) - 1.0
        if leaf == LEAF_HEURISTIC:
            return low, high, h, rng
    r, rng = rollout(current, mask, ply, rows, columns, inarow, rng)
    if leaf == LEAF_MIXED:
        r = (1.0 - params[P_MIX]) * r + params[P_MIX] * h
    return low, high, r, rng


@hot
def init_node(children, visits, values, lo, hi, pher, node: int, mask: int, rows: int, columns: int,
              low: int, high: int, tau0: float) -> None:
    for col in range(columns):
        children[node, col] = UNEXPANDED if can_play(mask, rows, col) else ILLEGAL
    visits[node] = 0.0
    values[node] = 0.0
    lo[node] = low
    hi[node] = high
    if pher.shape[0] > node:
        pher[node] = tau0


@hot
def new_tree(children, visits, values, lo, hi, pher, state, current: int, mask: int, ply: int, rows: int,
             columns: int, inarow: int, tau0: float, seed_state: int) -> None:
    """Reset the tree to one root node (id 0) for the given position."""
    low, high = known_bounds(current, mask, ply, rows, columns, inarow)
    init_node(children, visits, values, lo, hi, pher, 0, mask, rows, columns, low, high, tau0)
    state[0] = 1
    state[1] = seed_state


@hot
def skipped(lo, hi, node: int, ch: int) -> bool:
    """A child that cannot do better for the mover than ``node``'s proven lower bound."""
    return -lo[ch] <= lo[node]


@hot
def select_uct(children, visits, values, lo, hi, node: int, columns: int, c: float) -> int:
    """Column of the best child by UCT among those that can still improve ``node``'s bound;
    a child proven lost for its side to move (a win for us) is taken at once."""
    log_parent = math.log(visits[node]) if visits[node] > 1.0 else 0.0
    best = -math.inf
    best_col = -1
    fallback = -1
    for col in range(columns):
        ch = children[node, col]
        if ch < 0:
            continue
        fallback = col
        if hi[ch] == -1:
            return col
        if skipped(lo, hi, node, ch):
            continue
        s = uct_score(values[ch], visits[ch], log_parent, c)
        if s > best:
            best = s
            best_col = col
    return best_col if best_col >= 0 else fallback


@hot
def select_ant(children, lo, hi, pher, node: int, columns: int, power: float, evap: float, floor: float, rng: int):
    """Pheromone-weighted random child among those that can still improve ``node``'s bound:
    P(child) proportional to ``max(pher, floor * best sibling's pher) ** power``.

    Visiting a node evaporates its children's pheromone by ``evap`` (lazy, local evaporation:
    only the edges an ant looks at age, so a step costs O(columns), not O(tree)). The floor is
    the MAX-MIN ant system's lower limit: without it the trail on the first good move grows
    while every other child decays towards 0 and is never tried again, and a better move
    found late (a forced win) would never be visited.
    """
    top = 0.0
    fallback = -1
    for col in range(columns):
        ch = children[node, col]
        if ch < 0:
            continue
        fallback = col
        if hi[ch] == -1:
            return col, rng
        if skipped(lo, hi, node, ch):
            continue
        pher[ch] *= 1.0 - evap
        top = max(top, pher[ch])
    if top <= 0.0:
        return fallback, rng
    low = floor * top
    total = 0.0
    for col in range(columns):
        ch = children[node, col]
        if ch >= 0 and not skipped(lo, hi, node, ch):
            total += max(pher[ch], low) ** power
    rng = rng_next(rng)
    target = total * ((rng - 1) / 4294967295.0)
    last = fallback
    for col in range(columns):
        ch = children[node, col]
        if ch < 0 or skipped(lo, hi, node, ch):
            continue
        last = col
        target -= max(pher[ch], low) ** power
        if target < 0.0:
            return col, rng
    return last, rng


@hot
def update_bounds(children, lo, hi, node: int, columns: int) -> bool:
    """Tighten ``node``'s bounds from its children's: lo = max(-hi[child]), hi = max(-lo[child]),
    an unexpanded child counting as (-1, 1). Bounds never widen, so a proven leaf stays proven."""
    new_lo = -1
    new_hi = -1
    legal = False
    for col in range(columns):
        ch = children[node, col]
        if ch == ILLEGAL:
            continue
        legal = True
        if ch == UNEXPANDED:
            new_hi = 1
            continue
        new_lo = max(new_lo, -hi[ch])
        new_hi = max(new_hi, -lo[ch])
    if not legal or (new_lo <= lo[node] and new_hi >= hi[node]):
        return False
    lo[node] = max(lo[node], new_lo)
    hi[node] = min(hi[node], new_hi)
    return True


@hot
def run(children, visits, values, lo, hi, pher, state, path, root: int, root_current: int, root_mask: int,
        root_ply: int, rows: int, columns: int, inarow: int, params, hparams, n_sims: int) -> int:
    """Run up to ``n_sims`` simulations from ``root``; stop early once the root is proven.

    Returns the number run. ``path``: int64 scratch of length ``rows * columns + 2``. When the
    tree is full, leaves are still evaluated and backed up but not stored. Rewards are clamped
    into each node's proven bounds on the way up.
    """
    capacity = children.shape[0]
    policy = int(params[P_POLICY])
    c = params[P_C]
    tau0 = params[P_TAU0]
    rng = int(state[1])  # a plain int on the Python path: it mixes with big-board ints
    done = 0
    while done < n_sims and lo[root] != hi[root]:
        node = root
        cur = root_current
        mask = root_mask
        ply = root_ply
        path[0] = root
        length = 1
        reward = 0.0  # for the side to move at path[length - 1]
        while True:
            if lo[node] == hi[node]:
                reward = float(lo[node])
                break
            rng = rng_next(rng)
            start = rng % columns
            col = -1
            for k in range(columns):
                cc = (start + k) % columns
                if children[node, cc] == UNEXPANDED:
                    col = cc
                    break
            if col >= 0:  # expand one new child and evaluate it
                new_mask = mask | move_bit(mask, rows, col)
                new_cur = cur ^ mask
                low, high, r, rng = assess(new_cur, new_mask, ply + 1, rows, columns, inarow, params, hparams, rng)
                if state[0] < capacity:
                    child = state[0]
                    state[0] = child + 1
                    init_node(children, visits, values, lo, hi, pher, child, new_mask, rows, columns, low, high, tau0)
                    children[node, col] = child
                    path[length] = child
                    length += 1
                    reward = r
                else:
                    reward = -r
                break
            if policy == POLICY_ANT:
                col, rng = select_ant(children, lo, hi, pher, node, columns, params[P_POWER], params[P_EVAP],
                                      params[P_FLOOR], rng)
            else:
                col = select_uct(children, visits, values, lo, hi, node, columns, c)
            node = children[node, col]
            new_mask = mask | move_bit(mask, rows, col)
            cur = cur ^ mask
            mask = new_mask
            ply += 1
            path[length] = node
            length += 1
        r = reward
        changed = True  # once a node's bounds stay put, its ancestors' do too
        for i in range(length - 1, -1, -1):
            n = path[i]
            if changed and i < length - 1:
                changed = update_bounds(children, lo, hi, n, columns)
            r = min(max(r, float(lo[n])), float(hi[n]))
            visits[n] += 1.0
            values[n] -= r  # the mover into n gets the opposite of its side to move's reward
            if policy == POLICY_ANT and i > 0:
                pher[n] += params[P_DEPOSIT] * (1.0 - r) * 0.5
            r = -r
        done += 1
    state[1] = rng
    return done


@hot
def best_column(children, visits, values, lo, hi, root: int, columns: int) -> int:
    """The move to play: a proven win if any; else the most visited child not proven lost
    (all of them if every one is), except that when the root holds a proven draw and that
    child's mean is below it, a child guaranteeing the draw. -1 when the root has no child."""
    best_col = -1
    best_visits = -1.0
    any_col = -1
    any_visits = -1.0
    safe_col = -1
    safe_visits = -1.0
    for col in range(columns):
        ch = children[root, col]
        if ch < 0:
            continue
        if hi[ch] == -1:  # proven win for us
            return col
        v = visits[ch]
        if v > any_visits:
            any_visits = v
            any_col = col
        if lo[ch] < 1 and v > best_visits:
            best_visits = v
            best_col = col
        if -hi[ch] >= lo[root] and v > safe_visits:
            safe_visits = v
            safe_col = col
    if best_col < 0:
        return any_col
    ch = children[root, best_col]
    if safe_col >= 0 and -hi[ch] < lo[root] and values[ch] < lo[root] * visits[ch]:
        return safe_col
    return best_col


@hot
def compact(children, visits, values, lo, hi, pher, state, new_root: int, min_visits: float, remap, stack) -> int:
    """Keep only the subtree of ``new_root`` (dropping children under ``min_visits`` visits),
    renumbered in place in id order so ``new_root`` becomes 0. Returns the nodes kept.

    ``remap`` and ``stack``: int64 scratch arrays as long as the tree. Moving in increasing id
    order is safe because a kept node's new id never exceeds its old one.
    """
    used = state[0]
    columns = children.shape[1]
    for i in range(used):
        remap[i] = -1
    remap[new_root] = 0
    stack[0] = new_root
    sp = 1
    while sp > 0:
        sp -= 1
        n = stack[sp]
        for col in range(columns):
            ch = children[n, col]
            if ch >= 0 and visits[ch] >= min_visits and remap[ch] < 0:
                remap[ch] = 0
                stack[sp] = ch
                sp += 1
    kept = 0
    for i in range(used):
        if remap[i] >= 0:
            remap[i] = kept
            kept += 1
    has_pher = pher.shape[0] >= children.shape[0]
    for i in range(used):
        j = remap[i]
        if j < 0:
            continue
        for col in range(columns):
            ch = children[i, col]
            if ch >= 0:
                ch = remap[ch]
                if ch < 0:
                    ch = UNEXPANDED
            children[j, col] = ch
        visits[j] = visits[i]
        values[j] = values[i]
        lo[j] = lo[i]
        hi[j] = hi[i]
        if has_pher:
            pher[j] = pher[i]
    state[0] = kept
    return kept


@hot
def collect(children, visits, values, lo, hi, root: int, root_current: int, root_mask: int, rows: int,
            columns: int, min_visits: float, out_keys, out_visits, out_values, out_lo, out_hi, stack, stack_cur,
            stack_mask) -> int:
    """Write ``(position key, visits, value, bounds)`` of every node reachable from ``root``
    through nodes with at least ``min_visits`` visits into the ``out_*`` arrays (in the order
    found, duplicates from transpositions included). Boards of 63 bits or less (int64 keys).
    Returns the count. Scratch ``stack*`` arrays and outputs must be as long as the tree."""
    count = 0
    stack[0] = root
    stack_cur[0] = root_current
    stack_mask[0] = root_mask
    sp = 1
    while sp > 0:
        sp -= 1
        n = stack[sp]
        cur = stack_cur[sp]
        mask = stack_mask[sp]
        out_keys[count] = position_key(cur, mask, rows, columns)
        out_visits[count] = visits[n]
        out_values[count] = values[n]
        out_lo[count] = lo[n]
        out_hi[count] = hi[n]
        count += 1
        for col in range(columns):
            ch = children[n, col]
            if ch >= 0 and visits[ch] >= min_visits:
                stack[sp] = ch
                stack_cur[sp] = cur ^ mask
                stack_mask[sp] = mask | move_bit(mask, rows, col)
                sp += 1
    return count


@hot
def find_key(keys, key: int) -> int:
    """Index of ``key`` in the sorted array ``keys``, or -1."""
    low = 0
    high = keys.shape[0]
    while low < high:
        mid = (low + high) // 2
        if keys[mid] < key:
            low = mid + 1
        else:
            high = mid
    if low < keys.shape[0] and keys[low] == key:
        return low
    return -1


@hot
def load_subtree(children, visits, values, lo, hi, pher, state, root: int, root_current: int, root_mask: int,
                 rows: int, columns: int, tau0: float, keys, cache_visits, cache_values, cache_lo, cache_hi,
                 queue, queue_cur, queue_mask, limit: int) -> int:
    """Graft the cached statistics below ``root`` (breadth first, until the tree is full or
    ``limit`` nodes are added: the plain path grafts about 30 K nodes a second).

    ``keys`` sorted and unique (see :func:`collect` and the cache module). The root takes its
    own cached statistics when present; bounds are intersected, never widened. Returns the
    nodes added. Scratch ``queue*`` arrays: as long as the tree."""
    i = find_key(keys, position_key(root_current, root_mask, rows, columns))
    if i >= 0:
        visits[root] = cache_visits[i]
        values[root] = cache_values[i]
        lo[root] = max(lo[root], cache_lo[i])
        hi[root] = min(hi[root], cache_hi[i])
    capacity = children.shape[0]
    added = 0
    queue[0] = root
    queue_cur[0] = root_current
    queue_mask[0] = root_mask
    head = 0
    tail = 1
    while head < tail and state[0] < capacity and added < limit:
        n = queue[head]
        cur = queue_cur[head]
        mask = queue_mask[head]
        head += 1
        for col in range(columns):
            if children[n, col] != UNEXPANDED or state[0] >= capacity or added >= limit:
                continue
            new_mask = mask | move_bit(mask, rows, col)
            new_cur = cur ^ mask
            i = find_key(keys, position_key(new_cur, new_mask, rows, columns))
            if i < 0:
                continue
            child = state[0]
            state[0] = child + 1
            init_node(children, visits, values, lo, hi, pher, child, new_mask, rows, columns, cache_lo[i],
                      cache_hi[i], tau0)
            visits[child] = cache_visits[i]
            values[child] = cache_values[i]
            children[n, col] = child
            added += 1
            if tail < queue.shape[0]:
                queue[tail] = child
                queue_cur[tail] = new_cur
                queue_mask[tail] = new_mask
                tail += 1
    return added


# --- the Python side of a tree (agents.mcts and agents.mcts_cache build them) ---
class Tree:
    """The preallocated node arrays of one search tree (layout: this module's docstring)."""

    def __init__(self, capacity: int, columns: int, pheromone: bool) -> None:
        self.children = np.empty((capacity, columns), dtype=np.int32)
        self.visits = np.zeros(capacity, dtype=np.float64)
        self.values = np.zeros(capacity, dtype=np.float64)
        self.lo = np.zeros(capacity, dtype=np.int8)
        self.hi = np.zeros(capacity, dtype=np.int8)
        self.pher = np.zeros(capacity if pheromone else 1, dtype=np.float64)
        self.state = np.zeros(2, dtype=np.int64)  # [nodes used, rng state]

    @property
    def used(self) -> int:
        return int(self.state[0])

    def arrays(self) -> tuple:
        return self.children, self.visits, self.values, self.lo, self.hi, self.pher, self.state

    def proof(self, node: int = 0) -> str | None:
        """"win", "loss" or "draw" for the side to move at ``node`` once proven, else None."""
        lo, hi = int(self.lo[node]), int(self.hi[node])
        return {1: "win", -1: "loss", 0: "draw"}[lo] if lo == hi else None


def seed_state(seed: int) -> int:
    """A nonzero xorshift32 state from any int seed (a Knuth multiplicative hash)."""
    return ((int(seed) * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF) or 1
