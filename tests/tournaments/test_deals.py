"""No copy of a deal meets another: matches on one set of walls are never in flight together (measured from the
bots' own processes), no bot or wrapper is told where its match sits in the schedule, and a bot that can remember
across matches plays a tournament that deals a seed twice only when the file trusts it."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
from itertools import combinations
from pathlib import Path
from time import time_ns
from typing import Any

import pytest
import trio
from test_kill import finish, start, wait_until
from timeline import Life, lives, overlap, timeline_bot

from referee.cli import main
from tournaments.config import ConfigError, parse_config
from tournaments.deals import DealGate, deal_key
from tournaments.runner import plan, run_tournament
from tournaments.stats import TRUST_MEMORY_MARK, compute_standings, to_json, to_markdown

ROOT = Path(__file__).resolve().parents[2]
BUILTINS = [{"name": n, "builtin": b} for n, b in (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"),
                                                    ("gc", "greedy:chowness=0.9"))]


def matches_played(store: Path) -> dict[str, tuple[str, int]]:
    """Match ID -> (duplicate group, seed), as the store recorded them."""
    with sqlite3.connect(store) as con:
        return {r[0]: (r[1], r[2]) for r in con.execute("SELECT id, grp, seed FROM matches")}


def all_lives(store: Path, logs: Path) -> tuple[dict[str, tuple[str, int]], list[Life]]:
    played = matches_played(store)
    out: list[Life] = []
    for match_id in played:
        folder = logs / f"{match_id}.stderr"
        if folder.is_dir():
            out += lives(folder, match_id)
    return played, out


def same_deal_overlaps(played: dict[str, tuple[str, int]], found: list[Life]) -> list[tuple[str, str]]:
    """Pairs of matches on one seed (one set of walls) whose bot processes were alive at the same time."""
    return sorted({(a.match, b.match) for a, b in combinations(found, 2)
                   if a.match != b.match and played[a.match][1] == played[b.match][1] and overlap(a, b)})


# ------------------------------------------------------------------------------------------ one deal at a time
@pytest.mark.slow
def test_seatings_of_a_duplicate_group_never_run_at_once_at_concurrency_4(tmp_path: Path) -> None:
    """Two bot processes per match, four groups, four slots: every process says when it lived.  No two matches of one
    group ever had a process alive at the same time, and matches of different groups did run side by side (the
    slots were used: main played the four seatings of the first group together)."""
    bots = [timeline_bot(tmp_path / "a", "ta"), timeline_bot(tmp_path / "b", "tb"), *BUILTINS[:2]]
    cfg = parse_config({"name": "t", "seeds": 4, "hands": 1, "concurrency": 4, "bots": bots})
    p = run_tournament(cfg, tmp_path, concurrency=4)
    played, found = all_lives(p.store_path, p.logs_dir)
    assert len(played) == 16 and {x.match for x in found} == set(played)
    assert len(found) == 32, "two processes per match, each with its BEGIN and END"
    assert same_deal_overlaps(played, found) == []
    assert any(overlap(a, b) for a, b in combinations(found, 2) if played[a.match][0] != played[b.match][0]), \
        "matches of different groups ran at once"


@pytest.mark.slow
def test_after_kill_9_the_resumed_run_keeps_deals_apart_and_replays_nothing(tmp_path: Path) -> None:
    """A real `mjref tournament` killed with SIGKILL part-way (four matches in flight, one per seed), then run again:
    every match is recorded once, and over both runs (the killed one's bot processes end with it) no two matches on
    one seed had a process alive at once."""
    bots = [timeline_bot(tmp_path / "a"), *BUILTINS[:3]]
    path = tmp_path / "t.toml"
    path.write_text('name = "t"\nseeds = 4\nhands = 2\nconcurrency = 4\nstore = "t.sqlite"\n' + "".join(
        "[[bots]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in b.items() if k != "env")
        + ("[bots.env]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in b["env"].items()) if "env" in b else "")
        for b in bots))
    proc = start(path)
    store = tmp_path / "t.sqlite"
    done = wait_until(proc, store, 3)
    assert 3 <= done < 16 and proc.poll() is None, "killed part-way"
    killed_at = time_ns()
    assert finish(proc, signal.SIGKILL) == -signal.SIGKILL
    again = start(path)
    assert finish(again) == 0, again.stderr.read() if again.stderr else ""
    with sqlite3.connect(store) as con:
        ids = [r[0] for r in con.execute("SELECT id FROM matches")]
    assert len(ids) == len(set(ids)) == 16
    played = matches_played(store)
    found = [x for m in played for x in lives(tmp_path / "t-logs" / f"{m}.stderr", m, killed_at)]
    assert same_deal_overlaps(played, found) == []
    # every match's last attempt shows both its hands' processes (what a killed attempt's bots wrote is there when
    # the referee read it before it died: a stderr line goes through the referee)
    assert all(sum(x.match == m for x in found) >= 2 for m in played)


@pytest.mark.slow
def test_one_seed_at_two_tables_is_never_played_at_once(tmp_path: Path) -> None:
    """Five bots make five tables, and every table plays seed 1 on the same walls: the bot at one table and its copy
    at another would hold two seats of one deal.  Matches on one seed never overlap, across tables too."""
    bots = [timeline_bot(tmp_path / "a"), *BUILTINS]
    cfg = parse_config({"name": "t", "seeds": 2, "hands": 1, "bots": bots})
    p = run_tournament(cfg, tmp_path, concurrency=4)
    played, found = all_lives(p.store_path, p.logs_dir)
    assert len(played) == 40 and len(found) == 32  # the table without the timeline bot has no process
    assert len({played[x.match][0] for x in found}) == 8  # 4 tables x 2 seeds
    assert same_deal_overlaps(played, found) == []


@pytest.mark.slow
def test_a_regression_run_never_plays_one_seed_twice_at_once(tmp_path: Path) -> None:
    """`mjref regress` plays a group's matches on one seed (the candidate in each seat): with a process candidate
    at concurrency 4 they are played one after another, and groups side by side."""
    from referee.game.taiwan16.rules import make_ruleset
    from tournaments.regress import RegressSettings, regress
    from wrappers.spec import BotSpec

    entry = timeline_bot(tmp_path / "tl")
    candidate = BotSpec(**{**entry, "cmd": tuple(entry["cmd"])})
    settings = RegressSettings(candidate=candidate, baseline=BotSpec(name="greedy", builtin="greedy"),
                               rules=make_ruleset({"hands": 1}), max_hands=16, identical_groups=0)
    regress(settings, tmp_path / "r.sqlite", logs_dir=tmp_path / "logs", concurrency=4)
    played, found = all_lives(tmp_path / "r.sqlite", tmp_path / "logs")
    assert len(played) == 16 and len(found) == 16  # four groups of four matches, the candidate's process in each
    assert same_deal_overlaps(played, found) == []
    assert any(overlap(a, b) for a, b in combinations(found, 2) if played[a.match][1] != played[b.match][1])


def test_the_gate_gives_out_one_match_per_deal_and_fills_the_slots_with_others(tmp_path: Path) -> None:
    """The gate's own order, on a resumed schedule (some matches already recorded): what it gives out before any
    match ends holds each of the four deals once, and nothing more until one ends; that deal's next seating then
    follows; matches of built-in bots only never wait."""
    bots = [{"name": "p", "cmd": [sys.executable, "-m", "bots.greedy"], "cwd": str(ROOT)}, *BUILTINS[:3]]
    p = plan(parse_config({"name": "t", "seeds": 4, "hands": 1, "bots": bots}), tmp_path)
    resumed = [j for i, j in enumerate(p.jobs) if i not in (0, 5, 9)]  # as if these were recorded before a kill

    async def run() -> None:
        gate = DealGate(iter(resumed), slots=4)
        first = [await gate.next() for _ in range(4)]
        assert [j.match.id for j in first if j] == ["g0000-s1-r01", "g0000-s2-r00", "g0000-s3-r00", "g0000-s4-r00"]
        with trio.move_on_after(0.2):  # nothing more may start while four deals are in flight
            await gate.next()
            raise AssertionError("a fifth match on a deal in flight")
        gate.done(first[1])  # type: ignore[arg-type]
        nxt = await gate.next()
        assert nxt is not None and nxt.match.id == "g0000-s2-r02"  # r01 of seed 2 was recorded

    trio.run(run)
    builtin = plan(parse_config({"name": "b", "seeds": 2, "hands": 1, "bots": BUILTINS}), tmp_path / "b")
    assert all(deal_key(j) is None for j in builtin.jobs)

    async def builtins_never_wait() -> None:
        gate = DealGate(iter(builtin.jobs), slots=1)
        assert [(await gate.next()).match.id for _ in range(8)] == [j.match.id for j in builtin.jobs]  # type: ignore

    trio.run(builtins_never_wait)


# ------------------------------------------------------------------------------------------ opaque match ids
def test_public_ids_name_no_group_seed_or_seating(tmp_path: Path) -> None:
    """What a bot or wrapper is told of a match: 16 hex digits keyed by the store's secret, distinct per match and
    per store, the same at every attempt (so a resumed run writes over what a killed one left)."""
    bots = [{"name": "p", "cmd": [sys.executable, "-m", "bots.greedy"], "cwd": str(ROOT)}, *BUILTINS[:3]]
    cfg = parse_config({"name": "t", "seeds": 3, "hands": 1, "bots": bots})
    a, b = plan(cfg, tmp_path / "a"), plan(cfg, tmp_path / "b")
    ids = [j.public_id for j in a.jobs]
    assert all(re.fullmatch(r"[0-9a-f]{16}", x) for x in ids) and len(set(ids)) == len(ids) == 12
    assert not set(ids) & {j.public_id for j in b.jobs}  # another store's secret: other names for the same IDs
    assert ids == [j.public_id for j in plan(cfg, tmp_path / "a").jobs]  # resuming: the same names


@pytest.mark.slow
def test_a_bot_whose_folder_holds_the_logs_sees_no_match_id(tmp_path: Path) -> None:
    """The logs folder inside the bot's own folder: the box covers it, and what a cover is made on shows as names
    (a listing, /proc/self/mountinfo; a mount on a log follows it when it is renamed to its match ID).  A bot sees
    no match ID there: logs and stderr folders are written under public IDs, and nothing in the covered folder is
    mounted on its own.  After the run they carry the real IDs."""
    folder = tmp_path / "mine"
    bots = [timeline_bot(folder), *BUILTINS[:3]]
    cfg = parse_config({"name": "t", "seeds": 2, "hands": 1, "store": "mine/t.sqlite", "bots": bots})
    p = run_tournament(cfg, tmp_path, concurrency=2)
    assert p.logs_dir.parent == folder
    played, found = all_lives(p.store_path, p.logs_dir)
    groups = {grp for grp, _ in played.values()}  # g0000-s1: every match ID begins with its group
    assert len(groups) == 2
    leaks = [line for x in found for line in x.seen if any(g in line for g in groups)]
    assert leaks == []
    assert len(found) == 8 and all(x.seen for x in found)
    assert all(any(str(p.logs_dir) in line for line in x.seen) for x in found), \
        "every bot sees the logs folder's cover: the test looks where a leak would be"
    assert sorted(f.name for f in p.logs_dir.iterdir()) == sorted(
        [f"{m}.jsonl" for m in played] + [f"{m}.stderr" for m in played])


@pytest.mark.slow
def test_a_remote_wrapper_is_told_no_group_seed_or_seating(tmp_path: Path) -> None:
    """`mjref serve` a duplicate tournament with a remote bot: the wrapper is told one opaque name per match, none
    naming the group, seed or seating, and the organiser's console maps each to its match."""
    (tmp_path / "t.toml").write_text(
        'name = "net"\nseeds = 1\nhands = 1\nconcurrency = 1\ntrust_memory = true\n'
        '[[bots]]\nname = "a"\nremote = true\n'
        + "".join(f'[[bots]]\nname = "{b["name"]}"\nbuiltin = "{b["builtin"]}"\n' for b in BUILTINS[:3]))
    (tmp_path / "tokens.toml").write_text(f'a = "{"a" * 20}"\n')
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)}
    server = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "t.toml", "--tokens", "tokens.toml",
                               "--listen", "127.0.0.1:0", "--wait", "120"], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wrapper = None
    try:
        assert server.stderr is not None
        lines: list[str] = []
        url = None
        while url is None:
            line = server.stderr.readline()
            assert line, "the server ended before listening: " + "".join(lines)
            lines.append(line)
            found = re.search(r"listening on (ws\S+)", line)
            url = found.group(1) if found else None
        wrapper = subprocess.Popen([sys.executable, "-m", "referee.cli", "connect", url,
                                    f"{sys.executable} -m bots.greedy", "--token", "a" * 20, "--name", "a"],
                                   cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        rest = server.communicate(timeout=300)[1]
        told = wrapper.communicate(timeout=60)[1]
    finally:
        for proc in (server, wrapper):
            if proc is not None and proc.poll() is None:
                proc.kill()
    assert server.returncode == 0, "".join(lines) + rest
    seated = re.findall(r"seated at position \d \(match (\S+)\)", told)
    assert len(seated) == 4, told
    assert all(re.fullmatch(r"[0-9a-f]{16}", x) for x in seated) and len(set(seated)) == 4
    assert not re.search(r"g\d{4}|-s\d|-r\d\d", told), told
    mapped = dict(re.findall(r"match (g\d{4}-s\d+-r\d\d) starts; its wrappers know it as ([0-9a-f]{16})", rest))
    assert sorted(mapped.values()) == sorted(seated) and len(mapped) == 4


# ------------------------------------------------------------------------------------------ trust_memory
@pytest.mark.parametrize(("entry", "why"), [
    ({"cmd": ["./bot"], "writable": True}, "writable = true"),
    ({"cmd": ["./bot"], "network": True}, "network = true"),
    ({"remote": True}, "a remote seat"),
])
def test_a_bot_that_can_remember_needs_trust_memory(entry: dict[str, Any], why: str) -> None:
    bots = [{"name": "mine", **entry}, *BUILTINS[:3]]
    with pytest.raises(ConfigError) as info:
        parse_config({"bots": bots}, "club.toml")
    msg = str(info.value)
    assert msg.startswith("club.toml: ") and "bot 'mine'" in msg and why in msg and "trust_memory = true" in msg
    assert "\n" not in msg
    assert parse_config({"bots": bots, "trust_memory": True}).trust_memory
    assert parse_config({"bots": bots, "duplicate": False}).bots  # one table, each seed once: no deal dealt again
    with pytest.raises(ConfigError, match="at each table: five bots or more"):
        parse_config({"bots": [*bots, {"name": "x", "builtin": "random"}], "duplicate": False})
    assert parse_config({"bots": [{"name": "mine", "cmd": ["./bot"]}, *BUILTINS[:3]]}).bots  # boxed, forgets


def test_the_command_line_refuses_it_in_one_line_with_exit_2(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "club.toml"
    path.write_text('name = "club"\n[[bots]]\nname = "mine"\ncmd = ["./bot"]\nwritable = true\n'
                    + "".join(f'[[bots]]\nname = "{b["name"]}"\nbuiltin = "{b["builtin"]}"\n' for b in BUILTINS[:3]))
    assert main(["tournament", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and "bot 'mine'" in err and "trust_memory" in err, err
    assert not (tmp_path / "club.sqlite").exists()  # refused before anything was made


@pytest.mark.slow
def test_a_trusted_tournament_runs_and_its_standings_and_report_say_so(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    bot = {"name": "mine", "cmd": [sys.executable, "-m", "bots.greedy"], "cwd": str(ROOT), "writable": True}
    cfg = parse_config({"name": "club", "seeds": 1, "hands": 1, "trust_memory": True, "bots": [bot, *BUILTINS[:3]]})
    p = run_tournament(cfg, tmp_path, concurrency=1)
    st = compute_standings(p.store_path)
    assert st.trust_memory == ["mine (writable = true)"]
    data = to_json(st)
    assert data["trust_memory"] is True and any(n.startswith(TRUST_MEMORY_MARK) and "mine" in n for n in data["notes"])
    assert TRUST_MEMORY_MARK in to_markdown(st).splitlines()[0]
    assert main(["standings", str(p.store_path)]) == 0
    assert TRUST_MEMORY_MARK in capsys.readouterr().out
    html = tmp_path / "r.html"
    assert main(["report", str(p.store_path), "-o", str(html)]) == 0
    page = html.read_text()
    assert page.count(TRUST_MEMORY_MARK) >= 3  # the title, the subtitle and the note under the standings
    # the same tournament without trust: nothing marked
    plain = run_tournament(parse_config({"name": "plain", "seeds": 1, "hands": 1, "bots": BUILTINS}),
                           tmp_path / "plain", concurrency=1)
    st = compute_standings(plain.store_path)
    assert st.trust_memory is None and to_json(st)["trust_memory"] is False
    assert not any(TRUST_MEMORY_MARK in n for n in st.notes)


def test_a_store_from_before_trust_memory_resumes(tmp_path: Path) -> None:
    """A store whose identity predates the field (no trust_memory key) is the same tournament as a file that leaves it
    false; a file that sets it true is another."""
    cfg = parse_config({"name": "t", "seeds": 1, "hands": 1, "bots": BUILTINS})
    p = run_tournament(cfg, tmp_path, concurrency=1)
    with sqlite3.connect(p.store_path) as con:
        (raw,) = con.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        identity = json.loads(raw)
        del identity["trust_memory"]
        con.execute("UPDATE meta SET value = ? WHERE key = 'identity'", (json.dumps(identity),))
    assert plan(cfg, tmp_path).done == 4
    with pytest.raises(Exception, match="trust_memory: false -> true"):
        plan(parse_config({"name": "t", "seeds": 1, "hands": 1, "bots": BUILTINS, "trust_memory": True}), tmp_path)
