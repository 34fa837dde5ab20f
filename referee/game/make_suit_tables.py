"""Write the shipped suit tables of the hand analysis from scratch: ``referee/game/suit_tables.bin`` (every suit
without copies seen) and ``referee/game/seen_tables.bin`` (the common suits beside the copies of one or two melds):
``python -m referee.game.make_suit_tables``.  Run it after any change to how ``analysis`` builds a suit's table;
``tests/game/test_analysis.py`` fails while either file differs from what this writes."""

from __future__ import annotations

import time
import zlib
from pathlib import Path

from .analysis import SEEN_TABLES_FILE, SUIT_TABLES_FILE, build_seen_tables, build_suit_tables


def main() -> None:
    for name, build, pack in ((SUIT_TABLES_FILE, build_suit_tables, lambda raw: zlib.compress(raw, 9)),
                              (SEEN_TABLES_FILE, build_seen_tables, lambda raw: raw)):
        started = time.process_time()
        path = Path(__file__).with_name(name)
        path.write_bytes(pack(build()))
        print(f"wrote {path} ({path.stat().st_size} bytes, {time.process_time() - started:.1f} s)")


if __name__ == "__main__":
    main()
