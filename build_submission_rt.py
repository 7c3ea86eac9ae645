"""``python build_submission_rt.py ...``: an alias of ``python build_submission.py --game
reinforce_tactics ...`` (the one builder, :mod:`util.submission_builder`; the game's hooks:
``agents/reinforce_tactics/submission.py``)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from util import submission_builder  # noqa: E402

GAME = "reinforce_tactics"


def main(argv: list[str] | None = None) -> int:
    return submission_builder.main(argv, GAME, "build_submission_rt.py")


if __name__ == "__main__":
    sys.exit(main())
