"""The Reinforce Tactics heuristic's weights: names, defaults, bounds and meaning in one place
(each field declares its :class:`base.params.Param`: :func:`base.params.declare`).

:class:`Weights` is a dataclass so that an agent that uses the heuristic inherits its fields
(``greedy:w_gold=0.5`` sets one; ``util.arena.tune --space w_gold=float:0:2`` tunes it), and
:meth:`Weights.vector` is the ``params`` array the hot ``evaluate(g, s, params)`` reads, by the
index constants ``P_*`` below (one per field, in field order). The engine's generic agents take
the same names (``macro_mcts:w_gold=0.5``; :func:`declared`, as every game's heuristics
declare theirs: :mod:`base.params`), or all the numbers by position (``params=1.35/0.3/...``).

Values are in gold (a unit's cost is what it is worth at full health), then squashed:
``top * z / (scale + |z|)`` keeps every estimate inside ``(-top, top)``, below the win value 1.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from base.params import Param, declarations, declare

WEIGHT = (-1.0e6, 1.0e6)
SHARE = (0.0, 1.0)
POSITIVE = (1.0e-6, 1.0e9)


@dataclass
class Weights:
    """Weights of :func:`heuristics.reinforce_tactics.evaluate` (gold units unless said).

    w_material, w_income, w_hq, w_advance and w_capture are tuned (``util.arena.tune`` against the
    former defaults 1.2, 4, 1500, 3, 2 on four small maps: docs/reinforce-tactics.md, "Tuning")."""

    w_material: float = declare(1.35, *WEIGHT, "value of a unit per gold of its cost, at full hp (above w_gold: recruiting pays)")
    hp_floor: float = declare(0.3, *SHARE, "share of a unit's value it keeps at 0 hp; the rest scales with its hp fraction")
    w_paralysed: float = declare(0.3, *SHARE, "share of a unit's value lost while it is paralysed")
    w_gold: float = declare(1.0, *WEIGHT, "value of a gold coin in hand")
    w_income: float = declare(2.06, *WEIGHT, "value of owning a structure, per gold of income it pays a turn (i.e. turns of income)")
    w_hq: float = declare(3188.0, *WEIGHT, "extra value of an HQ (what a unit seizing it threatens)")
    w_seize: float = declare(1.0, *WEIGHT, "share of a structure's value moved to the unit seizing it, per share of its hp taken")
    w_occupy: float = declare(0.1, *WEIGHT, "share of a structure's value for a unit standing on it (not its side's): a seizure next")
    w_advance: float = declare(9.79, *WEIGHT, "per unit, per cell (Manhattan) nearer the enemy HQ")
    w_capture: float = declare(6.39, *WEIGHT, "per unit, per cell nearer the nearest structure not its side's")
    scale: float = declare(3000.0, *POSITIVE, "gold of advantage at which the estimate reaches half of top")
    top: float = declare(0.9, *SHARE, "the largest |estimate| (a win scores 1)")

    def vector(self) -> list[float]:
        """The weights as ``evaluate``'s ``params``, in field order (indices ``P_*``)."""
        return [float(getattr(self, f.name)) for f in fields(Weights)]


NAMES = tuple(f.name for f in fields(Weights))
(P_MATERIAL, P_HP_FLOOR, P_PARALYSED, P_GOLD, P_INCOME, P_HQ, P_SEIZE, P_OCCUPY, P_ADVANCE,
 P_CAPTURE, P_SCALE, P_TOP) = range(len(NAMES))
assert NAMES[P_TOP] == "top" and NAMES[P_ADVANCE] == "w_advance"


def weights_of(obj: object) -> list[float]:
    """The ``params`` vector of any object carrying the weights as attributes (an agent that
    inherits :class:`Weights`)."""
    return [float(getattr(obj, name)) for name in NAMES]


def help_text() -> dict[str, str]:
    """Each weight's meaning (its declaration's), for ``--help`` and the docs."""
    return {p.name: p.doc for p in declared()}


def declared() -> tuple[Param, ...]:
    """The weights as the engine's searches read every heuristic's parameters
    (:class:`base.params.Param`: name, default, bounds, meaning), from :class:`Weights`' fields."""
    return declarations(Weights)
