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


GONE_WITHIN = 60.0
"""Seconds a test waits for a bot's processes to be gone after a match: a margin, not a measure.  A process killed
at the match's end (SIGKILL to its group) exits when the kernel next runs it, and a grandchild that is not the
referee's child (a sandbox's, a bot's own) is reaped by another parent: on a machine loaded by other work (the suite
with -n 8 on 2 cores) that took more than the instant between the match's end and the test's look.  A process that
was never stopped is still there after a minute, and fails the test as before."""


def lingering_processes(marker: str, within: float = GONE_WITHIN) -> list[int]:
    """The live processes carrying ``marker`` once they are all gone or ``within`` seconds have passed: empty as soon
    as the last one has exited (the test goes on at once), the PIDs still alive otherwise."""
    import time

    deadline = time.monotonic() + within
    while True:
        alive = live_processes(marker)
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)
