"""Tournaments at scale: the streaming schedule, one runner per store, a bot's identity, damaged stores."""

from __future__ import annotations

import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import weakref
from collections import Counter
from dataclasses import astuple
from itertools import combinations, permutations
from pathlib import Path

import pytest

from referee.cli import main
from tournaments import runner as runner_mod
from tournaments.config import concurrency_warning, default_concurrency, diff_identity, parse_config
from tournaments.lock import StoreBusy, StoreLock, lock_path
from tournaments.runner import TournamentError, file_sha256, plan, run_tournament
from tournaments.schedule import Schedule, build_schedule
from tournaments.store import Store

ROOT = Path(__file__).resolve().parents[2]


def reference_schedule(names: list[str], fmt: str, duplicate: bool, count: int, seeds: list[int]) -> list[tuple]:
    """The schedule as the documented order says, built the slow way (a list of everything)."""
    if fmt == "gauntlet":
        rest = names[1:]
        tables = [(names[0], *t) for t in combinations(rest, 3)] if len(rest) >= 3 else \
            [(names[0], *rest, *["dummy-greedy"] * (3 - len(rest)))]
    else:
        tables = list(combinations(names, 4)) if len(names) >= 4 else \
            [(*names, *["dummy-greedy"] * (4 - len(names)))]
    out: list[tuple] = []
    for g, table in enumerate(tables):
        order = list(permutations(table)) if count == 24 else \
            [tuple(table[(i + k) % 4] for i in range(4)) for k in range(4)]
        for s_index, seed in enumerate(seeds):
            rs = range(len(order)) if duplicate else [s_index % 4]
            for r in rs:
                group = f"g{g:04d}-s{seed}"
                out.append((f"{group}-r{r:02d}", len(out), group, seed, r, order[r] if duplicate else
                            tuple(table[(i + r) % 4] for i in range(4))))
    return out


@pytest.mark.parametrize("n", [2, 4, 5, 7])
@pytest.mark.parametrize("fmt", ["round-robin", "gauntlet"])
@pytest.mark.parametrize(("duplicate", "count"), [(True, 4), (True, 24), (False, 4)])
def test_the_streaming_schedule_follows_the_documented_order(n: int, fmt: str, duplicate: bool, count: int) -> None:
    names = [f"b{i}" for i in range(n)]
    cfg = parse_config({"bots": [{"name": x, "builtin": "random"} for x in names], "format": fmt,
                        "duplicate": duplicate, "seatings": count, "seeds": [7, 3, 11]})
    assert [astuple(m) for m in build_schedule(cfg)] == reference_schedule(names, fmt, duplicate, count, [7, 3, 11])


def test_a_million_seeds_is_arithmetic_not_a_list() -> None:
    cfg = parse_config({"seeds": 1_000_000, "bots": [{"name": f"b{i}", "builtin": "random"} for i in range(6)]})
    s = Schedule(cfg)
    assert len(s) == 15 * 1_000_000 * 4
    last = s[-1]
    assert (last.id, last.index, last.seed) == ("g0014-s1000000-r03", len(s) - 1, 1_000_000)
    assert last.seats == ("b5", "b2", "b3", "b4")  # table 14 is (b2, b3, b4, b5), rotation 3
    assert next(s.from_index(4_000_000)).id == "g0001-s1-r00"  # a generator: nothing is built until asked


def test_resume_plays_exactly_the_unrecorded_indices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner_mod, "WINDOW", 8)  # several windows, some full, some partial
    cfg = parse_config({"name": "t", "seeds": 10, "hands": 1,
                        "bots": [{"name": x, "builtin": "random"} for x in "abcd"]})
    p = plan(cfg, tmp_path)
    recorded = {0, 1, 2, 3, 4, 5, 6, 7, 9, 17, 39}
    with Store(p.store_path) as store:
        for i in recorded:
            m = p.schedule[i]
            store.con.execute("INSERT INTO matches VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                              (m.id, i, m.group, m.seed, m.rotation, *m.seats, 1, 0, 0, 0, 0, None, None, 0.0, "x"))
    assert [j.match.index for j in plan(cfg, tmp_path).pending()] == [i for i in range(40) if i not in recorded]


# ------------------------------------------------------------------------------------------------ the lock
def test_a_second_lock_names_the_holder_and_a_dead_holder_is_taken_over(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with StoreLock(store):
        with pytest.raises(StoreBusy, match=rf"in use by another runner \(pid {os.getpid()} on \S+ since 20"):
            StoreLock(store).acquire()
    assert lock_path(store).read_text() == ""  # a clean end leaves no holder behind
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    import socket

    lock_path(store).write_text(json.dumps({"pid": int(dead.stdout), "host": socket.gethostname(),
                                            "since": "2026-01-01T00:00:00+00:00"}))
    with StoreLock(store) as lock:
        assert lock.note is not None and f"pid {int(dead.stdout)}" in lock.note and "which is gone" in lock.note


def write_file(tmp_path: Path, seeds: int, hands: int = 2, extra: str = "") -> Path:
    path = tmp_path / "t.toml"
    text = f'name = "t"\nseeds = {seeds}\nhands = {hands}\nconcurrency = 1\nstore = "t.sqlite"\n{extra}\n'
    for n, b in (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("gc", "greedy:chowness=0.9")):
        text += f'[[bots]]\nname = "{n}"\nbuiltin = "{b}"\n'
    path.write_text(text)
    return path


@pytest.mark.slow
def test_two_runners_on_one_store(tmp_path: Path) -> None:
    """The second runner exits 2 at once naming the first; afterwards every log matches its SHA-256 and replays."""
    path = write_file(tmp_path, seeds=3, hands=2)
    cmd = [sys.executable, "-m", "referee.cli", "tournament", str(path), "--quiet"]
    first = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    store = tmp_path / "t.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (lock_path(store).exists() and lock_path(store).read_text().strip()):
        time.sleep(0.05)
    first.send_signal(signal.SIGSTOP)  # still running, however fast its matches are, until the second has tried
    try:
        second = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert first.poll() is None, "the first runner was still running when the second gave up"
    finally:
        first.send_signal(signal.SIGCONT)
    assert second.returncode == 2
    assert second.stderr.count("\n") == 1 and f"in use by another runner (pid {first.pid} on " in second.stderr
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    con = sqlite3.connect(store)
    rows = con.execute("SELECT id, log, log_sha256 FROM matches").fetchall()
    assert len(rows) == 12 and len({r[0] for r in rows}) == 12
    for _, log, sha in rows:
        assert file_sha256(Path(log)) == sha
        assert main(["replay", log, "--json"]) == 0
    assert not list((tmp_path / "t-logs").glob("*.part"))


# ------------------------------------------------------------------------------------------------ bot identity
def script_bot(folder: Path, body: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    bot = folder / "bot.py"
    bot.write_text(f"import runpy\n{body}\nrunpy.run_module('bots.drawdiscard', run_name='__main__')\n")
    return bot


def script_config(folder: Path, identity: str = "files") -> dict[str, object]:
    return {"name": "t", "seeds": 1, "hands": 1, "bots": [
        {"name": "mine", "cmd": [sys.executable, "bot.py"], "cwd": str(folder), "env": {"PYTHONPATH": str(ROOT)},
         "identity": identity},
        *({"name": n, "builtin": "random"} for n in ("a", "b", "c"))]}


def test_a_script_bot_edited_between_runs_is_refused_naming_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    bot = script_bot(folder)
    cfg = parse_config(script_config(folder))
    p = run_tournament(cfg, tmp_path, concurrency=1)
    assert p.identity["files"]["mine"].keys() >= {"bot.py"}
    (folder / "notes.txt").write_text("not part of a files identity")
    assert plan(cfg, tmp_path).done == 4
    bot.write_text(bot.read_text() + "# tuned\n")
    with pytest.raises(TournamentError) as info:
        plan(cfg, tmp_path)
    assert "bot 'mine' changed: bot.py (changed)" in str(info.value)
    assert "[" not in str(info.value)  # no JSON arrays dumped
    assert "\n" not in str(info.value), "one line (the command line's fail() showed its newlines as \\n)"


def test_a_folder_identity_covers_every_file_but_the_ignored(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    script_bot(folder)
    (folder / "model.bin").write_bytes(b"\x00" * 10)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"1")
    cfg = parse_config(script_config(folder, "folder"))
    run_tournament(cfg, tmp_path, concurrency=1)
    (folder / "__pycache__" / "x.pyc").write_bytes(b"2")
    (folder / "run.log").write_text("ignored")
    assert plan(cfg, tmp_path).done == 4
    (folder / "model.bin").write_bytes(b"\x01" * 10)
    with pytest.raises(TournamentError, match=r"bot 'mine' changed: model.bin \(changed\)"):
        plan(cfg, tmp_path)


def test_standings_show_each_process_bots_identity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "mine"
    script_bot(folder)
    p = run_tournament(parse_config(script_config(folder)), tmp_path, concurrency=1)
    assert main(["standings", str(p.store_path), "--format", "json"]) == 0
    bots = {b["name"]: b for b in json.loads(capsys.readouterr().out)["bots"]}
    assert len(bots["mine"]["identity"]) == 12 and bots["a"]["identity"] is None


# ------------------------------------------------------------------------------------------------ damaged stores
def test_empty_damaged_and_foreign_stores_are_refused_in_one_line(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = write_file(tmp_path, seeds=1, hands=1)
    store = tmp_path / "t.sqlite"
    store.write_bytes(b"")
    assert main(["tournament", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "empty file (0 bytes)" in err and store.stat().st_size == 0
    assert main(["standings", str(store)]) == 2 and "empty file" in capsys.readouterr().err
    assert main(["tournament", str(path), "--quiet", "--restart"]) == 0  # the explicit way to discard
    capsys.readouterr()
    data = bytearray(store.read_bytes())
    data[len(data) // 2: len(data) // 2 + 4096] = os.urandom(4096)  # garbage in the middle
    store.write_bytes(bytes(data))
    for p in (store.with_name("t.sqlite-wal"), store.with_name("t.sqlite-shm")):
        p.unlink(missing_ok=True)
    assert main(["tournament", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "t.sqlite" in err and "Traceback" not in err
    foreign = tmp_path / "other.sqlite"
    with sqlite3.connect(foreign) as con:
        con.execute("CREATE TABLE people (name TEXT)")
    assert main(["tournament", str(path), "--quiet", "--store", str(foreign), "--restart"]) == 2
    assert "not an mjref results store (its tables: people)" in capsys.readouterr().err
    notes = tmp_path / "notes.txt"
    notes.write_text("precious")
    assert main(["tournament", str(path), "--quiet", "--store", str(notes), "--restart"]) == 2
    assert notes.read_text() == "precious"


def test_a_store_without_results_accepts_a_corrected_file(tmp_path: Path) -> None:
    cfg = parse_config({"name": "t", "seeds": 1, "hands": 1, "bots": [{"name": x, "builtin": "random"} for x in "ab"]})
    plan(cfg, tmp_path)  # a run that failed before its first match was recorded
    fixed = parse_config({**cfg.model_dump(), "hands": 2})
    p = plan(fixed, tmp_path)
    assert any("held no results yet" in n for n in p.notes)


def test_differences_name_only_the_changed_fields() -> None:
    old = {"seeds": list(range(1, 1001)), "bots": [{"name": "a", "timeout": 5}, {"name": "b", "timeout": 1}]}
    new = {"seeds": [*range(1, 4), 99, *range(5, 1001)], "bots": [{"name": "a", "timeout": 9}, {"name": "c"}]}
    assert diff_identity(old, new) == ["bots: 'b' removed", "bots: 'c' added", "bots[a].timeout: 5 -> 9",
                                       "seeds[3]: 4 -> 99"]


def test_process_bots_leave_a_core_for_the_referee() -> None:
    builtin = parse_config({"bots": [{"name": "a", "builtin": "random"}]})
    proc = parse_config({"bots": [{"name": "a", "cmd": ["x"], "threads": 2}, {"name": "b", "cmd": ["y"]}]})
    assert default_concurrency(builtin, cores=8) == 8
    assert default_concurrency(proc, cores=8) == 3 and default_concurrency(proc, cores=2) == 1
    assert concurrency_warning(proc, 3, cores=8) is None
    warning = concurrency_warning(proc, 4, cores=8)
    assert warning is not None and "8 of this machine's 8 cores" in warning
    assert concurrency_warning(builtin, 64, cores=2) is None
    assert concurrency_warning(proc, 1, cores=2) is None  # one match at once cannot be lowered: no warning


def test_regress_takes_the_store_lock(tmp_path: Path) -> None:
    """regress writes a results store as a tournament does: while another holds the store, it is refused at once,
    naming the holder, both when planning and when running."""
    import trio

    from referee.game.taiwan16.rules import make_ruleset
    from tournaments.regress import RegressError, RegressSettings, plan_regress, run_regress
    from wrappers.spec import BotSpec

    settings = RegressSettings(BotSpec(name="greedy", builtin="greedy"), BotSpec(name="random", builtin="random"),
                               rules=make_ruleset({"hands": 1}), max_hands=8)
    store = tmp_path / "r.sqlite"
    with StoreLock(store), pytest.raises(RegressError, match=rf"in use by another runner \(pid {os.getpid()}"):
        plan_regress(settings, store)
    p = plan_regress(settings, store)
    with StoreLock(store), pytest.raises(RegressError, match=rf"in use by another runner \(pid {os.getpid()}"):
        trio.run(lambda: run_regress(p, concurrency=1))
    assert trio.run(lambda: run_regress(p, concurrency=1)).matches_played > 0
    assert lock_path(store).read_text() == ""  # released at the end



# ------------------------------------------------------------------------------------------------ memory
def live_objects() -> Counter[str]:
    """How many objects of each type the garbage collector tracks in this process, dead weak references left out
    (a ``sqlite3`` connection keeps one per cursor it made and drops them every 200 cursors: bounded)."""
    gc.collect()
    return Counter(type(o).__qualname__ for o in gc.get_objects()
                   if not (isinstance(o, weakref.ReferenceType) and o() is None))


def runner_growth(tmp_path: Path) -> dict[str, object]:
    """Play 200 one-hand matches at concurrency 1 (in a thread of this process, so what a match leaves in the
    process that plays it is counted too) and say what grew from match 40 to match 200."""
    import trio

    from wrappers import sandbox

    cfg = parse_config({"name": "t", "seeds": 50, "hands": 1,
                        "bots": [{"name": x, "builtin": "random"} for x in "abcd"]})
    p = plan(cfg, tmp_path)
    count = [0]
    seen: dict[int, tuple[Counter[str], tuple[str, ...]]] = {}

    def on_match(_: object) -> None:
        count[0] += 1
        if count[0] in (40, 200):
            seen[count[0]] = (live_objects(), sandbox.hidden_paths())

    trio.run(lambda: runner_mod.execute(p, concurrency=1, on_match=on_match))
    (early, hidden_early), (late, hidden_late) = seen[40], seen[200]
    return {"grown": {t: late[t] - early[t] for t in late if late[t] - early[t] >= 40},
            "hidden_same": hidden_late == hidden_early,
            "parts": [h for h in hidden_late if h.endswith(".part")]}


def test_the_runner_keeps_nothing_per_match(tmp_path: Path) -> None:
    """What the runner holds after 40 matches it still holds after 200: no type has 160 more objects (one per
    match), and the sandbox hides the same paths (no log name per match).  Found by ``bench/tournament.py --scale
    --diagnose``: every match left its cancel scope in the run's ``Shutdown`` (11 MB at 100,000 matches) and its
    log's name among the sandbox's hidden paths.  Measured in a fresh interpreter, as a runner starts: in a pytest
    worker, what earlier tests left running (a Dask cluster's threads) makes weak references per match that are
    not the runner's (seen as 58 more ``ReferenceType`` after test_distributed.py)."""
    code = ("import json, runpy, sys; from pathlib import Path; m = runpy.run_path(sys.argv[1]); "
            "print(json.dumps(m['runner_growth'](Path(sys.argv[2]))))")
    out = subprocess.run([sys.executable, "-c", code, __file__, str(tmp_path)], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["grown"] == {}
    assert r["hidden_same"]
    assert r["parts"] == []


def test_a_tournament_of_process_bots_hides_no_path_per_match(tmp_path: Path) -> None:
    """While a match is played its log and its bots' stderr folder are hidden from sandboxed bots; once it is over
    its logs folder (hidden for good) covers them: nothing is left registered per match (a tournament of 100,000
    matches held 100,000 names, and every bot start checks each)."""
    from wrappers import sandbox

    folder = tmp_path / "mine"
    script_bot(folder)
    before = set(sandbox.hidden_paths())
    p = run_tournament(parse_config(script_config(folder)), tmp_path, concurrency=1)
    assert p.logs_dir.is_dir() and len(list(p.logs_dir.glob("*.stderr"))) == 4  # four matches, each a stderr folder
    added = set(sandbox.hidden_paths()) - before
    assert str(p.logs_dir) in added
    assert not [h for h in added if h.startswith(str(p.logs_dir) + os.sep)], added


def test_a_file_hashed_again_after_any_change_gets_its_new_hash(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``file_sha256`` keeps what it hashed (a match hashed its interpreter ten times), never past a change: the
    same size and the old modification time put back, and a file replaced by another at the same path.  A file
    changed in the last seconds is not kept at all."""
    import hashlib
    import os

    from wrappers import identity

    bot = tmp_path / "bot"
    bot.write_bytes(b"A" * 4096)
    assert file_sha256(bot) == hashlib.sha256(b"A" * 4096).hexdigest()
    assert identity._stamp(os.stat(bot)) not in identity._HASHED  # just written: not settled, not kept
    monkeypatch.setattr(identity, "_SETTLED_NS", -1)  # as if written long ago (the change time cannot be set back)
    assert file_sha256(bot) == hashlib.sha256(b"A" * 4096).hexdigest()
    assert identity._HASHED[identity._stamp(os.stat(bot))] == hashlib.sha256(b"A" * 4096).hexdigest()
    settled = os.stat(bot)
    with open(bot, "r+b") as f:  # the same size, and the modification time set back: the change time moves
        f.write(b"B")
    os.utime(bot, ns=(settled.st_atime_ns, settled.st_mtime_ns))
    assert file_sha256(bot) == hashlib.sha256(b"B" + b"A" * 4095).hexdigest()
    other = tmp_path / "other"
    other.write_bytes(b"C" * 4096)
    os.replace(other, bot)
    assert file_sha256(bot) == hashlib.sha256(b"C" * 4096).hexdigest()
