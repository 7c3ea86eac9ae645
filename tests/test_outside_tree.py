"""CONTRIBUTING.md's "Adding a game" and "Writing an agent", followed from outside the tree.

A toy game (a pile of stones, take 1 to 3, who takes the last stone wins) and a toy agent are
written into a temporary folder, as someone outside the repository would write them, and
registered by the one line each that CONTRIBUTING names. A fresh process then checks that the
generic tools take them: the game parses from a spec, the exact solver finds the known values
(the player to move loses exactly when the pile is a multiple of 4), alpha-beta and MCTS play
it, the toy agent is listed and built from a spec with its parameter, and the arena plays a
match between it and a generic agent. Plain path (no compile), so it stays short.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

KERNELS = '''
"""The pile game's rules on the kernel contract (core/game.py). State: (stones, player to move)."""
from base.jit import hot


@hot
def to_move(g, s) -> int:
    return s[1]


@hot
def terminal(g, s) -> bool:
    return s[0] == 0


@hot
def outcome(g, s) -> float:
    # the player who took the last stone won: at the end, the player to move lost
    return -1.0 if s[1] == 0 else 1.0


@hot
def legal(g, s, out, base) -> int:
    n = 0
    for take in range(1, 4):
        if take <= s[0]:
            out[base + n] = take - 1
            n += 1
    return n


@hot
def play(g, s, a):
    return (s[0] - (a + 1), 1 - s[1])
'''

GAME = '''
"""A pile of stones; a move takes 1 to 3; who takes the last stone wins."""
from core.game import Game


class Pile(Game):
    name = "pile"
    words = 2
    num_actions = 3  # action a takes a + 1 stones
    kernels = "pile.kernels"
    PARAMS = {"n": (int, 10, "stones at the start", (1, 60))}

    def initial_words(self):
        return (self.params["n"], 0)

    def action_to_string(self, state, action):
        return f"take{action + 1}"

    def string_to_action(self, state, text):
        if text not in ("take1", "take2", "take3"):
            raise ValueError(f"{text!r} is not a move: write take1, take2 or take3")
        return int(text[-1]) - 1
'''

AGENTS = '''
"""The pile game's own agent: leave a multiple of 4 when it can."""
from dataclasses import dataclass
from typing import Any, ClassVar

AGENTS = {"mod4": "pile.agents:Mod4"}


@dataclass
class Mod4:
    game: Any = None
    otherwise: int = 1  # stones to take when no move leaves a multiple of 4
    games: ClassVar[tuple[str, ...]] = ("pile",)

    def choose(self, state, deadline):
        stones = state.words[0]
        take = stones % 4 or min(self.otherwise, stones)
        return take - 1
'''

CHECK = '''
import json, time
from core import games
games.GAME_CLASSES["pile"] = "pile:Pile"  # the one line of "Adding a game"
from agents import registry
registry.GAME_TABLES["pile"] = "pile.agents"  # the one line of "Writing an agent"
from util.arena.match import play

out = {"names": registry.names("pile")}
out["solved"] = {}
for n in range(1, 13):
    game = games.parse_game(f"pile:n={n}")
    solver = registry.make("solver", game)
    state = game.initial()
    solver.choose(state, time.perf_counter() + 5)
    out["solved"][n] = solver.info().get("value")
game = games.parse_game("pile:n=21")
state = game.initial()
out["alphabeta"] = registry.make("alphabeta:max_depth=30", game).choose(state, time.perf_counter() + 5)
small = games.parse_game("pile:n=6")
out["mcts"] = registry.make("mcts:max_sims=3000", small).choose(small.initial(), time.perf_counter() + 5)
toy = registry.make("mod4:otherwise=2", game)
out["toy"] = [type(toy).__name__, toy.otherwise, toy.choose(state, 0.0)]
winners = []
for seat, n in ((0, 21), (1, 20)):  # mod4 to move on 21 stones, or second on 20: a won game either way
    g = games.parse_game(f"pile:n={n}")
    a, b = registry.make("mod4", g), registry.make("random", g)
    result = play(a, b, g, 0.5) if seat == 0 else play(b, a, g, 0.5)
    winners.append(result["winner"])
out["winners"] = winners
try:
    registry.make("mod4", games.parse_game("tictactoe"))
except Exception as exc:
    out["refused"] = str(exc)
print(json.dumps(out))
'''


def test_a_game_and_an_agent_added_from_outside_the_tree(tmp_path):
    pkg = tmp_path / "pile"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(GAME))
    (pkg / "kernels.py").write_text(textwrap.dedent(KERNELS))
    (pkg / "agents.py").write_text(textwrap.dedent(AGENTS))
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "CONNECTX_NUMBA": "0"}
    proc = subprocess.run([sys.executable, "-c", CHECK], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["names"][0] == "mod4" and {"alphabeta", "mcts", "solver", "random"} <= set(out["names"])
    # the mover loses exactly on a multiple of 4 (the solver's value is the mover's, signed)
    for n, value in out["solved"].items():
        assert value is not None and (value > 0) == (int(n) % 4 != 0), (n, value)
    assert out["alphabeta"] == 0  # 21 stones: take 1, leave 20
    assert out["mcts"] == 1  # 6 stones: take 2, leave 4
    assert out["toy"] == ["Mod4", 2, 0]
    assert out["winners"] == [1, 2]  # mod4 wins from either seat
    assert "does not play 'tictactoe'; it plays: pile" in out["refused"]
