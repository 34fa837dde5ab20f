"""A league: a tournament that never ends.  It chooses each next table itself, plays it on a new seed, and keeps
every result in a results store, through the tournament runner's own pieces (``MatchJob``, ``MatchPlayer``, the
store and its lock): the same boxes, the same logs, the same ``kill -9`` safety.

The league file (``mjref league LEAGUE.toml``) is a tournament file without ``format`` and ``seeds`` (a league
chooses its tables and deals a new seed to each), with ``submissions``, the folder kept for submitted bots; see
docs/league.md.

**Tables and IDs.**  Table ``g`` (0, 1, 2, …) is played on seed ``g + 1`` (salted by the store's secret wall salt,
as in a tournament); with ``duplicate`` it is a duplicate group of 4 (or 24) seatings, else one match whose
seating is rotated by ``g``.  Its matches are ``L0000012-r00`` … with ``idx = g * per_table + seating``.  Each slot
of ``concurrency`` plays one table at a time, its seatings one after another, so two matches on one deal are never
in flight together.

**Which table next** (deterministic given the store and the tables in flight): first a table the store holds only
part of (a run stopped in the middle of a duplicate group), lowest first; else a new one: its first bot is the
active entrant in the fewest tables in flight, then with the largest rating uncertainty (sigma), then the fewest
matches, then by name; each further seat goes to the entrant that has met the ones already chosen least often
(matches recorded or in flight), then the one whose rating is closest to the first bot's, then the largest sigma,
then by name.  Fewer than four entrants: the ruleset's default dummy fills the empty seats.  Only entrants that
can sit now are chosen (a remote bot: while its wrapper is logged in, at one table at a time); with nobody, the
slot waits.  A new table's number is kept in the store (``NEXT_TABLE_KEY``) before it is played.

**Where matches are played**: as in a tournament, by ``MatchPlayer`` (a local pool, or Dask: ``dask_executor``),
and a match with a remote bot in this process, its seats from ``referee.server.Server.seating`` (the command
serves the wrappers).

**Ratings** (:class:`Ratings`): openskill's Plackett-Luce model, each match one update with the four seats ranked
by their points in it (ties share a place); dummies keep the initial rating and are not updated.  Matches are rated
in the order they were recorded (the store's rowid); the ratings after each match are written in the same
transaction as the match (meta ``league_ratings``), so the stored ratings always belong to exactly the matches
stored, and recomputing them from the matches gives the same numbers (checked at every start).

**Stopping and restarting.**  Ctrl-C, SIGTERM and SIGHUP stop the matches in flight without recording them;
``kill -9`` loses at most those.  On the next start the store says which tables are finished: a table handed out
with no recorded match is never played again (its seed is skipped), a table with some seatings recorded is
finished first.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from referee.errors import printable
from referee.shutdown import Shutdown, watching_signals
from referee.userfiles import check_output_dir, read_toml
from wrappers.codec import cut
from wrappers.process import box_pool
from wrappers.spec import BotSpec, SpecError

from .config import (
    DUMMY_PREFIX,
    ConfigError,
    TournamentConfig,
    bot_specs,
    canonical,
    diff_identity,
    parse_config,
    ruleset_of,
)
from .ratings import RATINGS_KEY, Ratings, stored_ratings
from .runner import (
    MatchJob,
    MatchPlayer,
    RemoteSeating,
    TournamentError,
    locked_store,
    running_store,
    seats_and_places,
    tournament_identity,
)
from .schedule import ScheduledMatch, seatings
from .store import MatchRecord, Store, StoreError

_LOG = logging.getLogger("mjref.league")

LEAGUE_VERSION = 1  # in the store's identity: a store a league wrote says so
ID_PREFIX = "L"
NEXT_TABLE_KEY = "league_next_table"  # meta: the number of the next new table (tables handed out are never reused)
IDLE_POLL = 0.2  # seconds a slot waits before asking again when nobody can sit (every entrant away or busy)


class LeagueError(TournamentError):
    """A league that cannot run (bad file, a store of something else, a changed bot); the message says why."""


# ------------------------------------------------------------------------------------------------ the file


@dataclass(frozen=True, slots=True)
class LeagueConfig:
    """A league file: its tournament settings (checked by the tournament file's own model) and its own fields."""

    tournament: TournamentConfig
    submissions: str

    @property
    def name(self) -> str:
        return self.tournament.name

    @property
    def per_table(self) -> int:
        t = self.tournament
        return t.seatings if t.duplicate else 1


_NOT_IN_A_LEAGUE = {
    "format": "a league chooses each table itself",
    "seeds": "a league deals a new seed to every table",
}


def parse_league(data: Mapping[str, Any], where: str = "league") -> LeagueConfig:
    """Check a league file's data (a TOML document); a bad field is one ``ConfigError`` line naming it."""
    data = dict(data)
    for key, why in _NOT_IN_A_LEAGUE.items():
        if key in data:
            raise ConfigError(f"{where}: {key}: not a league's field ({why}); remove it")
    submissions = data.pop("submissions", "submissions")
    if not isinstance(submissions, str) or not submissions or "\0" in submissions:
        raise ConfigError(f"{where}: submissions: give a folder (a path relative to the league file), not "
                          f"{printable(repr(submissions))[:60]}")
    data.setdefault("name", "league")
    # A league deals every table a seed of its own: only a duplicate league deals a seed's walls again, so only
    # there may a bot that can remember (a remote one) need trust_memory, whatever the number of bots.
    trusted = data.get("trust_memory", False)
    duplicate = data.get("duplicate", TournamentConfig.model_fields["duplicate"].get_default())
    if duplicate is False and trusted is False:
        data["trust_memory"] = True
    config = parse_config({**data, "format": "round-robin", "seeds": 1}, where)
    if config.trust_memory != trusted:
        config = config.model_copy(update={"trust_memory": trusted})
    return LeagueConfig(config, submissions)


def load_league(path: Path) -> LeagueConfig:
    return parse_league(read_toml(path, ConfigError), str(path))


# ------------------------------------------------------------------------------------------------ choosing tables


def table_id(g: int) -> str:
    return f"{ID_PREFIX}{g:07d}"


def parse_table(group: str) -> int | None:
    if group.startswith(ID_PREFIX) and group[1:].isdigit():
        return int(group[1:])
    return None


@dataclass(slots=True)
class Table:
    """One table of four on one seed: its seatings, and which of them are still to play."""

    number: int
    bots: tuple[str, str, str, str]
    pending: list[int]  # seating numbers

    def match(self, seating: int, per_table: int) -> ScheduledMatch:
        g = self.number
        if per_table == 1:
            r = g % 4
            seats = seatings(self.bots, 4)[r]
        else:
            r = seating
            seats = seatings(self.bots, per_table)[r]
        return ScheduledMatch(f"{table_id(g)}-r{r:02d}", g * per_table + seating, table_id(g), g + 1, r, seats)


def unseat(seats: Sequence[str], rotation: int, per_table: int) -> tuple[str, str, str, str]:
    """The table (bots in table order) a recorded seating was played from."""
    for table in _candidates(seats):
        if seatings(table, 4 if per_table == 1 else per_table)[rotation] == tuple(seats):
            return table
    raise StoreError(f"a recorded seating {list(seats)} (rotation {rotation}) is no seating of its table")


def _candidates(seats: Sequence[str]) -> Iterable[tuple[str, str, str, str]]:
    from itertools import permutations

    seen = set()
    for p in permutations(seats):
        if p not in seen:
            seen.add(p)
            yield p  # type: ignore[misc]


Available = Callable[[str], bool]
"""Whether an entrant can sit at a table now (a remote bot: while its wrapper is logged in)."""


class Chooser:
    """The league's memory of who met whom and what is in flight; chooses the next table (module docstring).

    ``available`` says who can sit now (default: every active entrant); a name in ``one_at_a_time`` (a remote bot:
    its connection is one seat) is not seated again while one of its tables is in flight.  ``reserve(n)`` is told
    the number of the next new table before a table is played, to keep in the store: a table in flight when the
    league was killed is then never dealt again, with other bots, under the same ID."""

    def __init__(self, ratings: Ratings, active: Sequence[str], dummy: str, per_table: int, *,
                 available: Available | None = None, one_at_a_time: Iterable[str] = (),
                 reserve: Callable[[int], None] | None = None) -> None:
        self.ratings = ratings
        self.active = sorted(active)
        self.dummy = f"{DUMMY_PREFIX}-{dummy}"
        self.per_table = per_table
        self.available = available
        self.one_at_a_time = set(one_at_a_time)
        self.reserve = reserve
        self.met: Counter[tuple[str, str]] = Counter()
        self.matches: Counter[str] = Counter()
        self.in_flight: Counter[str] = Counter()
        self.partial: list[Table] = []
        self.next_table = 0

    def count(self, seats: Iterable[str], times: int = 1) -> None:
        names = sorted(set(seats))
        for n in names:
            self.matches[n] += times
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                self.met[(a, b)] += times

    def load(self, con: sqlite3.Connection) -> None:
        """What the store holds: who met whom, the next table number, and the tables played in part."""
        done: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
        row = con.execute("SELECT value FROM meta WHERE key = ?", (NEXT_TABLE_KEY,)).fetchone()
        if row is not None:
            if not str(row[0]).isdigit():
                raise StoreError(f"a damaged league store: meta {NEXT_TABLE_KEY} is {str(row[0])[:40]!r}")
            self.next_table = int(row[0])
        for grp, rotation, *seats in con.execute("SELECT grp, rotation, seat1, seat2, seat3, seat4 FROM matches"):
            self.count(seats)
            g = parse_table(str(grp))
            if g is None:
                raise StoreError(f"match group {str(grp)[:60]!r} is not a league table")
            if self.per_table > 1:
                done.setdefault(g, []).append((int(rotation), tuple(seats)))
            self.next_table = max(self.next_table, g + 1)
        for g in sorted(done):
            rows = done[g]
            if len(rows) < self.per_table:
                rotation, seats = rows[0]
                bots = unseat(seats, rotation, self.per_table)
                played = {r for r, _ in rows}
                self.partial.append(Table(g, bots, [s for s in range(self.per_table) if s not in played]))

    def _key_first(self, n: str) -> tuple[Any, ...]:
        r = self.ratings.get(n)
        return (self.in_flight[n], -r.sigma, self.matches[n], n)

    def can_sit(self, n: str) -> bool:
        if n.startswith(f"{DUMMY_PREFIX}-"):
            return True
        if n in self.one_at_a_time and self.in_flight[n]:
            return False
        return self.available is None or self.available(n)

    def choose(self) -> Table | None:
        """The next table, or None when nobody can sit now (every entrant away or busy)."""
        ready = next((t for t in self.partial if all(self.can_sit(n) for n in set(t.bots))), None)
        if ready is not None:
            self.partial.remove(ready)
            table = ready
        else:
            chosen: list[str] = []
            pool = [n for n in self.active if self.can_sit(n)]
            if not pool:
                return None
            first = min(pool, key=self._key_first)
            chosen.append(first)
            mu0 = self.ratings.get(first).mu
            while len(chosen) < 4 and len(chosen) < len(pool):
                def key(n: str) -> tuple[Any, ...]:
                    met = sum(self.met[(min(n, c), max(n, c))] for c in chosen)
                    r = self.ratings.get(n)
                    return (met, abs(r.mu - mu0), -r.sigma, n)

                chosen.append(min((n for n in pool if n not in chosen), key=key))
            chosen += [self.dummy] * (4 - len(chosen))
            table = Table(self.next_table, tuple(chosen), list(range(self.per_table)))  # type: ignore[arg-type]
            self.next_table += 1
            if self.reserve is not None:
                self.reserve(self.next_table)
            self.count(table.bots, self.per_table)  # counted when chosen: tables in flight count as met
        for n in set(table.bots):
            self.in_flight[n] += 1
        return table

    def release(self, table: Table) -> None:
        for n in set(table.bots):
            self.in_flight[n] -= 1


# ------------------------------------------------------------------------------------------------ opening a store


@dataclass(slots=True)
class LeaguePlan:
    """A league ready to run: its settings, the active entrants' specs, its store and logs."""

    config: LeagueConfig
    store_path: Path
    logs_dir: Path
    submissions_dir: Path
    specs: dict[str, BotSpec]  # the active entrants and the dummy
    active: list[str]
    dummy: str
    rules_json: dict[str, Any]
    identity: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    where: str = "league"
    wall_salt: str = ""


_BOT_KEYS = ("bots", "executables", "files")


def _settings(identity: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in identity.items() if k not in _BOT_KEYS}


def _entry(identity: Mapping[str, Any], name: str) -> dict[str, Any]:
    bots = identity.get("bots") or []
    entry = next((b for b in bots if isinstance(b, dict) and b.get("name") == name), None)
    return {"entry": entry, **{k: (identity.get(k) or {}).get(name) for k in ("executables", "files")}}


def entrant_change(old: Mapping[str, Any], new: Mapping[str, Any], name: str) -> str | None:
    """How entrant ``name`` differs between two identities that both hold it (None: not at all, or not in both)."""
    if _entry(old, name)["entry"] is None or _entry(new, name)["entry"] is None:
        return None
    if canonical(_entry(old, name)) == canonical(_entry(new, name)):
        return None
    return "; ".join(diff_identity(_entry(old, name), _entry(new, name))[:4])


def _without(identity: Mapping[str, Any], name: str) -> dict[str, Any]:
    return {**identity, "bots": [b for b in identity.get("bots") or [] if not (isinstance(b, dict) and
                                                                              b.get("name") == name)],
            **{k: {n: v for n, v in (identity.get(k) or {}).items() if n != name} for k in ("executables", "files")}}


def merge_identity(old: Mapping[str, Any] | None, new: Mapping[str, Any], where: str, store_path: Path,
                   recorded: int) -> dict[str, Any]:
    """The store's identity with this file's entrants: settings must not change once a match is recorded, nor may
    an entrant change under its name (a new version is a new name); new entrants join, entrants no longer in the
    file stay in the identity (their results stay) but play no more."""
    if old is None or not recorded:
        return dict(new)
    if old.get("league") != LEAGUE_VERSION:
        raise LeagueError(f"{store_path}: holds {recorded} matches of a tournament, not a league's; use another store")
    changed = diff_identity(_settings(old), _settings(new))
    if changed:
        raise LeagueError(f"{store_path}: holds {recorded} matches of this league with other settings: "
                          + "; ".join(changed[:8]) + "; use --restart to discard its results, or another store")
    merged: dict[str, Any] = {**_settings(old), "bots": list(old.get("bots") or []),
                              "executables": dict(old.get("executables") or {}), "files": dict(old.get("files") or {})}
    known = {b.get("name") for b in merged["bots"] if isinstance(b, dict)}
    for b in new.get("bots") or []:
        name = b["name"]
        mine = _entry(new, name)
        if name in known:
            what = entrant_change(old, new, name)
            if what is not None:
                raise LeagueError(f"{where}: bot {name!r} changed since it joined the league ({what}): a new version "
                                  "is a new entrant, give it a new name (the old one's results stay)")
            continue
        merged["bots"].append(b)
        for k in ("executables", "files"):
            if mine[k] is not None:
                merged[k][name] = mine[k]
    return merged


def open_league(config: LeagueConfig, base_dir: Path, *, where: str = "league", restart: bool = False,
                store_override: Path | None = None) -> LeaguePlan:
    """Check everything before a match is played, and open (or start) the league's store, under its lock."""
    t = config.tournament
    rules = ruleset_of(t, where)  # either family: its entrants' conformance check is dealt under these rules too
    specs = bot_specs(t, base_dir, where)
    submissions = base_dir / config.submissions
    check_output_dir(submissions, f"{where}: submissions", LeagueError, private=True)
    notes: list[str] = []
    submitted = submitted_specs(submissions, {s.name for s in specs}, notes)
    try:
        for spec in specs:
            spec.check_runnable()
        identity = {"league": LEAGUE_VERSION,
                    **{k: v for k, v in tournament_identity(t, specs).items() if k not in ("format", "seeds")}}
    except SpecError as exc:
        raise LeagueError(f"{where}: {exc}") from None
    for spec, ident in submitted:
        identity = _with_entrant(identity, spec, ident)
    specs += [spec for spec, _ in submitted]
    by_name, dummy, store_path, logs_dir = seats_and_places(t, rules, specs, base_dir, where, store_override,
                                                           LeagueError)
    active = [s.name for s in specs]
    try:
        with locked_store(store_path, restart, notes) as store:
            recorded = store.count()
            old = store.identity()
            # A submitted entrant changed on disk since it joined: refused alone (a bot of the file stops the league)
            changed = {s.name: why for s, _ in submitted
                       if old is not None and recorded and (why := entrant_change(old, identity, s.name)) is not None}
            for name in changed:
                identity = _without(identity, name)
            merged = merge_identity(old, identity, where, store_path, recorded)
            for name, what in changed.items():
                _refuse(submissions, name, f"it changed since it joined the league ({what})", notes)
                del by_name[name]
                active.remove(name)
            if old is None or not recorded:
                if old is not None:
                    store.clear()
                store.initialise(t.name, merged, t.wall_salt)
            elif merged != old:
                store.set_identity(merged)
            salt = store.wall_salt()
    except StoreError as exc:
        raise LeagueError(str(exc)) from None
    return LeaguePlan(config, store_path, logs_dir, submissions, by_name, active, dummy,
                      rules.model_dump(), merged, notes, where, salt)


def submitted_specs(folder: Path, taken: set[str], notes: list[str]) -> list[tuple[BotSpec, Hashed]]:
    """The specs of the active submitted entries of a league's register (none without a register), each with its
    identity (:func:`hashed`).  An entry that can no longer be used as it is on disk (its folder gone or changed, a
    link out of it) is refused (:func:`_refuse`): the league starts without it, not at all."""
    from .submissions import Register, SubmissionError, bot_spec

    if not (folder / "entries.sqlite").exists():
        return []
    register = Register(folder)
    try:
        entries = [e for e in register.entries() if e.status == "active" and e.name not in taken]
    finally:
        register.close()
    out = []
    for entry in entries:
        try:
            spec = bot_spec(Path(entry.folder), entry.name)
            spec.check_runnable()
            out.append((spec, hashed(spec)))
        except (SubmissionError, SpecError) as exc:
            _refuse(folder, entry.name, str(exc), notes)
    return out


def _refuse(folder: Path, name: str, why: str, notes: list[str]) -> None:
    """Refuse a submitted entry found unusable when the league starts: the reason in its report (its author sees
    it), in the log and in ``notes`` (the organiser's terminal)."""
    from .submissions import Register

    why = f"refused when the league started: {why}"
    register = Register(folder)
    try:
        entry = register.entry(name)
        report = entry.report if entry is not None and isinstance(entry.report, dict) else {}
        register.set_status(name, "refused", {**report, "ok": False, "error": why})
    finally:
        register.close()
    _LOG.warning("submitted entry %s %s", name, why)
    notes.append(f"{folder}: entry {name!r} {why}")


Hashed = tuple[str | None, dict[str, str]]
"""What a submitted entrant runs, as the store's identity keeps it: its executable's SHA-256 and its files'."""


def hashed(spec: BotSpec) -> Hashed:
    """A submitted entrant's identity (:data:`Hashed`): file reads, run in a worker thread by a running league.
    Its folder is checked for links out of it first (a bot that could write there has run since it was unpacked):
    :class:`~tournaments.submissions.SubmissionError`, or ``SpecError`` for a folder too large to hash."""
    from .submissions import check_inside

    check_inside(Path(spec.cwd or "."))
    return spec.executable_hash(), spec.identity_files()


def _with_entrant(identity: Mapping[str, Any], spec: BotSpec, ident: Hashed) -> dict[str, Any]:
    """``identity`` with a submitted entrant: its bot entry and what it runs (``ident``: its folder's files)."""
    entry = {"name": spec.name, "cmd": list(spec.cmd or ()), "submitted": True}
    executable, files = ident
    return {**identity, "bots": [*(identity.get("bots") or []), entry],
            "executables": {**(identity.get("executables") or {}), spec.name: executable},
            "files": {**(identity.get("files") or {}), spec.name: files}}


# ------------------------------------------------------------------------------------------------ running


MatchCallback = Callable[[MatchRecord, Ratings], None]


class LeagueControl:
    """Changes to a running league's entrants, made between matches in the league's own loop: a submitted bot
    that passed its check joins (the store's identity records what it runs), a paused or retired one leaves."""

    def __init__(self, plan: LeaguePlan) -> None:
        self.plan = plan
        self.store: Store | None = None
        self.chooser: Chooser | None = None
        self.ratings: Ratings | None = None  # the running league's (its page reads their history)
        # Whether a bot can play where the league plays (on Dask: its paths on every worker): the problems, if any
        self.vet: Callable[[BotSpec], list[str]] | None = None

    def join(self, spec: BotSpec, ident: Hashed | None) -> None:
        """``spec`` plays from now on; ``ident`` (:func:`hashed`, read in a worker thread) is what it runs, for an
        entrant new to the league (None: one that played already)."""
        p = self.plan
        if spec.name not in p.specs:
            p.specs[spec.name] = spec
        if _entry(p.identity, spec.name)["entry"] is None:  # new to the store's identity (not one that played)
            assert ident is not None, f"LeagueControl.join: {spec.name} is new to the league: give its identity"
            identity = _with_entrant(p.identity, spec, ident)
            if self.store is not None:
                self.store.set_identity(identity)
            p.identity = identity
        if spec.name not in p.active:
            p.active.append(spec.name)
        if self.chooser is not None:
            self.chooser.active = sorted(p.active)

    def leave(self, name: str) -> None:
        p = self.plan
        if name in p.active:
            p.active.remove(name)
        if self.chooser is not None:
            self.chooser.active = sorted(p.active)


class LeagueDesk:
    """Where authors hand bots in and organisers pause, retire and reinstate them (the page's POST requests).

    A submission is unpacked into ``<submissions>/<entrant>`` (``submissions.unpack``), its bot file read, and the
    conformance suite (``mjref check``) run against it in the box with the league's rules; it joins the league
    only if every scenario passes.  Either way the author gets the check's report and the register keeps it.
    One submission is handled at a time."""

    def __init__(self, plan: LeaguePlan, control: LeagueControl) -> None:
        from .submissions import Register

        self.plan = plan
        self.control = control
        self.register = Register(plan.submissions_dir)
        self._one = trio.Lock()
        self._acting = trio.Lock()
        self.nursery: trio.Nursery | None = None  # where checks run (the league's, set by whoever serves the desk)
        self.register.interrupted()

    def close(self) -> None:
        self.register.close()

    async def submit(self, token: str | None, bot: str, data: bytes) -> tuple[int, dict[str, Any]]:
        """Unpack and register a submission (status ``checking``) and start its check in :attr:`nursery`: 202 with
        the entrant's name, whose report ``entry`` gives once the check is done (a check outlasts an HTTP
        request)."""
        from .submissions import SubmissionError, bot_spec, unpack

        author = self.register.author(token)
        if author is None:
            return 401, {"error": "a valid author's token is needed to submit"}
        async with self._one:
            try:
                name, version = self.register.next_version(bot, author)
                known = {b.get("name") for b in self.plan.identity.get("bots") or [] if isinstance(b, dict)}
                if name in self.plan.specs or name in known or name.startswith(f"{DUMMY_PREFIX}-"):
                    # an entrant's name is its history's: never another bot's, even a bot no longer playing
                    raise SubmissionError(f"bot name {name!r} is taken by one of the league's own bots")
                folder = self.plan.submissions_dir / name
                if folder.exists():
                    shutil.rmtree(folder)  # left by a submission the league was stopped in the middle of
                await trio.to_thread.run_sync(unpack, data, folder)
                try:
                    spec = bot_spec(folder, name)
                    spec.check_runnable()
                except (SubmissionError, SpecError) as exc:
                    shutil.rmtree(folder, ignore_errors=True)
                    raise SubmissionError(str(exc)) from None
            except SubmissionError as exc:
                return 400, {"error": str(exc)}
            self.register.add(name, bot, version, author.name, "checking", folder, None)
        assert self.nursery is not None, "LeagueDesk.nursery: set it before taking submissions"
        self.nursery.start_soon(self._check, spec)
        return 202, {"entrant": name, "version": version, "status": "checking"}

    async def _check(self, spec: BotSpec) -> None:
        from referee.conformance import check
        from referee.game.family import rules_from_dump

        from .submissions import SubmissionError

        rules = rules_from_dump(self.plan.rules_json)  # the league's family: a classical league checks 13-tile hands
        try:
            report = (await check(spec, rules=rules)).to_json()
        except Exception as exc:  # noqa: BLE001 - a bug in mjref met by a stranger's bot: it must not end the league
            _LOG.exception("the conformance check of %s raised", printable(spec.name))
            report = {"ok": False, "error": f"the conformance check itself failed ({type(exc).__name__}: "
                                            f"{cut(str(exc))}): a bug in mjref, which its log shows in full"}
        report.pop("stderr_path", None)  # a path on the league's machine
        if report["ok"] and self.control.vet is not None:
            problems = await trio.to_thread.run_sync(self.control.vet, spec)
            if problems:  # it passed, but cannot play where the league plays (Dask workers without its folder)
                report = {**report, "ok": False, "error": "; ".join(problems)}
        ident: Hashed | None = None
        if report["ok"]:
            try:  # what joining puts in the store's identity, read here once and in a worker thread: a folder too
                ident = await trio.to_thread.run_sync(hashed, spec)  # large is refused, not raised out of the join
            except (SubmissionError, SpecError) as exc:
                report = {**report, "ok": False, "error": f"its files cannot be identified: {exc}"}
        # Its status may have changed while it was checked (retired or paused by its author or an organiser): only an
        # entry still being checked becomes active; a failed check refuses it whatever it became.
        if not self.register.finish_check(spec.name, report) or ident is None:
            return
        entry = self.register.entry(spec.name)
        for older in self.register.entries():  # a new version replaces the old one, whose history stays
            if entry is not None and older.bot == entry.bot and older.name != spec.name and \
                    older.status in ("active", "paused"):
                self.register.set_status(older.name, "retired")
                self.control.leave(older.name)
        self.control.join(spec, ident)

    def entry(self, token: str | None, name: str) -> tuple[int, dict[str, Any]]:
        """An entry; with its author's (or an organiser's) token, with its whole check report."""
        entry = self.register.entry(name)
        if entry is None:
            return 404, {"error": f"no submitted entry {name[:80]!r}"}
        data = entry.to_json()
        author = self.register.author(token)
        if author is not None and (author.organiser or author.name == entry.author):
            data["report"] = entry.report
        return 200, data

    async def act(self, token: str | None, action: str, name: str) -> tuple[int, dict[str, Any]]:
        """``retire`` (the entry's author or an organiser), ``pause`` or ``reinstate`` (an organiser).  An entry
        being checked may be retired or paused (it then does not join when its check passes), not reinstated."""
        from .submissions import SubmissionError, bot_spec

        author = self.register.author(token)
        if author is None:
            return 401, {"error": "a valid token is needed"}
        entry = self.register.entry(name)
        if entry is None:
            return 404, {"error": f"no submitted entry {name[:80]!r}"}
        if action not in ("retire", "pause", "reinstate"):
            return 400, {"error": "action: retire, pause or reinstate"}
        if not author.organiser and (action != "retire" or author.name != entry.author):
            return 403, {"error": f"only an organiser may {action} an entry" if action != "retire" else
                         "only the entry's author or an organiser may retire it"}
        async with self._acting:  # one action at a time: a pause during a reinstatement's reading waits for it
            entry = self.register.entry(name) or entry  # as it is now (its check may have ended meanwhile)
            if entry.status == "refused":
                why = (entry.report or {}).get("error") or "its check failed"
                return 409, {"error": f"{name!r} was refused ({cut(str(why))}): it never plays"}
            if action != "reinstate":
                status = {"retire": "retired", "pause": "paused"}[action]
                self.register.set_status(name, status)
                self.control.leave(name)
                return 200, {"entrant": name, "status": status}
            if entry.status == "checking":
                return 409, {"error": f"{name!r} is still being checked: it joins the league if its check passes"}
            try:  # its status cannot change meanwhile: other actions wait, and its check is over
                spec = await trio.to_thread.run_sync(bot_spec, Path(entry.folder), name)
                ident = await trio.to_thread.run_sync(hashed, spec)  # hashed again: it may have changed on disk
            except (SubmissionError, SpecError) as exc:
                return 409, {"error": f"{name!r} cannot play as it is on disk: {exc}"}
            what = entrant_change(self.plan.identity, _with_entrant(_without(self.plan.identity, name), spec, ident),
                                  name)
            if what is not None:  # what it runs is not what joined: a new version is a new submission
                return 409, {"error": f"{name!r} changed since it joined the league ({what}): submit it again as a "
                                      "new version"}
            self.register.set_status(name, "active")
            self.control.join(spec, ident)
        return 200, {"entrant": name, "status": "active"}

    def entries(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.register.entries()]


TREND_POINTS = 40  # values in each bot's small rating chart on the page (/api/standings "trends")


class LeaguePage:
    """What the league's page shows beyond the store's standings (:class:`tournaments.ratings.LeagueReader`): each
    bot's rating over time (the running league's :class:`Ratings`), which remote bots are logged in (``online``),
    and a page per bot (:meth:`bot`).  Read from the page's worker threads."""

    def __init__(self, plan: LeaguePlan, reader: Any, control: LeagueControl, register: Any = None,
                 online: Callable[[], dict[str, bool]] | None = None) -> None:
        self.plan = plan
        self.reader = reader
        self.control = control
        self.register = register  # tournaments.submissions.Register (with a desk), for versions
        self.online = online

    def _online(self) -> dict[str, bool]:
        return self.online() if self.online is not None else {}

    def standings(self) -> dict[str, Any]:
        """``/api/standings``: the store's standings with ``trends`` (each bot's mu over time, at most
        ``TREND_POINTS`` values) and ``online`` (each remote bot: whether its wrapper is logged in)."""
        ratings = self.control.ratings
        return {**self.reader.standings(), "trends": ratings.trends(TREND_POINTS) if ratings is not None else {},
                "online": self._online()}

    def bot(self, name: str) -> dict[str, Any] | None:
        """``/api/bots/NAME`` (None: no such entrant): its standing and rating, its rating after each of its matches
        (thinned: ``tournaments.ratings.History``), its versions (a submitted bot's entries, each with whether its
        check passed), and its head-to-head against every bot it met."""
        entry = next((b for b in self.plan.identity.get("bots") or [] if isinstance(b, dict) and b.get("name") == name),
                     None)
        mine = self.register.entry(name) if self.register is not None else None
        if entry is None and mine is None:
            return None
        e = entry or {}
        kind = ("submitted" if mine is not None or e.get("submitted") else "remote" if e.get("remote") else
                "built-in" if e.get("builtin") else "process")
        standing = next((b for b in self.reader.standings()["bots"] if b["name"] == name), None)
        ratings = self.control.ratings
        history = [[at, round(mu, 3), round(sigma, 3)] for at, mu, sigma in ratings.series(name)] \
            if ratings is not None else []
        versions = []
        if mine is not None:
            versions = [{**v.to_json(), "current": v.name == name} for v in self.register.entries()
                        if v.bot == mine.bot]
        return {"name": name, "kind": kind, "active": name in self.plan.active, "online": self._online().get(name),
                "standing": standing, "history": history, "versions": versions,
                "head_to_head": self.reader.head_to_head(name)}


def dask_executor(address: str, p: LeaguePlan, workers: int | None = None) -> Any:
    """A Dask executor for :func:`run_league` (``tournaments.distributed``, as a tournament's), its workers checked
    for every entrant's paths.  Task keys are the league's match IDs under a namespace of its settings, its wall
    salt and its store, and a table's number is never handed out twice (``NEXT_TABLE_KEY``): one key, one match."""
    from . import distributed

    namespace = distributed.namespace_of({**_settings(p.identity), "wall_salt": p.wall_salt,
                                          "store": str(p.store_path.resolve())})
    return distributed.open_dask_executor(address, specs=p.specs.values(), namespace=namespace,
                                          workers=workers or p.config.tournament.workers())


def dask_vet(executor: Any) -> Callable[[BotSpec], list[str]]:
    """:attr:`LeagueControl.vet` on Dask: a submitted bot joins only if every worker has its folder and command."""
    from . import distributed

    def vet(spec: BotSpec) -> list[str]:
        paths = distributed.bot_paths(spec)
        try:
            distributed.check_workers(executor.client, executor.address, (paths,) if paths is not None else (),
                                      executor.timeout)
        except distributed.DaskError as exc:
            return [str(exc).replace("\n", "; ")]
        return []

    return vet


async def run_league(p: LeaguePlan, *, matches: int | None = None, concurrency: int | None = None,
                     on_match: MatchCallback | None = None, control: LeagueControl | None = None,
                     executor: Any = None, remote: RemoteSeating | None = None, available: Available | None = None,
                     task_status: Any = trio.TASK_STATUS_IGNORED) -> int:
    """Play the league until stopped (a signal: then ``Interrupted``) or until ``matches`` more are recorded;
    return how many were recorded.  ``task_status`` is told the league's :class:`Ratings` once the store is read.

    As in a tournament (``tournaments.runner.execute``): ``executor`` plays the matches (Dask:
    ``tournaments.distributed``), ``remote`` seats the remote bots (``referee.server.Server.seating``), whose
    matches are played in this process; ``available`` says whether a remote bot's wrapper is logged in: the league
    seats it only then (its matches wait for nobody)."""
    workers = concurrency or p.config.tournament.workers()
    per_table = p.config.per_table
    recorded = 0
    started = 0
    remote_names = {n for n, spec in p.specs.items() if spec.remote}
    if remote_names and remote is None:
        raise LeagueError(f"{p.where}: bot {sorted(remote_names)[0]!r} is remote: run the league with its wrappers' "
                          "address (mjref league --wrappers HOST:PORT)")
    with running_store(p.store_path, p.logs_dir, p.identity, p.notes, LeagueError) as store:
        try:
            salt = store.wall_salt()
            ratings = Ratings.from_store(store.con)
            kept = stored_ratings(store.con)
            if kept is not None and {n: (r.mu, r.sigma, r.matches) for n, r in kept.items()} != \
                    {n: (r.mu, r.sigma, r.matches) for n, r in ratings.by_name.items()}:
                p.notes.append(f"{p.store_path}: the stored ratings differed from those recomputed from its matches "
                               "(a store edited by hand?): the recomputed ones are kept")
                store.set_meta({RATINGS_KEY: ratings.dumps()})
            chooser = Chooser(ratings, p.active, p.dummy, per_table, available=available,
                              one_at_a_time=remote_names,
                              reserve=lambda n: store.set_meta({NEXT_TABLE_KEY: str(n)}))
            chooser.load(store.con)
            if control is not None:
                control.store, control.chooser, control.ratings = store, chooser, ratings
            task_status.started(ratings)

            def record(rec: MatchRecord) -> None:
                nonlocal recorded
                # The ratings after this match are stored with it (one transaction): stored = recomputed, always.
                before = ratings.checkpoint(rec.seats)
                ratings.add(rec.seats, rec.totals)
                try:
                    new = store.record(rec, {RATINGS_KEY: ratings.dumps()})
                except BaseException:
                    ratings.rollback(before)
                    raise
                if not new:
                    ratings.rollback(before)
                    return
                recorded += 1
                if on_match is not None:
                    on_match(rec, ratings)

            def more() -> bool:
                return matches is None or started < matches

            async def slot(shutdown: Shutdown, player: MatchPlayer) -> None:
                nonlocal started
                while more() and not shutdown.stopped:
                    table = chooser.choose()
                    if table is None:  # nobody can sit now: a remote bot's wrapper away, or no entrant left
                        with shutdown.scope():
                            await trio.sleep(IDLE_POLL)
                        continue
                    try:
                        while table.pending and more() and not shutdown.stopped:
                            seating = table.pending[0]
                            started += 1
                            job = MatchJob.make(table.match(seating, per_table), p.specs, p.rules_json, p.logs_dir,
                                                salt)
                            rec = await player.play_stoppable(job, shutdown)
                            if rec is None:
                                return
                            table.pending.pop(0)
                            record(rec)
                    finally:
                        chooser.release(table)
                        if table.pending:  # stopped by --matches: the next run (or slot) finishes the table
                            chooser.partial.insert(0, table)

            async with watching_signals() as shutdown:
                with MatchPlayer(workers, executor, remote) as player:
                    async with box_pool(workers) as player.boxes, trio.open_nursery() as nursery:
                        for _ in range(workers):
                            nursery.start_soon(slot, shutdown, player)
        finally:
            if control is not None:
                control.store = control.chooser = None
    shutdown.raise_if_stopped()
    return recorded


__all__ = [
    "LeagueConfig", "LeagueControl", "LeagueDesk", "LeagueError", "LeaguePage", "LeaguePlan", "dask_executor",
    "dask_vet", "load_league", "open_league", "parse_league", "run_league",
]
