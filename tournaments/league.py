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
then by name.  Fewer than four entrants: the ruleset's default dummy fills the empty seats.

**Ratings** (:class:`Ratings`): openskill's Plackett-Luce model, each match one update with the four seats ranked
by their points in it (ties share a place); dummies keep the initial rating and are not updated.  Matches are rated
in the order they were recorded (the store's rowid); the ratings after each match are written in the same
transaction as the match (meta ``league_ratings``), so the stored ratings always belong to exactly the matches
stored, and recomputing them from the matches gives the same numbers (checked at every start).

**Stopping and restarting.**  Ctrl-C, SIGTERM and SIGHUP stop the matches in flight without recording them;
``kill -9`` loses at most those.  On the next start the store says which tables are finished: a table with no
recorded match is never played again (its seed is skipped), a table with some seatings recorded is finished first.
"""

from __future__ import annotations

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
from .lock import StoreLock
from .ratings import RATINGS_KEY, Rating, Ratings, stored_ratings
from .runner import MatchJob, MatchPlayer, TournamentError, locked_store, seats_and_places, tournament_identity
from .schedule import ScheduledMatch, seatings
from .store import MatchRecord, Store, StoreError

LEAGUE_VERSION = 1  # in the store's identity: a store a league wrote says so
ID_PREFIX = "L"


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
    "dask": "a league plays its matches on this machine",
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
    config = parse_config({**data, "format": "round-robin", "seeds": 1}, where)
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


class Chooser:
    """The league's memory of who met whom and what is in flight; chooses the next table (module docstring)."""

    def __init__(self, ratings: Ratings, active: Sequence[str], dummy: str, per_table: int) -> None:
        self.ratings = ratings
        self.active = sorted(active)
        self.dummy = f"{DUMMY_PREFIX}-{dummy}"
        self.per_table = per_table
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
        for grp, rotation, *seats in con.execute("SELECT grp, rotation, seat1, seat2, seat3, seat4 FROM matches"):
            self.count(seats)
            g = parse_table(str(grp))
            if g is None:
                raise StoreError(f"match group {printable(grp)!r} is not a league table")
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

    def choose(self) -> Table:
        if self.partial:
            table = self.partial.pop(0)
        else:
            chosen: list[str] = []
            pool = list(self.active)
            if pool:
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


_BOT_KEYS = ("bots", "executables", "files")


def _settings(identity: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in identity.items() if k not in _BOT_KEYS}


def _entry(identity: Mapping[str, Any], name: str) -> dict[str, Any]:
    bots = identity.get("bots") or []
    entry = next((b for b in bots if isinstance(b, dict) and b.get("name") == name), None)
    return {"entry": entry, **{k: (identity.get(k) or {}).get(name) for k in ("executables", "files")}}


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
            if canonical(_entry(old, name)) != canonical(mine):
                what = "; ".join(diff_identity(_entry(old, name), mine)[:4])
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
    rules = ruleset_of(t, where)
    if getattr(rules, "family", "taiwan16") != "taiwan16":  # its entrants' conformance check plays Taiwan hands
        raise LeagueError(f"{where}: [rules]: a league runs the taiwan16 family only (not {rules.family} yet)")
    specs = bot_specs(t, base_dir, where)
    submissions = base_dir / config.submissions
    check_output_dir(submissions, f"{where}: submissions", LeagueError, private=True)
    submitted = submitted_specs(submissions, {s.name for s in specs})
    try:
        for spec in specs:
            spec.check_runnable()
        identity = {"league": LEAGUE_VERSION,
                    **{k: v for k, v in tournament_identity(t, specs).items() if k not in ("format", "seeds")}}
        for spec in submitted:
            identity = _with_entrant(identity, spec)
    except SpecError as exc:
        raise LeagueError(f"{where}: {exc}") from None
    specs += submitted
    by_name, dummy, store_path, logs_dir = seats_and_places(t, rules, specs, base_dir, where, store_override,
                                                           LeagueError)
    notes: list[str] = []
    try:
        with locked_store(store_path, restart, notes) as store:
            recorded = store.count()
            old = store.identity()
            merged = merge_identity(old, identity, where, store_path, recorded)
            if old is None or not recorded:
                if old is not None:
                    store.clear()
                store.initialise(t.name, merged, t.wall_salt)
            elif merged != old:
                store.set_identity(merged)
    except StoreError as exc:
        raise LeagueError(str(exc)) from None
    return LeaguePlan(config, store_path, logs_dir, submissions, by_name, [s.name for s in specs], dummy,
                      rules.model_dump(), merged, notes, where)


def submitted_specs(folder: Path, taken: set[str]) -> list[BotSpec]:
    """The specs of the active submitted entries of a league's register (none without a register)."""
    from .submissions import Register, SubmissionError, bot_spec

    if not (folder / "entries.sqlite").exists():
        return []
    register = Register(folder)
    try:
        out = []
        for entry in register.entries():
            if entry.status != "active" or entry.name in taken:
                continue
            try:
                out.append(bot_spec(Path(entry.folder), entry.name))
            except SubmissionError as exc:
                raise LeagueError(f"{folder}: entry {entry.name!r}: {exc}") from None
        return out
    finally:
        register.close()


def _with_entrant(identity: Mapping[str, Any], spec: BotSpec) -> dict[str, Any]:
    """``identity`` with a submitted entrant: its bot entry and what it runs (its folder's files)."""
    entry = {"name": spec.name, "cmd": list(spec.cmd or ()), "submitted": True}
    return {**identity, "bots": [*(identity.get("bots") or []), entry],
            "executables": {**(identity.get("executables") or {}), spec.name: spec.executable_hash()},
            "files": {**(identity.get("files") or {}), spec.name: spec.identity_files()}}


# ------------------------------------------------------------------------------------------------ running


MatchCallback = Callable[[MatchRecord, Ratings], None]


class LeagueControl:
    """Changes to a running league's entrants, made between matches in the league's own loop: a submitted bot
    that passed its check joins (the store's identity records what it runs), a paused or retired one leaves."""

    def __init__(self, plan: LeaguePlan) -> None:
        self.plan = plan
        self.store: Store | None = None
        self.chooser: Chooser | None = None

    def join(self, spec: BotSpec) -> None:
        p = self.plan
        if spec.name not in p.specs:
            p.specs[spec.name] = spec
            identity = _with_entrant(p.identity, spec)
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
        from referee.game.rules import Ruleset

        rules = Ruleset.model_validate(self.plan.rules_json)
        report = (await check(spec, rules=rules)).to_json()
        report.pop("stderr_path", None)  # a path on the league's machine
        ok = bool(report["ok"])
        self.register.set_status(spec.name, "active" if ok else "refused", report)
        if ok:
            entry = self.register.entry(spec.name)
            for older in self.register.entries():  # a new version replaces the old one, whose history stays
                if entry is not None and older.bot == entry.bot and older.name != spec.name and \
                        older.status in ("active", "paused"):
                    self.register.set_status(older.name, "retired")
                    self.control.leave(older.name)
            self.control.join(spec)

    def entry(self, token: str | None, name: str) -> tuple[int, dict[str, Any]]:
        """An entry; with its author's (or an organiser's) token, with its whole check report."""
        entry = self.register.entry(name)
        if entry is None:
            return 404, {"error": f"no submitted entry {printable(name)!r}"}
        data = entry.to_json()
        author = self.register.author(token)
        if author is not None and (author.organiser or author.name == entry.author):
            data["report"] = entry.report
        return 200, data

    def act(self, token: str | None, action: str, name: str) -> tuple[int, dict[str, Any]]:
        """``retire`` (the entry's author or an organiser), ``pause`` or ``reinstate`` (an organiser)."""
        from .submissions import bot_spec

        author = self.register.author(token)
        if author is None:
            return 401, {"error": "a valid token is needed"}
        entry = self.register.entry(name)
        if entry is None:
            return 404, {"error": f"no submitted entry {printable(name)!r}"}
        if action not in ("retire", "pause", "reinstate"):
            return 400, {"error": "action: retire, pause or reinstate"}
        if not author.organiser and (action != "retire" or author.name != entry.author):
            return 403, {"error": f"only an organiser may {action} an entry" if action != "retire" else
                         "only the entry's author or an organiser may retire it"}
        if entry.status == "refused":
            return 409, {"error": f"{name!r} failed its check: it never plays"}
        status = {"retire": "retired", "pause": "paused", "reinstate": "active"}[action]
        self.register.set_status(name, status)
        if status == "active":
            self.control.join(bot_spec(Path(entry.folder), name))
        else:
            self.control.leave(name)
        return 200, {"entrant": name, "status": status}

    def entries(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.register.entries()]


async def run_league(p: LeaguePlan, *, matches: int | None = None, concurrency: int | None = None,
                     on_match: MatchCallback | None = None, control: LeagueControl | None = None,
                     task_status: Any = trio.TASK_STATUS_IGNORED) -> int:
    """Play the league until stopped (a signal: then ``Interrupted``) or until ``matches`` more are recorded;
    return how many were recorded.  ``task_status`` is told the league's :class:`Ratings` once the store is read."""
    workers = concurrency or p.config.tournament.workers()
    per_table = p.config.per_table
    try:
        lock = StoreLock(p.store_path).acquire()
    except StoreError as exc:
        raise LeagueError(str(exc)) from None
    recorded = 0
    started = 0
    try:
        if lock.note:
            p.notes.append(lock.note)
        p.logs_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        store = Store(p.store_path)
        try:
            if store.identity() != p.identity:
                raise LeagueError(f"{p.store_path}: the store changed since this league was opened; run again")
            salt = store.wall_salt()
            ratings = Ratings.from_store(store.con)
            kept = stored_ratings(store.con)
            if kept is not None and {n: (r.mu, r.sigma, r.matches) for n, r in kept.items()} != \
                    {n: (r.mu, r.sigma, r.matches) for n, r in ratings.by_name.items()}:
                p.notes.append(f"{p.store_path}: the stored ratings differed from those recomputed from its matches "
                               "(a store edited by hand?): the recomputed ones are kept")
                store.set_meta({RATINGS_KEY: ratings.dumps()})
            chooser = Chooser(ratings, p.active, p.dummy, per_table)
            chooser.load(store.con)
            if control is not None:
                control.store, control.chooser = store, chooser
            task_status.started(ratings)

            def record(rec: MatchRecord) -> None:
                nonlocal recorded
                # The ratings after this match are stored with it (one transaction): stored = recomputed, always.
                before = (ratings.rated, {n: (r.mu, r.sigma, r.matches) for n, r in ratings.by_name.items()})
                ratings.add(rec.seats, rec.totals)
                try:
                    new = store.record(rec, {RATINGS_KEY: ratings.dumps()})
                except BaseException:
                    _restore(ratings, before)
                    raise
                if not new:
                    _restore(ratings, before)
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
                with MatchPlayer(workers, None) as player:
                    async with trio.open_nursery() as nursery:
                        for _ in range(workers):
                            nursery.start_soon(slot, shutdown, player)
        finally:
            if control is not None:
                control.store = control.chooser = None
            store.close()
    finally:
        lock.release()
    shutdown.raise_if_stopped()
    return recorded


def _restore(ratings: Ratings, before: tuple[int, dict[str, tuple[float, float, int]]]) -> None:
    ratings.rated = before[0]
    ratings.by_name = {n: Rating(*v) for n, v in before[1].items()}


__all__ = [
    "LeagueConfig", "LeagueControl", "LeagueDesk", "LeagueError", "LeaguePlan", "load_league", "open_league",
    "parse_league", "run_league",
]
