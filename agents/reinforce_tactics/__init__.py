"""Reinforce Tactics agents and their Kaggle adapter (:mod:`agents.reinforce_tactics.kaggle_agent`)."""
