"""Remote bots in a league: a bot with ``remote = true`` is played by a wrapper (``mjref connect``) that logs in
with its token, as in ``mjref serve``; the league seats it only while its wrapper is logged in."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from tournaments.league import NEXT_TABLE_KEY, Chooser, load_league, open_league, run_league
from tournaments.ratings import Ratings
from tournaments.store import connect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from leagues import league_process  # noqa: E402

TOKEN = "far-token-" + "x" * 12
LEAGUE = ('name = "net"\nhands = 1\nduplicate = false\nconcurrency = 1\nstore = "league.sqlite"\n'
          '[[bots]]\nname = "greedy"\nbuiltin = "greedy"\n[[bots]]\nname = "random"\nbuiltin = "random"\n'
          '[[bots]]\nname = "drawdiscard"\nbuiltin = "drawdiscard"\n[[bots]]\nname = "far"\nremote = true\n')


def seatings(store: Path) -> list[tuple[str, ...]]:
    con = connect(store, readonly=True)
    try:
        return [tuple(r) for r in con.execute("SELECT seat1, seat2, seat3, seat4 FROM matches ORDER BY rowid")]
    finally:
        con.close()


def standings(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/api/standings", timeout=30) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def until(what: Any, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.1)


def test_a_connected_remote_bot_plays_and_a_disconnected_one_is_not_seated(tmp_path: Path) -> None:
    (tmp_path / "league.toml").write_text(LEAGUE)
    (tmp_path / "tokens.toml").write_text(f'far = "{TOKEN}"\n')
    store = tmp_path / "league.sqlite"
    with league_process(tmp_path / "league.toml", "--wrappers", "127.0.0.1:0", "--tokens",
                        str(tmp_path / "tokens.toml")) as (found, league):
        page, wrappers = found["league page"], found["wrappers log in at"]
        assert wrappers.startswith("ws://127.0.0.1:")
        # no wrapper yet: the league plays the others and never seats far
        until(lambda: store.exists() and len(seatings(store)) >= 8)
        assert all("far" not in s for s in seatings(store))
        assert standings(page)["online"] == {"far": False}
        wrapper = subprocess.Popen([sys.executable, "-m", "referee.cli", "connect", wrappers,
                                    f"{sys.executable} -m bots.greedy", "--token", TOKEN, "--name", "far"],
                                   cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        try:
            until(lambda: sum("far" in s for s in seatings(store)) >= 5)  # connected: it plays
            assert standings(page)["online"] == {"far": True}
        finally:
            os.killpg(wrapper.pid, signal.SIGKILL)  # the wrapper and its bot, as a machine that goes away
            wrapper.wait(timeout=60)
        until(lambda: standings(page)["online"] == {"far": False})
        mark = len(seatings(store))
        until(lambda: len(seatings(store)) >= mark + 8)
        after = seatings(store)[mark:]
        # one match at a time: only the match in flight when it left may still have it
        assert all("far" not in s for s in after[1:]), after
        data = standings(page)
        assert league.poll() is None
    far = next(b for b in data["bots"] if b["name"] == "far")
    assert far["rating"]["matches"] >= 5 and far["matches"] >= 5


def test_remote_bots_need_the_wrappers_address_and_tokens_only_go_with_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE)
    p = open_league(load_league(path), tmp_path, where=str(path))
    import trio

    from tournaments.league import LeagueError
    with pytest.raises(LeagueError, match=r"bot 'far' is remote: run the league with its wrappers' address"):
        trio.run(lambda: run_league(p, matches=1))
    path.write_text(LEAGUE.replace('[[bots]]\nname = "far"\nremote = true\n', ""))
    assert main(["league", str(path), "--matches", "1", "--wrappers", "127.0.0.1:0"]) == 2
    assert "no bot has remote = true" in capsys.readouterr().err
    path.write_text(LEAGUE)
    assert main(["league", str(path), "--matches", "1", "--wrappers", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert "--wrappers 'nonsense': give HOST:PORT" in err and err.count("\n") == 1


def test_a_duplicate_league_with_a_remote_bot_needs_trust_memory_and_a_plain_one_does_not(tmp_path: Path) -> None:
    from tournaments.config import ConfigError
    from tournaments.league import parse_league

    bots = [{"name": n, "builtin": n} for n in ("greedy", "random", "drawdiscard", "dead_hand")] + \
        [{"name": "far", "remote": True}]
    config = parse_league({"bots": bots, "duplicate": False})  # a seed per table: no deal is dealt again
    assert config.tournament.trust_memory is False
    with pytest.raises(ConfigError, match="bot 'far' can remember across matches"):
        parse_league({"bots": bots, "duplicate": True})
    assert parse_league({"bots": bots, "duplicate": True, "trust_memory": True}).tournament.trust_memory


def test_the_chooser_seats_only_who_can_sit_now() -> None:
    away = {"far"}
    chooser = Chooser(Ratings(), ["a", "b", "far", "near"], "greedy", 1, available=lambda n: n not in away,
                      one_at_a_time={"far", "near"})
    for _ in range(6):
        table = chooser.choose()
        assert table is not None and "far" not in table.bots
        chooser.release(table)
    away.clear()
    first = chooser.choose()  # far: the least played, now here
    assert first is not None and "far" in first.bots and "near" in first.bots
    second = chooser.choose()  # far and near are at a table: not at another at once
    assert second is not None and "far" not in second.bots and "near" not in second.bots
    away.update({"a", "b"})
    assert chooser.choose() is None  # nobody can sit: no table of dummies
    chooser.release(first)
    third = chooser.choose()
    assert third is not None and set(third.bots) == {"far", "near", "dummy-greedy"}


def test_a_table_handed_out_is_never_dealt_again(tmp_path: Path) -> None:
    """Tables handed out are reserved in the store before they are played: tables in flight when the league was
    killed (here: the reservation of tables 3 to 9, as a killed run leaves it) are skipped, never dealt with other
    bots under the same ID (a Dask task keyed by it would be taken for the other)."""
    import trio

    path = tmp_path / "league.toml"
    path.write_text(LEAGUE.replace('[[bots]]\nname = "far"\nremote = true\n', ""))
    p = open_league(load_league(path), tmp_path, where=str(path))
    trio.run(lambda: run_league(p, matches=3))
    con = connect(tmp_path / "league.sqlite", readonly=True)
    assert con.execute("SELECT value FROM meta WHERE key = ?", (NEXT_TABLE_KEY,)).fetchone()[0] == "3"
    con.close()
    import sqlite3
    with sqlite3.connect(tmp_path / "league.sqlite") as con2:
        con2.execute("UPDATE meta SET value = '10' WHERE key = ?", (NEXT_TABLE_KEY,))
    p = open_league(load_league(path), tmp_path, where=str(path))
    trio.run(lambda: run_league(p, matches=2))
    con = connect(tmp_path / "league.sqlite", readonly=True)
    groups = [r[0] for r in con.execute("SELECT grp FROM matches ORDER BY rowid")]
    con.close()
    assert groups == ["L0000000", "L0000001", "L0000002", "L0000010", "L0000011"]
