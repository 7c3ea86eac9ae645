"""ConnectX's heuristics (:mod:`heuristics.connectx`) on the engine's ``evaluate(g, s, params)`` signature,
so game-generic searches can use them; parameters as declared in
:data:`heuristics.connectx.params.PARAMS`."""
from __future__ import annotations

from base.jit import hot
from base.params import default_lists
from heuristics.connectx.bitsquares import bitsquares
from heuristics.connectx.gameovers import gameovers
from heuristics.connectx.liberties import liberties
from heuristics.connectx.oddeven import oddeven
from heuristics.connectx.params import PARAMS as CONNECTX_PARAMS


@hot
def evaluate_liberties(g, s, params) -> float:
    return liberties(s[0], s[1], g[0], g[1], g[2], params)


@hot
def evaluate_bitsquares(g, s, params) -> float:
    return bitsquares(s[0], s[1], g[0], g[1], g[2], params)


@hot
def evaluate_gameovers(g, s, params) -> float:
    return gameovers(s[0], s[1], g[0], g[1], g[2], params)


@hot
def evaluate_oddeven(g, s, params) -> float:
    return oddeven(s[0], s[1], g[0], g[1], g[2], params)


HEURISTICS = {"liberties": evaluate_liberties, "bitsquares": evaluate_bitsquares,
              "gameovers": evaluate_gameovers, "oddeven": evaluate_oddeven}


# Declared once in heuristics.connectx.params (names, defaults, bounds, meaning).
PARAMS = {name: CONNECTX_PARAMS[name] for name in HEURISTICS}
DEFAULT_PARAMS = default_lists(PARAMS)
