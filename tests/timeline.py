"""A bot that says when it lives, and what it sees, for the tests of "no copy of a deal meets another".

``timeline_bot(folder)`` writes a script that plays as ``bots.greedy`` and writes to its stderr ``BEGIN <ns>`` when
its process starts and ``END <ns>`` just before it exits (``time.time_ns()``, the clock every process shares), and
``SEES <json>`` once: every name under its working folder and every line of its ``/proc/self/mountinfo``.  The
referee keeps a seat's stderr in ``<logs>/<match id>.stderr/``, outside the box, so after a run the tests read, per
match, when each of its bot processes held its cards.  Imported as ``from timeline import ...`` (pytest puts
``tests/`` on ``sys.path`` for its conftest).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """import json, os, sys, time
sys.stderr.write(f"BEGIN {time.time_ns()}\\n")
sys.stderr.flush()
seen = []
for root, dirs, files in os.walk("."):
    seen += [os.path.join(root, x) for x in dirs + files]
try:
    with open("/proc/self/mountinfo") as f:
        seen += f.read().splitlines()
except OSError:
    pass
sys.stderr.write("SEES " + json.dumps(seen) + "\\n")
sys.stderr.flush()
import runpy
try:
    runpy.run_module("bots.greedy", run_name="__main__")
finally:
    sys.stderr.write(f"END {time.time_ns()}\\n")
    sys.stderr.flush()
"""


def timeline_bot(folder: Path, name: str = "tl") -> dict[str, Any]:
    """A tournament file's entry for the timeline bot in ``folder`` (made if need be)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timeline.py").write_text(SCRIPT)
    return {"name": name, "cmd": [sys.executable, "timeline.py"], "cwd": str(folder), "env": {"PYTHONPATH": str(ROOT)}}


@dataclass(frozen=True, slots=True)
class Life:
    """One bot process of one match: when it started and ended (ns), and what it saw."""

    match: str
    begin: int
    end: int
    seen: tuple[str, ...]


def lives(stderr_dir: Path, match: str, killed_at: int | None = None) -> list[Life]:
    """The bot processes of a match, from its stderr folder (one file per seat, the processes one after another).
    ``killed_at``: the time the referee was killed (ns); a process that began before it and never said END (it died
    with the referee) is taken to have lived until then."""
    out: list[Life] = []
    for f in sorted(stderr_dir.iterdir()):
        begin: int | None = None
        seen: tuple[str, ...] = ()
        for line in f.read_text().splitlines():
            word, _, rest = line.partition(" ")
            if word == "BEGIN":
                if begin is not None and killed_at is not None and begin < killed_at < int(rest):
                    out.append(Life(match, begin, killed_at, seen))
                    begin = None
                assert begin is None, f"{f}: a process began before the last one ended"
                begin = int(rest)
            elif word == "SEES":
                seen = tuple(json.loads(rest))
            elif word == "END":
                assert begin is not None, f"{f}: an end without a beginning"
                out.append(Life(match, begin, int(rest), seen))
                begin = None
        assert begin is None, f"{f}: a process that never ended"
    return out


def overlap(a: Life, b: Life) -> bool:
    return a.begin < b.end and b.begin < a.end


__all__ = ["Life", "lives", "overlap", "timeline_bot"]
