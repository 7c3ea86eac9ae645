"""kaggle-environments imported once, its start-up chatter kept out of stdout and stderr.

On import the package loads every environment it knows and *prints* each that fails
(``Loading environment open_spiel_env failed: No module named 'pyspiel'`` without OpenSpiel,
the README's plain install) to **stdout**: a command whose stdout is data (a shell's
``$(python -c ...)``, a pipe, a worker's answers) would read that line as its output, and on
stderr it would be a second line beside a command's one-line usage error. The lines are kept in
:data:`CHATTER` instead. Every
module of ours that imports the package calls :func:`kaggle_environments` first; once imported it
is in ``sys.modules``, and later ``from kaggle_environments... import`` statements print nothing.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import sys
import types

CHATTER: list[str] = []  # what the package printed while it was imported here (environments that failed to load)


def kaggle_environments() -> types.ModuleType:
    """The ``kaggle_environments`` package; what its import prints goes to :data:`CHATTER`."""
    module = sys.modules.get("kaggle_environments")
    if module is not None:
        return module
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            return importlib.import_module("kaggle_environments")
    finally:
        CHATTER.extend(line for line in buf.getvalue().splitlines() if line.strip())
