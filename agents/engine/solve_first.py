"""MCTS that first asks the exact solver: a proven move when the solver finishes in its share.

Why: MCTS's random playouts misjudge positions whose only winning lines are narrow (in Quantik
its first reply as second player threw the proven win away in 45 of 50 games, and random kept
it once in 100). Small games are solved in milliseconds from a few plies on, so a share of each
move spent on :class:`agents.engine.solver.Solver` turns every position it proves *won or
drawn* into an optimal move. A proven loss is left to MCTS: every action loses against perfect
play, and MCTS's choice keeps the opponent's chances to err. The agent knows no game: it needs
only what the solver needs (no chance nodes; a game that ends).

``solve_share`` of each move's time goes to the solver (its table is kept between moves); MCTS
searches the rest, reusing its tree as usual (a move the solver made is found in it as any
opponent move is).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agents.engine.exact import refuse_exact
from agents.engine.mcts import MCTSAgent
from base.jit import CompileGate
from core.game import State


@dataclass
class SolveFirstAgent(MCTSAgent):
    """:class:`agents.engine.mcts.MCTSAgent` (every parameter of ``mcts``) playing the exact
    solver's move whenever the solver proves the position won or drawn within ``solve_share``."""

    needs_exact_solver = True  # offered only on games the exact solver takes (agents.engine.registry.supports)

    solve_share: float = 0.5  # share of each move's time for the exact solver before MCTS searches
    solver_tt_bits: int = 20  # the solver's table: about 2**solver_tt_bits entries (kept between moves)

    _solver: Any = field(default=None, init=False, repr=False)
    _solver_gate: CompileGate = field(default_factory=lambda: CompileGate("engine-solve-first"), init=False,
                                      repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        refuse_exact(self.game)
        if not 0.0 < self.solve_share < 1.0:
            raise ValueError("solve_share must be in (0, 1): MCTS needs the rest of the move")
        if not 4 <= self.solver_tt_bits <= 28:
            raise ValueError("solver_tt_bits must be within 4..28")

    def reset(self) -> None:
        super().reset()  # the solver's table stays: its entries are exact whatever the game

    def warm_up(self) -> float:
        """Compile MCTS's kernels and the solver's (every kernel a move calls); returns the
        seconds taken."""
        t0 = time.perf_counter()
        super().warm_up()
        if self._compiled_possible():
            self._solver_warm_up()
        return time.perf_counter() - t0

    def _solver_warm_up(self) -> float:
        """Compile the solver's kernel for this game."""
        from agents.engine import solver

        t0 = time.perf_counter()
        solver.warm_up(self.game)
        self._solver_gate.ready = True
        return time.perf_counter() - t0

    def _solver_jit(self, deadline: float) -> bool:
        if not self._compiled_possible():
            return False
        from agents.engine import solver

        return self._solver_gate.admit(deadline, self._solver_warm_up, lambda: solver.is_compiled(self.game),
                                       self.background_compile, self.compile_share)

    def choose(self, state: State, deadline: float) -> int:
        from agents.engine.solver import SolveError, Solver

        t0 = time.perf_counter()
        if self.game is None:
            self.game = state.game
        legal = state.legal_actions()
        if len(legal) > 1 and not state.is_chance_node():
            solve_by = t0 + (deadline - self.margin - t0) * self.solve_share
            jit = self._solver_jit(solve_by)
            if self._solver is None or self._solver.jit != jit:
                self._solver = Solver(self.game, tt_bits=self.solver_tt_bits if jit else min(self.solver_tt_bits, 18),
                                      jit=jit)
            try:
                found = self._solver.optimal(state, solve_by) if time.perf_counter() < solve_by else None
            except SolveError:
                found = None
            if found is not None and found[1] >= 0 and found[0] in legal:
                action, value = found
                self._info = {"action_values": {action: value}, "pv": [action], "value": value, "exact": True,
                              "reason": "solver", "nodes": self._solver.nodes, "simulations": 0,
                              "seconds": time.perf_counter() - t0, "compiled": jit}
                return action
            proven = None if found is None else found[1]
        else:
            proven = None
        action = super().choose(state, deadline)
        self._info["seconds"] = time.perf_counter() - t0
        if proven is not None:
            self._info["solver_value"] = proven  # a proven loss: MCTS chose among losing moves
        return action


__all__ = ["SolveFirstAgent"]
