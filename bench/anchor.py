"""A module of mjref as it was at a git revision, loaded beside ours: the anchor a benchmark times ours against in
the same run (``--anchor REV`` of ``bench/analysis.py`` and ``bench/replay.py``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent


def anchor_module(rev: str, path: str, bench: str) -> ModuleType:
    """The file ``path`` (e.g. ``referee/replay.py``) at revision ``rev``, as a module of its package named
    ``_anchor_<name>``: its imports, and the files it reads beside itself, are ours.  A revision git does not know
    ends ``bench`` with its reason."""
    src = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=REPO, capture_output=True, text=True, check=False)
    if src.returncode != 0:
        raise SystemExit(f"{bench}: --anchor {rev}: {src.stderr.strip()}")
    package, _, name = path.removesuffix(".py").replace("/", ".").rpartition(".")
    spec = importlib.util.spec_from_loader(f"{package}._anchor_{name}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package
    module.__file__ = str(REPO / path)  # what it reads beside itself (analysis.py's shipped tables) is ours
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(src.stdout, f"{rev}:{path}", "exec"), module.__dict__)  # noqa: S102
    return module
