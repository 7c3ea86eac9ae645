"""Build one agent into a single self-contained Kaggle submission file, then validate it.

    python build_submission.py                       # ConnectX's strongest available agent -> submissions/submission.py
    python build_submission.py --agent rules --output submissions/rules.py
    python build_submission.py --list                # agents and their parameters with defaults
    python build_submission.py --game reinforce_tactics --help   # another game's file and its options

One builder for every game whose agents name Kaggle submission hooks
(:mod:`util.submission_builder`; the hooks: :class:`agents.submission.SubmissionHooks`, e.g.
``agents/connectx/submission.py``); without ``--game`` it builds :data:`DEFAULT_GAME`'s.
``--help`` shows the game's options. Details: ``submissions/README.md``.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from util import submission_builder  # noqa: E402
from util.submission_build import load_params_file  # noqa: E402,F401  (tests and tools read a params file as the builder does)

DEFAULT_GAME = "connectx"  # what ``python build_submission.py`` builds (the README's first command)


def main(argv: list[str] | None = None) -> int:
    return submission_builder.main(argv, DEFAULT_GAME)


if __name__ == "__main__":
    sys.exit(main())
