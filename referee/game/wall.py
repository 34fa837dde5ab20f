"""The wall: a pure, documented, version-stable function of (seed, hand index, ruleset).

Logs written today must replay next year, so the shuffle depends on nothing that Python may change (``random``'s
algorithms are not promised across versions).  The recipe, version ``WALL_VERSION``:

1. ``key = SHA-256("mjref-wall/1|<seed>|<hand>|<flowers 0 or 1>")`` (seed and hand in decimal).
2. The generator is SplitMix64 started from the first 8 bytes of ``key`` read big-endian.
3. Start from the sorted tile list (136 TIDs ascending, then the 8 flowers ascending when flowers are on) and
   shuffle it with Fisher–Yates from the last position down: for ``i`` from ``n-1`` to ``1``, ``j = next() % (i+1)``
   (next() is the next 64-bit output), swap positions ``i`` and ``j``.
4. Then three dice, each ``1 + next() % 6``; ``open`` is the seat counted ``sum - 1`` places on from the dealer.

The wall is a list: live draws come from the front (index 0 onwards), gong and flower replacements from the back.
The deal takes 4 tiles at a time, from the front, for each seat in turn order from the dealer, four times (16 each),
then the dealer takes one more (17).

A wall file gives walls explicitly: one line per hand of blank-separated TIDs, in draw order (front first).
Blank lines and lines starting with ``#`` are ignored.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from referee.errors import InputError

from .types import TYPE_CHECKING

if TYPE_CHECKING:  # the wall needs only ``rules.flowers``; bots import this module and start faster without pydantic
    from .taiwan16.rules import Ruleset
from .tiles import ALL_TIDS, ALL_TIDS_WITH_FLOWERS, FLOWER_TIDS, TileError, parse_tids
from .types import Record

try:  # CPython's own SHA-256: hashlib's would load OpenSSL (``_hashlib``), a large part of a bot process's start
    from _sha256 import sha256  # Python <= 3.11
except ImportError:  # pragma: no cover  (the digests are the same whichever module computes them)
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,no-redef]  # Python >= 3.12
    except ImportError:
        from hashlib import sha256  # type: ignore[assignment]

WALL_VERSION = 1
_MASK = (1 << 64) - 1


MAX_SEED = (1 << 64) - 1
"""Seeds are 64-bit unsigned integers (``mjref match`` draws one from the system's random source)."""


def check_seed(seed: object, what: str = "seed") -> int:
    """``seed`` if it is a whole number from 0 to :data:`MAX_SEED`, else :class:`InputError` naming ``what``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InputError(f"{what} must be a whole number from 0 to 2**64 - 1 ({MAX_SEED}), not {seed!r}")
    return seed


class WallError(InputError):
    """A wall that is not a full, valid set of tiles; the message names the line and the problem."""


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea and Flood 2014): tiny, fast, fully specified."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)


class Wall(Record):
    """The tiles of one hand in draw order, and the informational ``dice`` that choose ``open``."""

    __slots__ = ("tiles", "dice")
    __match_args__ = FIELDS = ("tiles", "dice")
    tiles: tuple[int, ...]
    dice: tuple[int, int, int]

    def __init__(self, tiles: tuple[int, ...], dice: tuple[int, int, int] = (1, 1, 1)) -> None:
        object.__setattr__(self, "tiles", tiles)
        object.__setattr__(self, "dice", dice)

    def open_seat(self, dealer: int) -> int:
        return (dealer - 1 + sum(self.dice) - 1) % 4 + 1


def hand_rng(seed: int, hand: int, salt: str) -> SplitMix64:
    """A generator for anything else that must be derived from (seed, hand), e.g. a built-in bot's choices."""
    digest = sha256(f"mjref-{salt}/1|{seed}|{hand}".encode()).digest()
    return SplitMix64(int.from_bytes(digest[:8], "big"))


def salted_seed(salt: str, seed: int) -> int:
    """The wall seed of a tournament's ``seed`` under its store's secret ``salt``: the seeds a tournament file
    lists (1, 2, 3…) must not let a bot look its wall up from its ``/initCard``."""
    digest = sha256(f"mjref-salt/1|{salt}|{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def bot_seed(match_seed: int, position: int) -> int:
    """The seed a bot at ``position`` is given for its own randomness: derived one way (SHA-256) from the match
    seed, so that no bot, built-in or process, can rebuild the wall from what it is given."""
    digest = sha256(f"mjref-bot-seed/1|{match_seed}|{position}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def generate_wall(seed: int, hand: int, rules: Ruleset) -> Wall:
    """The wall of hand ``hand`` (0-based) of a match with seed ``seed``."""
    digest = sha256(f"mjref-wall/1|{seed}|{hand}|{1 if rules.flowers else 0}".encode()).digest()
    tiles = list(ALL_TIDS_WITH_FLOWERS if rules.flowers else ALL_TIDS)
    n = len(tiles)
    outputs = _splitmix_outputs(int.from_bytes(digest[:8], "big"), n + 2)
    for i, z in zip(range(n - 1, 0, -1), outputs):  # Fisher-Yates from the last position down
        j = z % (i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    dice = (1 + outputs[n - 1] % 6, 1 + outputs[n] % 6, 1 + outputs[n + 1] % 6)
    return Wall(tuple(tiles), dice)


# A wall is drawn for every hand of every match, and SplitMix64 one number at a time (a dozen operations on
# 64-bit Python integers for each of its ~140 numbers) was most of that cost.  The numbers do not depend on each
# other: the k-th state is simply ``seed + k * GAMMA`` modulo 2**64.  So all of them are computed at once, in
# "lanes" of one big integer, 128 bits per number: a number fits in the low 64 bits of its lane and a product
# by a 64-bit constant in all 128, so no lane spills into the next; each step is masked back to 64 bits per
# lane, as ``& _MASK`` does for one number.  The same numbers as ``SplitMix64.next``, in a tenth of the Python
# operations; a test checks them against it.
_GAMMA = 0x9E3779B97F4A7C15
_LANE = 128
_LANES: dict[int, tuple[int, int, int]] = {}  # count -> (1 in every lane, k * GAMMA in lane k-1, _MASK in every lane)


def _splitmix_outputs(seed: int, count: int) -> list[int]:
    """The first ``count`` outputs of ``SplitMix64(seed).next()``, computed in lanes (see above)."""
    consts = _LANES.get(count)
    if consts is None:
        consts = _LANES[count] = (
            sum(1 << (_LANE * k) for k in range(count)),
            sum(((k + 1) * _GAMMA) << (_LANE * k) for k in range(count)),
            sum(_MASK << (_LANE * k) for k in range(count)),
        )
    ones, steps, masks = consts
    z = ((seed & _MASK) * ones + steps) & masks  # lane k: the state after k + 1 steps (seed + (k+1)*GAMMA < 2**72)
    z = ((z ^ (z >> 30)) & masks) * 0xBF58476D1CE4E5B9 & masks
    z = ((z ^ (z >> 27)) & masks) * 0x94D049BB133111EB & masks
    z = (z ^ (z >> 31)) & masks
    # each lane is two 64-bit words, little-endian: the low word (first) is the number, the high one is zero.  The
    # cast reads machine order, so on a big-endian machine the bytes go the other way round (and the lanes with them)
    if sys.byteorder == "little":
        return memoryview(z.to_bytes(count * _LANE // 8, "little")).cast("Q").tolist()[::2]
    return memoryview(z.to_bytes(count * _LANE // 8, "big")).cast("Q").tolist()[::-2]  # pragma: no cover


def check_wall(tiles: Sequence[int], rules: Ruleset, where: str = "wall") -> None:
    """A wall must hold every tile of the set exactly once."""
    expected = set(ALL_TIDS_WITH_FLOWERS if rules.flowers else ALL_TIDS)
    seen: set[int] = set()
    for t in tiles:
        if t in seen:
            raise WallError(f"{where}: tile {t} appears twice")
        if t not in expected:
            if t in FLOWER_TIDS:
                raise WallError(f"{where}: tile {t} is a flower, and flowers are off")
            raise WallError(f"{where}: {t} is not a tile ID")
        seen.add(t)
    missing = sorted(expected - seen)
    if missing:
        raise WallError(
            f"{where}: {len(tiles)} tiles, expected {len(expected)}; missing {' '.join(map(str, missing[:8]))}"
            + (" …" if len(missing) > 8 else "")
        )


def parse_wallfile(text: str, rules: Ruleset, source: str = "wallfile") -> list[Wall]:
    """Parse a wall file (one hand per line); errors name the file and line."""
    walls: list[Wall] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"{source}:{number}"
        try:
            tiles = parse_tids(stripped)
        except TileError as exc:
            raise WallError(f"{where}: {exc}") from None
        check_wall(tiles, rules, where)
        walls.append(Wall(tuple(tiles)))
    if not walls:
        raise WallError(f"{source}: no walls (expected one line of TIDs per hand)")
    return walls


def deal_blocks(size: int) -> list[int]:
    """How a deal of ``size`` tiles a seat goes round the table: blocks of four, then single tiles (16: 4 4 4 4;
    13: 4 4 4 1); the dealer then takes one more."""
    return [4] * (size // 4) + [1] * (size % 4)


def deal_positions(dealer: int, deal_size: int = 16) -> dict[int, list[int]]:
    """Wall positions dealt to each seat: in turn order from the dealer, by ``deal_blocks``, then one more to the
    dealer."""
    order = [(dealer - 1 + i) % 4 + 1 for i in range(4)]
    positions: dict[int, list[int]] = {p: [] for p in order}
    pos = 0
    for size in deal_blocks(deal_size):
        for p in order:
            positions[p].extend(range(pos, pos + size))
            pos += size
    positions[dealer].append(pos)
    return positions


def arrange_wall(
    hands: Mapping[int, Sequence[int]],
    rules: Ruleset,
    *,
    dealer: int = 1,
    draws: Sequence[int] = (),
    replacements: Sequence[int] = (),
    filler_seed: int = 0,
    deal_size: int = 16,
) -> Wall:
    """A crafted wall: seat ``p`` is dealt ``hands[p]`` (padded), live draws come in ``draws`` order, gong and
    flower replacements in ``replacements`` order; every other tile fills the gaps in a seeded shuffle.

    This is how tests and ``mjref check`` build exact situations; the result is a normal, complete wall.
    """
    universe = list(ALL_TIDS_WITH_FLOWERS if rules.flowers else ALL_TIDS)
    bad_seats = sorted(set(hands) - {1, 2, 3, 4})
    if bad_seats:
        raise WallError(f"arranged wall: {bad_seats[0]} is not a seat 1..4")
    undealt = len(universe) - (deal_size * 4 + 1)
    if len(draws) + len(replacements) > undealt:
        raise WallError(
            f"arranged wall: {len(draws)} draws and {len(replacements)} replacements do not fit in the "
            f"{undealt} undealt tiles"
        )
    named = [t for h in hands.values() for t in h] + list(draws) + list(replacements)
    seen: set[int] = set()
    for t in named:
        if t in seen:
            raise WallError(f"arranged wall: tile {t} is named twice")
        if t not in universe:
            raise WallError(f"arranged wall: {t} is not a tile of this ruleset")
        seen.add(t)
    filler = [t for t in universe if t not in seen]
    rng = SplitMix64(filler_seed)
    for i in range(len(filler) - 1, 0, -1):
        j = rng.next() % (i + 1)
        filler[i], filler[j] = filler[j], filler[i]
    n = len(universe)
    slots: list[int | None] = [None] * n
    for p, positions in deal_positions(dealer, deal_size).items():
        given = list(hands.get(p, ()))
        if len(given) > len(positions):
            raise WallError(f"arranged wall: seat {p} is dealt {len(positions)} tiles, {len(given)} given")
        for pos, t in zip(positions, given):
            slots[pos] = t
    first_draw = deal_size * 4 + 1
    for k, t in enumerate(draws):
        slots[first_draw + k] = t
    for k, t in enumerate(replacements):
        slots[n - 1 - k] = t
    it = iter(filler)
    tiles = [t if t is not None else next(it) for t in slots]
    return Wall(tuple(tiles))
