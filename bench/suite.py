"""Benchmark: the test suite's time, the whole of it and like for like with a git revision's suite.

The suite grows with every feature, so its whole time says little about whether the tests themselves got faster.
This benchmark times, with the README's test command (its pytest arguments, run by this Python from the repository
root):

* ``suite``: today's whole suite;
* ``anchor_tests_today``: only the tests that already existed at the anchor revision (``--anchor REV``, default
  ``4cb019a``: the code when the suite's half-time target was set), found by their function names in the anchor's
  ``tests/`` and run as they are today (moved into folders, but not removed);
* with ``--anchor-suite``, the anchor's own suite, run by its own test command in a virtual environment of its own
  (``pip install -e '.[test,browser]'`` of the revision, exported into a temporary folder; needs the package index).

Each run gives its wall time, the CPU of pytest and every process it started and reaped (user + system), and the
number of tests pytest passed.  Prints one JSON line.

``python bench/suite.py [--anchor REV] [--anchor-suite] [--runs N]``
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import resource
import shlex
import subprocess
import sys
import time
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.anchor import commit_of, exported_tree  # noqa: E402
from bench.machine import machine  # noqa: E402

ANCHOR = "4cb019a"
# A test of the anchor that lives on under another name (its verdict changed with ``regress``'s identical verdict).
RENAMED = {"test_greedy_against_itself_is_not_a_regression": "test_greedy_against_itself_is_identical"}


def readme_test_command(tree: Path) -> str:
    """The test command written in ``tree``'s README.md: the first line of the fenced block after the
    ``<!-- test-command -->`` marker (as ``.ci/run`` reads it)."""
    lines = (tree / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("<!-- test-command -->")
    fence = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    return lines[fence + 1]


def pytest_args(command: str) -> list[str]:
    """The arguments after ``-m pytest`` in the last step of a test command."""
    words = shlex.split(command.split("&&")[-1])
    return words[words.index("pytest") + 1:]


def anchor_test_names(rev: str) -> dict[str, set[str]]:
    """The names of the test functions (module level or in a class) in ``tests/`` at revision ``rev``, each with the
    names of the files that define it."""
    listing = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "tests/"], cwd=ROOT, capture_output=True,
                             text=True, check=False)
    if listing.returncode != 0:
        raise SystemExit(f"bench/suite.py: --anchor {rev}: {listing.stderr.strip()}")
    names: dict[str, set[str]] = {}
    for path in listing.stdout.split():
        if not re.fullmatch(r"tests/(.*/)?test_[^/]*\.py", path):
            continue
        src = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True)
        for node in ast.walk(ast.parse(src.stdout)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                names.setdefault(RENAMED.get(node.name, node.name), set()).add(path.rsplit("/", 1)[-1])
    return names


def collect(python: str, cwd: Path) -> list[str]:
    """Today's test node ids (``pytest --collect-only -q``)."""
    out = subprocess.run([python, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"], cwd=cwd,
                         capture_output=True, text=True, check=False)
    ids = [line for line in out.stdout.splitlines() if "::" in line]
    if out.returncode != 0 or not ids:
        raise SystemExit(f"bench/suite.py: collection failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return ids


def functions_named(ids: list[str], names: dict[str, set[str]]) -> list[str]:
    """The test functions (``file::function``, every parameter set of each) named in ``names``: in a file of the same
    name where there is one (a later test of the same name elsewhere is not the anchor's), else wherever it is."""
    where: dict[str, list[str]] = {}
    for node in ids:
        function = node.split("[", 1)[0]
        name = function.rsplit("::", 1)[-1]
        if name in names and function not in where.setdefault(name, []):
            where[name].append(function)
    chosen: list[str] = []
    for name, functions in where.items():
        same_file = [f for f in functions if f.split("::", 1)[0].rsplit("/", 1)[-1] in names[name]]
        chosen += same_file or functions
    return chosen


def timed(argv: list[str], cwd: Path) -> dict[str, Any]:
    """Run ``argv`` to its end: wall seconds, CPU seconds of it and its reaped descendants, tests passed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    tail = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    passed = re.search(r"(\d+) passed", tail)
    if out.returncode != 0:
        raise SystemExit(f"bench/suite.py: {shlex.join(argv[:6])}... failed ({out.returncode}): {tail}\n"
                         f"{out.stdout[-3000:]}{out.stderr[-2000:]}")
    return {"wall_s": round(wall, 1),
            "cpu_s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 1),
            "passed": int(passed.group(1)) if passed else None}


def anchor_suite(rev: str) -> dict[str, Any]:
    """The anchor's own suite by its own test command, in a fresh virtual environment of the exported revision."""
    with exported_tree(rev, "bench/suite.py") as tree:
        venv.create(tree / ".venv", with_pip=True)
        python = str(tree / ".venv" / "bin" / "python")
        subprocess.run([python, "-m", "pip", "install", "-q", "-e", ".[test,browser]"], cwd=tree, check=True)
        command = readme_test_command(tree)
        run = timed([python, "-m", "pytest", *pytest_args(command)], tree)
        return {"command": command, **run}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor", default=ANCHOR, help="the revision whose tests are timed like for like")
    parser.add_argument("--anchor-suite", action="store_true",
                        help="also run the anchor's own suite in a virtual environment of its own (slow; needs pip)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each of today's two measures (default 1)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")

    command = readme_test_command(ROOT)
    base = [sys.executable, "-m", "pytest", *pytest_args(command)]
    ids = collect(sys.executable, ROOT)
    names = anchor_test_names(args.anchor)
    chosen = functions_named(ids, names)
    found = {f.rsplit("::", 1)[-1] for f in chosen}
    subset_ids = [node for node in ids if node.split("[", 1)[0] in set(chosen)]
    result: dict[str, Any] = {
        "machine": machine(), "python": sys.version.split()[0], "command": command,
        "anchor": commit_of(args.anchor),
        "tests_today": len(ids), "anchor_test_functions": len(names),
        "anchor_functions_found_today": len(found), "anchor_functions_missing": sorted(set(names) - found),
        "anchor_tests_today_count": len(subset_ids),
        "suite": [], "anchor_tests_today": [],
    }
    for _ in range(args.runs):
        result["suite"].append(timed(base, ROOT))
        result["anchor_tests_today"].append(timed([*base, *chosen], ROOT))
    if args.anchor_suite:
        result["anchor_suite"] = anchor_suite(args.anchor)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
