"""A league served on 127.0.0.1 for the tests (``mjref league FILE --listen 127.0.0.1:0`` in its own session):
``with served_league(path) as (url, proc):`` gives its page's address, and kills its whole group at the end;
``league_process(path, *args)`` starts one and reads the addresses it prints (``league page``, ``wrappers log in
at``) before it plays."""

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
def league_process(path: Path, *args: str) -> Iterator[tuple[dict[str, str], subprocess.Popen[str]]]:
    """The league, started with ``--listen 127.0.0.1:0`` and ``args``; the addresses it printed, by what they are."""
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "league", str(path), "--quiet", "--listen",
                             "127.0.0.1:0", *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        assert proc.stderr is not None
        found: dict[str, str] = {}
        seen = ""
        while "league page" not in found:
            line = proc.stderr.readline()
            seen += line
            assert line, "the league ended before serving its page: " + seen + proc.stderr.read()
            what, sep, address = line.partition(": ")
            if sep and address.startswith(("http://", "ws://", "wss://")):
                found[what] = address.strip().rstrip("/")
        yield found, proc
    except BaseException:
        _kill(proc)
        print("the league said:", proc.stderr.read() if proc.stderr else "", file=sys.stderr)  # for the report
        raise
    finally:
        _kill(proc)


def _kill(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=60)


@contextmanager
def served_league(path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    with league_process(path) as (found, proc):
        yield found["league page"], proc
