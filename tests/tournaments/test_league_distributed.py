"""A league on Dask: the same tables, seats and points as the same league played here (one match at a time both
ways, so the same ratings choose the same tables), logs landed beside the store, and ``mjref league --dask``."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed: pip install 'mjref[dask]'")

from referee.cli import main  # noqa: E402
from tournaments.league import dask_executor, load_league, open_league, run_league  # noqa: E402

BOTS = (("greedy", "greedy"), ("random", "random"), ("drawdiscard", "drawdiscard"), ("chowy", "greedy:chowness=0.9"),
        ("hidden", "greedy:hiddenness=0.9"))


def write(folder: Path, duplicate: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = (f'name = "class"\nhands = 1\nduplicate = {"true" if duplicate else "false"}\nconcurrency = 1\n'
            'store = "league.sqlite"\nwall_salt = "same-walls"\n')
    for name, builtin in BOTS:
        text += f'[[bots]]\nname = "{name}"\nbuiltin = "{builtin}"\n'
    (folder / "league.toml").write_text(text)
    return folder / "league.toml"


@pytest.fixture(scope="module")
def cluster() -> Any:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as c:
        yield c


def rows(store: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(store) as con:
        return con.execute("SELECT id, seed, seat1, seat2, seat3, seat4, total1, total2, total3, total4 FROM matches "
                           "ORDER BY rowid").fetchall()


@pytest.mark.parametrize("duplicate", [False, True])
def test_a_league_on_dask_plays_what_it_plays_here(tmp_path: Path, cluster: Any, duplicate: bool) -> None:
    here, there = write(tmp_path / "here", duplicate), write(tmp_path / "there", duplicate)
    p = open_league(load_league(here), here.parent)
    assert trio.run(lambda: run_league(p, matches=10)) == 10
    q = open_league(load_league(there), there.parent)
    executor = dask_executor(cluster.scheduler_address, q)
    try:
        with distributed.get_task_stream(client=executor.client) as stream:
            assert trio.run(lambda: run_league(q, matches=10, concurrency=1, executor=executor)) == 10
    finally:
        executor.shutdown()
    played = sorted(t["key"].rsplit("-", 2)[-2] + "-" + t["key"].rsplit("-", 1)[-1] for t in stream.data
                    if str(t["key"]).startswith("mjref-"))
    assert played == sorted(r[0] for r in rows(q.store_path))  # every match a task on the cluster, once
    assert rows(q.store_path) == rows(p.store_path)
    logs = sorted(f.name for f in q.logs_dir.iterdir())
    assert logs == sorted(f"{r[0]}.jsonl" for r in rows(q.store_path))  # landed from the workers, whole


def test_mjref_league_dask(tmp_path: Path, cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path)
    assert main(["league", str(path), "--dask", cluster.scheduler_address, "--matches", "6", "--quiet"]) == 0
    assert len(rows(tmp_path / "league.sqlite")) == 6
    capsys.readouterr()
    assert main(["league", str(path), "--dask", "tcp://127.0.0.1:1", "--matches", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "tcp://127.0.0.1:1" in err and err.count("\n") == 1
