"""The arena: games between agents (match, players), tournaments with their store, ratings and
SPRT, tuning, terminal play and the browser app. It sits above :mod:`agents`; the rest of
:mod:`util` is the low layer (jit, clocks, codec, cli, files, backends) that never imports agents."""
