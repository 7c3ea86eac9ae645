"""The engine searches give the same moves, values, visit and node counts as at commit 4495222
on fixed positions and budgets (plain path; compiled == plain is checked by each search's own
tests). The figures were recorded by ``python -m tests.kernel_fingerprint`` at that commit,
before the kernels were split into helpers over named layouts. One ``pv`` was corrected since
(tictactoe ``mcts:max_sims=400,seed=3``, its second move): the line starts with the action
chosen, a proven child that another outnumbered in visits (``SearchInfo.pv``'s contract)."""
import json
from pathlib import Path

import pytest

from tests import kernel_fingerprint as F

RECORDED = json.loads((Path(__file__).parent / "data" / "kernel_fingerprint.json").read_text())


@pytest.mark.parametrize("case", F.CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_search_results_match_the_recording_before_the_kernel_split(case, monkeypatch):
    monkeypatch.setenv("CONNECTX_NUMBA", "0")
    game, spec, prefix, moves = case
    got = json.loads(json.dumps(F.run_case(game, spec, prefix, moves)))
    assert got == RECORDED[f"{game} {spec} {list(prefix)}"]
