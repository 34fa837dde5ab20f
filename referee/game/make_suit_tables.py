"""Write ``referee/game/suit_tables.bin``, the shipped suit tables of the hand analysis, from scratch:
``python -m referee.game.make_suit_tables``.  Run it after any change to how ``analysis`` builds a suit's table;
``tests/game/test_analysis.py`` fails while the file differs from what this writes."""

from __future__ import annotations

import zlib
from pathlib import Path

from .analysis import SUIT_TABLES_FILE, build_suit_tables


def main() -> None:
    path = Path(__file__).with_name(SUIT_TABLES_FILE)
    path.write_bytes(zlib.compress(build_suit_tables(), 9))
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
