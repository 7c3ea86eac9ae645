"""Quantik's own agents: the scripted strategy (:mod:`agents.quantik.strategy`). :data:`AGENTS`
is Quantik's table in :mod:`agents.registry`."""

AGENTS: dict[str, str] = {
    "quantik_strategy": "agents.quantik.strategy:QuantikStrategyAgent",
}
