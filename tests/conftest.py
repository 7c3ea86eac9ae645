"""Test-session checks."""
from __future__ import annotations

import pytest

from tests.pons import PONS


def pytest_configure(config: pytest.Config) -> None:
    if not (PONS / "Test_L3_R1").is_file():
        pytest.exit(
            f"Pons' test positions not found in {PONS}: the six Test_L?_R? files ship in data/pons/ "
            "(restore them with git checkout data/pons) or set CONNECTX_PONS_DIR",
            returncode=2,
        )
