"""Heuristics, one package per game (``heuristics/<game>/``): scores of a position for the side
to move, bound into searches as their ``evaluate`` (see :mod:`core.game`)."""
