"""Where Pascal Pons' benchmark positions are: ``../shared/data/pons`` beside the repo, or the
folder named by ``CONNECTX_PONS_DIR``. Format: ``<moves> <score>`` a line (see PROVENANCE.md there)."""
from __future__ import annotations

import os
from pathlib import Path

PONS = Path(os.environ.get("CONNECTX_PONS_DIR") or Path(__file__).resolve().parents[2] / "shared" / "data" / "pons")
