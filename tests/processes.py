"""Process helpers shared by the tests that start bots: which processes a test's bots left alive.

A test tags its bots' command lines with a unique marker (``mjref-test-<uuid>``) and asks here, after the match,
whether any live process still carries it.  Imported as ``from processes import live_processes`` (pytest puts
``tests/`` on ``sys.path`` for its conftest).
"""

from __future__ import annotations

from pathlib import Path


def live_processes(marker: str) -> list[int]:
    """PIDs of live (non-zombie) processes whose command line contains ``marker``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if marker.encode() in cmdline and ") Z" not in stat:
            pids.append(int(entry.name))
    return pids
