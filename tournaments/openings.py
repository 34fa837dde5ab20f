"""Openings: the deals of a tournament read from wall files (``wallfile = "openings.walls"`` or a folder of them;
``mjref tournament … --wallfile PATH``), instead of walls drawn from each seed.

A wall file is what ``mjref match --wallfile`` reads: one wall per line (the TIDs in draw order), ``#`` comments and
blank lines skipped.  The order, documented in docs/tournaments.md:

* **a file**: its walls in order, taken ``hands`` at a time: opening 1 is walls 1..H, opening 2 walls H+1..2H, and
  so on (walls left over at the end, fewer than H, are not used);
* **a folder**: each regular file in it, in the order of their names (by code point, as ``sorted`` gives; names
  starting with ``.`` are skipped), is one opening: its first H walls (a file with fewer is refused).

The k-th seed of the tournament (in its ``seeds`` order) plays the k-th opening, in every seating with
``duplicate``: so a wall file gives every bot the same deals in every seat.  Without ``seeds`` in the file (or
``--seeds``), the tournament has one seed per opening; with it, there must be at least that many openings.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from referee.errors import InputError
from referee.game.taiwan16.rules import Ruleset
from referee.game.wall import WallError, parse_wallfile
from referee.userfiles import read_text

Opening = tuple[tuple[int, ...], ...]  # the tiles of each hand's wall, in draw order


class OpeningsError(InputError):
    """Wall files that cannot be a tournament's openings; the message names the file."""


def load_openings(path: Path, rules: Ruleset, hands: int, where: str, written: str | None = None) -> list[Opening]:
    """The openings in ``path`` (a wall file or a folder of them), each of ``hands`` walls, in the documented order;
    every wall checked against ``rules`` (a wall of the tiles with flowers for a ruleset with them).  ``written``:
    the path as the file or command line wrote it, for messages."""
    shown = f"{where}: wallfile {written or path}"
    if os.path.isdir(path):  # (os.path's: a name too long for the system is no folder, not an OSError)
        files = sorted(p for p in path.iterdir() if not p.name.startswith(".") and p.is_file())
        if not files:
            raise OpeningsError(f"{shown}: the folder holds no wall file")
        openings = []
        for file in files:
            walls = _walls(file, rules)
            if len(walls) < hands:
                raise OpeningsError(f"{where}: wallfile {file}: {len(walls)} wall{'s' if len(walls) != 1 else ''}, "
                                    f"fewer than the {hands} hands of a match")
            openings.append(tuple(walls[:hands]))
        return openings
    walls = _walls(path, rules)
    if len(walls) < hands:
        raise OpeningsError(f"{shown}: {len(walls)} wall{'s' if len(walls) != 1 else ''}, fewer than the {hands} "
                            "hands of one match")
    return [tuple(walls[i:i + hands]) for i in range(0, len(walls) - hands + 1, hands)]


def _walls(path: Path, rules: Ruleset) -> list[tuple[int, ...]]:
    try:
        return [w.tiles for w in parse_wallfile(read_text(path, WallError), rules, str(path))]
    except WallError as exc:
        raise OpeningsError(str(exc)) from None


def openings_digest(openings: list[Opening]) -> str:
    """SHA-256 of the walls played: what a resumed tournament checks (another file with the same walls is the same
    tournament; the same file edited is not)."""
    h = hashlib.sha256()
    for opening in openings:
        for wall in opening:
            h.update(b",".join(str(t).encode() for t in wall) + b"\n")
        h.update(b"\n")
    return h.hexdigest()


def seed_openings(seeds: list[int], openings: list[Opening], where: str) -> dict[int, Opening]:
    """The opening each seed plays: the k-th seed the k-th opening."""
    if len(openings) < len(seeds):
        raise OpeningsError(f"{where}: {len(seeds)} seeds but only {len(openings)} opening"
                            f"{'s' if len(openings) != 1 else ''} in the wallfile (give fewer seeds, or leave seeds "
                            "out: one seed per opening)")
    return {seed: openings[k] for k, seed in enumerate(seeds)}


__all__ = ["Opening", "OpeningsError", "load_openings", "openings_digest", "seed_openings"]
