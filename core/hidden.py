"""Helpers of the hidden-information contract (:mod:`core.game`'s docstring, "Hidden
information"): the seeded draw the games' ``determinize`` kernels share, and the checks tests
run on any game that implements the contract.
"""
from __future__ import annotations

import math
from collections.abc import Container, Iterable

from base.jit import hot
from core.game import Game, State, named_action, picture_frame, picture_moves

DRAW_P = 2147483647  # 2 ** 31 - 1: draws stay below it, so one product stays within int64
DRAW_A = 48271  # the Park-Miller multiplier (a full period modulo DRAW_P)


@hot
def draw(seed: int, k: int) -> int:
    """An index in ``[0, k)`` from a non-negative ``seed``: a Park-Miller step of the seed,
    then a modulo (the bias, below k / 2 ** 31, does not matter at these sizes)."""
    x = (seed % (DRAW_P - 1)) + 1
    x = (x * DRAW_A) % DRAW_P
    x = (x * DRAW_A) % DRAW_P
    return x % k


def determinizer_mismatch(game: Game, states: Iterable[State], seeds: Iterable[int],
                          reachable: Container | None = None) -> str | None:
    """The contract's determinizer checked on ``states``, for each player and seed: the sample
    has the player's information state (the observations do not rule it out), the mover's legal
    actions when the player is to move, is one of the ``reachable`` words (when given: every
    state of a small game), and two states with one information state give one sample for a
    seed (it reads only what the player observed). A line saying what broke, or None."""
    seeds = list(seeds)
    first: dict[tuple, tuple[State, list]] = {}
    for s in states:
        if s.is_terminal():
            continue
        for p in (0, 1):
            info = game.information_state(s, p)
            samples = []
            for seed in seeds:
                d = game.determinize(s, p, seed)
                if game.information_state(d, p) != info:
                    return f"player {p}: the sample {d.words} of {s.words} has another information state"
                if reachable is not None and d.words not in reachable:
                    return f"player {p}: the sample {d.words} of {s.words} is not a state of the game"
                if s.current_player() == p and d.legal_actions() != s.legal_actions():
                    return f"player {p}: the sample {d.words} of {s.words} has other legal actions"
                samples.append(d.words)
            seen = first.setdefault((p,) + info, (s, samples))
            if seen[1] != samples:
                return f"player {p}: {seen[0].words} and {s.words} look alike but sample differently"
    return None


class CardGame(Game):
    """A game of hidden information whose chance outcomes deal cards and whose decisions are bets
    (Kuhn poker, Leduc hold'em): their texts (``deal K``, ``raise``) from two tables."""

    perfect_information = False
    has_chance = True
    card_names: tuple[str, ...] = ()  # the text of each card (a deal's outcome)
    bet_names: tuple[str, ...] = ()  # the text of each decision
    states: int = 0  # how many states a game from the start reaches (counted by the tests; 0: unknown)

    def positions_log10(self) -> float:
        """log10 of :attr:`states` (what an exact solve may visit), the default when unknown."""
        return math.log10(self.states) if self.states else super().positions_log10()

    def action_to_string(self, state: State, action: int) -> str:
        if state.is_chance_node():
            return f"deal {self.card_names[action]}"
        return self.bet_names[action]

    def string_to_action(self, state: State, text: str) -> int:
        return named_action(state, text)

    def picture(self, state: State) -> dict:
        """The whole table (every card face up): :meth:`player_picture` of no seat."""
        return self.cards_picture(state, None)

    def player_picture(self, state: State, player: int) -> dict:
        """``player``'s view for the web app (kind ``cards``: ``static/game-cards.js``): the
        chance outcomes dealt so far in order (the first two the players' own, seat 0's then seat
        1's; a later one public), each ``{"owner", "text"}`` with ``text`` None where ``player``
        does not see it (:meth:`core.game.Game.seen_move_text`), the decisions made (public), and
        the legal actions as buttons when ``player`` is to move."""
        return self.cards_picture(state, player)

    def cards_picture(self, state: State, player: int | None) -> dict:
        """The picture of :meth:`player_picture` for ``player``; None: every card shown (the full view)."""
        s = self.initial()
        cards: list[dict] = []
        bets: list[dict] = []
        for a in state.history:
            if s.is_chance_node():
                owner = len(cards) if len(cards) < 2 else None
                text = self.action_to_string(s, a) if player is None else self.seen_move_text(s, a, player)
                cards.append({"owner": owner, "text": text})
            else:
                bets.append({"player": s.current_player(), "text": self.action_to_string(s, a)})
            s = s.apply(a)
        mover = None if state.is_terminal() or state.is_chance_node() else state.current_player()
        offered = mover is not None and player in (None, mover)
        moves = [{"action": a, "text": state.action_to_string(a)} for a in picture_moves(state)] if offered else []
        return picture_frame(state, "cards", [], ("first", "second"), moves, viewer=player, cards=cards, bets=bets)
