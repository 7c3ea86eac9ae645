"""The game interface every search, the arena, tuning, play and the web app use.

Two layers, one source of rules:

1. **Kernels** (hot code, :mod:`base.jit`): a game's rules as functions on a *state*, a tuple
   of ``Game.words`` ints (int64 when compiled: each word must stay below ``2 ** 63``).
   Searches in ``agents/`` call them by the names of the contract below and know nothing
   else of the game; :func:`base.jit.bind` binds a game's kernels into a search at compile
   time, or as plain Python (any int size) when numba is absent or the state does not fit.
2. **Python** (:class:`State`): an immutable value over those words for people and tools
   (legal actions, ``apply``, returns, text), in the spirit of OpenSpiel's ``State`` and
   python-chess's ``Board``. It calls the plain kernels, so the two layers cannot disagree.

Kernel contract (module ``core/<game>/kernels.py``; every function ``@hot``; ``g`` is the
game's constants, an int64 array on the compiled path and a list on the plain path, built once
by :meth:`Game.constants`; ``s`` a state tuple; ``out``/``base`` an int array and an offset to
write into, so that no kernel allocates):

**Array states.** A game whose state is too big for a tuple (Reinforce Tactics: 1,804 words)
sets :attr:`Game.array_state`: its kernels take ``s`` as a 1-D int64 array on the compiled path
(a tuple or an array on the plain path: index it only), never write into it, and ``play``
returns a new array (it allocates: numba's reference counting then stays on in every search
bound to the game, :func:`bind`; ``legal`` may allocate scratch arrays too). Searches hand the
kernels :func:`kernel_state`; a :class:`State` still holds a tuple of Python ints. Without a
``key`` hook the table key of such a game is :func:`core.kernel_defaults.hashed_key` (four hash
words, not the state: see :func:`key_function`).

=============================================  ==================================================
``to_move(g, s) -> int``                        0 or 1, or :data:`CHANCE` at a chance node; at a
                                               terminal state, the player who would move next
``legal(g, s, out, base) -> int``              write the legal actions (ints in
                                               ``[0, num_actions)``; at a chance node the
                                               outcomes) to ``out[base:]``, return their count;
                                               0 only at terminal states
``play(g, s, a) -> state``                     the state after action (or chance outcome) ``a``
``terminal(g, s) -> bool``                     the game is over
``outcome(g, s) -> float``                     player 0's return at a terminal state (player 1
                                               gets minus it: two-player zero-sum); may be a
                                               score difference, not only +-1
``chance_prob(g, s, a) -> float``              probability of outcome ``a`` at a chance node
                                               (games without chance: return 0.0)
``key(g, s) -> tuple``                         table key, side to move included: a tuple of
                                               non-negative ints of one fixed length (any, e.g.
                                               ConnectX's one word), equal for two states only
                                               when they are the same or (a game with
                                               symmetries) symmetric images, up to what cannot
                                               change their future (see below); default: ``s``
=============================================  ==================================================

The key rule: search tables store a value under the key and hand it to every state with that
key, whatever its path. So a key may drop only what changes neither the state's future moves
nor its outcomes: a game whose value depends on the ply count (a ply cap: a win in reach only
while enough plies are left) keeps the ply in its key, as Quixo's does under a cap. Positions
that repeat need nothing more (the rules hold no repetition rule here: the exact solver never
stores a value found by cutting a cycle, it stops). :func:`key_mismatch` checks the rule on
sample states (tests run it on every registered game).

Values for searches: a negamax search scores a terminal state as ``outcome`` seen from the side
to move, scaled by :attr:`Game.win_value` (a search adds its own preference for quicker wins);
heuristics (``heuristics/<game>/``) score the side to move well inside that scale.

Optional hooks a search uses when a game module has them (with a default otherwise):
``evaluate(g, s, params) -> float`` (heuristic; default 0), ``order(g, s, out, base, n, params)``
(reorder the move list in place; default: as generated), ``bounds(g, s) -> (lo, hi)`` (proven
value bounds for the side to move, for the exact-solver shell), and
``expand(g, s, depth, ply, sort, out, base, params) -> (n, o)``: the depth-first searches' view
of a node (decided ``n < 0`` at ``d = -n - 1`` plies with the mover's outcome ``o``; a leaf at
``depth == 0``; else ``n`` actions at ``out[base:]``, best first, an action left out no better
than those kept); contract and default (``terminal``, ``legal``, ``order``) in
:mod:`core.kernel_expand`. Games whose turn is several decisions (:attr:`Game.end_turn_action`)
may name who does each decision: ``actor(g, s, a) -> int`` (a unit or a recruitment site, an
int in ``[0, num_actions)``, for the mover's legal decision ``a`` other than the end of the
turn; default 0: one actor), so that the turn searches (:mod:`agents.engine.macro_kernels`)
derive "the units that may act and each one's options" from ``legal`` and see a turn as one
order per unit.

**Hidden information** (optional; a game sets :attr:`Game.perfect_information` to False). The
kernels then also have, every one ``@hot`` and without allocation like the rest:
``info_key(g, s, p) -> tuple`` (player ``p``'s information state at ``s``: a fixed-length tuple
of non-negative ints, equal for two states exactly when ``p`` cannot tell them apart from
everything it has observed since the start, perfect recall, ``p`` included so that the two
players' keys never meet; the legal actions must follow from it), ``observe(g, s, p) -> tuple``
(what ``p`` sees at ``s`` now, fixed length, may forget the past: e.g. its cards and the chips in
the pot) and ``determinize(g, s, p, seed) -> state`` (a full state with ``p``'s ``info_key`` of
``s``, drawn by a seeded hash of ``seed`` with the chance probabilities of the hidden outcomes
given what ``p`` observed; it reads of ``s`` only what ``info_key`` holds, so two states ``p``
cannot tell apart give the same sample for the same seed; the opponents' actions are not used
as evidence about their hidden cards, as OpenSpiel's ``ResampleFromInfostate``). Searches reach
them through :meth:`Game.information_state`, :meth:`Game.observation` and
:meth:`Game.determinize`, whose defaults for a perfect-information game are the state itself
(every other game is untouched: no kernel, no search pays anything).
"""
from __future__ import annotations

import functools
import importlib
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from base import bounds as bounds_mod
from base.params import Param, from_tuple

CHANCE = -1  # ``to_move`` at a chance node (OpenSpiel's kChancePlayerId)
Words = tuple  # a state: a tuple of ints


def as_words(words: Any) -> Words:
    """A kernel's state (a tuple, or an int64 array: :attr:`Game.array_state`) as the tuple of
    Python ints a :class:`State` holds (an array converts through ``tolist``: 20 times faster
    than int() word by word on Reinforce Tactics' 1,804 words)."""
    tolist = getattr(words, "tolist", None)
    return tuple(tolist()) if tolist is not None else tuple(int(w) for w in words)


def parse_param(value: Any, param: Param, game: str) -> Any:
    """A game parameter's value (:meth:`base.params.Param.parse`: its kind within its bounds, an
    int without bounds within int64): ValueError of one line (``game 'connectx': rows must be an
    integer from 1 to 20, got 100000``) otherwise."""
    try:
        return param.parse(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"game {game!r}: {exc}") from None


@dataclass(frozen=True)
class Symmetry:
    """One symmetry of a game: a map of states and the matching map of actions."""

    name: str
    state: Callable[[Words], Words]
    action: Callable[[int], int]


class Game:
    """A game with its parameters: the rules' constants and the Python face of its kernels.

    Subclasses set ``name``, ``words``, ``num_actions``, ``kernels`` (the module path of the
    kernel contract), and implement :meth:`initial_words`, :meth:`action_to_string`,
    :meth:`string_to_action`. Parameters are declared in :attr:`PARAMS` (name ->
    :class:`base.params.Param`: ``PARAMS = table(Param("rows", 6, 1, 20, "board rows"), ...)``;
    the older tuple form ``(type, default, help[, (lo, hi)])`` is read into one when the class is
    made), so tools can list and parse them; the bounds (either end None for none) are checked
    before anything is built. Text is parsed strictly: ``"1.5"`` is not an int, nor are Unicode
    digits.
    """

    name: str = ""
    words: int = 1  # length of a state tuple
    num_actions: int = 0  # actions are ints in [0, num_actions)
    kernels: str = ""  # module path of the kernel contract, e.g. "core.tictactoe.kernels"
    heuristics: str = ""  # module path of the game's heuristics (``heuristics/<game>/``), if any
    solve_front: str = ""
    """Module path of the game's own front for the exact-solver command ``python -m
    agents.engine.solve --game NAME`` (its notation in, its answers out: ConnectX's Pons digits
    and scores): a module with ``solve_arguments(parser)`` and ``solve_main(parser, args, game)
    -> exit code``. Empty: the generic front (a move list a line, ``<moves>\t<value>``)."""
    win_value: float = 1.0  # |outcome| of the largest return (MCTS maps outcomes into [-1, 1] by it)
    has_chance: bool = False
    array_state: bool = False  # kernels take and return the state as an int64 array (module docstring: array states)
    click_whole_column: bool = False  # pictures: a click anywhere in a column means that column's action (gravity games)
    PARAMS: dict[str, Param] = {}
    end_turn_action: int | None = None
    perfect_information: bool = True  # False: the kernels have info_key/observe/determinize (module docstring)
    scores_by_returns: bool = False
    """True for a game whose outcome is an amount (poker's chips), not only who won: the arena
    reports each agent's mean return a game with its 95% interval beside the win/draw/loss points
    (:func:`util.arena.tournament.returns_report`). False (every other game): who won is the outcome."""
    key_plane_bits: int = 0  # > 0: the canonical key packs two planes of this many bits exactly (Quixo: n*n), else it is hashed
    """Games whose turn is several decisions of one player (Reinforce Tactics: a unit's move,
    attack, recruitment, ...) name the action that ends the turn; None (every other game):
    each decision is a whole turn. See :meth:`turn_index`, :meth:`action_label`."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "PARAMS" in cls.__dict__:  # the older tuple form read into the one declaration
            cls.PARAMS = {k: p if isinstance(p, Param) else from_tuple(k, p) for k, p in cls.PARAMS.items()}
            wrong = [k for k, p in cls.PARAMS.items() if p.name != k]
            if wrong:
                raise ValueError(f"game {cls.name!r}: PARAMS key {wrong[0]!r} names another parameter; use table(...)")

    def __init__(self, **params: Any) -> None:
        unknown = set(params) - set(self.PARAMS)
        if unknown:
            raise ValueError(f"game {self.name!r} has no parameter {', '.join(sorted(unknown))}; "
                             f"valid: {', '.join(self.PARAMS) or '(none)'}")
        self.params = {k: parse_param(params.get(k, p.default), p, self.name) for k, p in self.PARAMS.items()}
        self.validate()
        self._k = self.import_module(self.kernels)
        self._g = self.constants()

    # --- to implement ------------------------------------------------------------------------
    def validate(self) -> None:
        """Raise ValueError for parameters the rules do not allow."""

    def constants(self) -> list[int]:
        """The ``g`` every kernel receives (plain path: this list; compiled: as int64 array)."""
        return [0]

    def initial_words(self) -> Words:
        raise NotImplementedError

    def action_to_string(self, state: State, action: int) -> str:
        return str(action)

    def string_to_action(self, state: State, text: str) -> int:
        """Parse a person's action; raise ValueError naming what is wrong."""
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not an action of {self.name}") from None

    def symmetries(self) -> Sequence[Symmetry]:
        """The game's symmetries (identity included), for canonical keys and books."""
        return ()

    def positions_log10(self) -> float:
        """log10 of an upper estimate of the positions a game from the start can reach: what an
        exact solve of it may have to visit (:func:`agents.engine.exact.too_big` refuses a solve
        beyond :data:`agents.engine.exact.MAX_POSITIONS_LOG10`). The default counts every
        word as 64 free bits; a game says better (a board of cells: 3 states a cell)."""
        return self.words * 64 * math.log10(2)

    def fits_int64(self) -> bool:
        """Whether every word of every state fits int64 (else only the plain path runs)."""
        return True

    def render(self, state: State) -> str:
        """A text picture of the state for terminals."""
        return repr(state.words)

    # --- turns of several decisions: optional ---------------------------------------------------
    def turn_index(self, state: State) -> int:
        """A number that changes when a new turn starts (a turn: the decisions of one player up
        to :attr:`end_turn_action`); default: the plies played, known from the history."""
        return len(state.history)

    def action_label(self, state: State, action: int) -> Hashable:
        """``action`` described so that the description still names the same act after other
        actions of the turn (a plan made at the turn's start is replayed by labels, as Kaggle
        replays a turn's action dicts: Reinforce Tactics' unit slots move when a unit dies, its
        cells do not); default: the action itself."""
        return action

    def label_action(self, state: State, label: Hashable) -> int | None:
        """The legal action of ``state`` that :meth:`action_label` described as ``label``, or None
        when no legal action fits (the plan's act became impossible: skipped, as Kaggle does)."""
        return label if isinstance(label, int) and label in state.legal_actions() else None

    # --- hidden information: optional (module docstring, "Hidden information") ----------------
    def information_state(self, state: State, player: int) -> tuple[int, ...]:
        """``player``'s information state at ``state`` (hashable; equal exactly when ``player``
        cannot tell two states apart); a perfect-information game's is the state's words."""
        if self.perfect_information:
            return state.words
        return tuple(int(w) for w in self._k.info_key(self._g, state.words, player))

    def observation(self, state: State, player: int) -> tuple[int, ...]:
        """What ``player`` sees at ``state`` now; a perfect-information game's is the state's words."""
        if self.perfect_information:
            return state.words
        return tuple(int(w) for w in self._k.observe(self._g, state.words, player))

    def determinize(self, state: State, player: int, seed: int) -> State:
        """A full state ``player`` cannot tell from ``state``, sampled by ``seed`` (a
        non-negative int) with the chance probabilities of what ``player`` has not seen;
        a perfect-information game's is ``state`` itself."""
        if self.perfect_information:
            return state
        return State(self, as_words(self._k.determinize(self._g, state.words, player, seed)))  # its history is unknown

    def seen_state(self, state: State, player: int) -> State:
        """What ``player`` sees at ``state`` as a full state, as if it were all (the kernels'
        optional ``seen(g, s, p)``: Reinforce Tactics under fog, the enemy units in sight only):
        what a search that ignores the hidden part plays on; else ``state`` itself."""
        seen = getattr(self._k, "seen", None)
        if self.perfect_information or seen is None:
            return state
        return State(self, as_words(seen(self._g, state.words, player)))

    def player_picture(self, state: State, player: int) -> dict:
        """How the web app draws ``state`` for ``player`` (its seat's view): a perfect-information
        game's is :meth:`picture`; a game of hidden information that does not override this draws
        nothing of the board (kind ``hidden``), only ``player``'s :meth:`observation` and, when it
        is to move, its legal actions as buttons: never more than ``player`` may see."""
        if self.perfect_information:
            return self.picture(state)
        mover = None if state.is_terminal() or state.is_chance_node() else state.current_player()
        moves = [{"action": a, "text": state.action_to_string(a)} for a in picture_moves(state)] if mover == player else []
        return picture_frame(state, "hidden", [], ("first", "second"), moves, viewer=player,
                             observation=list(self.observation(state, player)))

    def seen_move_text(self, state: State, action: int, player: int) -> str | None:
        """The text ``player`` sees of ``action`` played at ``state``, or None: it does not see
        it (the page writes a hidden move). Every move of a perfect-information game and
        ``player``'s own are seen; a chance outcome is seen when ``player``'s information state
        after it tells it from every other outcome (a card dealt to it, a public card; not the
        opponent's); an opponent's decision is seen (bets are public; a game whose decisions may
        be hidden overrides this: Reinforce Tactics under fog)."""
        text = state.action_to_string(action)
        if self.perfect_information or not state.is_chance_node():
            return text
        after = self.information_state(state.apply(action), player)
        for other in state.legal_actions():
            if other != action and self.information_state(state.apply(other), player) == after:
                return None
        return text

    # --- Kaggle's environment of a game with turns of several decisions: optional ---------------
    kaggle_env: str = ""
    """kaggle-environments' name of this game when its Kaggle agents return a whole turn as a
    list of action dicts (Reinforce Tactics): the arena then plays Kaggle's built-in agents
    (``kaggle:NAME``) through :meth:`kaggle_observation` and :meth:`label_action` (a dict's
    sorted items are its label). Empty: no such agents (ConnectX's built-ins have their own path)."""

    def kaggle_observation(self, state: State, remaining: float = 60.0) -> dict:
        """Kaggle's observation for the side to move at ``state`` (a turn's start)."""
        raise NotImplementedError(f"{self.name} has no Kaggle observation")

    def kaggle_configuration(self, time_per_move: float) -> dict:
        """Kaggle's configuration of this game with ``actTimeout = time_per_move``."""
        raise NotImplementedError(f"{self.name} has no Kaggle configuration")

    # --- for pictures (web app): optional ----------------------------------------------------
    def grid(self, state: State) -> list[list[str]] | None:
        """The board as rows of cell labels, top row first (``""`` empty; a label's first
        character ``0``/``1`` may name the owner, e.g. ``"0"`` or ``"1C"``); None: no grid."""
        return None

    def action_cell(self, state: State, action: int) -> tuple[int, int] | None:
        """The grid cell (row, column) a person clicks for ``action``; None: a button instead.
        Several actions may share a cell (the page then asks which)."""
        return None

    def extra(self, state: State) -> dict:
        """Other things a person must see (a die roll, pieces in hand, ...): label -> text."""
        return {}

    def picture(self, state: State) -> dict:
        """How the web app draws ``state``: a JSON-ready dict whose ``kind`` names the page's
        renderer for this game, with ``rows``, ``columns``, ``cells`` (rows top first, each
        None or a dict with the owner ``p``), ``players`` (names), ``to_move`` (None when no
        player is to choose) and ``moves``: every legal action of the side to move with the
        parts of the gesture that enters it (cells ``[row, column]``, a piece, a side). Games
        override it to be drawn as themselves; this default is the labelled :meth:`grid`."""
        grid = self.grid(state) or []
        cells = [[None if not label else {"p": int(label[0]) if label[0] in "01" else None,
                                          "t": label[1:] if label[0] in "01" else label} for label in row]
                 for row in grid]
        moves = []
        for a in picture_moves(state):
            cell = self.action_cell(state, a)
            moves.append({"action": a, "text": state.action_to_string(a),
                          "cell": None if cell is None else [int(cell[0]), int(cell[1])]})
        return picture_frame(state, "grid", cells, ("first", "second"), moves)

    # --- the arena, its store, play and the web app ask these: optional, generic defaults ------
    kaggle_board_env: str = ""
    """kaggle-environments' name of this game when its Kaggle agents return one action a step
    (ConnectX): agent files and Kaggle's built-ins (:attr:`kaggle_builtins`) then play it through
    :meth:`kaggle_observation` and :meth:`kaggle_configuration`, and ``--engine kaggle`` through
    :meth:`play_kaggle`. Empty: no such agents (a game whose turn is a list: :attr:`kaggle_env`)."""
    kaggle_builtins: tuple[str, ...] = ()  # kaggle-environments' ``{name}_agent`` built-ins of kaggle_board_env
    action_noun: str = "action"  # what play and the arena call one action in messages ("column")

    def opening_suite(self) -> list[tuple[int, ...]] | None:
        """The fixed openings a pairing's games start from (game ``2k`` and ``2k + 1`` play entry
        ``k`` with the seats swapped), or None: seeded random openings (:mod:`util.arena.openings`)."""
        return None

    def legacy_key(self) -> str:
        """What stood for this game in the store's keys before games had specs (ConnectX: its
        board, ``6x7x4``), so that stores written then resume; ``""``: a game that came later,
        whose keys and run tags hold :meth:`spec`, the opening plies and the seed."""
        return ""

    @classmethod
    def from_legacy_key(cls, text: str) -> Game:
        """The game of a store row written before games had specs (see :meth:`legacy_key`)."""
        raise ValueError(f"{cls.name} has no store rows from before games had specs ({text!r})")

    def max_plies(self) -> int | None:
        """The most plies a game can last (ConnectX: its cells), or None: no small bound."""
        return None

    def illegal_action_text(self, state: State, action: int) -> str:
        """Why an agent's ``action`` (an int) is refused at ``state``: the game's record says it."""
        return f"action {action} is not legal here; legal: {state.legal_text()}"

    def input_hint(self, state: State) -> str:
        """What a person types at ``state`` (ConnectX: ``1-7``); ``""``: the legal actions are listed."""
        return ""

    def refused_input_text(self, state: State, text: str) -> str:
        """What a person is told when ``text`` names an action that is not legal at ``state``."""
        return f"{text!r} is not legal here: type one of the legal actions listed above"

    def play_kaggle(self, first: Any, second: Any, time_per_move: float, opening: Sequence[int] = ()) -> dict:
        """One game in kaggle-environments (``--engine kaggle``) of players with ``kaggle_agent``;
        the fields of :func:`util.arena.match.play`'s result. Only a :attr:`kaggle_board_env` game."""
        raise NotImplementedError(f"{self.name} is not played in kaggle-environments here")

    def replay_html(self, moves: Sequence[int], forfeit_mark: int = 0) -> str | None:
        """An HTML page replaying a stored game (kaggle-environments' player), or None: the
        arena's text replay. ``forfeit_mark``: the side that lost by error or time after ``moves``."""
        return None

    @classmethod
    def kaggle_episode_states(cls, episode: dict, limits: dict[str, int]) -> list[State]:
        """The states of a Kaggle episode (its JSON) from the start, one per action, for the web
        app's replay of a :attr:`kaggle_env` game; ``limits``: ``steps``, ``log`` (entries of one
        turn's log) and ``states``, each at most. ValueError (one line) for an episode it refuses."""
        raise ValueError(f"{cls.name} episodes cannot be replayed here")

    # --- provided ----------------------------------------------------------------------------
    def import_module(self, path: str) -> Any:
        """The module at dotted ``path`` (``kernels``, ``heuristics``) beside this game's own: a
        submission bundles the toolkit under a private top package (base/bundle.py), which a
        path written as a string must get too (the bundle must also import the module by a
        statement somewhere, so that it is carried)."""
        own = type(self).__module__
        cut = own.find(".core.")
        prefix = own[:cut + 1] if cut >= 0 else ""
        return importlib.import_module(prefix + path)

    @property
    def kernel_module(self) -> Any:
        return self._k

    @property
    def g(self) -> list[int]:
        return self._g

    def initial(self) -> State:
        return State(self, tuple(self.initial_words()))

    def new_state(self, words: Iterable[int]) -> State:
        return State(self, as_words(words))

    def spec(self) -> str:
        """``name:key=value,...`` with every parameter: what stores record."""
        return self.name + "".join(f"{',' if i else ':'}{k}={v}" for i, (k, v) in enumerate(self.params.items()))

    def __repr__(self) -> str:
        return f"<{self.spec()}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.spec() == self.spec()

    def __hash__(self) -> int:
        return hash(self.spec())


@dataclass(frozen=True)
class State:
    """An immutable game state: the game and its words. Every rule comes from the plain kernels."""

    game: Game
    words: Words
    history: tuple[int, ...] = field(default=(), compare=False)  # actions from the initial state, when known

    # OpenSpiel-like queries
    def current_player(self) -> int:
        return int(self.game.kernel_module.to_move(self.game.g, self.words))

    def is_chance_node(self) -> bool:
        return not self.is_terminal() and self.current_player() == CHANCE

    def is_terminal(self) -> bool:
        return bool(self.game.kernel_module.terminal(self.game.g, self.words))

    def legal_actions(self) -> list[int]:
        return list(self._legal)

    @functools.cached_property
    def _legal(self) -> tuple[int, ...]:
        """The legal actions, computed once per state object (a state is immutable): an agent's
        ``choose`` and the arena's legality check in :meth:`apply` ask for them on the same
        object, and on Reinforce Tactics the plain kernel takes milliseconds."""
        if self.is_terminal():
            return ()
        buf = [0] * max(1, self.game.num_actions)
        n = self.game.kernel_module.legal(self.game.g, self.words, buf, 0)
        return tuple(int(a) for a in buf[:n])

    def forget_legal(self) -> None:
        """Drop the cached legal actions (recomputed when asked again): a state kept in a long
        history need not hold them (Einstein's set-up: 720 arrangements, 19 KB a state)."""
        vars(self).pop("_legal", None)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node; empty elsewhere."""
        if not self.is_chance_node():
            return []
        k = self.game.kernel_module
        return [(a, float(k.chance_prob(self.game.g, self.words, a))) for a in self.legal_actions()]

    def apply(self, action: int) -> State:
        """The state after ``action``; raises ValueError for an action that is not legal."""
        if isinstance(action, bool) or not isinstance(action, int) or action not in self._legal:
            raise ValueError(f"action {bounds_mod.shown(action)} is not legal here; legal: {self.legal_text()}")
        return State(self.game, as_words(self.game.kernel_module.play(self.game.g, self.words, action)),
                     self.history + (action,))

    def legal_text(self) -> str:
        """The legal actions in the game's notation with their numbers: ``"4 (3), 5 (4)"``, for
        messages (a person reads the notation; the number is what an API takes)."""
        return ", ".join(f"{self.action_to_string(a)} ({a})" for a in self.legal_actions()) or "none"

    def returns(self) -> tuple[float, float]:
        """Each player's return: (r, -r) at a terminal state, (0, 0) before."""
        if not self.is_terminal():
            return (0.0, 0.0)
        r = float(self.game.kernel_module.outcome(self.game.g, self.words))
        return (r, -r if r else 0.0)

    def key(self) -> Words:
        """The table key (the ``key`` hook's, else the state itself: the contract's default;
        an array-state game's default is hashed, :func:`key_function`)."""
        key_fn = key_function(self.game)
        return tuple(int(w) for w in (key_fn(self.game.g, self.words) if key_fn else self.words))

    def action_to_string(self, action: int) -> str:
        return self.game.action_to_string(self, action)

    def string_to_action(self, text: str) -> int:
        return self.game.string_to_action(self, text)

    def __str__(self) -> str:
        return self.game.render(self)


def picture_moves(state: State) -> list[int]:
    """The actions a picture offers: the legal ones when a player is to choose, else none."""
    return [] if state.is_terminal() or state.is_chance_node() else state.legal_actions()


def picture_frame(state: State, kind: str, cells: list, players: Sequence[str], moves: list, **more: Any) -> dict:
    """The fields every :meth:`Game.picture` has, around a game's ``cells`` and ``moves``."""
    out = {"kind": kind, "rows": len(cells), "columns": len(cells[0]) if cells else 0, "cells": cells,
           "players": list(players), "moves": moves,
           "to_move": None if state.is_terminal() or state.is_chance_node() else state.current_player()}
    out.update(more)
    return out


def lines_through(cells: list, length: int) -> list[list[list[int]]]:
    """Every straight line of ``length`` cells (rows, columns, both diagonals) of a picture's
    ``cells`` whose cells all hold one owner's pieces: the lines a picture marks as made."""
    rows, columns = len(cells), len(cells[0]) if cells else 0
    out = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(rows):
            for c in range(columns):
                line = [(r + k * dr, c + k * dc) for k in range(length)]
                if not all(0 <= rr < rows and 0 <= cc < columns for rr, cc in line):
                    continue
                owners = {cells[rr][cc]["p"] if cells[rr][cc] else None for rr, cc in line}
                if len(owners) == 1 and None not in owners:
                    out.append([[rr, cc] for rr, cc in line])
    return out


def first_decision(game: Game, limit: int = 1000) -> State | None:
    """The first decision node along the first outcome and the first action of each node (None if
    the game ends before one): where a warm-up searches, since a game may open with chance nodes
    (EinStein's set-up), at which a depth-first search does not start."""
    s = game.initial()
    for _ in range(limit):
        if s.is_terminal():
            return None
        if not s.is_chance_node():
            return s
        s = s.apply(s.legal_actions()[0])
    return None


def play_line(game: Game, actions: Iterable[int]) -> State:
    """The state after ``actions`` from the initial state (each checked for legality)."""
    state = game.initial()
    for a in actions:
        state = state.apply(int(a))
    return state


def parse_line(game: Game, text: str) -> State:
    """A state from a line of the game's own notation: actions separated by spaces or commas
    (a game may accept a compact form, e.g. ConnectX's digits, through ``parse_moves``)."""
    parse = getattr(game, "parse_moves", None)
    if callable(parse):
        return play_line(game, parse(text))
    state = game.initial()
    for tok in text.replace(",", " ").split():
        state = state.apply(state.string_to_action(tok))
    return state


def named_action(state: State, text: str) -> int:
    """The legal action of ``state`` whose text (any case) or number is ``text``: a game's
    :meth:`Game.string_to_action` when its texts are words; ValueError naming the legal ones."""
    t = " ".join(text.strip().split()).lower()
    for a in state.legal_actions():
        if t in (state.action_to_string(a).lower(), str(a)):
            return a
    raise ValueError(f"{text!r} is not a legal action here; legal: {state.legal_text()}")


def key_mismatch(game: Game, states: Iterable[State], depth: int = 2) -> tuple[State, State] | None:
    """The key rule (module docstring) checked on ``states``: two of them with equal keys must
    agree, ``depth`` plies down, on their children's keys, on which player moves (the same or
    the other), on which children end the game and on the outcome there for the side to move
    (and at chance nodes on each outcome's probability). Returns the first two that disagree,
    or None: a check for tests, as strong as the states and the depth given."""
    def outline(state: State, d: int) -> tuple:
        mover = state.current_player()
        if state.is_terminal():
            r0 = state.returns()[0]
            return ("end", r0 if mover == 0 else -r0)
        if d == 0:
            return ("open",)
        kids = []
        for a, p in (state.chance_outcomes() or [(a, 1.0) for a in state.legal_actions()]):
            c = state.apply(a)
            kids.append((c.key(), p, c.current_player() == mover, outline(c, d - 1)))
        return ("open", tuple(sorted(kids)))

    first: dict[Words, State] = {}
    outlines: dict[Words, tuple] = {}  # of the first state of a key met again
    checked: set[Words] = set()
    for s in states:
        k = s.key()
        f = first.setdefault(k, s)
        if f.words == s.words or s.words in checked:
            continue
        checked.add(s.words)
        if k not in outlines:
            outlines[k] = outline(f, depth)
        if outline(s, depth) != outlines[k]:
            return f, s
    return None


def key_function(game: Game) -> Callable | None:
    """The plain ``key(g, s)`` searches use for ``game``: its ``key`` hook, else for an array-state
    game :func:`core.kernel_defaults.hashed_key`, else None (the state is the key)."""
    key_fn = getattr(game.kernel_module, "key", None)
    if key_fn is None and game.array_state:
        from core.kernel_defaults import hashed_key

        return hashed_key
    return key_fn


def kernel_state(game: Game, words: Any, jit: bool) -> Any:
    """A state as ``game``'s kernels take it: a tuple of ints, or for an array-state game on the
    compiled path an int64 array (a numba tuple of 1,804 words would not compile)."""
    if jit and game.array_state:
        import numpy as np

        return np.asarray(words, dtype=np.int64)
    return as_words(words)


def bind(game: Game, search: Any, heuristic: Callable | None = None, jit: bool | None = None,
         flags: dict[str, Any] | None = None) -> Any:
    """A game-generic ``search`` module with ``game``'s kernels (and ``heuristic`` as its
    ``evaluate``) bound in: compiled when numba is available and the state fits int64 (or as
    ``jit`` says), else plain Python. Returns a namespace holding the search's functions.
    ``flags``: the search module's code switches to override (name -> bool, e.g.
    :func:`agents.engine.mcts_kernels.code_flags`): numba drops the branches they rule out; or
    constants frozen into the compiled code (:func:`agents.engine.exact.bind_exact`)."""
    from base import jit as J
    from core import kernel_defaults

    use_jit = (J.numba_available() and game.fits_int64()) if jit is None else jit
    kmod = game.kernel_module
    source = J.compiled(kmod) if use_jit else kmod
    overrides = {}
    for name in kernel_defaults.REQUIRED + kernel_defaults.OPTIONAL:
        fn = getattr(kmod, name, None)
        if fn is not None and J.is_hot(fn):
            overrides[name] = getattr(source, name)
        elif name in kernel_defaults.REQUIRED:
            raise TypeError(f"{kmod.__name__} lacks the required kernel {name!r}")
    if "key" not in overrides and game.array_state:
        from core import kernel_defaults as KD

        overrides["key"] = J.compiled(KD).hashed_key if use_jit else KD.hashed_key
    if game.array_state and use_jit:
        # play allocates its new state: a search compiled without reference counting (MCTS,
        # base.jit.NO_NRT_FLAG) gets a variant with it for this game (the others keep theirs).
        overrides[J.NO_NRT_FLAG] = False
    if "expand" not in overrides:
        # The default expand calls the game's kernels: its module, bound to them.
        from core import kernel_expand

        overrides["expand"] = J.bind(kernel_expand, dict(overrides), use_jit).expand
    if heuristic is not None:
        overrides["evaluate"] = getattr(J.compiled(heuristic.__module__), heuristic.__name__) if use_jit else heuristic
    overrides.update(flags or {})
    ns = J.bind(search, overrides, use_jit)
    ns.jit = use_jit  # the same on every call with these arguments: the namespace is cached per binding
    return ns


def constants_array(game: Game, jit: bool) -> Any:
    """``game.g`` as the compiled path wants it (int64 array) or the plain one (list)."""
    if not jit:
        return list(game.g)
    import numpy as np

    # Built once per game object and shared by its searches, which only read it (Quantik's g
    # holds 200 K table ints: 30 ms a copy, several copies per move).
    arr = game.__dict__.get("_g_int64")
    if arr is None:
        arr = game.__dict__["_g_int64"] = np.asarray(game.g, dtype=np.int64)
    return arr


SMALL_G = 16  # constants of at most this many words go to compiled kernels as a tuple


def search_params(values: Sequence[float], jit: bool) -> Any:
    """A heuristic's parameters as a search hands them to its kernels: a list on the plain
    path; compiled, a tuple when small (a value, as :func:`search_constants` explains: an array
    argument costs two atomic reference counts at every leaf's call), else a float64 array."""
    if not jit:
        return list(values)
    if len(values) <= SMALL_G:
        return tuple(float(x) for x in values)
    import numpy as np

    return np.asarray(values, dtype=np.float64)


def search_constants(game: Any, jit: bool) -> Any:
    """``g`` for the kernel: a tuple when compiled and small (a value: numba passes an array
    argument with a reference count, an atomic add and subtract in every call of the recursive
    kernel and of the hooks it calls), else :func:`constants_array`."""
    if jit and len(game.g) <= SMALL_G:
        return tuple(int(x) for x in game.g)
    return constants_array(game, jit)
