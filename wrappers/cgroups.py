"""A memory cgroup per seat's box, where the machine has one to give: ``memory_mb`` then bounds the bot's processes
together, not only each of them (``RLIMIT_AS``), and a bot the kernel killed for it is told so.  And a CPU
accounting cgroup (cgroup v1's ``cpuacct``, or v2's ``cpu.stat``, there the same cgroup): the keeper then counts
every CPU second the box's processes used, those of processes nobody waited for included (a parent that ignores
``SIGCHLD`` has its children reaped by the kernel, and their CPU is in no parent's account).

Only a root referee can make cgroups (an ordinary user's are the system's to delegate); cgroup v1's ``memory``
hierarchy and cgroup v2 with the memory controller enabled below the referee's own cgroup both work.  Where
neither does, :func:`problem` says why, and the box's plan lists the sum of memory as unprotected.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

V1_MOUNT = Path("/sys/fs/cgroup/memory")
V1_CPU_MOUNT = Path("/sys/fs/cgroup/cpuacct")  # a link to cpu,cpuacct where the two are mounted together
V2_MOUNT = Path("/sys/fs/cgroup")
V1_CPU_FILE, V2_CPU_FILE = "cpuacct.usage", "cpu.stat"  # nanoseconds; ``usage_usec`` microseconds


def _find(v1_mount: Path, controller: str, v1_file: str, v2_ok: bool, v1_probe: str | None, v2_probe: str | None,
          none: str) -> tuple[Path, str] | str:
    """Where seat cgroups of ``controller`` are made below the referee's own (cgroup v1's hierarchy of it, else
    cgroup v2 where ``v2_ok``) and the version, or why there is none."""
    if os.geteuid() != 0:
        return "making cgroups needs root"
    try:
        lines = Path("/proc/self/cgroup").read_text(encoding="ascii").splitlines()
    except OSError as exc:
        return f"no /proc/self/cgroup ({exc.strerror})"
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(",") and (v1_mount / v1_file).exists():
            return _probe(v1_mount / path.lstrip("/"), "v1", v1_probe)
    for line in lines:
        if line.startswith("0::") and v2_ok:
            return _probe(V2_MOUNT / line[3:].lstrip("/"), "v2", v2_probe)
    return none


@functools.cache
def _parent() -> tuple[Path, str] | str:
    """The folder in which seat memory cgroups are made and the hierarchy's version, or why there is none."""
    return _find(V1_MOUNT, "memory", "memory.limit_in_bytes",
                 "memory" in _read(V2_MOUNT / "cgroup.controllers").split(), None, None,
                 "no memory cgroup controller here")


@functools.cache
def _cpu_parent() -> tuple[Path, str] | str:
    """The folder in which seats' CPU accounting cgroups are made and the hierarchy's version, or why there is none."""
    return _find(V1_CPU_MOUNT, "cpuacct", V1_CPU_FILE, (V2_MOUNT / "cgroup.controllers").exists(), V1_CPU_FILE,
                 V2_CPU_FILE, "no CPU accounting cgroup here")


def _probe(parent: Path, version: str, needed: str | None = None) -> tuple[Path, str] | str:
    test = parent / f"mjref-probe-{os.getpid()}"
    try:
        test.mkdir()
    except OSError as exc:
        return f"cannot make a cgroup in {parent} ({exc.strerror})"
    try:
        if needed is not None:
            if not (test / needed).exists():
                return f"no {needed} below {parent}"
        elif not (test / ("memory.limit_in_bytes" if version == "v1" else "memory.max")).exists():
            return f"the memory controller is not enabled below {parent}"
    finally:
        test.rmdir()
    return parent, version


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii")
    except OSError:
        return ""


def problem() -> str | None:
    """Why seat cgroups cannot be had here (None: they can)."""
    found = _parent()
    return found if isinstance(found, str) else None


def seat_path(name: str) -> str | None:
    """Where the cgroup named ``name`` would be (None where there are none)."""
    found = _parent()
    return None if isinstance(found, str) else str(found[0] / name)


def cpu_problem() -> str | None:
    """Why seat CPU accounting cgroups cannot be had here (None: they can)."""
    found = _cpu_parent()
    return found if isinstance(found, str) else None


def cpu_seat_path(name: str) -> str | None:
    """Where the CPU accounting cgroup named ``name`` would be (None where there are none)."""
    found = _cpu_parent()
    return None if isinstance(found, str) else str(found[0] / name)


def cpu_file(path: str) -> tuple[str, str]:
    """The file of the CPU accounting cgroup ``path`` that counts its CPU time, and its version (``v1``: nanoseconds
    in ``cpuacct.usage``; ``v2``: ``usage_usec`` in ``cpu.stat``)."""
    version = _cpu_parent()[1]  # type: ignore[index]
    return str(Path(path) / (V1_CPU_FILE if version == "v1" else V2_CPU_FILE)), version


def cpu_seconds(path: str) -> float | None:
    """The CPU seconds the processes of cgroup ``path`` have used, ended ones included (None if unreadable)."""
    file, version = cpu_file(path)
    text = _read(Path(file))
    if version == "v1":
        return int(text) / 1e9 if text.strip().isdigit() else None
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec" and value.strip().isdigit():
            return int(value) / 1e6
    return None


def create_cpu(path: str) -> None:
    """Make the seat's CPU accounting cgroup (again: one left by a killed referee is reused)."""
    Path(path).mkdir(exist_ok=True)


def create(path: str, limit_bytes: int) -> None:
    """Make the seat's cgroup (again: one left by a killed referee is reused) with its memory limit."""
    folder = Path(path)
    folder.mkdir(exist_ok=True)
    version = _parent()[1]  # type: ignore[index]
    if version == "v1":
        (folder / "memory.limit_in_bytes").write_text(str(limit_bytes))
    else:
        (folder / "memory.max").write_text(str(limit_bytes))
        if (folder / "memory.swap.max").exists():
            (folder / "memory.swap.max").write_text("0")


def oom_kills(path: str) -> int:
    """How many processes the kernel has killed in this cgroup for its memory limit."""
    folder = Path(path)
    text = _read(folder / "memory.oom_control") or _read(folder / "memory.events")
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill" and value.strip().isdigit():
            return int(value)
    return 0


def remove(path: str) -> bool:
    """Remove the seat's cgroup: True once it is gone, False while it is still in use (the kernel refuses)."""
    try:
        os.rmdir(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


__all__ = ["cpu_file", "cpu_problem", "cpu_seat_path", "cpu_seconds", "create", "create_cpu", "oom_kills", "problem",
           "remove", "seat_path"]
