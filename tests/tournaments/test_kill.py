"""kill -9, for real, at the worst moments: while a log is being renamed (before and after the rename, through the
runner's test-only kill point), on a schedule of a million seeds, and on Dask.  Afterwards every match is in the
store once, every log a store names is whole and matches its SHA-256, the totals kept at commit are the sums of the
matches, and the results are those of a run that was never interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tournaments.config import load_config
from tournaments.runner import KILL_POINT_ENV, file_sha256, plan, run_tournament
from tournaments.stats import compute_standings, kept_totals, read_totals, to_json
from tournaments.store import StoreError, connect

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def write_file(path: Path, seeds: int, hands: int = 1, concurrency: int = 2) -> Path:
    text = (f'name = "kill"\nseeds = {seeds}\nhands = {hands}\nconcurrency = {concurrency}\nstore = "t.sqlite"\n'
            f'wall_salt = "kill-test"\n')
    for n, b in (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("c", "greedy:chowness=0.9")):
        text += f'[[bots]]\nname = "{n}"\nbuiltin = "{b}"\n'
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def recorded(store: Path) -> dict[str, tuple[Any, ...]]:
    if not store.exists():
        return {}
    try:
        con = connect(store, readonly=True)
    except StoreError:
        return {}  # not created yet
    try:
        return {r[0]: tuple(r[1:]) for r in con.execute(
            "SELECT id, idx, total1, total2, total3, total4, log, log_sha256 FROM matches")}
    finally:
        con.close()


def start(path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "referee.cli", "tournament", str(path), "--quiet", *args],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, **(env or {})})


def wait_until(proc: subprocess.Popen[bytes], store: Path, matches: int, timeout: float = 240) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if len(recorded(store)) >= matches:
            break
        time.sleep(0.1)
    return len(recorded(store))


def finish(proc: subprocess.Popen[bytes], sig: int | None = None, timeout: float = 240) -> int:
    try:
        if sig is not None:
            os.killpg(proc.pid, sig)
        return proc.wait(timeout=timeout)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever the group left behind (a Dask worker)
        except ProcessLookupError:
            pass


def check_store(store: Path) -> dict[str, tuple[Any, ...]]:
    """Every recorded match once, its log whole and as recorded; the kept totals are the sums of the matches."""
    rows = recorded(store)
    for match_id, (_, *_totals, log, sha) in rows.items():
        assert log and file_sha256(Path(log)) == sha, f"{match_id}: its log changed after it was recorded"
        lines = Path(log).read_text().splitlines()
        assert json.loads(lines[-1])["type"] == "final"
    con = connect(store, readonly=True)
    try:
        con.execute("BEGIN")
        (kb, kp, *k_rest), (sb, sp, *s_rest) = kept_totals(con), read_totals(con)
    finally:
        con.close()
    assert k_rest == s_rest and k_rest[0] == len(rows)
    assert sorted((b.bot, b.matches, b.hands, b.points, b.mean.g, b.rank.sy) for b in kb) == \
        sorted((b.bot, b.matches, b.hands, b.points, b.mean.g, b.rank.sy) for b in sb)
    assert sorted((p.a, p.b, p.matches, p.hands) for p in kp) == sorted((p.a, p.b, p.matches, p.hands) for p in sp)
    return rows


def same_as_uninterrupted(rows: dict[str, tuple[Any, ...]], tmp: Path, seeds: int, hands: int = 1) -> None:
    """The same matches of an uninterrupted run (same walls: the file's wall salt) have the same results: played one
    at a time in this process (no pool of worker processes to start), which must not change them either."""
    ref = run_tournament(load_config(write_file(tmp / "ref" / "t.toml", seeds, hands)), tmp / "ref", concurrency=1)
    want = recorded(ref.store_path)
    for match_id, (idx, *totals, _log, _sha) in rows.items():
        assert want[match_id][:5] == (idx, *totals), match_id


def test_kill_9_while_logs_are_renamed_on_a_million_seeds(tmp_path: Path) -> None:
    path = write_file(tmp_path / "t.toml", seeds=1_000_000)
    store = tmp_path / "t.sqlite"
    logs = tmp_path / "t-logs"
    for point, match_id in (("after-rename", "g0000-s2-r01"), ("before-rename", "g0000-s4-r02"),
                            ("after-rename", "g0000-s7-r03"), ("before-rename", "g0000-s9-r00")):
        proc = start(path, env={KILL_POINT_ENV: f"{point}:{match_id}"})
        assert finish(proc) == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
        assert match_id not in recorded(store)  # killed before its transaction
        if point == "after-rename":
            assert (logs / f"{match_id}.jsonl").exists()  # a whole log that no record names yet
        else:  # played under its public ID (tournaments.runner.MatchJob.public_id), the name a bot may see
            cfg_plan = plan(load_config(path), tmp_path)
            job = next(cfg_plan.job(m) for m in cfg_plan.schedule if m.id == match_id)
            assert (logs / f"{job.public_id}.jsonl.part").exists()
        check_store(store)
    # then run on, and stop it in order part-way through the million seeds: the 36 matches up to the last kill
    # point (index 32) and a few more, with a margin for the two in flight when it is stopped
    proc = start(path)
    done = wait_until(proc, store, 48)
    assert done >= 48
    finish(proc, signal.SIGINT)
    rows = check_store(store)
    assert len(rows) < 4_000_000
    seeds_played = max(idx for idx, *_ in rows.values()) // 4 + 1
    indices = sorted(idx for idx, *_ in rows.values())
    assert indices[: indices.index(indices[0]) + 40] == list(range(40))  # the early matches, each once
    same_as_uninterrupted(rows, tmp_path, seeds_played)


def test_kill_9_on_dask(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    path = write_file(tmp_path / "t.toml", seeds=5, hands=1)  # 20 one-hand matches, two at a time
    store = tmp_path / "t.sqlite"
    expected = {j.match.id for j in plan(load_config(path), tmp_path / "plan").jobs}
    # a kill in a Dask worker as it renames a log: the whole group (runner, scheduler, workers) dies
    proc = start(path, "--dask", "local", env={KILL_POINT_ENV: "after-rename:g0000-s2-r01"})
    assert finish(proc) == -signal.SIGKILL
    assert "g0000-s2-r01" not in recorded(store)
    check_store(store)
    # a kill -9 of the runner from outside, part-way
    proc = start(path, "--dask", "local")
    done = wait_until(proc, store, len(recorded(store)) + 3)
    assert done < len(expected), "killed part-way"
    finish(proc, signal.SIGKILL)
    check_store(store)
    proc = start(path, "--dask", "local")
    assert finish(proc) == 0, proc.stderr.read() if proc.stderr else ""
    rows = check_store(store)
    assert set(rows) == expected
    same_as_uninterrupted(rows, tmp_path, seeds=5, hands=1)
    ref = to_json(compute_standings(tmp_path / "ref" / "t.sqlite"))
    got = to_json(compute_standings(store))
    for data in (ref, got):
        for b in data["bots"]:
            b.pop("mean_answer_ms")
            b.pop("max_answer_ms")
    assert got == ref  # to the last digit: the totals are exact whatever order the matches came in
