"""kaggle-environments imported once with its start-up chatter sent to stderr.

On import the package loads every environment it knows and *prints* each that fails
(``Loading environment open_spiel_env failed: No module named 'pyspiel'`` without OpenSpiel,
the README's plain install) to **stdout**: a command whose stdout is data (a shell's
``$(python -c ...)``, a pipe, a worker's answers) would read that line as its output. Every
module of ours that imports the package calls :func:`kaggle_environments` first; once imported it
is in ``sys.modules``, and later ``from kaggle_environments... import`` statements print nothing.
"""
from __future__ import annotations

import contextlib
import importlib
import sys
import types


def kaggle_environments() -> types.ModuleType:
    """The ``kaggle_environments`` package, its import's stdout lines written to stderr."""
    module = sys.modules.get("kaggle_environments")
    if module is not None:
        return module
    with contextlib.redirect_stdout(sys.stderr):
        return importlib.import_module("kaggle_environments")
