"""SIGTERM and SIGHUP stop a real ``mjref match`` (and ``mjref tournament``) in order, as SIGINT does: every bot is
ended (a hung one too), the log ends with an ``aborted`` record that ``mjref replay`` verifies and names (exit 0),
while a log cut off without that record stays a divergence (exit 1); a stopped tournament keeps what it recorded
and resumes."""

from __future__ import annotations

import gc
import json
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import trio
from processes import lingering_processes, live_processes

from referee.game.taiwan16.rules import make_ruleset
from referee.log import open_log
from referee.match import HandSummary, MatchResult, resolve_bots, run_match
from referee.replay import replay_log
from referee.shutdown import Shutdown
from tournaments.config import load_config
from tournaments.schedule import build_schedule

ROOT = Path(__file__).resolve().parents[2]
BADBOT = ROOT / "tests" / "bots" / "badbot.py"
MJREF = [sys.executable, "-m", "referee.cli"]


def wait_for(condition, what: str, seconds: float = 120) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.1)


def bot(mode: str, marker: str) -> str:
    return f"{sys.executable} {BADBOT} {mode} {marker}"


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "hung"), [(signal.SIGTERM, "hang"), (signal.SIGHUP, "ignore_sigterm")])
def test_a_signal_ends_every_bot_and_the_log_says_aborted(signum: int, hung: str, tmp_path: Path) -> None:
    marker = f"mjref-test-{uuid.uuid4().hex}"
    log = tmp_path / "m.jsonl"
    # seat 1 hangs at its first throw (the dealer's: at once); seat 2 is a well-behaved process bot
    cmd = [*MJREF, "match", bot(hung, marker), bot("good", marker), "drawdiscard", "drawdiscard", "--hands", "4",
           "--timeout", "600", "--seed", "3", "--log", str(log), "--stderr-dir", str(tmp_path), "--quiet"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(live_processes(marker)) >= 3, "the bots to start")  # referee + two bots
        wait_for(lambda: any("started" in p.read_text() for p in tmp_path.glob("seat1-*.stderr")),
                 "the hung bot to start")
        time.sleep(0.5)  # it is now asleep in its first question
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signum, err
    assert f"stopped by {signal.Signals(signum).name}" in err
    assert not lingering_processes(marker), "no bot process is left behind"
    records = [r.model_dump() for _, r in open_log(log).records()]
    assert records[-1]["type"] == "aborted" and records[-1]["signal"] == signal.Signals(signum).name
    assert records[-1]["hands"] == 0 and records[-1]["totals"] == [0, 0, 0, 0]
    assert not any(r["type"] == "fault" for r in records), "a stop is not a fault"

    replay = subprocess.run([*MJREF, "replay", str(log)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "aborted" in replay.stdout and signal.Signals(signum).name in replay.stdout

    lines = log.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:-1]))  # the same log without its aborted record
    replay = subprocess.run([*MJREF, "replay", str(cut)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert replay.returncode == 1, replay.stdout + replay.stderr
    assert "divergence" in replay.stdout


@pytest.mark.slow
def test_a_stopped_tournament_keeps_its_results_and_resumes(tmp_path: Path) -> None:
    marker = f"mjref-test-{uuid.uuid4().hex}"
    names = ("a", "b", "c", "d")
    # 8 matches of process bots, two at a time: the stop comes after the first is recorded, with most unplayed
    text = 'name = "t"\nseeds = 2\nhands = 2\nconcurrency = 2\nstore = "t.sqlite"\n'
    for n in names:
        text += (f'[[bots]]\nname = "{n}"\n'
                 f'cmd = ["{sys.executable}", "{BADBOT}", "good", "{marker}"]\n'
                 f'cwd = "{ROOT}"\n')
    path = tmp_path / "t.toml"
    path.write_text(text)
    expected = {m.id for m in build_schedule(load_config(path))}
    cmd = [*MJREF, "tournament", str(path), "--quiet"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    store = tmp_path / "t.sqlite"

    def recorded() -> int:
        if not store.exists():
            return 0
        try:
            with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as con:
                return int(con.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        except sqlite3.Error:
            return 0

    try:
        wait_for(lambda: recorded() >= 1, "a recorded match")
        kept = recorded()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM" in err and "run the same command again to resume" in err.lower()
    assert not lingering_processes(marker)
    after = recorded()
    assert kept <= after < len(expected), "stopped part-way, nothing recorded lost"
    rerun = subprocess.run([*MJREF, "tournament", str(path), "--json"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    with sqlite3.connect(store) as con:
        ids = [r[0] for r in con.execute("SELECT id FROM matches")]
    assert len(ids) == len(set(ids)) and set(ids) == expected


def test_a_stop_between_hands_is_verified_and_a_false_aborted_record_is_not(tmp_path: Path) -> None:
    """In-process: the shutdown stops after hand 2; the log holds two results and an aborted record that replay
    checks like a final record (hands, totals, faults)."""
    log = tmp_path / "m.jsonl"
    shutdown = Shutdown()

    def on_hand(summary: HandSummary, result: MatchResult) -> None:
        if summary.index == 1:
            shutdown.stop(signal.SIGTERM)

    async def main() -> MatchResult:
        return await run_match(resolve_bots(["greedy", "random"]), seed=9, rules=make_ruleset({"hands": 6}),
                               log_path=log, on_hand=on_hand, shutdown=shutdown)

    result = trio.run(main)
    assert result.aborted == "SIGTERM" and len(result.hands) == 2
    report = replay_log(log)
    assert report.ok and report.aborted == "SIGTERM" and len(report.hands) == 2
    recs = [json.loads(x) for x in log.read_text().splitlines()]
    assert recs[-1]["totals"] == list(result.totals)
    recs[-1]["totals"] = [0, 0, 0, 0] if any(result.totals) else [1, -1, 0, 0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in recs))
    d = replay_log(bad).divergence
    assert d is not None and "aborted.totals" in d.message


def test_a_shutdown_holds_only_the_scopes_in_use() -> None:
    """``Shutdown.scope()`` is taken once per match: the scopes of finished matches are not kept (a tournament of
    100,000 matches held 100,000 of them), and a stop still cancels the scope in use."""
    shutdown = Shutdown()

    def scopes() -> int:
        gc.collect()
        return sum(isinstance(o, trio.CancelScope) for o in gc.get_objects())

    async def main() -> bool:
        before = scopes()
        for _ in range(300):
            with shutdown.scope():
                await trio.lowlevel.checkpoint()
        assert scopes() - before < 10
        with shutdown.scope() as playing:
            shutdown.stop(signal.SIGTERM)
            await trio.sleep(60)
        return playing.cancelled_caught

    assert trio.run(main)
