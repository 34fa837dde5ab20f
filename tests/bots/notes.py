"""A test bot that tries to leave itself notes: at its start it writes ``SAW`` and what it finds of earlier notes
(in ``/tmp``, ``/dev/shm`` and its working folder) to stderr, then leaves a note of its own in each, and plays as
drawdiscard.  Used by ``tests/wrappers/test_box_pool.py``: a box kept from one match to the next must show a new
match nothing of the last, as between two hands."""

from __future__ import annotations

import os
import sys

from bots import stdio

PLACES = ("/tmp", "/dev/shm", os.getcwd())


def _look() -> list[str]:
    seen = []
    for place in PLACES:
        try:
            seen += [os.path.join(place, n) for n in os.listdir(place) if n.startswith("mjref-note-")]
        except OSError:
            pass
    return sorted(seen)


if __name__ == "__main__":
    sys.stderr.write(f"SAW {' '.join(_look()) or '-'}\n")
    sys.stderr.flush()
    for place in PLACES:
        try:
            with open(os.path.join(place, f"mjref-note-{os.getpid()}"), "w", encoding="ascii") as f:
                f.write("a hand was here\n")
        except OSError:
            pass
    sys.exit(stdio.Runner(stdio.make_policy("drawdiscard"), seed=1, keep_alive=False, out=sys.stdout,
                          err=sys.stderr).run(sys.stdin))
