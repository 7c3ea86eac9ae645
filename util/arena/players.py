"""Agent specs -> players: our agents, Kaggle's built-ins, agent files, OpenSpiel's MCTS.

Spec forms (``--agents`` takes them comma-separated, see :func:`split_specs`):
  ``alphabeta:heuristic=bitsquares,max_depth=6``  our agents (:mod:`agents.registry`: on every game
                                              (``--game``) the generic searches, each game's own
                                              agents of a name first);
  ``kaggle:negamax``, ``kaggle:random``       kaggle-environments' built-in agents (their names
                                              clash with ours, hence the prefix); on a game whose
                                              turn is a list of action dicts, that game's
                                              built-ins (Reinforce Tactics: ``kaggle:aggressive``,
                                              :mod:`util.arena.kaggle_turns`);
  ``path/to/agent.py``                        any Kaggle agent file (a built submission), run in
                                              its own process as Kaggle would, on Kaggle's clock
                                              (:class:`FilePlayer`; ConnectX, or a game whose turn
                                              is a list of action dicts: Reinforce Tactics);
  ``openspiel_mcts:sims=1000``                a game's players that are no agent of its table
                                              (:func:`agents.registry.players`: ConnectX's is
                                              OpenSpiel's C++ MCTS, when open_spiel is installed).

Files and ``kaggle:NAME`` speak Kaggle's board of a game whose Kaggle agents return one action a
step (:attr:`core.game.Game.kaggle_board_env`: ConnectX, its built-ins
:attr:`~core.game.Game.kaggle_builtins`); files also play the games of
:attr:`core.game.Game.kaggle_env` (:class:`util.arena.kaggle_turns.FileTurnPlayer`). The arena
names no game: what differs between games is asked of the game (:mod:`core.game`) or of its
agents package (:mod:`agents.registry`).

A :class:`PlayerSpec` is plain, picklable data: workers (processes or Ray tasks) rebuild the
player from it for each game with :func:`build`, so no agent state crosses games or processes.
A built player has ``choose(state, deadline)`` (a :class:`core.game.State`: the one protocol of
the arena's game loop, every kind alike), ``reset()``, ``info()`` (a
:class:`agents.engine.info.SearchInfo`), ``close()`` and, on a game with a Kaggle board,
``kaggle_agent`` (an ``agent(obs, config)`` callable for ``--engine kaggle``).

Run as ``python -m util.arena.players --serve FILE`` this module is the host process of an agent file.
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import hashlib
import json
import numbers
import os
import random
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agents import registry
from agents.engine.info import EMPTY, SearchInfo, info_of
from agents.engine.registry import CHEAT
from agents.engine.spec import SpecError, names_file, parse_spec
from base.kaggle_import import kaggle_environments as kaggle_package
from core.game import Game, State

ROOT = Path(__file__).resolve().parents[2]
LOAD_TIMEOUT = 120.0  # seconds an agent file may take to load (a submission may compile with numba)


@dataclass(frozen=True)
class PlayerSpec:
    text: str  # canonical spec: name and sorted parameters, or the file path
    kind: str  # "agent", "kaggle", "file", "player" (agents.registry.players), "engine" or "kaggle_turns" (a turn-list game's Kaggle built-in)
    name: str  # registry name, built-in name, or file path
    params: tuple[tuple[str, Any], ...] = ()  # parameters the agent is built with (converted values)
    version: str = ""  # code version: hash of the source the player runs

    @property
    def label(self) -> str:
        return self.text


def split_specs(text: str) -> list[str]:
    """Split ``--agents`` text at commas that start a new spec (a comma followed by ``key=``
    continues the previous spec's parameters): ``"alphabeta:max_depth=6,tt_bits=18,rules"`` ->
    ``["alphabeta:max_depth=6,tt_bits=18", "rules"]``."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if out and "=" in part and ":" not in part.split("=")[0] and ":" in out[-1] and not _is_file(out[-1]):
            out[-1] += "," + part
        else:
            out.append(part)
    return out


def _is_file(spec: str) -> bool:
    """A path to an agent file: ends in ``.py``, or its name part (before any ``:``) holds a
    path separator (so ``expectimax:params=1.5/0.9`` stays an agent spec)."""
    return spec.endswith(".py") or os.sep in spec.partition(":")[0]


class HasGame(Protocol):
    """What stands for a game where a game is taken: ConnectX's board shape (its ``game()``)."""

    def game(self) -> Game: ...


def as_game(game: Game | HasGame | None) -> Game:
    """A :class:`core.game.Game` from a game, something with a ``game()`` (a ConnectX board
    shape), or None (:data:`core.games.DEFAULT_GAME` with its default parameters)."""
    if isinstance(game, Game):
        return game
    if game is None:
        from core.games import DEFAULT_GAME, make_game
        return make_game(DEFAULT_GAME)
    return game.game()


def board_games() -> list[str]:
    """The games of the players that speak Kaggle's board of one action a step (agent files,
    ``kaggle:NAME``: :attr:`core.game.Game.kaggle_board_env`)."""
    from core.games import game_class, names

    return [n for n in names() if game_class(n).kaggle_board_env]


def resolve(spec: str, game: Game | None = None) -> PlayerSpec:
    """Check ``spec`` for ``game`` (default :func:`as_game`'s) and return its :class:`PlayerSpec`;
    raises SpecError (one line) if bad, naming the games an agent plays when ``game`` is not one.
    Every game alike: a Kaggle built-in or an agent file of a game with a Kaggle environment, a
    player of the game's agents package (:func:`agents.registry.players`), or an agent of
    :mod:`agents.registry`."""
    spec = spec.strip()
    if not spec:
        raise SpecError("empty agent spec")
    game = as_game(game)
    if spec.startswith("kaggle:") and game.kaggle_env:
        return _resolve_kaggle_turns(spec, game)
    here = f"agents that play {game.name}: {', '.join(registry.names(game.name))}"
    if _is_file(spec) or spec.startswith("kaggle:"):
        if not (game.kaggle_env or game.kaggle_board_env):
            if _is_file(spec):
                raise SpecError(f"{spec} is a Kaggle agent file: it plays only the games Kaggle runs "
                                f"({', '.join(file_games())}), not {game.name!r}; {here}")
            raise SpecError(f"{spec} is a Kaggle built-in agent: it plays only {', '.join(board_games())}, "
                            f"not {game.name!r}; {here}")
        return _resolve_board_player(spec, game)
    name, params = parse_spec(spec)
    if name in registry.players(game.name):
        text, name, values, version = registry.player_module(game.name, name).resolve_params(params)
        return PlayerSpec(text, "player", name, values, version)
    if registry.player_games(name) and name not in registry.table(game.name):
        raise SpecError(f"agent {name!r} does not play {game.name!r}; it plays: {', '.join(registry.player_games(name))}; {here}")
    return _resolve_agent(spec, game)


def file_games() -> list[str]:
    """The games an agent file plays: every game with a Kaggle environment (a board of one action
    a step, :func:`board_games`, first)."""
    from core.games import game_class, names

    return [*board_games(), *(n for n in names() if not game_class(n).kaggle_board_env and game_class(n).kaggle_env)]


def _resolve_board_player(spec: str, game: Game) -> PlayerSpec:
    """An agent file, or ``kaggle:NAME`` of a game's Kaggle board (:attr:`core.game.Game.kaggle_builtins`)."""
    if _is_file(spec):
        path = Path(spec).expanduser()
        if not path.is_file():
            raise SpecError(f"agent file {spec} does not exist")
        return PlayerSpec(str(path.resolve()), "file", str(path.resolve()), (), _hash_bytes(path.read_bytes()))
    which = spec.partition(":")[2].strip()
    if which not in game.kaggle_builtins:
        raise SpecError(f"unknown kaggle built-in {which!r}; valid: {', '.join('kaggle:' + b for b in game.kaggle_builtins)}")
    kaggle_environments = kaggle_package()
    return PlayerSpec(f"kaggle:{which}", "kaggle", which, (), f"kaggle-environments=={kaggle_environments.__version__}")


def _resolve_agent(spec: str, game: Game) -> PlayerSpec:
    """An agent of :mod:`agents.registry` for ``game``: kind ``agent`` when it also plays through
    the Kaggle adapter of ConnectX's own agents (it has ``choose_position``), ``engine`` otherwise."""
    here = f"agents that play {game.name}: {', '.join(registry.names(game.name))}"
    name, params = parse_spec(spec)
    if name not in registry.table(game.name) and not registry.games_of(name):
        extra = "".join(f", {p}" for p in [*("kaggle:" + b for b in game.kaggle_builtins), *registry.players(game.name)])
        extra += ", <agent file.py>" if game.kaggle_board_env else ""
        raise SpecError(f"unknown agent {name!r}; {here}{extra}")
    try:
        registry.agent_class(game.name, name)
    except SpecError as exc:
        raise SpecError(f"{exc}; {here}") from None
    node = registry.check_spec_tree(game, spec)  # the agents its parameters name too, before any game
    kwargs = node.kwargs
    agent = registry.build_node(node, game, spec)
    built = {k: getattr(agent, k) for k in kwargs}
    shown_params = {**built, **({CHEAT: 1} if node.cheat else {})}  # the opt-in is part of the agent's name
    text = name + (":" + ",".join(f"{k}={shown_params[k]}" for k in sorted(shown_params)) if shown_params else "")
    modules = [type(agent).__module__, type(game).__module__, game.kernels] + ([game.heuristics] if game.heuristics else [])
    kind = "agent" if hasattr(agent, "choose_position") else "engine"
    return PlayerSpec(text, kind, name, tuple(sorted(built.items())), _module_version(*modules) + _data_version(node))


def _data_version(node: registry.SpecNode) -> str:
    """``+`` and a hash of the bytes of every data file the spec's agents read (weights, a book, a
    cache, a table), or ``""``: new weights at the same path are a new player, as changed code is
    (a league of generations in one store keeps each apart)."""
    files = sorted((k, str(v)) for n in node.nodes() for k, v in n.kwargs.items() if names_file(k, v) and os.path.isfile(str(v)))
    if not files:
        return ""
    return "+" + _hash_bytes(b"".join(k.encode() + b"\0" + Path(v).read_bytes() for k, v in files))


def _resolve_kaggle_turns(spec: str, game: Game) -> PlayerSpec:
    """``kaggle:NAME``: kaggle-environments' built-in agent of a game whose turn is a list of
    action dicts (:mod:`util.arena.kaggle_turns`)."""
    from util.arena.kaggle_turns import builtin_names
    which = spec.partition(":")[2].strip()
    valid = builtin_names(game)
    if which not in valid:
        raise SpecError(f"unknown kaggle built-in {which!r} for {game.name}; valid: {', '.join('kaggle:' + v for v in valid)}")
    kaggle_environments = kaggle_package()
    return PlayerSpec(f"kaggle:{which}", "kaggle_turns", which, (), f"kaggle-environments=={kaggle_environments.__version__}")


def build(spec: PlayerSpec, game: Game | HasGame, time_per_move: float, seed: int, overage: float | None = None) -> Any:
    """A fresh player for one game of ``game`` (any :class:`core.game.Game`, or what
    :func:`as_game` reads). ``seed`` seeds the player's randomness (an agent's ``seed`` field when
    the spec leaves it unset; Python's ``random`` for Kaggle built-ins and files). ``overage``: an
    agent file's bank (None: Kaggle's, :func:`base.clock.kaggle_overage`). Every player chooses on
    a :class:`core.game.State`."""
    game = as_game(game)
    if spec.kind == "file":
        return file_player(spec.name, game, time_per_move, seed, overage)
    if spec.kind in ("engine", "agent"):
        cls = registry.agent_class(game.name, spec.name)
        params = dict(spec.params)
        fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
        if "seed" in fields and params.get("seed") is None:
            params["seed"] = seed
        agent = registry.builder(game.name, spec.name)(cls, params, game, spec.text)
        return EnginePlayer(agent) if spec.kind == "engine" else AgentPlayer(agent, time_per_move, game)
    if spec.kind == "kaggle_turns":
        from util.arena.kaggle_turns import KaggleTurnPlayer
        return KaggleTurnPlayer(spec.name, game, time_per_move, seed)
    if spec.kind == "kaggle":
        random.seed(seed)  # the built-ins draw from the module-level random; this worker owns it
        return FunctionPlayer(kaggle_builtin(game, spec.name), game, time_per_move)
    if spec.kind == "player":
        agent = registry.player_module(game.name, spec.name).build(game, seed, **dict(spec.params))
        return AgentPlayer(agent, time_per_move, game)
    raise ValueError(f"unknown player kind {spec.kind!r}")


def kaggle_builtin(game: Game, name: str) -> Callable[[Any, Any], Any]:
    """kaggle-environments' built-in agent ``name`` of ``game``'s Kaggle board (its environment's
    ``agents`` table, as a turn-list game's: :func:`util.arena.kaggle_turns.builtins_of`)."""
    from util.arena.kaggle_turns import builtins_of

    return builtins_of(game.kaggle_board_env)[name]


def state_player(spec: PlayerSpec, game: Game | HasGame, time_per_move: float, seed: int, overage: float | None = None) -> Any:
    """:func:`build` on ``game`` (every player chooses on :class:`core.game.State`)."""
    return build(spec, game, time_per_move, seed, overage)


def check_loads(spec: PlayerSpec, shape: Game | HasGame, time_per_move: float) -> None:
    """Build and close the player once, so a file that fails to load stops the command early
    (an agent file is loaded here at once; in a game it loads inside its first move, as on Kaggle)."""
    if spec.kind == "file":
        file_player(spec.name, shape, time_per_move, 0, load_now=True).close()
        return
    player = build(spec, shape, time_per_move, 0)
    check_data(spec, player)
    getattr(player, "close", lambda: None)()


def check_data(spec: PlayerSpec, player: Any) -> None:
    """An in-process agent with a ``load_data()`` hook reads its data files (a cache, a book, a
    table) now: a missing or damaged one is a SpecError before the first game, not a forfeit in
    each (:func:`check_loads`, which every command runs on its specs first)."""
    load = getattr(getattr(player, "agent", None), "load_data", None)
    try:
        if callable(load):
            load()
    except (OSError, ValueError, KeyError) as exc:
        raise SpecError(f"agent {spec.text}: {one_line(exc)}") from None


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (a library's may span several)."""
    return " ".join(str(exc).split()) or type(exc).__name__


# --- code versions ---------------------------------------------------------------------------
def _hash_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


_PARSE_LOCK = threading.Lock()
"""``ast.parse`` in two threads at once can fail in CPython 3.11 ("SystemError: AST constructor
recursion depth mismatch"): two runners in one process resolved their specs together and one
died of it (tests/test_tournament.py::test_two_runners_on_one_db_split_the_games)."""


def _module_version(*modules: str) -> str:
    """Hash of the source of ``modules`` and every project module they import, transitively."""
    seen: dict[str, bytes] = {}
    todo = list(modules)
    while todo:
        name = todo.pop()
        path = _module_path(name)
        if name in seen or path is None:
            continue
        source = path.read_bytes()
        seen[name] = source
        with _PARSE_LOCK:
            tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                todo.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                todo.append(node.module)
                todo.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return _hash_bytes(b"".join(name.encode() + b"\0" + seen[name] for name in sorted(seen)))


def _module_path(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


# --- players ---------------------------------------------------------------------------------
class EnginePlayer:
    """An agent in process with the player interface: every call goes to the agent
    (``choose(state, deadline)``, ``reset``, ``info``); nothing to release."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def choose(self, state: State, deadline: float) -> int:
        return self.agent.choose(state, deadline)

    def reset(self) -> None:
        getattr(self.agent, "reset", lambda: None)()

    def info(self) -> SearchInfo:
        return info_of(self.agent)

    def close(self) -> None:
        pass


class AgentPlayer(EnginePlayer):
    """One of a game's own agents (ConnectX's :class:`agents.connectx.base.PositionAgent`);
    ``kaggle_agent`` adapts it to ``agent(obs, config)`` with its agents package's adapter
    (:func:`agents.registry.kaggle_adapter`: the one a submission uses)."""

    def __init__(self, agent: Any, time_per_move: float, game: Game | None = None) -> None:
        super().__init__(agent)
        self.time_per_move = time_per_move
        self.game = as_game(game)
        self._adapter: Callable[[Any, Any], int] | None = None

    def kaggle_agent(self, obs: Any, config: Any) -> int:
        if self._adapter is None:
            adapter = registry.kaggle_adapter(self.game.name)
            if adapter is None:
                raise RuntimeError(f"{self.game.name}'s agents have no Kaggle adapter")
            self._adapter = adapter(self.agent)
        return self._adapter(obs, config)


class StatelessPlayer:
    """``reset``, ``info`` and ``close`` of a player with nothing to reset, report or release."""

    def reset(self) -> None:
        pass

    def info(self) -> SearchInfo:
        return EMPTY

    def close(self) -> None:
        pass


class FunctionPlayer(StatelessPlayer):
    """A Kaggle ``agent(obs, config)`` function played on our states (the game's Kaggle board:
    :meth:`core.game.Game.kaggle_observation`)."""

    def __init__(self, fn: Callable[[Any, Any], int], game: Game | HasGame, time_per_move: float) -> None:
        kaggle_package()  # its import prints to stdout otherwise
        from kaggle_environments.utils import structify
        self.game = as_game(game)
        self.fn, self.kaggle_agent = fn, fn
        self._config = structify(self.game.kaggle_configuration(time_per_move))
        self._structify = structify

    def choose(self, state: State, deadline: float) -> int:
        return self.fn(self._structify(state.game.kaggle_observation(state)), self._config)


def file_player(path: str, game: Game | HasGame, time_per_move: float, seed: int = 0, overage: float | None = None,
                load_now: bool = False) -> Any:
    """The player of the agent file at ``path`` for ``game``: a :class:`FilePlayer` on a game's
    Kaggle board of one action a step (:attr:`core.game.Game.kaggle_board_env`), or on a game
    whose Kaggle agents return a turn's list of action dicts (:attr:`core.game.Game.kaggle_env`)
    a :class:`util.arena.kaggle_turns.FileTurnPlayer`. ``time_per_move`` is the ``actTimeout``
    the file reads, ``overage`` its bank (None: Kaggle's for the game); ``load_now``: load the
    file before returning (see :class:`FilePlayer`)."""
    game = as_game(game)
    if game.kaggle_env:
        from util.arena.kaggle_turns import FileTurnPlayer
        file = FilePlayer(path, game.kaggle_configuration(time_per_move), seed, overage, game.kaggle_env, load_now)
        return FileTurnPlayer(file, game, time_per_move, seed)
    return FilePlayer(path, game.kaggle_configuration(time_per_move), seed, overage, game.kaggle_board_env, load_now, game)


FILE_GRACE = 1.0  # seconds past actTimeout + bank before a file that has not answered is killed (the loop judges the
# time); kaggle-environments' UrlAgent waits as long for an agent behind its HTTP server (remainingOverageTime + actTimeout + 1)


class FilePlayer(StatelessPlayer):
    """A Kaggle agent file in its own process (``python -m util.arena.players --serve``), one JSON
    line per request and reply over pipes, on Kaggle's clock: the file reads ``config``'s
    ``actTimeout`` (the arena's ``--time``) and, as ``remainingOverageTime``, what is left of its
    bank (:attr:`kaggle_clock`, a :class:`base.clock.KaggleBank` of ``overage`` seconds, Kaggle's
    when None: 60 s for ConnectX and Reinforce Tactics; ``game``: the game whose board
    :meth:`choose` sends, :meth:`core.game.Game.kaggle_observation`), which the game loop charges with every
    move's overrun of ``actTimeout`` and judges by Kaggle's rule (:func:`util.arena.match.play`).
    As in kaggle-environments the file is executed inside its first move, whose time covers it;
    ``load_now`` loads it at once instead (a check that it loads, before any game). A reply that
    has not come :data:`FILE_GRACE` seconds after actTimeout and the bank kills the process and
    loses the game."""

    def __init__(self, path: str, config: dict[str, Any], seed: int = 0, overage: float | None = None,
                 env: str = "", load_now: bool = False, game: Game | None = None) -> None:
        from base.clock import KaggleBank, kaggle_overage
        self.path, self.game, self._config = path, game, config
        self.time_per_move = float(config["actTimeout"])
        self.kaggle_clock = KaggleBank(self.time_per_move, kaggle_overage(env) if overage is None else overage)
        env_vars = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        command = [sys.executable, "-m", "util.arena.players", "--serve", path, "--seed", str(seed)]
        self._proc = subprocess.Popen(
            command + ([] if load_now else ["--lazy"]),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env_vars, cwd=str(ROOT),
            stderr=None if os.environ.get("CONNECTX_AGENT_STDERR") else subprocess.DEVNULL,  # set it to see agents' logs
            start_new_session=True,  # Ctrl-C reaches the driver only; the worker closes this process
        )
        reply = self._read(time.perf_counter() + LOAD_TIMEOUT, "load")
        if "error" in reply:
            self.close()
            raise SpecError(f"agent file {path} failed to load: {reply['error']}")

    def reset(self) -> None:
        self.kaggle_clock.reset()

    def _read(self, until: float, what: str) -> dict:
        assert self._proc.stdout is not None
        ready, _, _ = select.select([self._proc.stdout], [], [], max(0.0, until - time.perf_counter()))
        line = self._proc.stdout.readline() if ready else b""
        if not line:
            self.close()
            if ready:
                raise RuntimeError(f"agent file {self.path} exited during {what}")
            raise TimeoutError(f"agent file {self.path} gave no reply in time ({what})")
        return json.loads(line)

    def choose(self, state: State, deadline: float) -> int:
        return self.kaggle_agent(state.game.kaggle_observation(state, self.kaggle_clock.left), self._config)

    def call(self, obs: Any, config: Any) -> Any:
        """The file's answer to Kaggle's ``(observation, configuration)``; raises RuntimeError
        when the file raised, TimeoutError when it gave no reply by actTimeout + the
        observation's bank + :data:`FILE_GRACE`."""
        start = time.perf_counter()
        from base.clock import kaggle_times
        act, bank = kaggle_times(obs, config, self.time_per_move)
        assert self._proc.stdin is not None
        request = {"obs": dict(obs), "config": dict(config)}
        try:
            self._proc.stdin.write((json.dumps(request) + "\n").encode())
            self._proc.stdin.flush()
        except OSError:
            raise RuntimeError(f"agent file {self.path} is not running") from None
        reply = self._read(start + act + bank + FILE_GRACE, "move")
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["action"]

    def kaggle_agent(self, obs: Any, config: Any) -> int:
        """Kaggle's ``agent(obs, config)`` of the file (``--engine kaggle`` calls it with Kaggle's own
        observation and bank)."""
        return self.call(obs, config)

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream:
                stream.close()


class AgentFileError(ValueError):
    """An agent file Kaggle could not play: the message says what is missing."""


def load_agent_file(path: str) -> Callable[[Any, Any], Any]:
    """The callable Kaggle would play from the file at ``path``: the last callable it defines
    (``kaggle_environments.agent.get_last_callable``'s rule, re-done here because that function
    answers a file without one with ``IndexError('list index out of range')``).

    Raises AgentFileError for a syntax error, no callable at all, or a last callable that
    cannot be called as ``agent(observation, configuration)``; the file's own exceptions
    propagate."""
    import inspect

    from base.cli import read_text_file

    try:
        source = read_text_file(path, "")
    except ValueError as exc:  # missing, not a regular file, binary
        raise AgentFileError(str(exc)) from None
    try:
        code = compile(source, path, "exec")
    except SyntaxError as exc:
        raise AgentFileError(f"syntax error at line {exc.lineno}: {exc.msg}") from None
    env: dict[str, Any] = {}
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.append(folder)  # as Kaggle does: the file may import its neighbours
    try:
        exec(code, env)
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    found = [v for k, v in env.items() if callable(v) and k != "__builtins__"]
    fix = "end the file with def agent(observation, configuration) returning a column (Kaggle plays the last callable a file defines)"
    if not found:
        raise AgentFileError(f"no agent function: {fix}")
    agent = found[-1]
    try:
        inspect.signature(agent).bind(None, None)
    except TypeError:
        name = getattr(agent, "__name__", type(agent).__name__)
        raise AgentFileError(f"no agent function: the last callable, {name}{inspect.signature(agent)}, "
                             f"cannot take (observation, configuration); {fix}") from None
    except ValueError:  # no signature to inspect (a builtin): let Kaggle's way decide
        pass
    return agent


def _plain(value: Any) -> Any:
    """``json.dumps``' default: numpy numbers as Python's (a turn's action dicts may hold them)."""
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _answer(action: Any) -> dict[str, Any]:
    """The reply for what the agent returned: an int as an int (numpy ints too, as Kaggle accepts
    them), plain data (a turn's list of action dicts) as it is, anything else as its repr (judged
    by the game loop, shown in the error)."""
    if isinstance(action, numbers.Integral) and not isinstance(action, bool):
        return {"action": int(action)}
    try:
        return {"action": json.loads(json.dumps(action, default=_plain))}
    except (TypeError, ValueError):
        return {"action": repr(action)}


def _load(path: str) -> tuple[Any, str]:
    """``(agent, "")`` from the file, or ``(None, why)`` when it cannot be loaded (one line)."""
    try:
        return load_agent_file(path), ""
    except AgentFileError as exc:  # says what is missing: one line, as it is
        return None, str(exc)
    except BaseException as exc:  # any failure to load is reported, not raised
        return None, f"{type(exc).__name__}: {exc}"


def _serve(path: str, seed: int, lazy: bool = False) -> int:
    """Host loop of an agent file: load it like Kaggle, then answer requests until EOF.
    ``lazy``: answer ready at once and load the file inside the first request, as
    kaggle-environments does inside the first timed call (a file that fails to load then
    answers every request with the error).

    The agent's prints go to stderr; only this loop writes the protocol channel."""
    channel = os.fdopen(os.dup(1), "w")
    sys.stdout = sys.stderr
    random.seed(seed)
    try:
        import numpy as np
        np.random.seed(seed % 2**32)
    except ImportError:
        pass
    try:
        kaggle_package()  # its import prints to stdout otherwise
        from kaggle_environments.utils import structify
    except ImportError as exc:
        channel.write(json.dumps({"error": f"kaggle-environments is needed to host an agent file ({exc})"}) + "\n")
        channel.flush()
        return 1
    agent: Any = None
    why = ""
    if not lazy:
        agent, why = _load(path)
    if why:
        channel.write(json.dumps({"error": why}) + "\n")
        channel.flush()
        return 1
    channel.write(json.dumps({"ok": True}) + "\n")
    channel.flush()
    for line in sys.stdin:
        request = json.loads(line)
        reply: dict[str, Any]
        if agent is None and not why:
            agent, why = _load(path)
        if why:
            reply = {"error": f"the file failed to load: {why}"}
        else:
            try:
                reply = _answer(agent(structify(request["obs"]), structify(request["config"])))
            except BaseException as exc:
                reply = {"error": f"{type(exc).__name__}: {exc}"}
        channel.write(json.dumps(reply) + "\n")
        channel.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m util.arena.players", description="Host process of a Kaggle agent file (used by util.arena.tournament).")
    parser.add_argument("--serve", metavar="FILE", required=True, help="agent file to load with kaggle_environments.agent.get_last_callable")
    parser.add_argument("--seed", type=int, default=0, help="seed for random and numpy.random in this process")
    parser.add_argument("--lazy", action="store_true", help="load the file inside the first request (as kaggle-environments does), not before ready")
    args = parser.parse_args(argv)
    return _serve(args.serve, args.seed, args.lazy)


if __name__ == "__main__":
    sys.exit(main())
