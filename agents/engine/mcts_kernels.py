"""Hot kernels of the game-generic Monte Carlo tree search (:mod:`agents.engine.mcts`).

Bound to a game with :func:`core.game.bind` (every kernel below is imported by name from
:mod:`core.kernel_defaults`), compiled by numba or run as plain Python from the same source.

**The tree** lives in two flat arrays (numpy int64 / float64 compiled or when the compiled
path may take over mid-game; Python lists on the plain-only path, where list indexing is
several times faster). The module is compiled without numba's reference counting
(``NO_NRT``, :data:`base.jit.NO_NRT_FLAG`): numba counts each array a function receives with
an atomic add and subtract, inlined calls included, which cost a quarter of the run on
ConnectX; nothing here allocates except the two cache walks at the end (``@hot(nrt=True)``).

**Layouts.** Each region's slots are named once, by a :class:`base.layout.Layout`:
:data:`TREE_INTS` (``I_*``), :data:`SETTINGS` (``F_*``), the node records :data:`NODE_INTS`
(``N_*``) and :data:`NODE_FLOATS` (``V_*``).

**One simulation** (:func:`simulate`) is a descent, :func:`descend_closed` or
:func:`descend_open`, ending in the shared tail :func:`grow` (make, push and evaluate the new
node), then :func:`backup`. The code switches :data:`CHANCE_CODE` and :data:`OPEN_CODE`
(:func:`code_flags`, per binding) leave chance and open-loop code out of the compiled kernels
of games and agents that never run it.

``ints``: the header slots ``I_*``, then the legal-action buffer (``num_actions`` slots), the
mark buffer (``num_actions`` stamps, open loop: which actions are legal in this sample), the
path (two slots per level: node id and ``mover | chance_edge << 1``), one record of ``NI``
ints per node, then the **edge pool**:

- ``N_EDGE``: the node's edge block (index of its first slot in ``ints``; -1 before its first
  expansion). Children are **edge lists in contiguous blocks**: at a node's first expansion its
  actions (the game's ``expand`` or ``legal``; a chance node's outcomes) take one slot each,
  ``-1 - action`` while untried and the child's id once made, so selection reads a node's
  children from one place (no pointer chasing) and picks an untried action without calling
  ``legal`` again. An open-loop node's block has ``num_actions`` slots indexed by action (its
  legal actions differ between samples). Each block follows a header word ``owner | width <<
  32`` so that :func:`reroot` compacts the pool in one pass; a node has at most one block.
- ``N_NLEGAL``: the block's width (the node's actions or chance outcomes), -1 until the first
  expansion, 0 at a terminal node (closed loop); ``N_NKIDS``: children made.
- ``N_INFO``, packed (``info_word``): the action that led into the node, the player to move
  there (0, 1 or ``CHANCE``; never ply parity: a player may move twice in a row), ``xp`` (1:
  its actions came from ``expand``, so its children skip the tests ``expand`` made
  unnecessary: ``expand``'s ``ply`` 1), whether its block is indexed by action (open loop), and
  for a proven node the plies (decision moves) to the end of its proof line.

``floats``: the settings ``F_*``, one record of ``NF`` floats per node (visits, value sum,
proven bounds ``lo``/``hi``: what selection reads, 32 bytes), then two side arrays of one
float per node, at ``ints[I_AUX]`` (open loop: availability, the number of times the node's
action was legal when its parent was visited; closed loop: the probability of the chance
outcome leading into the node) and ``ints[I_PHER]`` (the pheromone on the edge into the node,
ant colony selection only, see :func:`select`).

**Values.** Rewards are player 0's return ``outcome / win_value`` clipped to [-1, 1];
``V_VALUE`` sums them **seen from the player who moved into the node** (the parent's player in
that simulation; below a chance node, the player who moved into the chance node), so a parent
picks the child with the largest ``value / visits + c * sqrt(ln N / n)`` with no sign flips.
Proven bounds are kept in **player 0's view** (a max node for player 0, a min node for player 1,
a probability-weighted mean at chance nodes), which needs no negation however turns go.

**Urgency.** Each decision ply between a node and the end of a simulation multiplies the
reward by ``gamma`` (per node: a node's mean is the discounted return from that node, so tree
reuse stays consistent): of two wins the sooner scores higher, of two losses the later. A
proven node returns ``value * gamma ** dist``.

**Closed loop** (default): a node is a state; at a chance node the outcome is sampled by
``chance_prob`` and has its own child. **Open loop** (``F_OPEN``): nodes are decision-action
sequences; chance is re-sampled on every simulation while replaying from the root, only the
actions legal in the current sample are considered, and UCT's ``N`` is the child's
availability (Cowling et al.'s ISMCTS) rather than the parent's visits. The solver is off in
open loop (a node is not a state).

**Score-bounded MCTS-solver** (Cazenave and Saffidine), on
real-valued bounds: a terminal node is proven at creation, the game's ``bounds`` hook may bound
a new node and its ``expand`` hook prove a decided one (see :func:`new_node`; ``F_EXPAND``:
``EXPAND_PRUNE`` also takes ``expand``'s actions as the node's children, ``EXPAND_PROVE`` keeps
every legal action, as ConnectX's agents do), parents tighten
from their children, a child that cannot improve its parent's
proven bound is not selected, and rewards are clamped into each node's bounds on the way up.

Random numbers: the agent's own xorshift32 kept in ``ints[I_RNG]``, so two agents never share
a stream and the compiled and plain paths draw the same numbers (tests compare visit counts).
"""
from __future__ import annotations

import math

from base.jit import hot
from base.layout import Layout
from base.xorshift import rng_next
from core.kernel_defaults import bounds, chance_prob, evaluate, key, legal, outcome, play, rollout, terminal, to_move
from core.kernel_expand import expand

NO_NRT = True  # compiled without reference counting: base.jit.NO_NRT_FLAG (nothing here allocates)
CHANCE = -1  # core.game.CHANCE (a literal here: numba reads module globals as constants)

# Code switches: constants that :func:`code_flags` overrides per binding, so that numba drops the
# branches a game or an agent never takes (chance code in a game without chance, the open-loop
# descent in a closed-loop agent): less to compile. The plain path takes the same branches.
CHANCE_CODE = True  # the game may have chance nodes (core.game.Game.has_chance)
OPEN_CODE = True  # the agent may search open loop (F_OPEN)

# ints header: counters, the tree's capacity and where each region starts; the edge pool's
# start, slots used and size; the floats' side arrays; the current simulation's path length
TREE_INTS = Layout("I_", "USED RNG CAP NACT STAMP BUF MARK PATH PATHCAP NODES EDGES EUSED ECAP AUX PHER DEPTH", size=16)
(I_USED, I_RNG, I_CAP, I_NACT, I_STAMP, I_BUF, I_MARK, I_PATH, I_PATHCAP, I_NODES, I_EDGES, I_EUSED, I_ECAP, I_AUX,
 I_PHER, I_DEPTH) = TREE_INTS.slots
IHEADER = TREE_INTS.size
# node record (ints)
NODE_INTS = Layout("N_", "EDGE NLEGAL NKIDS INFO")
N_EDGE, N_NLEGAL, N_NKIDS, N_INFO = NODE_INTS.slots
NI = NODE_INTS.size
EDGE_FACTOR = 16  # edge pool: capacity * (min(num_actions, EDGE_FACTOR) + 1) slots (full: no more expansions)
EXPAND_DEPTH = 1 << 20  # ``expand``'s depth meaning "to the end" (agents.engine.negamax.FULL)
# N_INFO bits: action + 1 (24 bits), player + 1 (2), xp (1), block indexed by action (1), dist (above)
INFO_PLAYER = 24
INFO_XP = 26
INFO_INDEXED = 27
INFO_DIST = 28
# floats header (settings, written by agents.engine.mcts): the search's, then the selection
# policy (0: UCT, 1: ant colony) and the ant colony's (see select), then F_EXPAND: the game's own
# ``expand`` hook at each new node (solver on): EXPAND_* below
SETTINGS = Layout("F_", "C LEAF WIDTH MIX GAMMA INVWIN OPEN SOLVER MAXROLL POLICY POWER EVAP TAU0 DEPOSIT FLOOR EXPAND",
                  size=16)
(F_C, F_LEAF, F_WIDTH, F_MIX, F_GAMMA, F_INVWIN, F_OPEN, F_SOLVER, F_MAXROLL, F_POLICY, F_POWER, F_EVAP, F_TAU0,
 F_DEPOSIT, F_FLOOR, F_EXPAND) = SETTINGS.slots
EXPAND_OFF = 0  # not asked (or the game has none)
EXPAND_PRUNE = 1  # proves decided positions and its actions are the node's children
EXPAND_PROVE = 2  # only proves decided positions; every legal action is a child
FHEADER = SETTINGS.size
# node record (floats); the availability / chance probability and the pheromone of each node
# live in two side arrays (ints[I_AUX], ints[I_PHER]: their offsets in floats)
NODE_FLOATS = Layout("V_", "VISITS VALUE LO HI")
V_VISITS, V_VALUE, V_LO, V_HI = NODE_FLOATS.slots
NF = NODE_FLOATS.size
NO_SOLVER = -2  # new_node's ``xply`` when the solver is off (-1: solver on, no ``expand``)

POLICY_UCT = 0
POLICY_ANT = 1

LEAF_ROLLOUT = 0
LEAF_HEURISTIC = 1
LEAF_MIXED = 2


def code_flags(has_chance: bool, open_loop: bool) -> dict[str, bool]:
    """The code switches (:data:`CHANCE_CODE`, :data:`OPEN_CODE`) for a game with or without
    chance and an agent searching open loop or not: the overrides of :func:`core.game.bind`."""
    return {"CHANCE_CODE": bool(has_chance), "OPEN_CODE": bool(open_loop)}


def edge_capacity(num_actions: int, capacity: int) -> int:
    """Slots of the edge pool (blocks and their header words)."""
    return capacity * (min(num_actions, EDGE_FACTOR) + 1) + num_actions + 1


def layout(num_actions: int, capacity: int, path_cap: int) -> tuple[int, int]:
    """Lengths of the (ints, floats) arrays for a tree of ``capacity`` nodes."""
    nodes = IHEADER + 2 * num_actions + 2 * path_cap
    return nodes + NI * capacity + edge_capacity(num_actions, capacity), FHEADER + (NF + 2) * capacity


def init_header(ints, num_actions: int, capacity: int, path_cap: int) -> None:
    ints[I_CAP] = capacity
    ints[I_NACT] = num_actions
    ints[I_BUF] = IHEADER
    ints[I_MARK] = IHEADER + num_actions
    ints[I_PATH] = IHEADER + 2 * num_actions
    ints[I_PATHCAP] = path_cap
    ints[I_NODES] = IHEADER + 2 * num_actions + 2 * path_cap
    ints[I_EDGES] = ints[I_NODES] + NI * capacity
    ints[I_EUSED] = 0
    ints[I_ECAP] = edge_capacity(num_actions, capacity)
    ints[I_AUX] = FHEADER + NF * capacity
    ints[I_PHER] = FHEADER + (NF + 1) * capacity
    for i in range(num_actions):
        ints[IHEADER + num_actions + i] = 0


# --- the node record's packed word ------------------------------------------------------------
@hot
def info_word(action: int, player: int, xp: int, indexed: int, dist: int) -> int:
    return ((action + 1) | ((player + 1) << INFO_PLAYER) | (xp << INFO_XP) | (indexed << INFO_INDEXED)
            | (dist << INFO_DIST))


@hot
def action_of(w: int) -> int:
    return (w & 0xFFFFFF) - 1


@hot
def player_of(w: int) -> int:
    return ((w >> INFO_PLAYER) & 3) - 1


@hot
def xp_of(w: int) -> int:
    return (w >> INFO_XP) & 1


@hot
def indexed_of(w: int) -> int:
    return (w >> INFO_INDEXED) & 1


@hot
def dist_of(w: int) -> int:
    return w >> INFO_DIST


@hot
def with_dist(w: int, dist: int) -> int:
    return (w & ((1 << INFO_DIST) - 1)) | (dist << INFO_DIST)


@hot
def discount(gamma: float, plies: int) -> float:
    """``gamma ** plies`` by repeated products: the same bits on both paths."""
    if gamma == 1.0:
        return 1.0
    d = 1.0
    for _ in range(plies):
        d *= gamma
    return d


@hot
def reward_of(g, s, invwin: float) -> float:
    """Player 0's reward at terminal ``s``: outcome / win_value clipped to [-1, 1]."""
    return min(1.0, max(-1.0, outcome(g, s) * invwin))


@hot
def sample_chance(g, s, ints, buf: int, n: int, rng: int):
    """(outcome drawn by ``chance_prob`` among ``ints[buf:buf + n]``, rng)."""
    rng = rng_next(rng)
    total = 0.0
    for i in range(n):
        total += chance_prob(g, s, ints[buf + i])
    target = total * ((rng - 1) / 4294967295.0)
    acc = 0.0
    for i in range(n):
        acc += chance_prob(g, s, ints[buf + i])
        if target < acc:
            return ints[buf + i], rng
    return ints[buf + n - 1], rng


@hot
def playout(g, s, ints, floats, rng: int):
    """Uniformly random actions (chance by its probabilities) to the end: (player 0's reward
    times ``gamma`` per decision ply, rng). The game's ``rollout`` hook plays it when the game
    has one (ConnectX: on bitboards); else ``legal``/``play`` here, 0 past ``F_MAXROLL`` steps."""
    gamma = floats[F_GAMMA]
    o, moves, rng = rollout(g, s, rng)
    if moves >= 0:
        r = min(1.0, max(-1.0, o * floats[F_INVWIN]))
        return (r if gamma == 1.0 else discount(gamma, moves) * r), rng
    buf = ints[I_BUF]
    limit = int(floats[F_MAXROLL])
    disc = 1.0
    steps = 0
    while not terminal(g, s):
        n = legal(g, s, ints, buf)
        if steps >= limit or n <= 0:
            return 0.0, rng
        if CHANCE_CODE and to_move(g, s) == CHANCE:
            a, rng = sample_chance(g, s, ints, buf, n, rng)
        else:
            rng = rng_next(rng)
            a = ints[buf + rng % n]
            disc *= gamma
        s = play(g, s, a)
        steps += 1
    return disc * reward_of(g, s, floats[F_INVWIN]), rng


@hot
def leaf_value(g, s, p: int, ints, floats, hp, rng: int):
    """Player 0's reward for the non-terminal state ``s`` just reached (``p``: its player to
    move, known by the caller): a rollout, the heuristic squashed by a sigmoid (after sampling
    any chance steps: ``evaluate`` scores the side to move), or ``(1 - mix) * rollout + mix *
    heuristic``."""
    leaf = int(floats[F_LEAF])
    h = 0.0
    if leaf != LEAF_ROLLOUT:
        t = s
        ended = False
        if CHANCE_CODE and p == CHANCE:
            buf = ints[I_BUF]
            while not terminal(g, t) and to_move(g, t) == CHANCE:
                n = legal(g, t, ints, buf)
                a, rng = sample_chance(g, t, ints, buf, n, rng)
                t = play(g, t, a)
            ended = terminal(g, t)
            if ended:
                h = reward_of(g, t, floats[F_INVWIN])
            else:
                p = to_move(g, t)
        if not ended:
            z = min(60.0, max(-60.0, evaluate(g, t, hp) / floats[F_WIDTH]))
            h = 2.0 / (1.0 + math.exp(-z)) - 1.0
            if p == 1:
                h = -h
        if leaf == LEAF_HEURISTIC:
            return h, rng
    r, rng = playout(g, s, ints, floats, rng)
    if leaf == LEAF_MIXED:
        r = (1.0 - floats[F_MIX]) * r + floats[F_MIX] * h
    return r, rng


@hot
def alloc_block(ints, node: int, width: int) -> int:
    """A block of ``width`` edge slots for ``node`` (its first slot's index in ``ints``), -1 when
    the pool is full. Each block starts with a header word ``owner | width << 32`` so that
    :func:`reroot` can compact the pool in one pass."""
    used = ints[I_EUSED]
    if used + width + 1 > ints[I_ECAP]:
        return -1
    e = ints[I_EDGES] + used
    ints[e] = node | (width << 32)
    ints[I_EUSED] = used + width + 1
    return e + 1


@hot
def fill_block(ints, node: int, n: int, buf: int) -> int:
    """Give ``node`` its edge block: the ``n`` actions listed at ``ints[buf:]``, untried. Returns
    the block's first slot, or -1 when the pool is full (the node stays unexpanded)."""
    e = alloc_block(ints, node, n)
    if e >= 0:
        for i in range(n):
            ints[e + i] = -1 - ints[buf + i]
        b = ints[I_NODES] + node * NI
        ints[b + N_EDGE] = e
        ints[b + N_NLEGAL] = n
    return e


@hot
def child_xply(floats, w: int, solver: bool) -> int:
    """``expand``'s ``ply`` for a new child of the node whose info word is ``w`` (1 when the
    node's actions came from ``expand``, so the child skips the tests it made unnecessary), -1
    when ``expand`` is not asked (no hook, a chance node's child), ``NO_SOLVER`` without the
    solver."""
    if not solver:
        return NO_SOLVER
    if floats[F_EXPAND] != EXPAND_OFF and player_of(w) != CHANCE:
        return xp_of(w)
    return -1


@hot
def new_node(g, s, ints, floats, hp, action: int, aux: float, xply: int) -> int:
    """A node for state ``s`` (reached by ``action``), or -1 when the tree is full. Terminal
    states are proven at once; with the solver (``xply != NO_SOLVER``) the game's ``bounds``
    hook bounds the others, and
    when ``xply >= 0`` (the game has its own ``expand``) its ``expand`` (at that ``ply``: 0
    unless the parent's actions came from ``expand``) proves decided positions (ConnectX: a win
    at once, two threats); with ``EXPAND_PRUNE`` the actions it gives (a forced block alone, no
    move under a threat) become the node's edge block at once: its first expansion then needs
    no ``legal``."""
    node = ints[I_USED]
    if node >= ints[I_CAP]:
        return -1
    ints[I_USED] = node + 1
    b = ints[I_NODES] + node * NI
    p = to_move(g, s)
    ints[b + N_EDGE] = -1
    ints[b + N_NLEGAL] = -1
    ints[b + N_NKIDS] = 0
    xp = 0
    dist = 0
    f = FHEADER + node * NF
    floats[f + V_VISITS] = 0.0
    floats[f + V_VALUE] = 0.0
    floats[ints[I_AUX] + node] = aux
    floats[ints[I_PHER] + node] = floats[F_TAU0]
    lo = -1.0
    hi = 1.0
    invwin = floats[F_INVWIN]
    if terminal(g, s):
        lo = reward_of(g, s, invwin)
        hi = lo
        ints[b + N_NLEGAL] = 0
    elif xply != NO_SOLVER and p != CHANCE:
        if xply >= 0:
            buf = ints[I_BUF]
            n, o = expand(g, s, EXPAND_DEPTH, xply, 0, ints, buf, hp)
            if n < 0:  # decided: the mover's outcome o, -n - 1 plies from here
                if p == 1:
                    o = -o
                lo = max(-1.0, min(1.0, o * invwin))
                hi = lo
                dist = -n - 1
            elif floats[F_EXPAND] == EXPAND_PRUNE and fill_block(ints, node, n, buf) >= 0:
                xp = 1
        if lo != hi:
            blo, bhi = bounds(g, s)  # the side to move's view, in outcome units
            if p == 0:
                lo = max(-1.0, min(1.0, blo * invwin))
                hi = max(-1.0, min(1.0, bhi * invwin))
            else:
                lo = max(-1.0, min(1.0, -bhi * invwin))
                hi = max(-1.0, min(1.0, -blo * invwin))
    ints[b + N_INFO] = info_word(action, p, xp, 0, dist)
    floats[f + V_LO] = lo
    floats[f + V_HI] = hi
    return node


@hot
def open_block(g, s, ints, floats, hp, node: int) -> int:
    """``node``'s first expansion (state ``s``, closed loop): its actions become its edge block of
    untried slots. With the solver and ``EXPAND_PRUNE``, at a decision node, the game's
    ``expand`` lists them (the root, a grafted node; a node the search made asked it already);
    else ``legal`` (a decided position still needs a move). Returns the block's width, or -1
    when the edge pool is full."""
    b = ints[I_NODES] + node * NI
    buf = ints[I_BUF]
    w = ints[b + N_INFO]
    n = -1
    if (floats[F_EXPAND] == EXPAND_PRUNE and floats[F_SOLVER] != 0.0 and floats[F_OPEN] == 0.0
            and player_of(w) != CHANCE):
        n, o = expand(g, s, EXPAND_DEPTH, 0, 0, ints, buf, hp)
        if n >= 0:
            ints[b + N_INFO] = w | (1 << INFO_XP)
    if n < 0:
        n = legal(g, s, ints, buf)
    return n if fill_block(ints, node, n, buf) >= 0 else -1


@hot
def find_child(ints, node: int, action: int) -> int:
    """``node``'s child for ``action``, or -1."""
    b = ints[I_NODES] + node * NI
    e = ints[b + N_EDGE]
    if e < 0:
        return -1
    if indexed_of(ints[b + N_INFO]):  # open loop: the block is indexed by action
        return ints[e + action]
    nb = ints[I_NODES]
    for i in range(ints[b + N_NLEGAL]):
        ch = ints[e + i]
        if ch >= 0 and action_of(ints[nb + ch * NI + N_INFO]) == action:
            return ch
    return -1


@hot
def add_child(g, ints, floats, hp, node: int, s, action: int) -> int:
    """``node``'s child for ``action`` (``s``: ``node``'s state, closed loop), made as the
    search would make it (terminal proven; the ``bounds`` and ``expand`` hooks), for grafting
    stored statistics (an opening cache). Opens ``node``'s edge block first if the search has
    not. Returns the child (the existing one if any), -1 when the tree or the edge pool is full,
    -2 when ``action`` is not among the node's listed actions (``expand`` left it out)."""
    b = ints[I_NODES] + node * NI
    if ints[b + N_NLEGAL] < 0 and open_block(g, s, ints, floats, hp, node) < 0:
        return -1
    e = ints[b + N_EDGE]
    for i in range(ints[b + N_NLEGAL]):
        ch = ints[e + i]
        if ch == -1 - action:
            solver = floats[F_SOLVER] != 0.0 and floats[F_OPEN] == 0.0
            xply = child_xply(floats, ints[b + N_INFO], solver)
            child = new_node(g, play(g, s, action), ints, floats, hp, action, 1.0, xply)
            if child >= 0:
                ints[e + i] = child
                ints[b + N_NKIDS] += 1
            return child
        if ch >= 0 and action_of(ints[ints[I_NODES] + ch * NI + N_INFO]) == action:
            return ch
    return -2


@hot
def node_player(ints, node: int) -> int:
    """The player to move at ``node`` (0, 1 or ``CHANCE``)."""
    return player_of(ints[ints[I_NODES] + node * NI + N_INFO])


@hot
def set_stats(floats, node: int, visits: float, value: float, lo: float, hi: float) -> None:
    """Overwrite ``node``'s visits and value sum; intersect its bounds (player 0's view) with
    ``[lo, hi]`` (bounds never widen)."""
    f = FHEADER + node * NF
    floats[f + V_VISITS] = visits
    floats[f + V_VALUE] = value
    floats[f + V_LO] = max(floats[f + V_LO], lo)
    floats[f + V_HI] = max(floats[f + V_LO], min(floats[f + V_HI], hi))


@hot
def pick_untried(ints, e: int, n: int, untried: int, rng: int):
    """(a uniformly random untried slot among the ``n`` of the block at ``e``, of which
    ``untried`` > 0 are untried, rng)."""
    rng = rng_next(rng)
    k = rng % untried
    for i in range(n):
        if ints[e + i] < 0:
            if k == 0:
                return i, rng
            k -= 1
    return n - 1, rng


@hot
def pick_marked(ints, n: int, stamp: int, untried: int, rng: int):
    """(a uniformly random action among the ``n`` of the legal buffer whose mark is ``stamp``,
    of which there are ``untried`` > 0, rng): open loop, the legal actions without a child."""
    buf = ints[I_BUF]
    mark = ints[I_MARK]
    rng = rng_next(rng)
    k = rng % untried
    for i in range(n):
        a = ints[buf + i]
        if ints[mark + a] == stamp:
            if k == 0:
                return a, rng
            k -= 1
    return ints[buf + n - 1], rng


@hot
def select(ints, floats, node: int, player: int, solver: bool, stamp: int, rng: int):
    """(the child to descend to, rng), by the policy ``F_POLICY``, among the children that may
    still matter: closed loop (``stamp`` < 0) with ``solver``, a child proven to reach the best
    possible value for ``player`` is taken at once and children that cannot improve the node's
    proven bound are skipped; open loop, only children whose action is marked ``stamp`` (legal
    in this sample) count.

    - **UCT**: the best ``mean + c * sqrt(ln N / n)``; N = the node's visits (closed loop) or the
      child's availability (open loop).
    - **Ant colony**: looking at the children
      evaporates their pheromone by ``F_EVAP`` (lazy, local evaporation: a step costs
      O(children), not O(tree)); then a child drawn with probability proportional to
      ``max(pher, floor * best sibling's pher) ** power``. The floor is the MAX-MIN ant system's
      lower limit: without it a better move found late would starve. The candidates are listed
      in the legal-action buffer (unused during selection) for the draw.
    """
    b = ints[I_NODES] + node * NI
    e = ints[b + N_EDGE]
    width = ints[b + N_NLEGAL]
    f = FHEADER + node * NF
    lo = floats[f + V_LO]
    hi = floats[f + V_HI]
    mark = ints[I_MARK]
    aux = ints[I_AUX]
    pher = ints[I_PHER]
    c = floats[F_C]
    ant = floats[F_POLICY] == POLICY_ANT
    keep = 1.0
    buf = 0
    if ant:
        keep = 1.0 - floats[F_EVAP]
        buf = ints[I_BUF]
    k = 0
    log_n = 0.0
    if stamp < 0 and floats[f + V_VISITS] > 1.0:
        log_n = math.log(floats[f + V_VISITS])
    best = -math.inf
    best_ch = -1
    fallback = -1
    for i in range(width):
        ch = ints[e + i]
        if ch < 0:
            continue
        if stamp >= 0 and ints[mark + i] != stamp:  # open loop: the block is indexed by action
            continue
        fallback = ch
        cf = FHEADER + ch * NF
        if solver:
            clo = floats[cf + V_LO]
            chi = floats[cf + V_HI]
            if (player == 0 and clo >= 1.0) or (player == 1 and chi <= -1.0):
                return ch, rng
            if (player == 0 and chi <= lo) or (player == 1 and clo >= hi):
                continue
        if ant:
            score = floats[pher + ch] * keep
            floats[pher + ch] = score
            ints[buf + k] = ch
            k += 1
        else:
            visits = floats[cf + V_VISITS]
            if stamp >= 0:
                avail = floats[aux + ch]
                log_n = math.log(avail) if avail > 1.0 else 0.0
            score = math.inf
            if visits > 0.0:
                score = floats[cf + V_VALUE] / visits + c * math.sqrt(log_n / visits)
        if score > best:
            best = score
            best_ch = ch
    if ant and best > 0.0:
        return ant_draw(ints, floats, buf, k, floats[F_FLOOR] * best, rng)
    return (best_ch if best_ch >= 0 else fallback), rng


@hot
def ant_draw(ints, floats, buf: int, k: int, low: float, rng: int):
    """(one of the ``k`` children listed at ``ints[buf:]``, drawn with probability proportional
    to ``max(pher, low) ** power``, rng)."""
    power = floats[F_POWER]
    pher = ints[I_PHER]
    total = 0.0
    for i in range(k):
        total += max(floats[pher + ints[buf + i]], low) ** power
    rng = rng_next(rng)
    target = total * ((rng - 1) / 4294967295.0)
    for i in range(k):
        target -= max(floats[pher + ints[buf + i]], low) ** power
        if target < 0.0:
            return ints[buf + i], rng
    return ints[buf + k - 1], rng


@hot
def update_bounds(ints, floats, node: int) -> bool:
    """Tighten ``node``'s bounds (player 0's view) from its children's: max of the children's at
    player 0's nodes, min at player 1's (an action without a child counts as [-1, 1]), the
    probability-weighted mean at chance nodes once every outcome has a child. Bounds never
    widen. Sets the proof length (``N_INFO``'s dist) when the node becomes proven. True if
    changed."""
    nb = ints[I_NODES]
    b = nb + node * NI
    nl = ints[b + N_NLEGAL]
    if nl <= 0:
        return False
    w = ints[b + N_INFO]
    p = player_of(w)
    nk = ints[b + N_NKIDS]
    if p == CHANCE and nk < nl:
        return False
    e = ints[b + N_EDGE]
    aux = ints[I_AUX]
    new_lo = 0.0
    new_hi = 0.0
    psum = 0.0
    first = True
    for i in range(nl):
        ch = ints[e + i]
        if ch < 0:
            continue
        cf = FHEADER + ch * NF
        clo = floats[cf + V_LO]
        chi = floats[cf + V_HI]
        if p == CHANCE:
            pr = floats[aux + ch]
            new_lo += pr * clo
            new_hi += pr * chi
            psum += pr
        elif first:
            new_lo = clo
            new_hi = chi
        elif p == 0:
            new_lo = max(new_lo, clo)
            new_hi = max(new_hi, chi)
        else:
            new_lo = min(new_lo, clo)
            new_hi = min(new_hi, chi)
        first = False
    if p == CHANCE:
        if psum <= 0.0:
            return False
        new_lo /= psum
        new_hi /= psum
    elif nk < nl:  # an action without a child: the node can still reach the best value
        if first:
            new_lo = -1.0
            new_hi = 1.0
        elif p == 0:
            new_hi = 1.0
        else:
            new_lo = -1.0
    f = FHEADER + node * NF
    lo = floats[f + V_LO]
    hi = floats[f + V_HI]
    if new_lo <= lo and new_hi >= hi:
        return False
    lo = max(lo, new_lo)
    hi = max(lo, min(hi, new_hi))
    floats[f + V_LO] = lo
    floats[f + V_HI] = hi
    if lo == hi:
        ints[b + N_INFO] = with_dist(w, proof_dist(ints, floats, node, lo))
    return True


@hot
def proof_dist(ints, floats, node: int, value: float) -> int:
    """The plies to the end of proven ``node``'s proof line (its value ``value``): the quickest
    proven line to a good value, the longest to a bad one; at a chance node the longest."""
    nb = ints[I_NODES]
    b = nb + node * NI
    p = player_of(ints[b + N_INFO])
    e = ints[b + N_EDGE]
    good = (p == 0 and value > 0.0) or (p == 1 and value < 0.0)
    dist = -1
    for i in range(ints[b + N_NLEGAL]):
        ch = ints[e + i]
        if ch < 0:
            continue
        cf = FHEADER + ch * NF
        d = dist_of(ints[nb + ch * NI + N_INFO])
        if p == CHANCE:
            dist = max(dist, d)
        elif floats[cf + V_LO] == value and floats[cf + V_HI] == value:
            if dist < 0 or (good and d + 1 < dist) or (not good and d + 1 > dist):
                dist = d + 1
    return max(dist, 0)


@hot
def simulate(g, ints, floats, hp, root: int, s, rng: int):
    """One simulation from ``root`` (state ``s``): select, expand one node, evaluate, back up
    (:func:`descend_closed` or :func:`descend_open`, then :func:`grow` and :func:`backup`).
    Returns the rng state."""
    if OPEN_CODE and floats[F_OPEN] != 0.0:
        reward, rng = descend_open(g, ints, floats, hp, root, s, rng)
        backup(ints, floats, ints[I_DEPTH], reward, False, floats[F_GAMMA])
    else:
        reward, rng = descend_closed(g, ints, floats, hp, root, s, rng)
        backup(ints, floats, ints[I_DEPTH], reward, floats[F_SOLVER] != 0.0, floats[F_GAMMA])
    return rng


@hot
def push(ints, node: int, edge: int) -> None:
    """Append ``node`` to the simulation's path, entered by ``edge`` (``mover | chance_edge << 1``)."""
    d = ints[I_DEPTH]
    at = ints[I_PATH] + 2 * d
    ints[at] = node
    ints[at + 1] = edge
    ints[I_DEPTH] = d + 1


@hot
def descend_closed(g, ints, floats, hp, root: int, s, rng: int):
    """Closed loop: from ``root`` (state ``s``) down the tree, a node being a state, to a
    terminal or proven node, the path's cap, or an untried edge (:func:`grow`). Returns (player
    0's reward at the path's last node, discounted from there, rng)."""
    solver = floats[F_SOLVER] != 0.0
    nb = ints[I_NODES]
    ints[I_DEPTH] = 0
    push(ints, root, 1 - player_of(ints[nb + root * NI + N_INFO]))
    node = root
    while True:
        b = nb + node * NI
        f = FHEADER + node * NF
        if ints[b + N_NLEGAL] == 0:  # terminal
            return floats[f + V_LO], rng
        w = ints[b + N_INFO]
        if solver and ints[I_DEPTH] > 1 and floats[f + V_LO] == floats[f + V_HI]:
            return floats[f + V_LO] * discount(floats[F_GAMMA], dist_of(w)), rng
        p = player_of(w)
        if ints[I_DEPTH] >= ints[I_PATHCAP]:
            return leaf_value(g, s, p, ints, floats, hp, rng)
        if ints[b + N_NLEGAL] < 0 and open_block(g, s, ints, floats, hp, node) < 0:
            return leaf_value(g, s, p, ints, floats, hp, rng)  # the edge pool is full: evaluate here
        child, slot, rng = pick_closed(g, ints, floats, node, s, solver, rng)
        if child < 0:
            return grow(g, ints, floats, hp, node, s, slot, rng)
        edge = p
        if CHANCE_CODE and p == CHANCE:  # the mover into a chance node's child is the one into the chance node
            edge = (ints[ints[I_PATH] + 2 * ints[I_DEPTH] - 1] & 1) | 2
        s = play(g, s, action_of(ints[nb + child * NI + N_INFO]))
        push(ints, child, edge)
        node = child


@hot
def pick_closed(g, ints, floats, node: int, s, solver: bool, rng: int):
    """(child, slot, rng): at an expanded closed-loop ``node`` (state ``s``), a chance outcome
    drawn by its probability, else an untried action drawn uniformly, else the child
    :func:`select` picks. ``child`` -1: the untried edge at ``ints[slot]`` is to be grown."""
    b = ints[I_NODES] + node * NI
    nl = ints[b + N_NLEGAL]
    e = ints[b + N_EDGE]
    p = player_of(ints[b + N_INFO])
    if CHANCE_CODE and p == CHANCE:
        i, rng = sample_slot(g, s, ints, e, nl, ints[I_NODES], rng)
        return ints[e + i], e + i, rng
    nk = ints[b + N_NKIDS]
    if nk < nl:
        i, rng = pick_untried(ints, e, nl, nl - nk, rng)
        return -1, e + i, rng
    child, rng = select(ints, floats, node, p, solver, -1, rng)
    return child, -1, rng


@hot
def descend_open(g, ints, floats, hp, root: int, s, rng: int):
    """Open loop: from ``root`` (state ``s``) down the tree, a node being a sequence of decision
    actions: chance re-sampled at every step, only the actions legal in this sample considered.
    Ends at a terminal state, the path's cap, or an untried action (:func:`grow`). Returns
    (player 0's reward at the path's last node, discounted from there, rng)."""
    nb = ints[I_NODES]
    ints[I_DEPTH] = 0
    push(ints, root, 1 - to_move(g, s))
    node = root
    while True:
        if CHANCE_CODE:
            s, rng = sample_chance_steps(g, s, ints, rng)
        if terminal(g, s):
            return reward_of(g, s, floats[F_INVWIN]), rng
        p = to_move(g, s)
        if ints[I_DEPTH] >= ints[I_PATHCAP]:
            return leaf_value(g, s, p, ints, floats, hp, rng)
        child, slot, rng = pick_open(g, ints, floats, node, s, p, rng)
        if child < 0:
            return grow(g, ints, floats, hp, node, s, slot, rng)
        s = play(g, s, action_of(ints[nb + child * NI + N_INFO]))
        push(ints, child, p)
        node = child


@hot
def sample_chance_steps(g, s, ints, rng: int):
    """(the first decision or terminal state from ``s``, chance outcomes drawn by their
    probabilities, rng)."""
    buf = ints[I_BUF]
    while not terminal(g, s) and to_move(g, s) == CHANCE:
        n = legal(g, s, ints, buf)
        a, rng = sample_chance(g, s, ints, buf, n, rng)
        s = play(g, s, a)
    return s, rng


@hot
def pick_open(g, ints, floats, node: int, s, p: int, rng: int):
    """(child, slot, rng) at open-loop ``node`` in this sample's state ``s`` (``p`` to move): the
    legal actions are marked (a child's availability counted), an untried one drawn uniformly,
    else the child :func:`select` picks among the legal ones. ``child`` -1: grow the untried
    action's edge at ``ints[slot]``, or ``slot = -1 - action`` when the node has no block (the
    edge pool is full: the child is evaluated, not stored). The node's block, made at its first
    visit, has a slot per action, indexed by action."""
    b = ints[I_NODES] + node * NI
    e = ints[b + N_EDGE]
    if e < 0:
        e = alloc_block(ints, node, ints[I_NACT])
        if e >= 0:
            for a in range(ints[I_NACT]):
                ints[e + a] = -1 - a
            ints[b + N_EDGE] = e
            ints[b + N_NLEGAL] = ints[I_NACT]
            ints[b + N_INFO] = ints[b + N_INFO] | (1 << INFO_INDEXED)
    buf = ints[I_BUF]
    mark = ints[I_MARK]
    n = legal(g, s, ints, buf)
    stamp = ints[I_STAMP] + 2
    ints[I_STAMP] = stamp
    untried = 0
    for i in range(n):
        a = ints[buf + i]
        ch = ints[e + a] if e >= 0 else -1
        if ch >= 0:
            ints[mark + a] = stamp + 1
            floats[ints[I_AUX] + ch] += 1.0
        else:
            ints[mark + a] = stamp
            untried += 1
    if untried > 0:
        action, rng = pick_marked(ints, n, stamp, untried, rng)
        return -1, (e + action if e >= 0 else -1 - action), rng
    child, rng = select(ints, floats, node, p, False, stamp + 1, rng)
    return child, -1, rng


@hot
def grow(g, ints, floats, hp, node: int, s, slot: int, rng: int):
    """The simulation's last step, shared by both descents: ``node`` (state ``s``, the path's
    last node) takes the untried action of edge ``ints[slot]`` (``slot < 0``: ``-1 - action``,
    nowhere to store it); its child is made (:func:`new_node`), pushed on the path and
    evaluated: its proven value, else :func:`leaf_value`. A full tree evaluates the child
    without storing it, seen from ``node``. Returns (player 0's reward, discounted from the
    path's last node, rng)."""
    action = -1 - (ints[slot] if slot >= 0 else slot)
    open_loop = OPEN_CODE and floats[F_OPEN] != 0.0
    b = ints[I_NODES] + node * NI
    w = ints[b + N_INFO]
    p = to_move(g, s)
    aux = 1.0  # a new node's availability (open loop) or outcome probability (chance)
    edge = p
    if CHANCE_CODE and p == CHANCE:
        aux = chance_prob(g, s, action)
        edge = (ints[ints[I_PATH] + 2 * ints[I_DEPTH] - 1] & 1) | 2
    s = play(g, s, action)
    child = -1
    if slot >= 0:
        child = new_node(g, s, ints, floats, hp, action, aux, child_xply(floats, w, floats[F_SOLVER] != 0.0 and not open_loop))
    if child < 0:  # tree full: evaluate without storing, seen from the node
        if terminal(g, s):
            reward = reward_of(g, s, floats[F_INVWIN])
        else:
            reward, rng = leaf_value(g, s, to_move(g, s), ints, floats, hp, rng)
        if p != CHANCE:
            reward *= floats[F_GAMMA]
        return reward, rng
    ints[slot] = child
    ints[b + N_NKIDS] += 1
    push(ints, child, edge)
    cb = ints[I_NODES] + child * NI
    cf = FHEADER + child * NF
    if ints[cb + N_NLEGAL] == 0 or (not open_loop and floats[cf + V_LO] == floats[cf + V_HI]):
        # terminal, or proven by the bounds or expand hook
        return floats[cf + V_LO] * discount(floats[F_GAMMA], dist_of(ints[cb + N_INFO])), rng
    return leaf_value(g, s, player_of(ints[cb + N_INFO]), ints, floats, hp, rng)


@hot
def sample_slot(g, s, ints, e: int, n: int, nb: int, rng: int):
    """(the slot of a chance outcome drawn by ``chance_prob`` among the ``n`` of the block at
    ``e``, rng)."""
    rng = rng_next(rng)
    total = 0.0
    for i in range(n):
        total += chance_prob(g, s, slot_action(ints, e + i, nb))
    target = total * ((rng - 1) / 4294967295.0)
    acc = 0.0
    for i in range(n):
        acc += chance_prob(g, s, slot_action(ints, e + i, nb))
        if target < acc:
            return i, rng
    return n - 1, rng


@hot
def slot_action(ints, slot: int, nb: int) -> int:
    ch = ints[slot]
    return -1 - ch if ch < 0 else action_of(ints[nb + ch * NI + N_INFO])


@hot
def backup(ints, floats, length: int, reward: float, solver: bool, gamma: float) -> None:
    """Add ``reward`` (player 0's, at the path's last node) to every node of the path, seen from
    each node's mover, times ``gamma`` per decision edge climbed; with the solver, tighten
    bounds bottom-up (once a node's stay put, its ancestors' do too) and clamp the reward into
    each node's bounds (a proven node gives its exact value, discounted by its proof length;
    with ``gamma < 1`` an open bound on the far side of 0 does not clamp, since discounting
    pulls a return towards 0). Ant colony: every edge below the root gains ``F_DEPOSIT`` times
    its mover's reward mapped to [0, 1]."""
    path = ints[I_PATH]
    nb = ints[I_NODES]
    deposit = floats[F_DEPOSIT] * 0.5 if floats[F_POLICY] == POLICY_ANT else 0.0
    pher = ints[I_PHER]
    r = reward
    changed = True
    for i in range(length - 1, -1, -1):
        n = ints[path + 2 * i]
        info = ints[path + 2 * i + 1]
        f = FHEADER + n * NF
        if solver:
            if changed and i < length - 1:
                changed = update_bounds(ints, floats, n)
            lo = floats[f + V_LO]
            hi = floats[f + V_HI]
            if lo == hi:
                r = lo * discount(gamma, dist_of(ints[nb + n * NI + N_INFO]))
            else:
                if gamma < 1.0:
                    lo = min(lo, 0.0)
                    hi = max(hi, 0.0)
                r = min(max(r, lo), hi)
        floats[f + V_VISITS] += 1.0
        if info & 1:
            floats[f + V_VALUE] -= r
            if deposit > 0.0 and i > 0:
                floats[pher + n] += deposit * (1.0 - r)
        else:
            floats[f + V_VALUE] += r
            if deposit > 0.0 and i > 0:
                floats[pher + n] += deposit * (1.0 + r)
        if i > 0 and (info & 2) == 0:
            r *= gamma


@hot
def root_done(ints, floats, root: int) -> bool:
    """The root is proven and one of its children is proven to reach that value."""
    f = FHEADER + root * NF
    lo = floats[f + V_LO]
    if lo != floats[f + V_HI]:
        return False
    b = ints[I_NODES] + root * NI
    e = ints[b + N_EDGE]
    for i in range(max(0, ints[b + N_NLEGAL])):
        ch = ints[e + i]
        if ch >= 0:
            cf = FHEADER + ch * NF
            if floats[cf + V_LO] == lo and floats[cf + V_HI] == lo:
                return True
    return False


@hot
def new_tree(g, ints, floats, s, rng: int) -> int:
    """Reset the tree to one root node (id 0) for state ``s`` (not bounded by the ``bounds``
    hook: a root proven without children would leave no move to pick)."""
    ints[I_USED] = 0
    ints[I_EUSED] = 0
    ints[I_RNG] = rng
    return new_node(g, s, ints, floats, ints, -1, 1.0, NO_SOLVER)


@hot
def run(g, ints, floats, hp, root: int, s, n_sims: int) -> int:
    """Up to ``n_sims`` simulations from ``root`` (state ``s``); stops early once the root is
    proven with a child reaching its value (closed loop, solver on). Returns the number run."""
    rng = ints[I_RNG]
    solver = floats[F_SOLVER] != 0.0 and floats[F_OPEN] == 0.0
    done = 0
    while done < n_sims:
        if solver and root_done(ints, floats, root):
            break
        rng = simulate(g, ints, floats, hp, root, s, rng)
        done += 1
    ints[I_RNG] = rng
    return done


@hot
def reroot(ints, floats, new_root: int, remap) -> int:
    """Keep only ``new_root``'s subtree, renumbered in place in id order so that it becomes node
    0, and its edge blocks, packed in pool order. Returns the nodes kept. ``remap``: scratch of
    at least the nodes used. A child is always created after its parent (a larger id), so one
    pass in id order finds the subtree and moving records down in that order never overwrites
    one still to move; blocks move down in pool order likewise (each block's header names its
    owner, and a node has at most one block)."""
    used = ints[I_USED]
    nb = ints[I_NODES]
    for i in range(used):
        remap[i] = -1
    remap[new_root] = 0
    for i in range(new_root, used):
        if remap[i] < 0:
            continue
        b = nb + i * NI
        e = ints[b + N_EDGE]
        if e < 0:
            continue
        width = ints[e - 1] >> 32
        for k in range(width):
            ch = ints[e + k]
            if ch >= 0:
                remap[ch] = 0
    kept = 0
    for i in range(new_root, used):
        if remap[i] >= 0:
            remap[i] = kept
            kept += 1
    # edge blocks: the live ones of kept nodes, packed down in pool order
    start = ints[I_EDGES]
    end = start + ints[I_EUSED]
    x = start
    dst = start
    while x < end:
        owner = ints[x] & 0xFFFFFFFF
        width = ints[x] >> 32
        if remap[owner] >= 0:
            ints[dst] = remap[owner] | (width << 32)
            for k in range(width):
                ch = ints[x + 1 + k]
                ints[dst + 1 + k] = remap[ch] if ch >= 0 else ch
            ints[nb + owner * NI + N_EDGE] = dst + 1
            dst += width + 1
        x += width + 1
    ints[I_EUSED] = dst - start
    aux = ints[I_AUX]
    pher = ints[I_PHER]
    for i in range(new_root, used):
        j = remap[i]
        if j < 0:
            continue
        src = nb + i * NI
        to = nb + j * NI
        for k in range(NI):
            ints[to + k] = ints[src + k]
        for k in range(NF):
            floats[FHEADER + j * NF + k] = floats[FHEADER + i * NF + k]
        floats[aux + j] = floats[aux + i]
        floats[pher + j] = floats[pher + i]
    w = ints[nb + N_INFO]
    ints[nb + N_INFO] = (w & ~0xFFFFFF)  # the root's action: -1
    ints[I_USED] = kept
    return kept


# --- stored statistics: collect and graft (opening caches) ---
# Statistics kept apart from a tree (an opening cache file) travel as parallel arrays sorted by
# the ``key`` hook's first word: ``keys``, ``visits``, ``values`` (the value sum, seen from the
# player who moved into the node, as ``V_VALUE``) and ``lo``/``hi``, proven bounds seen by the
# node's **side to move** (-1 loss, 0 draw, 1 win; the tree keeps player 0's view), the natural
# view of a stored position whatever the tree's convention. The two kernels below reach the
# tree only through find_child, add_child, node_player, set_stats and node_stats, so they keep
# working when the node records change. Games whose ``key`` fits one int64 word only.


@hot
def node_stats(floats, node: int):
    """``node``'s (visits, value sum, lo, hi), bounds in player 0's view (see :func:`set_stats`)."""
    f = FHEADER + node * NF
    return floats[f + V_VISITS], floats[f + V_VALUE], floats[f + V_LO], floats[f + V_HI]


@hot
def find_key(keys, k: int) -> int:
    """Index of ``k`` in the sorted array ``keys``, or -1."""
    low = 0
    high = keys.shape[0]
    while low < high:
        mid = (low + high) // 2
        if keys[mid] < k:
            low = mid + 1
        else:
            high = mid
    if low < keys.shape[0] and keys[low] == k:
        return low
    return -1


@hot(nrt=True)  # its stack is a list
def collect(g, ints, floats, root: int, s, min_visits: float, out_keys, out_visits, out_values, out_lo, out_hi) -> int:
    """Write every node reachable from ``root`` (state ``s``) through children with at least
    ``min_visits`` visits into the ``out_*`` arrays (the convention above; in the order found,
    transpositions as separate entries) and return the count. Children are found by the
    game's legal actions, so the walk needs no child list; outputs as long as the tree."""
    buf = ints[I_BUF]
    count = 0
    stack = [(root, s)]
    while len(stack) > 0:
        n, t = stack.pop()
        visits, value, lo, hi = node_stats(floats, n)
        if node_player(ints, n) == 1:
            lo, hi = -hi, -lo
        out_keys[count] = key(g, t)[0]
        out_visits[count] = visits
        out_values[count] = value
        out_lo[count] = lo
        out_hi[count] = hi
        count += 1
        if terminal(g, t):
            continue
        m = legal(g, t, ints, buf)
        for i in range(m):
            a = ints[buf + i]
            ch = find_child(ints, n, a)
            if ch >= 0 and node_stats(floats, ch)[0] >= min_visits:
                stack.append((ch, play(g, t, a)))
    return count


@hot(nrt=True)  # its queue is a list
def graft(g, ints, floats, hp, root: int, s, keys, visits, values, lo, hi, limit: int) -> int:
    """Graft stored statistics (the convention above) below ``root`` (state ``s``), breadth
    first: each legal action of a node whose resulting state is stored gets a child (made by
    :func:`add_child`, so bounded as a search's node would be) holding those statistics, until
    ``limit`` children are added or the tree is full. The root takes its own stored statistics
    when present. Bounds are intersected, never widened. Returns the children added."""
    buf = ints[I_BUF]
    i = find_key(keys, key(g, s)[0])
    if i >= 0:
        low = float(lo[i])
        high = float(hi[i])
        if node_player(ints, root) == 1:
            low, high = -high, -low
        set_stats(floats, root, visits[i], values[i], low, high)
    added = 0
    queue = [(root, s)]
    head = 0
    while head < len(queue) and added < limit:
        n, t = queue[head]
        head += 1
        if terminal(g, t):
            continue
        m = legal(g, t, ints, buf)
        for j in range(m):
            if added >= limit:
                break
            a = ints[buf + j]
            u = play(g, t, a)
            ch = find_child(ints, n, a)
            if ch < 0:
                i = find_key(keys, key(g, u)[0])
                if i < 0:
                    continue
                ch = add_child(g, ints, floats, hp, n, t, a)
                if ch == -2:  # not a child the search would make (the game's expand prunes it)
                    continue
                if ch < 0:  # the tree is full
                    return added
                low = float(lo[i])
                high = float(hi[i])
                if node_player(ints, ch) == 1:
                    low, high = -high, -low
                set_stats(floats, ch, visits[i], values[i], low, high)
                added += 1
                m = legal(g, t, ints, buf)  # add_child may have used the buffer
            queue.append((ch, u))
    return added
