"""The box's tests again, run by an ordinary user: CI runs as root, where the box takes another road (bwrap as root,
the keeper switching to the seat's own uid), and organisers run mjref both ways.

As root this test copies what the suite needs into a folder open to all (mjref's packages, its tests, the
installed libraries without the browser's driver) and runs the sandbox's, the box pool's and the xmj client box's
tests there under an unprivileged uid (util-linux ``setpriv``, no capabilities) with the system's Python
(``/usr/bin/python3``, of the same minor version as this one: the libraries' compiled parts must load).  Run by an
ordinary user, the suite itself is that run, and this test has nothing to add.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
USER_UID = 1_899_999_999  # not in the seats' range (wrappers.sandbox.UID_BASE on)
# Installed packages the box's tests do not import, and that are large (the browser's driver alone is 165 MB).
SKIP_PACKAGES = ("playwright", "pip", "setuptools", "dask", "distributed", "cryptography", "pandas", "numpy",
                 "__editable__", "_virtualenv", "mjref")


def _open_tree() -> Path:
    tree = Path(tempfile.mkdtemp(prefix="mjref-as-user-"))
    for part in ("bots", "referee", "wrappers", "tournaments", "tests", "bench"):  # (conftest imports bench.anchor)
        shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    site = Path(sysconfig.get_paths()["purelib"])
    for entry in site.iterdir():
        if entry.name.startswith(SKIP_PACKAGES) or entry.suffix == ".pth":
            continue
        if entry.is_dir():
            shutil.copytree(entry, tree / "_site" / entry.name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (tree / "_site").mkdir(exist_ok=True)
            shutil.copy(entry, tree / "_site" / entry.name)
    # A virtual environment of the system's Python that imports all this (bots started as ``python -m bots.X`` by
    # the suite run with this interpreter, as an installed mjref's are).
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(tree / "venv")], check=True)
    purelib = subprocess.run([str(tree / "venv" / "bin" / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "mjref-as-user.pth").write_text(f"{tree}\n{tree / '_site'}\n")
    for dirpath, _dirs, files in os.walk(tree):
        os.chmod(dirpath, 0o755)
        for f in files:
            path = os.path.join(dirpath, f)
            os.chmod(path, 0o755 if os.access(path, os.X_OK) else 0o644)
    return tree


@pytest.mark.slow
def test_the_box_holds_when_an_ordinary_user_runs_mjref() -> None:
    if os.geteuid() != 0:
        pytest.skip("run by an ordinary user: the rest of the suite is this test")
    python = "/usr/bin/python3"
    version = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                             text=True, check=False).stdout.split()
    if version != [str(sys.version_info[0]), str(sys.version_info[1])]:
        pytest.fail(f"{python} is Python {'.'.join(version) or 'missing'}, this is {sys.version.split()[0]}: "
                    "the libraries' compiled parts would not load (install the same minor version)")
    tree = _open_tree()
    try:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tree), "LANG": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1",
               "CI": "true", "MJREF_REQUIRE_SANDBOX": "1"}
        done = subprocess.run(
            ["setpriv", f"--reuid={USER_UID}", f"--regid={USER_UID}", "--clear-groups", "--inh-caps=-all",
             "--bounding-set=-all", "--", str(tree / "venv" / "bin" / "python"), "-m", "pytest", "-q", "-p",
             "no:cacheprovider", "-n", "0", "tests/wrappers/test_sandbox.py",
             "tests/wrappers/test_sandbox_fallback.py", "tests/wrappers/test_box_pool.py",
             "tests/wrappers/test_prestart.py", "tests/wrappers/test_xmj_box.py"],
            cwd=tree, env=env, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL, check=False)
        tail = (done.stdout + done.stderr)[-4000:]
        assert done.returncode == 0, tail
        assert " passed" in done.stdout and " skipped" not in done.stdout, tail
    finally:
        shutil.rmtree(tree, ignore_errors=True)
