"""Shared test configuration.

Hypothesis explores new examples on every local run (that is how it finds bugs), but CI (``CI=true``) runs a fixed,
derandomized set so that a landing never depends on luck; database writes are off there (a fresh clone each time).

The suite runs under pytest-xdist on few cores, where its wall time is set by the longest tests: the tests marked
``slow`` are collected first, so that the workers start them at once and the many short tests fill in around them
(run last, one long test would keep a worker busy alone while the other idles).  Fixtures shared by several test
folders live here too.
"""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]

# No test may fail for being slow (speed is measured by bench/, never asserted): hypothesis's per-example deadline
# and its "too slow" health check are timings, and they trip on a loaded machine or under pytest-xdist.
_untimed: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", **_untimed)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **_untimed)
settings.load_profile("ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev")


def pytest_configure(config: pytest.Config) -> None:
    """xdist's ``load`` schedule first hands each worker a quarter of its share of the collection in one piece,
    which would give every slow test to the first worker; one test at a time (``--maxschedchunk 1``, unless given)
    keeps every worker two tests ahead, so the slow ones spread over the workers as they come free."""
    if getattr(config.option, "maxschedchunk", False) is None:
        config.option.maxschedchunk = 1
    if not hasattr(config, "workerinput"):  # once per run: in xdist's controller, before the workers start
        compile_sources()


def compile_sources() -> None:
    """Write the bytecode of mjref's own packages (``__pycache__``, git-ignored), where it is missing or stale.

    The suite starts about a thousand Python processes (bots, most of them boxed by bubblewrap, which sees these
    folders read-only; ``mjref`` commands; tournament pool workers).  Where bytecode writing is off
    (``PYTHONDONTWRITEBYTECODE``, as in a fresh clone on this project's CI machine) each of them would compile every
    module it imports from source again: about 0.06 s of CPU per bot and 0.17 s per ``mjref``.  Compiled once here
    instead (about a second; nothing when they are up to date)."""
    for package in ("bots", "referee", "tournaments", "wrappers"):
        compileall.compile_dir(ROOT / package, quiet=2)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests first, each group in its collected order (a stable sort: every xdist worker collects the same
    order, as it must)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def cbot_or_none(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """tests/bots/cbot.c compiled once per test process (None without a C compiler): a bot as the ICGA framework's
    C bots are written, which also starts in about a millisecond where a Python bot takes a few hundred."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    exe = tmp_path_factory.mktemp("cbot") / "cbot"
    subprocess.run([cc, "-O2", "-Wall", "-o", str(exe), str(ROOT / "tests" / "bots" / "cbot.c")], check=True)
    return exe


@pytest.fixture(scope="session")
def cbot(cbot_or_none: Path | None) -> Path:
    """The compiled C bot; the test is skipped where there is no C compiler."""
    if cbot_or_none is None:
        pytest.skip("no C compiler on this machine")
    return cbot_or_none
