"""Games: the engine's contract (:mod:`core.game`), the registry (:mod:`core.games`), and one
package per game (``core/<game>/``: rule kernels and its :class:`core.game.Game`)."""
