"""bench/pons_verify.py: resumes from its log and fails on a wrong score."""
from __future__ import annotations

from pathlib import Path

from bench.pons_verify import main, read_log


def test_resumes_from_its_log_and_reports_wrong_scores(tmp_path: Path, capsys) -> None:
    log = tmp_path / "l3.log"
    assert main(["--set", "L3_R1", "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    assert len(lines) == 1000 and all(a == b for a, b, *_ in (line.split()[1:] for line in lines))
    log.write_text("\n".join(lines[:400]) + "\n")  # as if interrupted after 400 positions
    capsys.readouterr()
    assert main(["--set", "L3_R1", "--log", str(log)]) == 0
    assert "400 already checked, 600 to solve" in capsys.readouterr().out
    assert len(read_log(log)) == 1000
    moves, expected, got, nodes, seconds = log.read_text().splitlines()[0].split()
    log.write_text(log.read_text() + f"{moves} {int(expected) + 1} {got} {nodes} {seconds}\n")  # a wrong score
    assert main(["--set", "L3_R1", "--log", str(log), "--report"]) == 1
    assert "1 wrong" in capsys.readouterr().out
