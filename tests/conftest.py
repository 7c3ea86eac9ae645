"""Test-session checks, and the list of skipped tests that CI reruns once the extras are in."""
from __future__ import annotations

import os

import pytest

from tests.pons import PONS

# .ci/run sets this while it runs the README's test command on the plain install: each skipped
# test's (or module's) node id is appended to the file, and CI reruns them with the extras.
SKIPPED_LOG = "CONNECTX_SKIPPED_LOG"
skipped_log: str | None = None  # the file, in the controlling process only (xdist's workers forward their reports to it)


def pytest_configure(config: pytest.Config) -> None:
    global skipped_log
    if not (PONS / "Test_L3_R1").is_file():
        pytest.exit(
            f"Pons' test positions not found in {PONS}: the six Test_L?_R? files ship in data/pons/ "
            "(restore them with git checkout data/pons) or set CONNECTX_PONS_DIR",
            returncode=2,
        )
    if not hasattr(config, "workerinput"):
        skipped_log = os.environ.get(SKIPPED_LOG) or None


def log_skipped(report: pytest.CollectReport | pytest.TestReport) -> None:
    """Append ``report``'s node id to the skipped log when it was skipped (an xfail is not)."""
    if skipped_log and report.skipped and report.nodeid and not hasattr(report, "wasxfail"):
        with open(skipped_log, "a", encoding="utf-8") as out:
            out.write(report.nodeid + "\n")


def pytest_collectreport(report: pytest.CollectReport) -> None:  # a module skipped whole (importorskip)
    log_skipped(report)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    log_skipped(report)
