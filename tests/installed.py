"""Running ``mjref`` as a user does, for the tests of its command line: the installed program (the console script
beside this Python) with its output in a pipe, or in a terminal.  Imported as ``from installed import mjref``
(pytest puts ``tests/`` on ``sys.path`` for its conftest)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

MJREF = Path(sys.executable).parent / "mjref"
ENV = dict(os.environ)  # the default box: as root, mode none would need every bot reachable by an unprivileged uid
WAIT = 300  # seconds a command may take on a loaded machine: a margin, never a measure
ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>78])")


def mjref(*args: str, cwd: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``mjref ARGS`` in ``cwd``, its output in pipes, no input."""
    return subprocess.run([str(MJREF), *args], cwd=cwd, capture_output=True, text=True, timeout=WAIT, env=ENV,
                          stdin=subprocess.DEVNULL, **kwargs)


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused input gets: exit status 2, no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr.strip()


def in_a_terminal(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``argv`` with its stdout in a wide terminal (a pseudo-terminal: rich draws its live view there); the exit
    status, what the terminal showed without its escape sequences, and stderr."""
    main, sub = pty.openpty()
    fcntl.ioctl(sub, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 240, 0, 0))
    env = {**(env or os.environ), "TERM": "xterm-256color", "COLUMNS": "240", "LINES": "60"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(argv, cwd=cwd, stdin=sub, stdout=sub, stderr=subprocess.PIPE, env=env)
    os.close(sub)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # EIO: the process, the terminal's last writer, has ended
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    status = proc.wait(timeout=WAIT)
    return status, ANSI.sub("", b"".join(chunks).decode(errors="replace")), err
