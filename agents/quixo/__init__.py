"""Quixo's own agents: the table player (:mod:`agents.quixo.perfect`), the course-style minimax
(:mod:`agents.quixo.course_minimax`) and the harness that measures agents against the table
(:mod:`agents.quixo.harness`). :data:`AGENTS` is Quixo's table in :mod:`agents.registry`."""
from __future__ import annotations

from typing import Any

AGENTS: dict[str, str] = {
    "quixo_perfect": "agents.quixo.perfect:QuixoPerfectAgent",
    "course_minimax": "agents.quixo.course_minimax:CourseMinimaxAgent",
    "mc_learner": "agents.engine.mc_learner:MCLearnerAgent",  # generic, with Quixo's shipped table by default
}


def build(cls: type, kwargs: dict[str, Any], game: Any, spec: str) -> Any:
    """The table's hook for :func:`agents.registry.make`: ``cls(game=game, **kwargs)``, the
    Monte-Carlo learner reading ``data/quixo_mc_<n>x<n>.npz`` when its spec names no table."""
    from agents.engine.mc_learner import MCLearnerAgent

    if issubclass(cls, MCLearnerAgent) and not kwargs.get("table"):
        kwargs = {**kwargs, "table": f"data/quixo_mc_{game.n}x{game.n}.npz"}
    return cls(game=game, **kwargs)
