"""ConnectX's heuristics, each counting lines of ``inarow`` cells on the bitboards: one module a
heuristic, the dispatcher :mod:`.evaluate` for ConnectX's own searches, the parameter names and
defaults in :mod:`.params`, and :mod:`.engine` for the game-generic searches."""
