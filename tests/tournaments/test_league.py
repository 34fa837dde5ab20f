"""The league (``mjref league``): it plays built-in bots continuously, ranks them, and survives kill -9 and SIGTERM
with nothing lost or played twice and its ratings recomputed from the store equal to the stored ones."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from referee.cli import main
from tournaments.config import ConfigError
from tournaments.league import LeagueError, load_league, open_league, parse_league, run_league
from tournaments.ratings import RATINGS_KEY, Ratings, league_order, read_ratings, stored_ratings
from tournaments.stats import kept_totals, read_totals
from tournaments.store import StoreError, connect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from leagues import served_league  # noqa: E402

BUILTINS = (("greedy", "greedy"), ("random", "random"), ("drawdiscard", "drawdiscard"),
            ("chowy", "greedy:chowness=0.9,hiddenness=0.1"), ("hidden", "greedy:hiddenness=0.9,chowness=0.1"))


def write_league(folder: Path, *, duplicate: bool = False, bots: tuple[tuple[str, str], ...] = BUILTINS,
                 extra: str = "", concurrency: int = 2) -> Path:
    text = (f'name = "class"\nhands = 1\nduplicate = {"true" if duplicate else "false"}\nconcurrency = {concurrency}\n'
            f'store = "league.sqlite"\nwall_salt = "league-test"\n{extra}')
    for name, builtin in bots:
        text += f'[[bots]]\nname = "{name}"\nbuiltin = "{builtin}"\n'
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "league.toml"
    path.write_text(text)
    return path


def play(path: Path, matches: int, concurrency: int | None = None) -> int:
    p = open_league(load_league(path), path.parent, where=str(path))
    return trio.run(lambda: run_league(p, matches=matches, concurrency=concurrency))


def rows(store: Path) -> list[tuple[str, int, str, int, tuple[str, ...]]]:
    con = connect(store, readonly=True)
    try:
        return [(r[0], int(r[1]), str(r[2]), int(r[3]), tuple(r[4:])) for r in con.execute(
            "SELECT id, idx, grp, seed, seat1, seat2, seat3, seat4 FROM matches ORDER BY rowid")]
    finally:
        con.close()


def count(store: Path) -> int:
    try:
        con = connect(store, readonly=True)
    except StoreError:
        return 0
    try:
        return int(con.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    except sqlite3.DatabaseError:
        return 0
    finally:
        con.close()


def check_ratings(store: Path) -> dict[str, tuple[float, float, int]]:
    """The stored ratings are exactly those recomputed from the store's matches, in recorded order."""
    con = connect(store, readonly=True)
    try:
        kept = stored_ratings(con)
        again = Ratings.from_store(con)
        recorded = int(con.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        rated = json.loads(con.execute("SELECT value FROM meta WHERE key = ?", (RATINGS_KEY,)).fetchone()[0])["rated"]
    finally:
        con.close()
    assert kept is not None
    stored = {n: (r.mu, r.sigma, r.matches) for n, r in kept.items()}
    assert stored == {n: (r.mu, r.sigma, r.matches) for n, r in again.by_name.items()}
    assert rated == recorded == again.rated
    return stored


def start(path: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "referee.cli", "league", str(path), "--quiet", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def wait_for(proc: subprocess.Popen[bytes], store: Path, matches: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None and count(store) < matches:
        time.sleep(0.1)
    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    assert count(store) >= matches


def stop(proc: subprocess.Popen[bytes], sig: int) -> int:
    """``sig`` to the league (SIGKILL: to its whole group, workers too, as a machine's crash would)."""
    try:
        if sig == signal.SIGKILL:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        return proc.wait(timeout=120)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the group's workers, whatever the signal left
        except ProcessLookupError:
            pass


FOUR = (("greedy", "greedy"), ("random", "random"), ("drawdiscard", "drawdiscard"), ("dead_hand", "dead_hand"))


def test_a_league_of_builtins_ranks_greedy_first_and_keeps_its_ratings_after_kill_9(tmp_path: Path) -> None:
    path = write_league(tmp_path, bots=FOUR)  # every built-in bot
    store = tmp_path / "league.sqlite"
    proc = start(path)
    wait_for(proc, store, 120)
    assert stop(proc, signal.SIGKILL) == -signal.SIGKILL
    before = count(store)
    check_ratings(store)  # after kill -9: the stored ratings are those of exactly the matches stored
    assert play(path, 300 - before) == 300 - before  # restart: goes on where it was killed
    table = rows(store)
    assert len(table) == 300
    assert len({r[0] for r in table}) == 300  # nothing recorded twice
    assert len({r[3] for r in table}) == 300  # every table on its own seed: no deal dealt twice
    ratings = check_ratings(store)
    assert set(ratings) == {n for n, _ in FOUR}
    kept = read_ratings(store)
    assert kept is not None
    order = league_order(kept, kept)
    assert order[0] == "greedy", order
    con = connect(store, readonly=True)
    try:  # the totals kept at commit are the sums of the matches
        (kb, _, *k_rest), (sb, _, *s_rest) = kept_totals(con), read_totals(con)
    finally:
        con.close()
    assert k_rest == s_rest and k_rest[0] == 300
    assert sorted((b.bot, b.matches, b.points) for b in kb) == sorted((b.bot, b.matches, b.points) for b in sb)
    # every entrant plays about as often as the others
    matches = {n: r[2] for n, r in ratings.items()}
    assert min(matches.values()) >= 0.7 * max(matches.values()), matches


def test_sigterm_stops_in_order_and_a_restart_plays_nothing_twice(tmp_path: Path) -> None:
    path = write_league(tmp_path)
    store = tmp_path / "league.sqlite"
    proc = start(path)
    wait_for(proc, store, 20)
    status = stop(proc, signal.SIGTERM)
    assert status == 128 + signal.SIGTERM, proc.stderr.read().decode() if proc.stderr else ""
    first = rows(store)
    check_ratings(store)
    play(path, 10)
    after = rows(store)
    assert after[:len(first)] == first  # nothing lost
    assert len(after) == len(first) + 10 and len({r[0] for r in after}) == len(after)
    # new tables only: after the highest table recorded (a table killed in flight is skipped, never re-dealt)
    assert min(r[1] for r in after[len(first):]) > max(r[1] for r in first)
    check_ratings(store)


def test_the_next_table_is_chosen_from_the_store_alone(tmp_path: Path) -> None:
    """Deterministic given the store: two leagues fed the same matches choose the same tables; one at a time, each
    table goes to the least certain entrant with those it met least."""
    a, b = write_league(tmp_path / "a", concurrency=1), write_league(tmp_path / "b", concurrency=1)
    play(a, 12)
    play(b, 5)
    play(b, 7)
    assert [r[4] for r in rows(a.parent / "league.sqlite")] == [r[4] for r in rows(b.parent / "league.sqlite")]
    # with five entrants, the first five tables leave out each entrant once
    first = [set(r[4]) for r in rows(a.parent / "league.sqlite")[:5]]
    left_out = [({n for n, _ in BUILTINS} - seats).pop() for seats in first]
    assert sorted(left_out) == sorted(n for n, _ in BUILTINS)


def test_a_duplicate_table_stopped_half_way_is_finished_first(tmp_path: Path) -> None:
    path = write_league(tmp_path, duplicate=True)
    store = tmp_path / "league.sqlite"
    play(path, 6, concurrency=1)
    first = rows(store)
    assert [r[2] for r in first] == ["L0000000"] * 4 + ["L0000001"] * 2
    play(path, 3, concurrency=1)
    table = rows(store)
    assert [r[2] for r in table] == ["L0000000"] * 4 + ["L0000001"] * 4 + ["L0000002"]
    one = table[4:8]
    assert {r[3] for r in one} == {2} and len({r[4] for r in one}) == 4  # one seed, four seatings
    assert all(sorted(r[4]) == sorted(one[0][4]) for r in one)  # of the same four bots
    check_ratings(store)


def test_new_entrants_join_and_changed_ones_are_refused(tmp_path: Path) -> None:
    path = write_league(tmp_path, bots=BUILTINS[:4])
    play(path, 4)
    write_league(tmp_path, bots=BUILTINS)  # a fifth bot joins
    play(path, 6)
    assert "hidden" in {n for r in rows(tmp_path / "league.sqlite") for n in r[4]}
    changed = (("greedy", "random"), *BUILTINS[1:])
    write_league(tmp_path, bots=changed)
    with pytest.raises(LeagueError, match=r"bot 'greedy' changed since it joined the league .*give it a new name"):
        open_league(load_league(path), tmp_path, where=str(path))
    write_league(tmp_path, bots=BUILTINS, extra="[rules]\nmove_timeout = 3\n")
    with pytest.raises(LeagueError, match=r"other settings: rules.move_timeout"):
        open_league(load_league(path), tmp_path, where=str(path))
    # a retired entrant (left out of the file) plays no more; its ratings and results stay
    write_league(tmp_path, bots=BUILTINS[1:])
    before = len(rows(tmp_path / "league.sqlite"))
    play(path, 5)
    assert all("greedy" not in r[4] for r in rows(tmp_path / "league.sqlite")[before:])
    assert "greedy" in (read_ratings(tmp_path / "league.sqlite") or {})


def test_a_tournament_store_is_not_a_league_store(tmp_path: Path) -> None:
    from tournaments.config import parse_config
    from tournaments.runner import run_tournament

    config = parse_config({"name": "t", "seeds": 1, "hands": 1, "duplicate": False, "store": "league.sqlite",
                           "bots": [{"name": n, "builtin": b} for n, b in BUILTINS[:4]]})
    run_tournament(config, tmp_path)
    path = write_league(tmp_path)
    with pytest.raises(LeagueError, match="matches of a tournament, not a league's"):
        open_league(load_league(path), tmp_path, where=str(path))


@pytest.mark.parametrize(("text", "message"), [
    ('format = "gauntlet"\n', r"league.toml: format: not a league's field \(a league chooses each table itself\)"),
    ("seeds = 3\n", r"league.toml: seeds: not a league's field"),
    ("submissions = 3\n", r"league.toml: submissions: give a folder"),
    ("hands = 0\n", r"league.toml: hands"),
])
def test_bad_league_files_are_refused_in_one_line(tmp_path: Path, text: str, message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "league.toml"
    path.write_text(text + '[[bots]]\nname = "g"\nbuiltin = "greedy"\n')
    with pytest.raises(ConfigError, match=message):
        load_league(path)
    assert main(["league", str(path), "--matches", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjref league: ") and err.count("\n") == 1


def test_matches_must_be_positive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_league(tmp_path)
    assert main(["league", str(path), "--matches", "0"]) == 2
    assert "--matches must be at least 1" in capsys.readouterr().err


def test_standings_of_a_league_store_show_ratings_beside_points(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = write_league(tmp_path)
    assert main(["league", str(path), "--matches", "8", "--quiet", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rated"] is True and out["matches"] == 8
    stored = check_ratings(tmp_path / "league.sqlite")
    for b in out["bots"]:
        r = b["rating"]
        assert (r["mu"], r["sigma"], r["matches"]) == stored[b["name"]]
        assert b["ci95"] is not None or b["groups"] < 5  # points per hand keep their clustered interval
    assert [b["name"] for b in out["bots"]] == sorted(
        (b["name"] for b in out["bots"]), key=lambda n: -(stored[n][0] - 3 * stored[n][1]))
    assert main(["standings", str(tmp_path / "league.sqlite")]) == 0
    table = capsys.readouterr().out
    assert "rating" in table and "Plackett-Luce" in table
    assert f"{stored['greedy'][0]:.1f} ± {stored['greedy'][1]:.1f}" in table


def test_ratings_follow_the_order_of_points() -> None:
    r = Ratings()
    for _ in range(20):
        r.add(["a", "b", "c", "dummy-greedy"], [30, 10, -10, -30])
    assert r.by_name["a"].mu > r.by_name["b"].mu > r.by_name["c"].mu
    assert "dummy-greedy" not in r.by_name  # a dummy is not rated
    assert r.by_name["a"].sigma < Ratings().get("x").sigma  # more matches: less uncertain
    assert r.by_name["a"].matches == 20 and r.rated == 20


def test_a_store_whose_ratings_were_edited_is_recomputed(tmp_path: Path) -> None:
    path = write_league(tmp_path)
    store = tmp_path / "league.sqlite"
    play(path, 4)
    con = sqlite3.connect(store)
    con.execute("UPDATE meta SET value = ? WHERE key = ?",
                (json.dumps({"rated": 4, "bots": {"greedy": [99.0, 1.0, 4]}}), RATINGS_KEY))
    con.commit()
    con.close()
    p = open_league(load_league(path), tmp_path, where=str(path))
    trio.run(lambda: run_league(p, matches=1))
    assert any("stored ratings differed" in n for n in p.notes)
    check_ratings(store)


def test_parse_league_defaults() -> None:
    config = parse_league({"bots": [{"name": "g", "builtin": "greedy"}]})
    assert config.name == "league" and config.submissions == "submissions" and config.per_table == 4


def test_the_league_serves_its_standings_read_only(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    path = write_league(tmp_path, concurrency=1)
    with served_league(path) as (url, proc):
        wait_for(proc, tmp_path / "league.sqlite", 5)  # type: ignore[arg-type]
        with urllib.request.urlopen(f"{url}/api/standings", timeout=30) as r:
            data = json.loads(r.read())
            assert "connect-src 'self'" in r.headers["content-security-policy"]
        assert data["rated"] is True and {b["name"] for b in data["bots"]} == {n for n, _ in BUILTINS}
        assert all(b["rating"]["sigma"] > 0 for b in data["bots"])
        with urllib.request.urlopen(f"{url}/api/matches?limit=3", timeout=30) as r:
            latest = json.loads(r.read())["matches"]
        assert len(latest) == 3 and latest[0]["id"] > latest[1]["id"]
        assert latest[0]["viewer"] is True  # one match a table: its viewer at once
        with urllib.request.urlopen(f"{url}/match/{latest[0]['id']}", timeout=30) as r:
            page = r.read().decode()
            assert "script-src 'unsafe-inline'" in r.headers["content-security-policy"]
        assert f"mjref match {latest[0]['id']}" in page or latest[0]["id"] in page
        # a bot's page and its JSON: rating over time, head-to-head (each opponent once), no versions for a file's bot
        with urllib.request.urlopen(f"{url}/api/bots/greedy", timeout=30) as r:
            bot = json.loads(r.read())
        assert bot["name"] == "greedy" and bot["kind"] == "built-in" and bot["active"] is True
        assert len(bot["history"]) >= 2 and [h[0] for h in bot["history"]] == sorted(h[0] for h in bot["history"])
        opponents = [h["opponent"] for h in bot["head_to_head"]]
        assert opponents and len(set(opponents)) == len(opponents) and "greedy" not in opponents
        assert bot["versions"] == [] and bot["online"] is None
        with urllib.request.urlopen(f"{url}/bot/greedy", timeout=30) as r:
            assert b'data-page="bot"' in r.read()
        assert set(data["trends"]) == {n for n, _ in BUILTINS} and data["online"] == {}
        for method, where, status in (("GET", "/api/bots/nobody", 404), ("GET", "/match/L9999999-r00", 404),
                                      ("GET", "/match/..%2Fleague.toml", 404),
                                      ("POST", "/api/standings", 405), ("GET", "/api/matches?limit=x", 400),
                                      ("GET", "/api/matches?limit=101", 400), ("GET", "/nothing", 404)):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(urllib.request.Request(url + where, method=method), timeout=30)
            assert err.value.code == status


def test_a_match_is_shown_only_once_its_whole_table_is_played(tmp_path: Path) -> None:
    """A duplicate table's seatings share their walls: a finished seating's log (every wall face up) is shown only
    when none of its table is left to play."""
    from tournaments.ratings import LeagueReader

    path = write_league(tmp_path, duplicate=True)
    play(path, 6, concurrency=1)
    reader = LeagueReader(tmp_path / "league.sqlite")
    assert reader.viewer("L0000001-r00") is None and reader.viewer("L0000001-r01") is None
    page = reader.viewer("L0000000-r03")
    assert page is not None and page.startswith("<!DOCTYPE html>")
    shown = {m["id"]: m["viewer"] for m in reader.matches(10)}
    assert shown == {**{f"L0000000-r0{r}": True for r in range(4)}, "L0000001-r00": False, "L0000001-r01": False}
    assert reader.viewer("../league") is None and reader.viewer("L0000009-r00") is None


def test_the_page_reads_its_store_while_another_process_reads_it_too(tmp_path: Path) -> None:
    """The page reads the store in the league's own process, beside its writer; another process (mjref standings,
    a script) reading it at the same time must not take the WAL from under them: before the fix every page read
    after the first failed with "disk I/O error" (the page's reads dropped the writer's locks)."""
    import urllib.request

    path = write_league(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    with served_league(path) as (url, proc):
        wait_for(proc, store, 3)  # type: ignore[arg-type]
        for _ in range(40):
            con = connect(store, readonly=True)  # another reader, which closes its connection each time
            con.execute("SELECT COUNT(*) FROM matches").fetchone()
            con.close()
            with urllib.request.urlopen(f"{url}/api/standings", timeout=30) as r:
                assert r.status == 200 and json.loads(r.read())["matches"] >= 3
            time.sleep(0.05)


def test_a_rating_history_stays_bounded_and_spread_over_the_whole_life() -> None:
    from tournaments.ratings import HISTORY_POINTS, History

    h = History()
    for i in range(1, 10 * HISTORY_POINTS + 2):
        h.add(i, float(i), 1.0)
    s = h.series()
    assert len(s) <= HISTORY_POINTS + 2
    assert s[0][0] == 1 and s[-1][0] == 10 * HISTORY_POINTS + 1  # the first and the latest
    steps = {b[0] - a[0] for a, b in zip(s[:-2], s[1:-1], strict=True)}
    assert len(steps) == 1  # evenly spread
    r = Ratings()
    before = r.checkpoint(["a", "b", "c", "d"])
    r.add(["a", "b", "c", "d"], [3, 2, 1, 0])
    r.rollback(before)  # a match not recorded leaves no trace, in the ratings or their history
    assert r.rated == 0 and r.series("a") == [] and r.by_name == {}
