"""Shared test configuration.

Hypothesis explores new examples on every local run (that is how it finds bugs), but CI (``CI=true``) runs a fixed,
derandomized set so that a landing never depends on luck; database writes are off there (a fresh clone each time).

The suite runs under pytest-xdist on few cores, where its wall time is set by the longest tests: the tests marked
``slow`` are collected first, so that the workers start them at once and the many short tests fill in around them
(run last, one long test would keep a worker busy alone while the other idles).  A module-scoped fixture (real
matches played, a browser launched, a Dask cluster started) is built once per worker that runs a test using it, so
the tests that use one run on one worker, as one unit of xdist's work, handed out first (``FixtureGroups``).
Fixtures shared by several test folders live here too.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import toolchains
from hypothesis import HealthCheck, settings

from bench.anchor import compiled

ROOT = Path(__file__).resolve().parents[1]

# No test may fail for being slow (speed is measured by bench/, never asserted): hypothesis's per-example deadline
# and its "too slow" health check are timings, and they trip on a loaded machine or under pytest-xdist.
_untimed: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", **_untimed)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **_untimed)
settings.load_profile("ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # once per run: in xdist's controller, before the workers start
        compile_sources()


def compile_sources() -> None:
    """Write the bytecode of mjref's own packages (``__pycache__``, git-ignored), where it is missing or stale.

    The suite starts about a thousand Python processes (bots, most of them boxed by bubblewrap, which sees these
    folders read-only; ``mjref`` commands; tournament pool workers).  Where bytecode writing is off
    (``PYTHONDONTWRITEBYTECODE``, as in a fresh clone on this project's CI machine) each of them would compile every
    module it imports from source again (``bench.anchor.compiled`` says what that costs).  Compiled once here
    instead (about a second; nothing when they are up to date)."""
    compiled(ROOT)


def _module_fixture_group(item: pytest.Item) -> str | None:
    """The module's path if the test uses a fixture of module scope (see the top), else None."""
    info = getattr(item, "_fixtureinfo", None)
    if info is not None and any(defs[-1].scope == "module" for defs in info.name2fixturedefs.values()):
        return item.nodeid.split("::", 1)[0]
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slow tests and those of a module-fixture group first, each in its collected order (a stable sort: every
    xdist worker collects the same order, as it must).  An xdist worker also writes the groups down for the
    controller's scheduler."""
    groups = {item.nodeid: group for item in items if (group := _module_fixture_group(item)) is not None}
    items.sort(key=lambda item: item.get_closest_marker("slow") is None and item.nodeid not in groups)
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and GROUPS_FILE in workerinput:
        path = Path(workerinput[GROUPS_FILE])
        path.with_suffix(f".{workerinput['workerid']}").write_text(json.dumps(groups))


GROUPS_FILE = "mjref_fixture_groups"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: two workers per CPU this process may use (unless ``PYTEST_XDIST_AUTO_NUM_WORKERS`` says).  A third
    of the suite's test time is spent waiting (on bot processes, sockets, timeouts, a browser), during which a second
    worker per CPU keeps it busy: 198-207 s against 241 s with one per CPU, on two."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return 2 * len(os.sched_getaffinity(0))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller, per worker: where the worker writes its tests' module-fixture groups."""
    node.workerinput[GROUPS_FILE] = str(_groups_path(node.config))


def pytest_unconfigure(config: pytest.Config) -> None:
    path = getattr(config, "_mjref_groups", None)
    if path is not None:
        shutil.rmtree(path.parent, ignore_errors=True)


def _groups_path(config: pytest.Config) -> Path:
    path = getattr(config, "_mjref_groups", None)
    if path is None:
        path = Path(tempfile.mkdtemp(prefix="mjref-groups-")) / "groups"
        config._mjref_groups = path  # type: ignore[attr-defined]
    return path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n`` with xdist's default schedule (``load``): ``FixtureGroups`` instead.  (xdist's own ``loadgroup``
    names a test's group in its node id, which pytest 9.2 no longer lets a plugin change.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FixtureGroups(LoadScopeScheduling):  # type: ignore[misc]
        """Each test a unit of work of its own, except the tests of one module that use a module-scoped fixture:
        one unit, so that the fixture is built on one worker only.  Units go out in collection order, and a worker
        is given the next when it has two tests or fewer left: the slow tests spread over the workers as they come
        free (xdist's ``load`` would first hand each worker a share of the collection in one piece)."""

        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                self.groups = {}
                path = _groups_path(self.config)
                for part in sorted(path.parent.glob(path.name + ".*"))[:1]:  # every worker collects the same
                    self.groups = json.loads(part.read_text())
            return self.groups.get(nodeid, nodeid)

    config.option.loadscopereorder = False
    return FixtureGroups(config, log)


@pytest.fixture(scope="session")
def cbot_or_none(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """tests/bots/icgabot.c compiled once per test process (None without a C compiler): a bot as the ICGA framework's
    C bots are written, which also starts in about a millisecond where a Python bot takes a few hundred."""
    cc = toolchains.find("cc", "gcc")
    if cc is None:
        return None
    # In a folder open to all: mode none as root runs it as an unprivileged uid (pytest's own folders are 0700).
    folder = Path(tempfile.mkdtemp(prefix="mjref-cbot-"))
    os.chmod(folder, 0o755)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    exe = folder / "cbot"
    subprocess.run([cc, "-O2", "-Wall", "-o", str(exe), str(ROOT / "tests" / "bots" / "icgabot.c")], check=True)
    return exe


@pytest.fixture(scope="session")
def cbot(cbot_or_none: Path | None) -> Path:
    """The compiled C bot; the test is skipped where there is no C compiler."""
    if cbot_or_none is None:
        pytest.skip("no C compiler on this machine")
    return cbot_or_none


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A bot folder every user may read, with the test bots ``notes.py`` and ``stamps.py`` (as root, a closed one
    is copied for the seat's uid: such a bot's box is never kept, and it has one box a match)."""
    folder = Path(tempfile.mkdtemp(prefix="mjref-open-", dir="/tmp"))
    folder.chmod(0o755)
    for name in ("notes.py", "stamps.py"):
        shutil.copy(ROOT / "tests" / "bots" / name, folder / name)
        (folder / name).chmod(0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
