"""What every benchmark prints about the machine it ran on (the figures mean little without it)."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def machine() -> str:
    """The architecture, the CPU model where the system says it, and the number of CPUs."""
    model = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return ", ".join(x for x in (platform.machine(), model, f"{os.cpu_count()} cpus") if x)
