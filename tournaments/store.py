"""The results store: one SQLite file per tournament, written by one writer, that survives ``kill -9``.

Each finished match is recorded in one transaction (its match row, four seat rows, a row per hand and per win,
its faults), so a match is either wholly in the store or not at all; in WAL mode a committed transaction survives
the writer being killed.  Match logs are files beside the store, named by match ID, with their SHA-256 in the match
row; a log is written as ``<id>.jsonl.part`` and renamed once complete, so a name the store refers to always holds
a whole log.  One runner writes a store at a time (``tournaments.lock``).  An empty file, a damaged database or a
SQLite file of another program is refused with one line (:class:`StoreError`), never started over silently.

Tables
------
``meta``      key/value: ``identity`` (what decides results, see ``config.identity``), ``wall_salt`` (secret:
              matches are played on ``wall.salted_seed(wall_salt, seed)``), ``name``, ``created``,
              ``mjref`` (version), ``schema`` (this file's schema version).
``matches``   one row per finished match: id, idx, grp (duplicate group), seed, rotation, seat1..seat4 (bot names),
              hands, total1..total4, log, log_sha256, seconds, finished.
``seats``     one row per match and seat: match_id, position, bot, points, rank (1 = best, ties share), hands,
              wins, self_draws, deal_ins, faults, answers, answer_seconds, max_answer_seconds.
``hands``     one row per match and hand: match_id, hand, dealer, outcome, winner, how, thrower, tai (of the
              first winner; with ``multiple_winners`` see ``wins``), s1..s4 (settlement, every winner's
              payments), p1..p4 (fault penalties).
``wins``      one row per win: match_id, hand, seat, how, thrower, tile, tai (several per hand when one throw
              makes several winners).  Stores written before this table existed have no rows in it.
``faults``    one row per fault: match_id, hand, position, bot, kind, detail, line.
``plays``     one row per match: match_id, digest (``MatchResult.play_digest``: equal digests on the same walls mean
              the same answers in the same order).  Stores written before this table existed have no rows in it.
``agg_*``     totals kept at commit (:mod:`tournaments.totals`): what standings and the report read, so that
              neither reads every match.  Added in schema 4; a store of an older schema gets them computed from its
              matches the first time it is opened for writing (a resumed tournament), and until then standings
              sum its matches instead.  A store of a newer schema than this mjref knows is refused.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TypeVar

from referee import __version__
from referee.errors import StoreError as _StoreError
from referee.errors import printable
from referee.results import STORE_COLUMNS, SeatResult
from wrappers.sandbox import hide_from_bots

from . import totals as agg
from .lock import StoreLock

T = TypeVar("T")

MAX_STORED_SEED = (1 << 63) - 1
"""The largest seed a store keeps: seeds are SQLite integers (signed 64-bit), so a tournament or a regression may
not play a seed past it, although a single match accepts any 64-bit seed."""

SCHEMA_VERSION = 4  # 2: the wins table; 3: the plays table; 4: the totals (tournaments.totals)

CACHE_KIB = 2000
"""The page cache of a store's connection, in KiB (SQLite's default, stated here as the bound it is): it fills as
the store grows, to this cap, after some 3,000 one-hand matches, then stays.  A long run's memory grows by this
much and no more (``bench/tournament.py --scale`` shows it)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY, idx INTEGER NOT NULL, grp TEXT NOT NULL, seed INTEGER NOT NULL, rotation INTEGER NOT NULL,
    seat1 TEXT NOT NULL, seat2 TEXT NOT NULL, seat3 TEXT NOT NULL, seat4 TEXT NOT NULL,
    hands INTEGER NOT NULL, total1 INTEGER NOT NULL, total2 INTEGER NOT NULL, total3 INTEGER NOT NULL,
    total4 INTEGER NOT NULL, log TEXT, log_sha256 TEXT, seconds REAL NOT NULL, finished TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    match_id TEXT NOT NULL REFERENCES matches(id), position INTEGER NOT NULL, bot TEXT NOT NULL,
    points INTEGER NOT NULL, rank REAL NOT NULL, hands INTEGER NOT NULL, wins INTEGER NOT NULL,
    self_draws INTEGER NOT NULL, deal_ins INTEGER NOT NULL, faults INTEGER NOT NULL, answers INTEGER NOT NULL,
    answer_seconds REAL NOT NULL, max_answer_seconds REAL NOT NULL, PRIMARY KEY (match_id, position)
);
CREATE TABLE IF NOT EXISTS hands (
    match_id TEXT NOT NULL REFERENCES matches(id), hand INTEGER NOT NULL, dealer INTEGER NOT NULL,
    outcome TEXT NOT NULL, winner INTEGER, how TEXT, thrower INTEGER, tai INTEGER NOT NULL,
    s1 INTEGER NOT NULL, s2 INTEGER NOT NULL, s3 INTEGER NOT NULL, s4 INTEGER NOT NULL,
    p1 INTEGER NOT NULL, p2 INTEGER NOT NULL, p3 INTEGER NOT NULL, p4 INTEGER NOT NULL,
    PRIMARY KEY (match_id, hand)
);
CREATE TABLE IF NOT EXISTS wins (
    match_id TEXT NOT NULL REFERENCES matches(id), hand INTEGER NOT NULL, seat INTEGER NOT NULL,
    how TEXT NOT NULL, thrower INTEGER, tile INTEGER, tai INTEGER NOT NULL,
    PRIMARY KEY (match_id, hand, seat)
);
CREATE TABLE IF NOT EXISTS faults (
    match_id TEXT NOT NULL REFERENCES matches(id), hand INTEGER NOT NULL, position INTEGER NOT NULL,
    bot TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL, line TEXT
);
CREATE TABLE IF NOT EXISTS plays (
    match_id TEXT PRIMARY KEY REFERENCES matches(id), digest TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_bot ON seats(bot);
CREATE INDEX IF NOT EXISTS matches_idx ON matches(idx);
CREATE INDEX IF NOT EXISTS faults_match ON faults(match_id);
"""


_INSERT_SEAT = (f"INSERT INTO seats (match_id, {', '.join(STORE_COLUMNS)}) "
                f"VALUES ({', '.join('?' * (len(STORE_COLUMNS) + 1))})")


class StoreError(_StoreError):
    """A store that cannot be used (not a store, another tournament's store); the message says which."""


@dataclass(frozen=True, slots=True)
class HandRow:
    """A row of the hands table (without ``match_id``): how the hand ended, its first winner, and what each seat
    scored and paid in fault penalties."""

    hand: int
    dealer: int
    outcome: str  # "win" or "draw"
    winner: int | None
    how: str | None
    thrower: int | None
    tai: int
    scores: tuple[int, int, int, int]
    penalties: tuple[int, int, int, int]

    def row(self) -> tuple[Any, ...]:
        """The table's columns after ``match_id``, in order (``s1``..``s4``, ``p1``..``p4`` last)."""
        return (self.hand, self.dealer, self.outcome, self.winner, self.how, self.thrower, self.tai, *self.scores,
                *self.penalties)

    def to_json(self) -> dict[str, Any]:
        """As the table's keys (``s1``..``p4``): how a record travels from a Dask worker."""
        return {"hand": self.hand, "dealer": self.dealer, "outcome": self.outcome, "winner": self.winner,
                "how": self.how, "thrower": self.thrower, "tai": self.tai,
                **{f"s{p}": self.scores[p - 1] for p in (1, 2, 3, 4)},
                **{f"p{p}": self.penalties[p - 1] for p in (1, 2, 3, 4)}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> HandRow:
        return cls(d["hand"], d["dealer"], d["outcome"], d["winner"], d["how"], d["thrower"], d["tai"],
                   (d["s1"], d["s2"], d["s3"], d["s4"]), (d["p1"], d["p2"], d["p3"], d["p4"]))


class _FlatRow:
    """A table row whose columns after ``match_id`` are its fields in order, and whose JSON (how a record travels
    from a Dask worker) uses the same names: one definition for the wins and faults tables."""

    __slots__ = ()
    __match_args__: tuple[str, ...]  # the dataclass's fields, in order

    def row(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__match_args__}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Self:
        return cls(*(d[name] for name in cls.__match_args__))


@dataclass(frozen=True, slots=True)
class WinRow(_FlatRow):
    """A row of the wins table (without ``match_id``): one winner of a hand."""

    hand: int
    seat: int
    how: str
    thrower: int | None
    tile: int | None
    tai: int


@dataclass(frozen=True, slots=True)
class FaultRow(_FlatRow):
    """A row of the faults table (without ``match_id``): one fault, under the tournament's name for the bot."""

    hand: int
    position: int
    bot: str
    kind: str
    detail: str
    line: str | None = None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """Everything the store keeps of one finished match (built by the runner from a ``MatchResult``)."""

    id: str
    idx: int
    group: str
    seed: int
    rotation: int
    seats: tuple[str, str, str, str]
    hands: int
    totals: tuple[int, int, int, int]
    log: str | None
    log_sha256: str | None
    seconds: float
    seat_results: tuple[SeatResult, ...]  # the seats table (``bot``: the tournament's name for the bot)
    hand_rows: tuple[HandRow, ...]  # the hands table
    fault_rows: tuple[FaultRow, ...]  # the faults table
    win_rows: tuple[WinRow, ...] = ()  # the wins table
    play_digest: str | None = None  # the plays table

    def facts(self) -> agg.MatchFacts:
        """What the store's totals need of this match."""
        hand_points = [(self.seats[p - 1], h.scores[p - 1] - h.penalties[p - 1]) for h in self.hand_rows
                       for p in (1, 2, 3, 4)]
        return agg.MatchFacts(self.group, self.seed, self.hands, [r.to_json() for r in self.seat_results], hand_points,
                                 [(f.bot, f.kind) for f in self.fault_rows])

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "idx": self.idx, "group": self.group, "seed": self.seed, "rotation": self.rotation,
            "seats": list(self.seats), "hands": self.hands, "totals": list(self.totals), "log": self.log,
            "log_sha256": self.log_sha256, "seconds": self.seconds,
            "seat_results": [r.to_json() for r in self.seat_results],
            "hand_rows": [r.to_json() for r in self.hand_rows], "fault_rows": [r.to_json() for r in self.fault_rows],
            "win_rows": [r.to_json() for r in self.win_rows],
            "play_digest": self.play_digest,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MatchRecord:
        return cls(d["id"], d["idx"], d["group"], d["seed"], d["rotation"], tuple(d["seats"]), d["hands"],
                   tuple(d["totals"]), d["log"], d["log_sha256"], d["seconds"],
                   tuple(SeatResult.from_json(r) for r in d["seat_results"]),
                   tuple(HandRow.from_json(r) for r in d["hand_rows"]),
                   tuple(FaultRow.from_json(r) for r in d["fault_rows"]),
                   tuple(WinRow.from_json(r) for r in d.get("win_rows", ())),
                   d.get("play_digest"))


SQLITE_HEADER = b"SQLite format 3\x00"
_TABLES = ("meta", "matches", "seats", "hands", "wins", "faults")


_WRITING: dict[str, int] = {}
"""The stores a :class:`Store` of this process has open (by absolute path): they are never opened again outside
SQLite here.  Closing any descriptor of a file drops every POSIX lock this process holds on it, SQLite's too: the
writer's, after which another process's reader, closing last as it thinks, checkpoints and deletes the WAL under
the writer (the league's page, reading its own store, then read "disk I/O error" for good)."""


def _inspect(path: Path) -> str:
    """What is at ``path``: "missing", "empty", "sqlite" (a database, maybe damaged) or "foreign" (anything else)."""
    if _WRITING.get(os.path.abspath(path)):
        return "sqlite"  # open here already (and inspected then): reading its header would drop the writer's locks
    try:
        st = path.stat()
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the store ({exc.strerror})") from None
    if not path.is_file():
        raise StoreError(f"{path}: is a directory, not a results store" if path.is_dir()
                         else f"{path}: not a regular file, not a results store")
    if st.st_size == 0:
        return "empty"
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the store ({exc.strerror})") from None
    return "sqlite" if head == SQLITE_HEADER else "foreign"


def _check_ours(con: sqlite3.Connection, path: Path) -> None:
    """Refuse a SQLite database that is not a results store (it would otherwise get our tables added)."""
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if names and "meta" not in names:
        shown = ", ".join(sorted(names)[:5]) + (", …" if len(names) > 5 else "")
        raise StoreError(f"{path}: a SQLite database but not an mjref results store (its tables: {shown})")


@functools.cache
def _expected_objects() -> frozenset[tuple[str, str]]:
    """The (type, name) of every object a store of this mjref may hold: its tables and indexes, as the schema
    creates them (read back from an empty database, so the schema text stays their one definition), the indexes
    SQLite makes for primary keys, and the statistics tables of ``ANALYZE``."""
    with sqlite3.connect(":memory:") as con:
        con.executescript(_SCHEMA + agg.SCHEMA)
        found = {(str(t), str(n)) for t, n in con.execute("SELECT type, name FROM sqlite_master")}
    con.close()
    return frozenset(found | {("table", f"sqlite_stat{i}") for i in (1, 2, 3, 4)} | {("table", "sqlite_sequence")})


def _check_objects(con: sqlite3.Connection, path: Path) -> None:
    """Refuse a store holding anything this mjref did not create before any of its tables is read: a view (a
    ``matches`` that is a view over an endless recursive query held ``standings`` for ever), a trigger (code run by
    a write), a virtual table, or an unknown table or index.  Reading ``sqlite_master`` runs none of them."""
    rows = [(str(t), str(n), str(sql or "")) for t, n, sql in con.execute("SELECT type, name, sql FROM sqlite_master")]
    for kind, name, sql in rows:
        if (kind, name) in _expected_objects() and not sql.upper().startswith("CREATE VIRTUAL"):
            continue
        if kind == "index" and name.startswith("sqlite_autoindex_"):
            continue
        shown = printable(name)[:60]
        what = {"view": "a view", "trigger": "a trigger"}.get(kind, f"an unknown {printable(kind)[:20]}")
        if sql.upper().startswith("CREATE VIRTUAL"):
            what = "a virtual table"
        raise StoreError(f"{path}: not a results store this mjref wrote: it holds {what} {shown!r} (a store holds "
                         "only mjref's own tables and indexes); refused before reading it")


def schema_of(con: sqlite3.Connection) -> int | None:
    """The schema version a store was written with (None: not initialised, or older than the version's record)."""
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:
        return None
    if row is None:
        return None
    try:
        return int(row[0])
    except (TypeError, ValueError):
        return -1  # not a number: counts as older, so the totals are rebuilt from the matches


def _check_schema(con: sqlite3.Connection, path: Path) -> None:
    version = schema_of(con)
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(f"{path}: written by a newer mjref (store schema {version}; this mjref {__version__} knows "
                         f"up to {SCHEMA_VERSION}); use that mjref, or another store")


def has_totals(con: sqlite3.Connection) -> bool:
    """Whether the store's totals (``agg_*``) cover its matches: schema 4 or later, or nothing recorded yet."""
    if con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agg_store'").fetchone() is None:
        return False
    version = schema_of(con)
    return (version is not None and version >= 4) or con.execute("SELECT 1 FROM matches LIMIT 1").fetchone() is None


def _open_for_reading(path: Path) -> sqlite3.Connection:
    """A connection that reads only.  Opened read-write with ``query_only`` when the file allows it: after a writer
    was killed with ``kill -9``, SQLite recovers the WAL index before reading, which a ``mode=ro`` connection
    cannot do (the kill tests saw "database disk image is malformed" from ``mode=ro`` readers of a freshly killed
    runner's store); ``mode=ro`` only for a file this user may not write."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=rw", uri=True)
    except sqlite3.OperationalError:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # a file we may only read
    con.execute("PRAGMA query_only = ON")
    return con


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open a store; every problem (missing, empty, damaged, foreign, a directory) is one ``StoreError`` line."""
    kind = _inspect(path)
    if readonly and kind == "missing":
        raise StoreError(f"{path}: no such store")
    if kind == "empty" and readonly:  # a reader (standings, report): --restart is not its to give
        raise StoreError(f"{path}: an empty file (0 bytes), not a results store (mjref tournament, league or regress "
                         "writes one)")
    if kind == "empty":
        raise StoreError(f"{path}: an empty file (0 bytes), not a results store; nothing to resume (use --restart "
                         f"to start a new store there)")
    if kind == "foreign":
        raise StoreError(f"{path}: not an mjref results store (not a SQLite database)")
    try:
        if readonly:
            con = _open_for_reading(path)
        else:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # 0600 (SQLite gives its -wal and -shm files the same mode), and hidden from sandboxed bots: the
            # store holds the wall salt.
            if not _WRITING.get(os.path.abspath(path)):
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
            hide_from_bots(path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")))
            con = sqlite3.connect(path, isolation_level=None)
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(f"{path}: cannot open the store ({exc})") from None
    con.row_factory = sqlite3.Row
    try:
        con.execute("PRAGMA trusted_schema = OFF")  # no application function or virtual table from the schema
        con.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        _check_ours(con, path)
        _check_objects(con, path)
        if readonly:
            con.execute("SELECT 1 FROM matches LIMIT 1")
        else:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            con.executescript(_SCHEMA + agg.SCHEMA)
        _check_schema(con, path)
    except sqlite3.DatabaseError as exc:
        con.close()
        if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):  # SQLITE_FULL: no room to write it
            raise StoreError(f"{path}: cannot write the store, its disk is full ({exc}): make room and run again") \
                from None
        raise StoreError(f"{path}: not an mjref results store, or a damaged one ({exc})") from None
    except StoreError:
        con.close()
        raise
    return con


def check_integrity(con: sqlite3.Connection, path: Path) -> None:
    """Refuse a damaged store (``PRAGMA quick_check``) before anything is added to it."""
    try:
        problems = [r[0] for r in con.execute("PRAGMA quick_check(3)")]
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: a damaged results store ({exc}); use --restart to discard it") from None
    if problems != ["ok"]:
        first = str(problems[0]).splitlines()[0] if problems and str(problems[0]).strip() else "quick_check failed"
        raise StoreError(f"{path}: a damaged results store ({first}); use --restart to discard it, or "
                         f"another store")


def discard(path: Path) -> None:
    """Remove a store (``--restart``) so that a new one starts there: only a store, an empty file or a damaged
    SQLite database, never a file of another kind; with its WAL and shared-memory files."""
    kind = _inspect(path)
    if kind == "foreign":
        raise StoreError(f"{path}: not an mjref results store (not a SQLite database); not discarding it")
    if kind == "sqlite":
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        except sqlite3.Error:
            con = None
        if con is not None:
            try:
                _check_ours(con, path)  # another program's database is never discarded
            except sqlite3.DatabaseError:
                pass  # damaged: discarding it is what --restart is for
            finally:
                con.close()
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StoreError(f"{p}: cannot remove ({exc.strerror})") from None


def recorded_between(con: sqlite3.Connection, lo: int, hi: int) -> dict[int, str]:
    """The recorded matches with ``lo <= idx < hi``: index → ID (a window: never the whole store at once)."""
    return {int(r[0]): str(r[1]) for r in
            con.execute("SELECT idx, id FROM matches WHERE idx >= ? AND idx < ?", (lo, hi))}


class Store:
    """The single writer of a results store."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.con = connect(path)
        self._key: str | None = os.path.abspath(path)
        _WRITING[self._key] = _WRITING.get(self._key, 0) + 1
        try:
            self._upgrade()
        except BaseException:
            self.close()
            raise

    def _upgrade(self) -> None:
        """An older store gets the totals of its matches (schema 4), in one transaction, before anything is added."""
        version = schema_of(self.con)
        if version is not None and version >= 4:
            return
        with self._transaction():
            if self.con.execute("SELECT 1 FROM matches LIMIT 1").fetchone() is None:
                if version is not None:
                    self.con.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
                return
            self._rebuild_totals()
            self.con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))

    def _rebuild_totals(self) -> int:
        try:
            return agg.rebuild(self.con)
        except (TypeError, ValueError, KeyError, OverflowError) as exc:  # a cell that is not a number (or too big)
            raise StoreError(f"{self.path}: a damaged results store: its matches cannot be totalled ({exc})") \
                from None

    def recount(self, read: Callable[[sqlite3.Connection], T]) -> tuple[int, T]:
        """Compute the kept totals again from the match rows, in one transaction (``mjref standings --recount``,
        for a store whose rows were edited by hand); returns how many matches were counted and what ``read`` read
        in the same transaction (the standings of exactly the totals recounted: nothing written after is mixed
        in).  Totals that standings would refuse (sums past any matches', moments no matches give) roll it back:
        the store is left as it was (``StoreError``)."""
        from .stats import check_total_numbers  # (stats imports this module)

        with self._transaction():
            try:
                n = agg.rebuild(self.con)
            except OverflowError:  # whole numbers each, but their sums are past SQLite's integers
                raise StoreError(f"{self.path}: its match rows cannot be totalled (their sums are larger than a "
                                 f"store keeps); {UNCHANGED}") from None
            except (TypeError, ValueError, KeyError) as exc:
                raise StoreError(f"{self.path}: its match rows cannot be totalled ({exc}); {UNCHANGED}") from None
            check_total_numbers(self.con, self.path, damaged=f"its match rows are damaged; {UNCHANGED}")
            return n, read(self.con)

    def close(self) -> None:
        if self._key is not None:
            n = _WRITING.pop(self._key, 1) - 1
            if n > 0:
                _WRITING[self._key] = n
            self._key = None
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------------------------------------- meta
    def meta(self) -> dict[str, str]:
        try:
            return {r["key"]: r["value"] for r in self.con.execute("SELECT key, value FROM meta")}
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: a damaged results store ({exc})") from None

    def wall_salt(self) -> str:
        salt = self.meta().get("wall_salt")
        if salt is None:
            raise StoreError(f"{self.path}: the store has no wall salt (not initialised)")
        return salt

    def identity(self) -> dict[str, Any] | None:
        value = self.meta().get("identity")
        if not value:
            return None
        try:
            data = json.loads(value)
        except json.JSONDecodeError:
            data = None
        if not isinstance(data, dict):
            raise StoreError(f"{self.path}: a damaged results store (its identity is not a JSON object)")
        return data

    def initialise(self, name: str, identity: dict[str, Any], wall_salt: str | None = None) -> None:
        """Start a store for a tournament.  ``wall_salt``: the walls' salt; by default a new secret one, kept
        here so that resuming replays the same walls while nobody can derive them from the listed seeds."""
        with self._transaction():
            for key, value in (
                ("identity", json.dumps(identity, sort_keys=True)),
                ("wall_salt", wall_salt if wall_salt is not None else secrets.token_hex(16)),
                ("name", name),
                ("created", datetime.now(UTC).isoformat(timespec="seconds")),
                ("mjref", __version__),
                ("schema", str(SCHEMA_VERSION)),
            ):
                self.con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def set_identity(self, identity: dict[str, Any]) -> None:
        with self._transaction():
            self.con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('identity', ?)",
                             (json.dumps(identity, sort_keys=True),))

    def clear(self) -> None:
        with self._transaction():
            for table in ("plays", "faults", "wins", "hands", "seats", "matches", "meta"):
                self.con.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
            agg.clear(self.con)

    # -------------------------------------------------------------------------------------------- matches
    def finished_ids(self) -> set[str]:
        return {r[0] for r in self.con.execute("SELECT id FROM matches")}

    def recorded_between(self, lo: int, hi: int) -> dict[int, str]:
        return recorded_between(self.con, lo, hi)

    def count(self) -> int:
        try:
            return int(self.con.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: a damaged results store ({exc})") from None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        try:
            self.con.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            self.con.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot write the results store ({exc})") from None

    def record(self, m: MatchRecord, meta: Mapping[str, str] | None = None) -> bool:
        """Record a finished match in one transaction, with ``meta`` (keys of the meta table, e.g. a league's ratings
        after this match) in the same one.  A match already recorded is left alone (False), and so is ``meta``."""
        with self._transaction():
            if not self._insert(m):
                return False
            agg.add_matches(self.con, [m.facts()])
            self._put_meta(meta or {})
            return True

    def set_meta(self, meta: Mapping[str, str]) -> None:
        """Set keys of the meta table in one transaction."""
        with self._transaction():
            self._put_meta(meta)

    def _put_meta(self, meta: Mapping[str, str]) -> None:
        self.con.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", list(meta.items()))

    def record_many(self, records: Iterable[MatchRecord]) -> int:
        """Record matches in one transaction (all or none); returns how many were new."""
        with self._transaction():
            new = [r.facts() for r in records if self._insert(r)]
            return agg.add_matches(self.con, new)

    def _insert(self, m: MatchRecord) -> bool:
        if self.con.execute("SELECT 1 FROM matches WHERE id = ?", (m.id,)).fetchone():
            return False
        self.con.execute(
            "INSERT INTO matches VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (m.id, m.idx, m.group, m.seed, m.rotation, *m.seats, m.hands, *m.totals, m.log, m.log_sha256,
             m.seconds, datetime.now(UTC).isoformat(timespec="seconds")),
        )
        self.con.executemany(_INSERT_SEAT, [(m.id, *r.row()) for r in m.seat_results])
        self.con.executemany("INSERT INTO hands VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                             [(m.id, *r.row()) for r in m.hand_rows])
        self.con.executemany("INSERT INTO wins VALUES (?,?,?,?,?,?,?)", [(m.id, *r.row()) for r in m.win_rows])
        self.con.executemany("INSERT INTO faults VALUES (?,?,?,?,?,?,?)", [(m.id, *r.row()) for r in m.fault_rows])
        if m.play_digest is not None:
            self.con.execute("INSERT INTO plays VALUES (?, ?)", (m.id, m.play_digest))
        return True


UNCHANGED = "the store is left as it was"


def recount(path: Path, read: Callable[[sqlite3.Connection], T]) -> tuple[int, T]:
    """``mjref standings --recount``: the store's kept totals computed again from its match rows (after rows were
    edited by hand), under the store's lock (a running tournament is not disturbed: :class:`StoreBusy`); returns
    how many matches were counted and what ``read`` read in the recount's own transaction (its standings: of the
    totals recounted, whatever a runner that takes the store next records).  A missing, empty or foreign file is
    refused, never created; match rows that cannot be totalled are refused (``StoreError`` naming the match and the
    column) before the store is opened for writing, and totals that come out wrong roll the recount back: a
    recount that fails changes nothing."""
    con = connect(path, readonly=True)  # before the lock, which would make the folder of a store that is missing
    try:
        con.execute("BEGIN")  # every row the totals use read and checked, nothing written
        for _ in agg.facts_from_tables(con):
            pass
    except (sqlite3.Error, TypeError, ValueError, KeyError, OverflowError) as exc:
        raise StoreError(f"{path}: its match rows cannot be totalled ({exc}); {UNCHANGED}") from None
    finally:
        con.close()
    with StoreLock(path), Store(path) as store:
        return store.recount(read)

