"""Reinforce Tactics agents that know the game: the greedy one-turn planner
(:mod:`agents.reinforce_tactics.greedy`, its compiled inner loop in
:mod:`agents.reinforce_tactics.planner`), and ``pimc`` over any of the game's agents
(:mod:`agents.reinforce_tactics.fog_pimc`: the game under fog of war). Uniform random play is the generic
``agents.engine.random_agent`` (why no variant: ``docs/reinforce-tactics.md``, Agents).
The Kaggle adapter (:mod:`agents.reinforce_tactics.kaggle_agent`) and the builder's floor agent
(:mod:`agents.reinforce_tactics.random_turn`) serve the submission, whose hooks are
:data:`SUBMISSION`. :data:`AGENTS` is Reinforce Tactics' table in
:mod:`agents.registry`."""

AGENTS: dict[str, str] = {
    "greedy": "agents.reinforce_tactics.greedy:GreedyAgent",
    "pimc": "agents.reinforce_tactics.fog_pimc:FogPIMCAgent",
    "fogplan": "agents.reinforce_tactics.fog_plan:FogPlanAgent",
}

SUBMISSION = "agents.reinforce_tactics.submission"
"""Reinforce Tactics' Kaggle submission hooks (:func:`agents.registry.submission_hooks`)."""
