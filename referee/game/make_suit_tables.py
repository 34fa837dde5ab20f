"""Write the shipped suit tables of the hand analysis from scratch: ``referee/game/suit_tables.bin`` (every suit
without copies seen) and ``referee/game/seen_tables.bin`` (the common suits beside the copies of one or two melds):
``python -m referee.game.make_suit_tables``.  Run it after any change to how ``analysis`` builds a suit's table;
``tests/game/test_analysis.py`` fails while either file differs from what this writes (``seen_tables.bin`` in the
eighth of its patterns the test builds).  ``--check`` writes nothing: it compares both files whole with what it would
write, says which differs and where, and exits 1 if one does."""

from __future__ import annotations

import sys
import time
import zlib
from pathlib import Path

from .analysis import SEEN_TABLES_FILE, SUIT_TABLES_FILE, build_seen_tables, build_suit_tables, check_seen_tables


def check() -> int:
    """Both shipped files against what ``main`` would write: 0 if both are, 1 (and where) if one is not."""
    suit = Path(__file__).with_name(SUIT_TABLES_FILE)
    seen = Path(__file__).with_name(SEEN_TABLES_FILE)
    problems = []
    if zlib.decompress(suit.read_bytes()) != build_suit_tables():
        problems.append(f"{suit}: not what the builder makes")
    found = check_seen_tables(seen.read_bytes())
    if found is not None:
        problems.append(f"{seen}: {found}")
    for line in problems or [f"{suit} and {seen} are what the builder makes"]:
        print(line)
    return 1 if problems else 0


def main() -> None:
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    if sys.argv[1:]:
        print("usage: python -m referee.game.make_suit_tables [--check]", file=sys.stderr)
        sys.exit(2)
    for name, build, pack in ((SUIT_TABLES_FILE, build_suit_tables, lambda raw: zlib.compress(raw, 9)),
                              (SEEN_TABLES_FILE, build_seen_tables, lambda raw: raw)):
        started = time.process_time()
        path = Path(__file__).with_name(name)
        path.write_bytes(pack(build()))
        print(f"wrote {path} ({path.stat().st_size} bytes, {time.process_time() - started:.1f} s)")


if __name__ == "__main__":
    main()
