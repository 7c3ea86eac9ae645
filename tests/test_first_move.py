"""Every agent's warm-up compiles every kernel its moves call: in a fresh process (a tournament
worker, a Kaggle game), after the arena's warm-up (:func:`util.arena.match.warm_up`), no move
compiles anything, and none takes longer than the arena's hard limit.

Each case runs :mod:`tests.first_move_probe` in a subprocess: the warm-up, then a fresh
player's moves from the initial state and from states spread over a random game (a book or an
endgame solver is reached only some plies in). The check that counts is load-independent: numba
reports every compile (its ``numba:compile`` event) and a move must see none; a compile in a
move is what took seconds (Quantik's ``perfect`` compiled the exact solver at its first move
out of its book: 7-13 s against a 1.25 s limit). The time bound is the arena's forfeit limit
(0.25 s a move plus 1 s of grace), which a move that compiles nothing keeps even at load 4.

Every (game, agent) pair compiles its own kernels (10-60 s a pair, more on a loaded machine):
the whole matrix, the pair the issue was found on included, is in the slow suite.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from base.jit import numba_available

ROOT = Path(__file__).resolve().parents[1]
TIME = 0.25  # seconds a move: the arena's hard limit is then 1.25 s
GAMES = ("connectx", "tictactoe", "quantik", "quixo", "connect4_count", "einstein")
DEFAULT = (("quantik", "perfect"),)  # its warm-up missed the exact solver (so did quantik_strategy's, solve_first's)


def probe(game: str, agent: str) -> dict:
    res = subprocess.run([sys.executable, "-m", "tests.first_move_probe", game, agent, "--time", str(TIME)],
                         cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def check(game: str, agent: str) -> None:
    r = probe(game, agent)
    assert r["moves"], r
    compiled = [(m["ply"], m["compiles"]) for m in r["moves"] if m["compiles"]]
    assert not compiled, f"{agent} on {game}: moves compiled (ply, functions): {compiled}"
    slow = [(m["ply"], m["seconds"]) for m in r["moves"] if m["seconds"] > r["limit_s"]]
    assert not slow, f"{agent} on {game}: moves past the {r['limit_s']} s limit (ply, seconds): {slow}"


NEEDS_FILE = ("mc_learner",)  # plays from a table trained beforehand (its ``table`` parameter has no default)


def matrix() -> list[tuple[str, str]]:
    from agents import registry

    return [(g, a) for g in GAMES for a in registry.names(g) if (g, a) not in DEFAULT and a not in NEEDS_FILE]


needs_numba = pytest.mark.skipif(not numba_available(), reason="nothing compiles without numba")


@pytest.mark.slow  # 25 s of compiling: the default suite keeps under 10 minutes
@needs_numba
@pytest.mark.parametrize("game,agent", DEFAULT)
def test_first_moves_compile_nothing(game, agent):
    check(game, agent)


@pytest.mark.slow
@needs_numba
@pytest.mark.parametrize("game,agent", matrix())
def test_first_moves_of_every_agent_compile_nothing(game, agent):
    check(game, agent)


def test_the_probe_sees_a_compile_in_a_move():
    """The probe's detector (in this process): a function compiled inside the recorded block is
    named, a compiled one called again is not."""
    if not numba_available():
        pytest.skip("nothing compiles without numba")
    import numba
    from numba.core import event

    from tests.first_move_probe import compiled_names

    @numba.njit
    def twice(x):
        return 2 * x

    with event.install_recorder("numba:compile") as rec:
        twice(1)
    assert "test_the_probe_sees_a_compile_in_a_move.<locals>.twice" in compiled_names(rec)
    with event.install_recorder("numba:compile") as rec:
        twice(2)
    assert compiled_names(rec) == []
