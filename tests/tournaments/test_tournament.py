"""Tournaments: schedules, the store, resume after kill -9, and refusing a changed file."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from referee.cli import main
from tournaments.config import ConfigError, TournamentConfig, demo_config, load_config, parse_config
from tournaments.runner import TournamentError, file_sha256, plan, run_tournament
from tournaments.schedule import build_schedule

ROOT = Path(__file__).resolve().parents[2]


def config(**over: object) -> TournamentConfig:
    data: dict[str, object] = {
        "name": "t", "seeds": 2, "hands": 2,
        "bots": [{"name": n, "builtin": b} for n, b in
                 (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("gc", "greedy:chowness=0.9"),
                  ("gh", "greedy:hiddenness=0.9"))],
    }
    data.update(over)
    return parse_config(data)


def write_toml(path: Path, *, seeds: int = 2, hands: int = 2, bots: int = 5, extra: str = "") -> Path:
    names = [("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("gc", "greedy:chowness=0.9"),
             ("gh", "greedy:hiddenness=0.9")][:bots]
    text = f'name = "t"\nseeds = {seeds}\nhands = {hands}\nconcurrency = 2\nstore = "t.sqlite"\n{extra}\n'
    for n, b in names:
        text += f'[[bots]]\nname = "{n}"\nbuiltin = "{b}"\n'
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------------------------ schedules
@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_round_robin_duplicate_is_complete_and_balanced(n: int) -> None:
    names = [f"b{i}" for i in range(n)]
    cfg = config(bots=[{"name": x, "builtin": "random"} for x in names], seeds=3)
    sched = build_schedule(cfg)
    assert len(sched) == len(list(combinations(names, 4))) * 3 * 4
    assert len({m.id for m in sched}) == len(sched)
    tables = Counter(frozenset(m.seats) for m in sched)
    assert set(tables) == {frozenset(c) for c in combinations(names, 4)}
    for seed in cfg.seed_list:
        seat_counts = Counter((name, pos) for m in sched if m.seed == seed for pos, name in enumerate(m.seats))
        for name in names:
            counts = {seat_counts[(name, pos)] for pos in range(4)}
            assert len(counts) == 1, f"{name} does not sit in every seat equally often on seed {seed}"
    for group in {m.group for m in sched}:
        members = [m for m in sched if m.group == group]
        assert len(members) == 4 and len({m.seed for m in members}) == 1
        assert len({frozenset(m.seats) for m in members}) == 1


def test_all_24_seatings() -> None:
    sched = build_schedule(config(seatings=24, seeds=1, bots=[{"name": x, "builtin": "random"} for x in "abcd"]))
    assert len(sched) == 24 and len({m.seats for m in sched}) == 24


def test_gauntlet_puts_the_first_bot_in_every_table() -> None:
    cfg = config(format="gauntlet", seeds=1)
    sched = build_schedule(cfg)
    assert len(sched) == len(list(combinations(range(4), 3))) * 4  # C(N-1, 3) tables × 4 seatings
    assert all("g" in m.seats for m in sched)


def test_fewer_than_four_bots_are_filled_by_the_dummy() -> None:
    cfg = config(bots=[{"name": "mine", "builtin": "random"}], seeds=1)
    sched = build_schedule(cfg)
    assert len(sched) == 4
    assert all(Counter(m.seats) == Counter({"mine": 1, "dummy-greedy": 3}) for m in sched)


def test_plain_seating_rotates_by_seed() -> None:
    sched = build_schedule(config(duplicate=False, seeds=4, bots=[{"name": x, "builtin": "random"} for x in "abcd"]))
    assert len(sched) == 4
    assert Counter(m.seats.index("a") for m in sched) == Counter({0: 1, 1: 1, 2: 1, 3: 1})


# ------------------------------------------------------------------------------------------------ files
def test_config_errors_name_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown field 'colour'"):
        parse_config({"colour": "red", "bots": [{"name": "a", "builtin": "greedy"}]}, "t.toml")
    with pytest.raises(ConfigError, match="two bots are named"):
        parse_config({"bots": [{"name": "a", "builtin": "greedy"}, {"name": "a", "builtin": "random"}]})
    bad = tmp_path / "bad.toml"
    bad.write_text("seeds = [\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    p = write_toml(tmp_path / "r.toml", extra="[rules]\nflowerz = true\n")
    with pytest.raises(ConfigError, match="flowerz"):
        plan(load_config(p), tmp_path)


def test_cli_reports_bad_files_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", str(tmp_path / "missing.toml")]) == 2
    err = capsys.readouterr().err
    assert "missing.toml" in err and "cannot read" in err and err.count("\n") == 1


def test_demo_config_is_valid() -> None:
    cfg = demo_config()
    assert len(cfg.bots) == 5 and len(build_schedule(cfg)) == 5 * 2 * 4


# ------------------------------------------------------------------------------------------------ running
def test_run_records_every_match_once_and_resume_plays_nothing(tmp_path: Path) -> None:
    cfg = load_config(write_toml(tmp_path / "t.toml", seeds=1, bots=4))
    p = run_tournament(cfg, tmp_path, concurrency=2)
    con = sqlite3.connect(p.store_path)
    ids = [r[0] for r in con.execute("SELECT id FROM matches")]
    assert sorted(ids) == sorted(m.id for m in build_schedule(cfg))
    assert con.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 4 * len(ids)
    assert con.execute("SELECT COUNT(*) FROM hands").fetchone()[0] == 2 * len(ids)
    for (total,) in con.execute("SELECT total1 + total2 + total3 + total4 FROM matches"):
        assert total == 0
    again = plan(cfg, tmp_path)
    assert again.jobs == [] and again.done == len(ids)


def test_changed_file_is_refused_with_differences(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "t.toml", seeds=1, bots=4)
    run_tournament(load_config(path), tmp_path, concurrency=1)
    changed = write_toml(tmp_path / "t.toml", seeds=1, bots=4, hands=3)
    with pytest.raises(TournamentError) as info:
        plan(load_config(changed), tmp_path)
    assert "hands: 2 -> 3" in str(info.value) and "--restart" in str(info.value)
    p = plan(load_config(changed), tmp_path, restart=True)
    assert len(p.jobs) == len(p.schedule) and not p.done


@pytest.mark.slow
def test_resume_after_kill_9(tmp_path: Path) -> None:
    """A real `mjref tournament` process killed with SIGKILL part-way, then rerun: every match exactly once."""
    # 20 matches of 6 hands, 2 at once: the kill comes after 3 (polled every 0.1 s), with matches in flight and most
    # unplayed (2-hand matches all finished between two polls of a loaded CI machine)
    path = write_toml(tmp_path / "t.toml", seeds=1, hands=6, bots=5)
    cfg = load_config(path)
    expected = {m.id for m in build_schedule(cfg)}
    cmd = [sys.executable, "-m", "referee.cli", "tournament", str(path), "--quiet"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    store = tmp_path / "t.sqlite"
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline:
        time.sleep(0.1)
        if store.exists():
            try:
                with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as con:
                    done = con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
            except sqlite3.Error:
                continue
            if done >= 3:
                break
    assert 3 <= done < len(expected), "killed part-way"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    rerun = subprocess.run(cmd + ["--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    con = sqlite3.connect(store)
    rows = con.execute("SELECT id, log, log_sha256, hands FROM matches").fetchall()
    ids = [r[0] for r in rows]
    assert len(ids) == len(set(ids)) == len(expected) and set(ids) == expected
    for _, log, sha, hands in rows:
        assert file_sha256(Path(log)) == sha, f"{log} changed after it was recorded"
        lines = Path(log).read_text().splitlines()
        assert json.loads(lines[-1])["type"] == "final"
        assert sum(json.loads(x)["type"] == "result" for x in lines) == hands
    assert json.loads(rerun.stdout)["matches"] == len(expected)


def test_walls_are_secret_per_store_unless_salted_in_the_file(tmp_path: Path) -> None:
    """The seeds a file lists (1, 2, …) do not give the walls: each store draws a secret salt."""
    from referee.game.wall import salted_seed

    a = plan(config(seeds=1), tmp_path / "a")
    b = plan(config(seeds=1), tmp_path / "b")
    assert a.jobs[0].match.seed == b.jobs[0].match.seed == 1
    assert a.jobs[0].wall_seed != 1 and a.jobs[0].wall_seed != b.jobs[0].wall_seed
    again = plan(config(seeds=1), tmp_path / "a")  # resuming keeps the store's salt, so the same walls
    assert again.jobs[0].wall_seed == a.jobs[0].wall_seed
    c = plan(config(seeds=1, wall_salt="public"), tmp_path / "c")
    d = plan(config(seeds=1, wall_salt="public"), tmp_path / "d")
    assert c.jobs[0].wall_seed == d.jobs[0].wall_seed == salted_seed("public", 1)
    # the match log records the seed it was played on: the salted one
    run = run_tournament(config(seeds=1, bots=[{"name": x, "builtin": "random"} for x in "abcd"], hands=1),
                         tmp_path / "e")
    job_seeds = {j.match.id: j.wall_seed for j in run.jobs}
    for match_id, wall_seed in job_seeds.items():
        header = json.loads((run.logs_dir / f"{match_id}.jsonl").read_text().splitlines()[0])
        assert header["seed"] == wall_seed != 1


def test_a_rebuilt_bot_does_not_resume_old_results(tmp_path: Path) -> None:
    """The store's identity includes each process bot's files: a rebuilt executable is refused once results exist
    (a store that holds none yet is simply started again)."""
    bot = tmp_path / "mybot.sh"
    bot.write_text(f"#!/bin/sh\nexec {sys.executable} -m bots.drawdiscard\n")
    bot.chmod(0o755)
    bots = [{"name": "mine", "cmd": [str(bot)], "cwd": str(ROOT)},
            *({"name": n, "builtin": "random"} for n in ("a", "b", "c"))]
    cfg = config(seeds=1, hands=1, bots=bots)
    plan(cfg, tmp_path)
    bot.write_text(f"#!/bin/sh\n# rebuilt before any result\nexec {sys.executable} -m bots.drawdiscard\n")
    p = plan(cfg, tmp_path)
    assert p.done == 0 and not p.notes[1:]
    run_tournament(cfg, tmp_path, concurrency=1)
    bot.write_text(f"#!/bin/sh\n# rebuilt\nexec {sys.executable} -m bots.drawdiscard\n")
    with pytest.raises(TournamentError, match=f"bot 'mine' changed: {bot} \\(changed\\)"):
        plan(cfg, tmp_path)


def test_every_winner_of_a_hand_is_stored(tmp_path: Path) -> None:
    """With multiple_winners, one throw can make two winners: the store keeps a wins row for each (the hands row
    names the first), and the seat rows count both."""
    sys.path.insert(0, str(ROOT / "tests" / "game"))  # the engine tests' table builder (another floor's folder)
    from test_engine import HU, Answer, Table, _two_waiters, start

    from referee.game.series import HandSetup
    from referee.game.taiwan16.rules import Ruleset
    from referee.match import HandSummary, MatchResult, SeatResult
    from tournaments.runner import MatchJob, to_record
    from tournaments.schedule import ScheduledMatch
    from tournaments.store import MatchRecord, Store

    rules = Ruleset(multiple_winners=True)
    t = Table(rules)
    two, four, tile = _two_waiters(t)
    hand, _ = start(t.wall({1: [tile], 2: two, 4: four}), rules)
    hand.apply(Answer.throw(tile))
    hand.apply(HU)
    hand.apply(HU)
    assert hand.result is not None and len(hand.result.wins) == 2
    names = ("a", "b", "c", "d")
    result = MatchResult(7, [SeatResult(p, names[p - 1]) for p in (1, 2, 3, 4)])
    result.add_hand(HandSummary(0, HandSetup(0, "EAST", "EAST", 1, 0), hand.result, (0, 0, 0, 0),
                                    hand.result.scores, []))
    match = ScheduledMatch("m1", 0, "g", 7, 0, names)
    record = to_record(MatchJob(match, (None,) * 4, {}, None, None, 7), result)  # type: ignore[arg-type]
    with Store(tmp_path / "s.sqlite") as store:
        store.record(record)
        wins = [tuple(r) for r in store.con.execute("SELECT seat, how, thrower, tile, tai FROM wins ORDER BY seat")]
        seat_wins = [r[0] for r in store.con.execute("SELECT wins FROM seats ORDER BY position")]
        first = store.con.execute("SELECT winner FROM hands").fetchone()[0]
    assert [(w[0], w[1], w[2], w[3]) for w in wins] == [(2, "throw", 1, tile), (4, "throw", 1, tile)]
    assert all(w[4] > 0 for w in wins)
    assert seat_wins == [0, 1, 0, 1] and first == 2
    assert MatchRecord.from_json(record.to_json()) == record  # as it travels from a Dask worker


def test_a_stopped_run_says_what_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    """Tournament and regress end the same way: Ctrl-C (even inside a trio exception group) exits 130, a failure
    exits 2 naming the innermost error, each with what is recorded; anything else goes on up."""
    from referee.commands import stopped

    kept = "3 of 10 matches are recorded in t.sqlite"
    assert stopped("tournament", BaseExceptionGroup("g", [KeyboardInterrupt()]), kept) == 130
    assert capsys.readouterr().err == f"\nmjref tournament: stopped; {kept}. Run the same command again to resume.\n"
    assert stopped("regress", ExceptionGroup("g", [OSError("worker lost")]), kept) == 2
    err = capsys.readouterr().err
    assert err == f"mjref regress: OSError: worker lost; {kept}. Run the same command again to resume.\n"
    with pytest.raises(SystemExit):
        stopped("regress", SystemExit(3), kept)


def test_every_match_id_a_schedule_makes_fits_what_readers_accept() -> None:
    """A store's reader (the report, which names files after them) refuses any ID outside ``MATCH_ID``: every ID a
    tournament's or a regression's schedule makes fits it, large seeds and 24 seatings included."""
    from referee.game.taiwan16.rules import make_ruleset
    from tournaments.regress import RegressSettings
    from tournaments.schedule import MATCH_ID
    from wrappers.spec import BotSpec

    bots = [{"name": x, "builtin": "random"} for x in "abcde"]
    ids = [m.id for m in build_schedule(config(seatings=24, seeds=[0, 2**63 - 1], bots=bots))]
    builtin = [BotSpec(name=n, builtin=n) for n in ("greedy", "random", "drawdiscard")]
    for design, field in (("1v3", None), ("2v2", None), ("1v3", builtin[2])):
        s = RegressSettings(builtin[0], builtin[1], field, design=design, rules=make_ruleset({"hands": 1}))
        ids += [m.id for k in (0, 5) for m in s.group(k)]
    assert len(ids) > 100 and all(MATCH_ID.fullmatch(i) for i in ids), [i for i in ids if not MATCH_ID.fullmatch(i)]
