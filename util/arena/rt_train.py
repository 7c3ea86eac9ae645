"""The former command of Reinforce Tactics' learned-evaluation trainer, kept as a thin alias:
``python -m util.arena.rt_train ...`` runs ``python -m util.rt_train ...`` (a tool of one game,
which the game-generic arena does not hold; run by name, so the arena's package imports nothing of it)."""
from __future__ import annotations

import runpy

if __name__ == "__main__":
    runpy.run_module("util.rt_train", run_name="__main__", alter_sys=True)
