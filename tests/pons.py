"""Pascal Pons' benchmark positions for the tests: see :mod:`core.connectx.pons_data` (shipped in ``data/pons/``;
``CONNECTX_PONS_DIR`` overrides)."""
from core.connectx.pons_data import PONS, pons_lines  # noqa: F401
