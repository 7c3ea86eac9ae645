"""Game-generic searches: each knows only the kernel contract of :mod:`core.game` and is bound
to a game (its kernels, its heuristic) by :func:`core.game.bind`."""
