"""The former command of Reinforce Tactics' learned-evaluation trainer, kept as a thin alias:
``python -m util.arena.rt_train ...`` runs :mod:`util.rt_train` (a tool of one game, which the
game-generic arena does not hold)."""
from __future__ import annotations

import sys

from util.rt_train import main

if __name__ == "__main__":
    sys.exit(main())
