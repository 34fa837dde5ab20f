"""A league served on 127.0.0.1 for the tests (``mjref league FILE --listen 127.0.0.1:0`` in its own session):
``with served_league(path) as (url, proc):`` gives its page's address, and kills its whole group at the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def served_league(path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "league", str(path), "--quiet", "--listen",
                             "127.0.0.1:0"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("league page: http://127.0.0.1:"), line + proc.stderr.read()
        yield line.split(": ", 1)[1].strip().rstrip("/"), proc
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=60)
