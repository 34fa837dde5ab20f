"""Benchmark of a built-in bot's process start: from exec to its first answer, printed as ONE JSON line.

With the framework's per-hand lifecycle a process bot is started for every hand, 64 times a match, so its start
is paid over and over.  This runs ``python -m bots.NAME`` (the repository on ``PYTHONPATH``, as the referee starts
it) and times from just before the exec to the moment its answer to the
first ``/ask throw`` is read: the start of Python, every import, the folding of ``/initCard`` and the first
decision (greedy's first ``shanten`` calls included).  Beside it, in the same run and interleaved with it, the
anchor: ``python -c pass`` from exec to exit, which no bot can beat.  Each figure is the median of ``--runs``
starts (minimum and maximum given too): on a shared machine single starts are noisy.

The interpreter: by default a bare virtual environment made for the run from the one running this script (no
packages, so no ``.pth`` file runs at start).  A development install (``pip install -e``) puts setuptools' editable
finder in a ``.pth`` file, and every start of that environment's Python, ``python -c pass`` included, imports
``pathlib``, ``re``, ``urllib.parse`` and more for it (some 20 ms here): the anchor then carries imports the bots
get for free, and the ratio flatters them.  A regular install (``pip install .``) has no such finder, as the bare
environment.  ``--python PATH`` times another interpreter instead (``--python "$(which python)"``: this one).

``--anchor REV`` also times the same bots as they were at git revision ``REV`` (exported with ``git archive`` into a
temporary directory), interleaved with ours, and gives the ratio of the medians.

``--imports`` adds the ten slowest imports of the bot's start (``python -X importtime``, cumulative µs).
Run from the repository root: ``python bench/start.py [--bots greedy,drawdiscard,random] [--runs 20]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.anchor import exported_tree  # noqa: E402
from bench.machine import machine  # noqa: E402

# A hand's opening as seat 1 (the dealer) sees it, up to its first question: 16 dealt tiles, a draw, /ask throw.
OPENING = "\n".join(
    [
        "/start MJ 1 bench",
        "/initGame EAST EAST 1 1 0",
        "/initCard 111 121 131 141 151 161 171 181 191 211 221 231 311 321 331 411",
        "/mo 412",
        "/ask throw",
        "",
    ]
)


PYTHON = sys.executable  # the interpreter that starts the bots and ``-c pass`` (set by main: see the docstring)


def bare_python(into: Path) -> str:
    """The interpreter of a new virtual environment under ``into`` with no packages (the one running this script's
    Python, no pip): a start with no ``.pth`` file to run."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(into)
    return str(into / "bin" / "python")


def _env(tree: Path = REPO) -> dict[str, str]:
    """The bots' environment: ours, the tree on ``PYTHONPATH``, and bytecode caches allowed.  An installed package
    has its ``.pyc`` files; with ``PYTHONDONTWRITEBYTECODE`` set (some shells and CI set it) every start would
    compile every module from source, which measures the compiler, not the start."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_first_answer(bot: str, tree: Path = REPO) -> float:
    """Seconds from exec of ``python -m bots.BOT`` (from ``tree``) to reading its answer to the first ``/ask throw``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [PYTHON, "-m", f"bots.{bot}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tree,
        env=_env(tree),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(OPENING)
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait()
    if not line.startswith("/throw"):
        raise SystemExit(f"bench/start.py: bots.{bot} answered {line!r} to /ask throw, not /throw")
    return elapsed


def time_pass() -> float:
    """Seconds from exec of ``python -c pass`` to its exit: the floor of any Python process."""
    start = time.perf_counter()
    subprocess.run([PYTHON, "-c", "pass"], check=True, cwd=REPO, env=_env())
    return time.perf_counter() - start


def slowest_imports(bot: str, n: int = 10) -> list[dict[str, Any]]:
    """The ``n`` imports with the largest cumulative time in one start of the bot (``-X importtime``)."""
    proc = subprocess.run(
        [PYTHON, "-X", "importtime", "-m", f"bots.{bot}"],
        input=OPENING,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=_env(),
        check=False,
    )
    rows: list[tuple[int, str]] = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, module = line[len("import time:") :].split("|")
            if cumulative.strip().isdigit():
                rows.append((int(cumulative), module.strip()))
    rows.sort(reverse=True)
    return [{"module": module, "cumulative_us": us} for us, module in rows[:n]]


def _children_cpu() -> float:
    """CPU seconds (user and system) of every child process waited for so far: a start's CPU is the difference
    around it, which a loaded machine inflates far less than the wall clock."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


Times = dict[str, list[float]]  # what was timed ("python -c pass", a bot, "anchor BOT") -> seconds of each run


def interleaved(bots: list[str], runs: int, anchor: Path | None) -> tuple[Times, Times]:
    """``runs`` rounds of: ``python -c pass``, each bot, and each bot of the ``anchor`` tree (if any): the wall clock
    and the CPU time of each."""
    times: Times = {"python -c pass": [], **{b: [] for b in bots}}
    if anchor is not None:
        times.update({f"anchor {b}": [] for b in bots})
    cpu: Times = {key: [] for key in times}

    def timed(key: str, run: Callable[[], float]) -> None:
        before = _children_cpu()
        times[key].append(run())
        cpu[key].append(_children_cpu() - before)

    time_pass()  # one start to warm the page cache
    for b in bots:  # and one of each bot, which also writes its bytecode caches (see _env)
        time_first_answer(b)
        if anchor is not None:
            time_first_answer(b, anchor)
    for _ in range(runs):  # interleaved, so that a noisy neighbour hits all of them alike
        timed("python -c pass", time_pass)
        for b in bots:
            timed(b, partial(time_first_answer, b))
            if anchor is not None:
                timed(f"anchor {b}", partial(time_first_answer, b, anchor))
    return times, cpu


def summary(seconds: list[float], cpu: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {"median_ms": round(statistics.median(ms), 1), "min_ms": round(min(ms), 1), "max_ms": round(max(ms), 1),
            "cpu_median_ms": round(statistics.median(cpu) * 1000, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="greedy,drawdiscard,random", help="comma-separated built-in bots")
    parser.add_argument("--runs", type=int, default=20, help="starts of each (default 20)")
    parser.add_argument("--imports", action="store_true", help="add each bot's ten slowest imports")
    parser.add_argument("--anchor", metavar="REV", help="also time the bots of git revision REV, interleaved")
    parser.add_argument("--python", metavar="PATH",
                        help="the interpreter to start (default: a bare virtual environment made for the run)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    from bots.base import BUILTIN_NAMES  # the registry only: cheap, and it names what is known

    unknown = [b for b in bots if b not in BUILTIN_NAMES]
    if unknown or not bots:
        known = ', '.join(sorted(BUILTIN_NAMES))
        parser.error(f"--bots: unknown bot {unknown[0] if unknown else ''!r} (known: {known})")
    global PYTHON
    with contextlib.ExitStack() as stack:
        PYTHON = args.python or bare_python(Path(stack.enter_context(tempfile.TemporaryDirectory())) / "venv")
        anchor = stack.enter_context(exported_tree(args.anchor, "bench/start.py")) if args.anchor else None
        times, cpu = interleaved(bots, args.runs, anchor)
        imports = {b: slowest_imports(b) for b in bots} if args.imports else None
    floor = statistics.median(times["python -c pass"])
    result: dict[str, Any] = {
        "bench": "start",
        "runs": args.runs,
        "python_c_pass": summary(times["python -c pass"], cpu["python -c pass"]),
        "bots": {
            b: {
                **summary(times[b], cpu[b]),
                "above_python_ms": round((statistics.median(times[b]) - floor) * 1000, 1),
                "times_python": round(statistics.median(times[b]) / floor, 2),
            }
            for b in bots
        },
        "interpreter": "bare venv" if args.python is None else args.python,
        "python": platform.python_version(),
        "machine": machine(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }
    if anchor is not None:
        result["anchor"] = args.anchor
        result["anchor_bots"] = {
            b: {
                **summary(times[f"anchor {b}"], cpu[f"anchor {b}"]),
                "times_python": round(statistics.median(times[f"anchor {b}"]) / floor, 2),
                "ours_over_anchor": round(statistics.median(times[b]) / statistics.median(times[f"anchor {b}"]), 2),
                "ours_over_anchor_cpu": round(statistics.median(cpu[b]) / statistics.median(cpu[f"anchor {b}"]), 2),
            }
            for b in bots
        }
    if imports is not None:
        result["slowest_imports"] = imports
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
