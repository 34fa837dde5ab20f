"""A module of mjref as it was at a git revision, loaded beside ours: the anchor a benchmark times ours against in
the same run (``--anchor REV`` of ``bench/analysis.py`` and ``bench/replay.py``); or the whole repository at a
revision, exported into a temporary folder (``--anchor REV`` of ``bench/match.py``)."""

from __future__ import annotations

import compileall
import contextlib
import functools
import importlib.util
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("bots", "referee", "tournaments", "wrappers")  # the packages of a tree that Python imports


# Modules an older revision's file imports from paths that have since moved: such a file runs against ours, so
# each old path is given what it held (Taiwan's rules and scoring moved into referee/game/taiwan16/, the match's
# options and fault penalties into referee/game/match_options.py).
_MOVED = {"referee.game.rules": ("referee.game.taiwan16.rules", "referee.game.match_options"),
          "referee.game.scoring": ("referee.game.taiwan16.scoring", "referee.game.match_options")}


def _old_paths() -> None:
    for old, news in _MOVED.items():
        if old in sys.modules:
            continue
        module = ModuleType(old)
        for new in reversed(news):  # the first named wins a name both hold
            module.__dict__.update({k: v for k, v in vars(importlib.import_module(new)).items()
                                    if not k.startswith("__")})
        sys.modules[old] = module


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
    _old_paths()
    exec(compile(src.stdout, f"{rev}:{path}", "exec"), module.__dict__)  # noqa: S102
    return module


@contextlib.contextmanager
def exported_tree(rev: str, bench: str) -> Iterator[Path]:
    """The whole repository as it was at revision ``rev``, exported (``git archive``) into a temporary folder that
    is removed afterwards: for a benchmark that runs a whole referee of that revision (``--anchor REV`` of
    ``bench/match.py``) in processes of its own with the folder first on their path.  A revision git does not know
    ends ``bench`` with its reason."""
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"{bench}: --anchor {rev}: {archive.stderr.decode().strip()}")
    with tempfile.TemporaryDirectory(prefix="mjref-anchor-") as tmp:
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        yield Path(tmp)


@functools.cache
def compiled(tree: Path) -> None:
    """Write the bytecode of ``tree``'s packages, once a bench: an installed mjref has its ``.pyc`` files (pip writes
    them), and so must every side of a comparison.  Where bytecode writing is off (``PYTHONDONTWRITEBYTECODE``, set
    on this project's machines) a tree without them compiles every module it imports at every start: about 0.2 s of
    CPU per ``mjref`` command and some 0.06 s per bot, paid by an exported anchor tree and not by a working tree whose
    tests wrote them."""
    for package in PACKAGES:
        if (tree / package).is_dir():
            compileall.compile_dir(tree / package, quiet=2)


def commit_of(rev: str) -> str:
    """The commit ``rev`` names (its short hash), or ``rev`` itself when git cannot say."""
    out = subprocess.run(["git", "rev-parse", "--short", f"{rev}^{{commit}}"], cwd=REPO, capture_output=True,
                         text=True, check=False)
    return out.stdout.strip() if out.returncode == 0 else rev
