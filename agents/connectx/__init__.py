"""ConnectX's own agents and tools on :class:`core.connectx.position.Position` (perfect, alpha-beta,
MCTS, ant colony, rules, random; the opening book, the solver command, the MCTS cache, the Kaggle
adapter). Their table is :mod:`agents.connectx.registry`."""
