"""Pascal Pons' benchmark positions for the tests: see :mod:`util.pons` (shipped in ``data/pons/``;
``CONNECTX_PONS_DIR`` overrides)."""
from util.pons import PONS, pons_lines  # noqa: F401
