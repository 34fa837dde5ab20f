"""The speed benchmarks' own behaviour (never their figures): they run, print one JSON line, and say clearly
when an anchor cannot be measured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
        check=False,
    )


def test_engine_bench_without_rlcard_says_why(tmp_path: Path) -> None:
    """``--vs-rlcard`` with an interpreter that has no rlcard: our figures still print, the JSON names the reason,
    stderr says it in one line, and the exit status is 1."""
    proc = run_bench("bench/engine.py", "--hands", "3", "--vs-rlcard", "--rlcard-python", sys.executable)
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["hands_per_second"] > 0
    assert "rlcard" in result["rlcard"]["error"]
    assert "vs_rlcard" not in result
    assert proc.stderr.startswith("bench/engine.py --vs-rlcard: no RLCard figure:")


def test_engine_bench_greedy_plays_hands_to_their_end() -> None:
    proc = run_bench("bench/engine.py", "--hands", "2", "--greedy", "--greedy-hands", "2")
    assert proc.returncode == 0, proc.stderr
    greedy = json.loads(proc.stdout)["greedy"]
    assert sum(greedy["outcomes"].values()) == 2
    assert greedy["questions_per_second"] > 0


def test_start_bench_times_every_bot_beside_python() -> None:
    proc = run_bench("bench/start.py", "--runs", "1", "--bots", "drawdiscard", "--imports")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["interpreter"] == "bare venv"  # no development install's .pth file in the anchor
    assert result["python_c_pass"]["median_ms"] > 0 and result["python_c_pass"]["cpu_median_ms"] > 0
    assert result["bots"]["drawdiscard"]["median_ms"] > 0 and result["bots"]["drawdiscard"]["cpu_median_ms"] > 0
    assert any(row["module"] == "bots.base" for row in result["slowest_imports"]["drawdiscard"])
    bad = run_bench("bench/start.py", "--bots", "nosuchbot")
    assert bad.returncode == 2 and "unknown bot 'nosuchbot'" in bad.stderr
