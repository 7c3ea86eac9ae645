"""A worker agent whose process is noisy, for tests/test_build_submission_rt.py: imported by a
worker process started on the repo (``root`` header), it writes to the worker's stdout and
stderr at import, in its warm-up and in every turn (Python prints, writes to fd 1 and 2 as a
native library does, half a JSON line included), emits a numba warning, and imports
kaggle-environments as a machine without OpenSpiel does (``pyspiel`` made unimportable: its
``Loading environment open_spiel_env failed`` line goes to stdout). The old protocol read its
answers from stdout and died of the first such line (issue 34)."""
from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

from tests.rt_worker_fakes import Gated

try:
    from numba.core.errors import NumbaPerformanceWarning as Warned
except ImportError:  # no numba here: the same warning machinery, another class
    Warned = UserWarning  # type: ignore[assignment,misc]


def noise(when: str) -> None:
    """Everything a library may write where the worker's answers once went."""
    print(f"noisy worker: print on stdout ({when})", flush=True)
    print(f"noisy worker: print on stderr ({when})", file=sys.stderr, flush=True)
    os.write(1, b'noisy worker: a native write to fd 1, no newline, half an answer {"ready": ')
    os.write(2, b"noisy worker: a native write to fd 2\n")
    warnings.warn(f"noisy worker: a numba warning ({when})", Warned, stacklevel=1)


warnings.simplefilter("always")
noise("import")
sys.modules["pyspiel"] = None  # type: ignore[assignment]  # OpenSpiel missing, whatever is installed here
import kaggle_environments  # noqa: E402,F401  (prints "Loading environment open_spiel_env failed: ..." on stdout)


@dataclass
class Noisy(Gated):
    """:class:`tests.rt_worker_fakes.Gated` (random turns; ready at once) that is noisy in its warm-up and turns."""

    def warm_up(self) -> float:
        noise("warm-up")
        return super().warm_up()

    def plan_labels(self, state, deadline):
        noise("turn")
        return super().plan_labels(state, deadline)
