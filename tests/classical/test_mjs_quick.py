"""The history reader's quick path (passes, draws and discards as mj-server writes them, most of a history) reads
what the careful path reads, and leaves to it everything else, so that a damaged line still gets its one-line
reason."""

from __future__ import annotations

import random
from pathlib import Path

from referee.errors import InputError
from referee.game.classical.history import _quick, parse_message, unescape

DATA = Path(__file__).resolve().parents[1] / "data" / "mjserver"
KINDS = ("PlayerDoesntClaim", "PlayerDraws", "PlayerDiscards")


def _careful(kind: str, rest: str) -> object:
    try:
        return parse_message(kind, rest, 7, "h.mjs:7")
    except InputError:
        return None


def test_the_quick_path_reads_what_the_careful_path_reads() -> None:
    lines = [line for p in sorted(DATA.glob("*.mjs")) for line in p.read_bytes().decode().split("\r\n")]
    quick = [line.partition(" ") for line in lines if line.partition(" ")[0] in KINDS]
    assert len(quick) > 500
    for kind, _, rest in quick:
        assert _quick(kind, rest, 7) == _careful(kind, rest) is not None, (kind, rest)
    rng = random.Random(5)
    words = ["0", "1", "2", "01", "-1", "-0", "17", "999999999", "1000000000", "4294967296", "\u00b2", "\u0661", "",
             "1C", "9D", "RD", "1F", "--", "XX", "1c", " ", "1 ", "Lower"]
    for _ in range(20000):
        kind, _, rest = rng.choice(quick)
        fields = rest.split(" ")
        for _ in range(rng.randint(1, 2)):
            op = rng.randrange(3)
            if op == 0:
                fields[rng.randrange(len(fields))] = rng.choice(words)
            elif op == 1:
                fields.insert(rng.randrange(len(fields) + 1), rng.choice(words))
            elif len(fields) > 1:
                del fields[rng.randrange(len(fields))]
        rest = " ".join(fields)
        got = _quick(kind, rest, 7)
        assert got is None or got == _careful(kind, rest), (kind, rest)


def test_unescape_takes_each_backslash_with_the_character_after_it() -> None:
    assert unescape("a\\\\b\\\nc\\ d") == "a\\b\nc d"
    assert unescape("end\\") == "end" and unescape("plain") == "plain" and unescape("\\\\\\") == "\\"
