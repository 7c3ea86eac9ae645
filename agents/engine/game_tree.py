"""A game small enough to enumerate, laid out flat once (:class:`GameTree`, in the arrays
:mod:`agents.engine.cfr_kernels` reads), with tabular policies over its information sets: their
expected value, the best response's value and NashConv / exploitability. CFR
(:mod:`agents.engine.cfr`) and MCCFR (:mod:`agents.engine.mccfr`) iterate on it.

Generic: the tree asks the game only through :class:`core.game.State` and
:meth:`core.game.Game.information_state`. Two players, zero-sum.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.engine import cfr_kernels as CK
from core.game import Game, State

MAX_NODES = 2_000_000  # a bigger tree is refused: tabular CFR is for small games


@dataclass
class GameTree:
    """A game's whole tree, breadth first, in the flat arrays :mod:`agents.engine.cfr_kernels` reads."""

    game: Game
    nodes: np.ndarray  # int64 (nodes, NODE.size): player, slot, first child, children
    edges: np.ndarray  # float64 (nodes, EDGE.size): chance probability into the node, terminal outcome
    infosets: np.ndarray  # int64 (infosets, INFOSET.size): first slot, actions, player
    keys: list[tuple]  # each information set's key (Game.information_state)
    actions: list[list[int]]  # each information set's actions, in slot order
    states: list[State]  # a state of each information set (where a policy is asked: tabulate)
    members: list[list[int]] = field(default_factory=list)  # each information set's nodes

    @property
    def slots(self) -> int:
        return int(self.infosets[:, CK.GS_COUNT].sum()) if len(self.infosets) else 0

    @classmethod
    def build(cls, game: Game, max_nodes: int = MAX_NODES) -> GameTree:
        """Every state from ``game.initial()``; ValueError when there are more than ``max_nodes``
        or two states of one information set differ in their legal actions (a broken key)."""
        rows: list[list[int]] = []
        floats: list[list[float]] = []
        index: dict[tuple, int] = {}
        keys: list[tuple] = []
        actions: list[list[int]] = []
        states: list[State] = []
        members: list[list[int]] = []
        queue = deque([(game.initial(), 1.0)])
        while queue:
            s, prob = queue.popleft()
            n = len(rows)
            if n >= max_nodes:
                raise ValueError(f"{game.name} has more than {max_nodes} states: too big for tabular CFR")
            kids = s.legal_actions()
            player, slot = (CK.TERMINAL if s.is_terminal() else s.current_player()), -1
            if player >= 0:
                key = (player,) + tuple(game.information_state(s, player))
                i = index.setdefault(key, len(keys))
                if i == len(keys):
                    keys.append(key)
                    actions.append(kids)
                    states.append(s)
                    members.append([])
                elif actions[i] != kids:
                    raise ValueError(f"{game.name}: two states of one information state have other legal actions "
                                     f"({actions[i]} and {kids}): its information_state must tell them apart")
                members[i].append(n)
                slot = i  # the set's index for now; its first slot below
            probs = dict(s.chance_outcomes()) if player == CK.CHANCE else {}
            rows.append([player, slot, n + 1 + len(queue), len(kids)])
            floats.append([prob, s.returns()[0]])
            queue.extend((s.apply(a), probs.get(a, 1.0)) for a in kids)
        counts = np.array([len(a) for a in actions], dtype=np.int64)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64) if len(counts) else counts
        nodes = np.array(rows, dtype=np.int64).reshape(-1, CK.NODE.size)
        decided = nodes[:, CK.G_SLOT] >= 0
        nodes[decided, CK.G_SLOT] = first[nodes[decided, CK.G_SLOT]]
        infosets = np.zeros((len(keys), CK.INFOSET.size), dtype=np.int64)
        infosets[:, CK.GS_SLOT], infosets[:, CK.GS_COUNT] = first, counts
        infosets[:, CK.GS_PLAYER] = [k[0] for k in keys]
        return cls(game, nodes, np.array(floats, dtype=np.float64).reshape(-1, CK.EDGE.size), infosets,
                   keys, actions, states, members)

    # --- policies: one float a slot ------------------------------------------------------------
    def uniform_policy(self) -> np.ndarray:
        return np.concatenate([np.full(len(a), 1.0 / len(a)) for a in self.actions]) if self.actions else np.zeros(0)

    def tabulate(self, choose: Callable[[State], dict[int, float]]) -> np.ndarray:
        """The policy that ``choose`` (state -> {action: probability}) plays, asked once at a
        state of each information set: an agent's policy made tabular, for its exploitability."""
        out = np.zeros(self.slots)
        for i, s in enumerate(self.states):
            probs = choose(s)
            slot = int(self.infosets[i, CK.GS_SLOT])
            total = sum(probs.values())
            for j, a in enumerate(self.actions[i]):
                out[slot + j] = probs.get(a, 0.0) / total
        return out

    def as_dict(self, policy: np.ndarray) -> dict[tuple, dict[int, float]]:
        """``policy`` as information-state key -> {action: probability}."""
        out = {}
        for i, key in enumerate(self.keys):
            slot = int(self.infosets[i, CK.GS_SLOT])
            out[key] = {a: float(policy[slot + j]) for j, a in enumerate(self.actions[i])}
        return out

    def chance_reach(self, jit: bool | None = None) -> np.ndarray:
        """Each node's probability by chance's outcomes alone (the players' actions taken): the
        weight of a member of an information set as a determinization of it."""
        work = np.zeros((len(self.nodes), CK.WORK.size))
        kernels(jit).reach(self.nodes, self.edges, self.uniform_policy(), work)
        return work[:, CK.GW_RC].copy()

    # --- values ----------------------------------------------------------------------------------
    def policy_value(self, policy: np.ndarray, jit: bool | None = None) -> float:
        """Player 0's expected return when both play ``policy``."""
        K = kernels(jit)
        work = np.zeros((len(self.nodes), CK.WORK.size))
        K.reach(self.nodes, self.edges, policy, work)
        none = np.zeros(0)
        K.values(self.nodes, self.edges, policy, work, none, none, CK.NOBODY, 0.0)
        return float(work[0, CK.GW_VALUE])

    def best_response_value(self, policy: np.ndarray, player: int, jit: bool | None = None) -> float:
        """``player``'s expected return when it best responds to the other's ``policy``
        (exact: every information set's action chosen on the counterfactual values below it)."""
        work = np.zeros((len(self.nodes), CK.WORK.size))
        kernels(jit).reach(self.nodes, self.edges, policy, work)
        other = CK.GW_R1 if player == 0 else CK.GW_R0
        weight = work[:, other] * work[:, CK.GW_RC]  # the reach of everyone but the responder
        sign = 1.0 if player == 0 else -1.0
        nodes, edges = self.nodes, self.edges
        value: dict[int, float] = {}
        best: dict[int, int] = {}

        def node_value(n: int) -> float:
            if n in value:
                return value[n]
            who, slot, kid0, k = (int(x) for x in nodes[n])
            if who == CK.TERMINAL:
                v = sign * float(edges[n, CK.GF_OUTCOME])
            elif who == CK.CHANCE:
                v = sum(float(edges[kid0 + j, CK.GF_PROB]) * node_value(kid0 + j) for j in range(k))
            elif who != player:
                v = sum(float(policy[slot + j]) * node_value(kid0 + j) for j in range(k))
            else:
                v = node_value(kid0 + choice(n, slot, k))
            value[n] = v
            return v

        def choice(n: int, slot: int, k: int) -> int:
            if slot not in best:
                totals = [0.0] * k
                for m in self.members[self._infoset_of_slot[slot]]:
                    m0 = int(nodes[m, CK.G_KID0])
                    for j in range(k):
                        totals[j] += weight[m] * node_value(m0 + j)
                best[slot] = max(range(k), key=totals.__getitem__)
            return best[slot]

        return node_value(0)

    @property
    def _infoset_of_slot(self) -> dict[int, int]:
        cached = self.__dict__.get("_slot_map")
        if cached is None:
            cached = self.__dict__["_slot_map"] = {int(s): i for i, s in enumerate(self.infosets[:, CK.GS_SLOT])}
        return cached

    def nash_conv(self, policy: np.ndarray, jit: bool | None = None) -> float:
        """The sum of what each player gains by switching to a best response (0 at a Nash
        equilibrium; two-player zero-sum: the two best responses' values)."""
        return self.best_response_value(policy, 0, jit) + self.best_response_value(policy, 1, jit)

    def exploitability(self, policy: np.ndarray, jit: bool | None = None) -> float:
        """NashConv / 2, OpenSpiel's ``exploitability``."""
        return self.nash_conv(policy, jit) / 2.0


def kernels(jit: bool | None) -> Any:
    """The CFR kernels compiled (numba present and ``jit`` not False) or plain."""
    from base import jit as J

    use = J.numba_available() if jit is None else jit
    return J.compiled(CK) if use else CK
