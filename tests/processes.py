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


def _reachable(path: Path) -> bool:
    """Whether an unprivileged user may reach ``path`` (every folder above it searchable by others)."""

    for folder in [*path.parents]:
        try:
            if folder.stat().st_mode & 0o001 == 0:
                return False
        except OSError:
            return False
    return True


def unprivileged_bot(name: str) -> list[str]:
    """The command of mjref's built-in bot ``name`` as a process (``python -m bots.NAME``) that an unprivileged user
    can start (see ``unprivileged_python``)."""
    return unprivileged_python(["-m", f"bots.{name}"])


def unprivileged_python(args: list[str]) -> list[str]:
    """A Python command (``args`` after the interpreter) that an unprivileged user can start: mode ``none`` as
    root runs every bot as a uid of its own, never as root, and this machine's Python (or the checkout) may lie in a
    folder closed to others (``/root``).  Then: the system's ``/usr/bin/python3`` (mjref's bots and the test bots
    need only the standard library) on a copy of mjref's packages and test bots in a folder open to all."""
    import os
    import sys

    root = Path(__file__).resolve().parents[1]
    if os.geteuid() != 0 or (_reachable(Path(sys.executable).resolve()) and _reachable(root / "bots")):
        return [sys.executable, *args]
    tree = _reachable_tree()
    mapped = [str(tree / Path(a).relative_to(root)) if a.startswith(str(root) + "/") else a for a in args]
    if mapped[:1] == ["-m"]:
        return [str(tree / "pybot"), mapped[1].removeprefix("bots."), *mapped[2:]]
    return ["/usr/bin/python3", *mapped]


_TREE: list[Path] = []
_PARTS = ("bots", "referee", "wrappers", "tournaments", "tests/bots", "examples")


def _reachable_tree() -> Path:
    """The copy, at a path every test process agrees on (test parameters name it: pytest-xdist's workers must
    collect the same tests), named after what it holds, so an edited checkout gets a new one."""
    import hashlib
    import os
    import shutil
    import tempfile

    if not _TREE:
        root = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256(str(root).encode())
        for part in _PARTS:
            for path in sorted((root / part).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    st = path.stat()
                    digest.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}".encode())
        tree = Path(tempfile.gettempdir()) / f"mjref-reachable-{digest.hexdigest()[:16]}"
        if not (tree / "pybot").exists():
            build = Path(tempfile.mkdtemp(prefix="mjref-reachable-build-"))
            for part in _PARTS:
                shutil.copytree(root / part, build / part, ignore=shutil.ignore_patterns("__pycache__"))
            (build / "pybot").write_text(f'#!/bin/sh\nname="$1"; shift\n'
                                         f'PYTHONPATH={tree} exec /usr/bin/python3 -m "bots.$name" "$@"\n')
            for dirpath, _, files in os.walk(build):
                os.chmod(dirpath, 0o755)
                for f in files:
                    os.chmod(os.path.join(dirpath, f), 0o755 if f == "pybot" else 0o644)
            try:
                os.rename(build, tree)
            except OSError:  # another test process made it first
                shutil.rmtree(build, ignore_errors=True)
        _TREE.append(tree)
    return _TREE[0]


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
