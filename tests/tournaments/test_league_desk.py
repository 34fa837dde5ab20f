"""The league's desk and page against what the fuzzing found: an entry unusable on disk is refused alone and the
league starts; an entry retired or paused while its check runs stays so when the check passes; messages quote a
name escaped once; a query's number of any length is a 400, never a 500."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from tournaments.league import LeagueControl, LeagueDesk, load_league, open_league
from tournaments.submissions import Register, pack_folder, unpack

ROOT = Path(__file__).resolve().parents[2]
GOOD_BOT = (ROOT / "examples" / "mybot.py").read_text()
BAD_BOT = ("import sys\nfor line in sys.stdin:\n    if line.startswith('/ask'):\n"
           "        print('/nonsense', flush=True)\n")
LEAGUE = ('name = "class"\nhands = 1\nduplicate = false\nconcurrency = 1\nstore = "league.sqlite"\n'
          '[[bots]]\nname = "greedy"\nbuiltin = "greedy"\n[[bots]]\nname = "random"\nbuiltin = "random"\n')


def bot_folder(tmp: Path, name: str, source: str = GOOD_BOT) -> Path:
    folder = tmp / "src" / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text('cmd = ["python3", "bot.py"]\n')
    return folder


def league(tmp: Path) -> Path:
    path = tmp / "league.toml"
    path.write_text(LEAGUE)
    return path


def test_an_entry_unusable_on_disk_is_refused_alone_and_the_league_starts(tmp_path: Path) -> None:
    """One bad entry refused the whole league at every start (a folder gone: a FileNotFoundError's traceback), or,
    with a chain of links to the league's store, was hashed with the store, and every later start was refused."""
    path = league(tmp_path)
    subs = tmp_path / "submissions"
    register = Register(subs)
    register.add_author("alice")
    for name in ("mine", "chain", "gone"):
        unpack(pack_folder(bot_folder(tmp_path, name)), subs / name)
        register.add(name, name, 1, "alice", "active", subs / name, {"ok": True, "failed": []})
    (subs / "chain" / "l2").symlink_to(".")
    (subs / "chain" / "l1").symlink_to("l2/..")
    (subs / "chain" / "s").symlink_to("l1/../league.sqlite")
    (subs / "gone" / "bot.toml").unlink()
    (subs / "gone" / "bot.py").unlink()
    (subs / "gone").rmdir()
    register.close()
    notes = []
    for _ in range(2):  # and again: the first start did not make the second one fail
        p = open_league(load_league(path), tmp_path, where=str(path))
        assert sorted(p.active) == ["greedy", "mine", "random"]
        assert set(p.identity["files"]) == {"mine"}
        assert not any("league.sqlite" in k for k in p.identity["files"]["mine"])
        notes.append(p.notes)
    register = Register(subs)
    chain, gone = register.entry("chain"), register.entry("gone")
    register.close()
    assert chain is not None and gone is not None and chain.status == gone.status == "refused"
    assert chain.report is not None and chain.report["ok"] is False
    assert "refused when the league started: 'l1': a link out of the submission's folder" in chain.report["error"]
    assert gone.report is not None and "its folder" in gone.report["error"] and "is missing" in gone.report["error"]
    assert any("entry 'chain' refused when the league started" in n for n in notes[0])  # said when it is refused
    assert not any("chain" in n for n in notes[1])


def test_the_first_start_says_which_entries_it_refused(tmp_path: Path) -> None:
    path = league(tmp_path)
    subs = tmp_path / "submissions"
    register = Register(subs)
    register.add_author("alice")
    register.add("gone", "gone", 1, "alice", "active", subs / "gone", None)
    register.close()
    p = open_league(load_league(path), tmp_path, where=str(path))
    assert [n for n in p.notes if "gone" in n] == [f"{subs}: entry 'gone' refused when the league started: its "
                                                   f"folder {str(subs / 'gone')!r} is missing"]


def desk_of(tmp: Path) -> tuple[LeagueDesk, dict[str, str]]:
    path = league(tmp)
    p = open_league(load_league(path), tmp, where=str(path))
    desk = LeagueDesk(p, LeagueControl(p))
    tokens = {"alice": desk.register.add_author("alice"), "boss": desk.register.add_author("boss", organiser=True)}
    return desk, tokens


def submit_and(desk: LeagueDesk, token: str, bot: str, folder: Path, *acts: tuple[str, str]) -> list[Any]:
    """Submit ``folder`` as ``bot``, then make each (token, action) on it while its check runs; wait for the check."""
    replies: list[Any] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            desk.nursery = nursery
            replies.append(await desk.submit(token, bot, pack_folder(folder)))
            assert replies[0][0] == 202, replies[0]
            for who, action in acts:
                replies.append(await desk.act(who, action, replies[0][1]["entrant"]))

    trio.run(main)
    return replies


def test_an_entry_retired_or_paused_during_its_check_stays_so_when_the_check_passes(tmp_path: Path) -> None:
    """The check's end made it active (and joined it to the league) whatever its author or an organiser had done."""
    desk, tokens = desk_of(tmp_path)
    good = bot_folder(tmp_path, "good")
    replies = submit_and(desk, tokens["alice"], "good", good, (tokens["boss"], "reinstate"),
                         (tokens["alice"], "retire"))
    assert replies[1] == (409, {"error": "'good' is still being checked: it joins the league if its check passes"})
    assert replies[2] == (200, {"entrant": "good", "status": "retired"})
    entry = desk.register.entry("good")
    assert entry is not None and entry.status == "retired"
    assert entry.report is not None and entry.report["ok"] is True  # its report is kept
    assert "good" not in desk.plan.active and "good" not in desk.plan.specs

    replies = submit_and(desk, tokens["alice"], "good", good, (tokens["boss"], "pause"))
    assert replies[1] == (200, {"entrant": "good.v2", "status": "paused"})
    entry = desk.register.entry("good.v2")
    assert entry is not None and entry.status == "paused" and "good.v2" not in desk.plan.active

    # reinstated once its check passed: it joins, its identity read in a worker thread
    assert trio.run(desk.act, tokens["boss"], "reinstate", "good.v2") == (200, {"entrant": "good.v2",
                                                                               "status": "active"})
    assert "good.v2" in desk.plan.active and "bot.py" in desk.plan.identity["files"]["good.v2"]

    # unusable on disk now: reinstating it says why (the SubmissionError out of bot_spec was an HTTP 500)
    assert trio.run(desk.act, tokens["boss"], "pause", "good.v2")[0] == 200
    (desk.plan.submissions_dir / "good.v2" / "bot.toml").unlink()
    assert trio.run(desk.act, tokens["boss"], "reinstate", "good.v2") == (409, {
        "error": "'good.v2' cannot play as it is on disk: no bot.toml at the top of the submission (docs/league.md)"})
    entry = desk.register.entry("good.v2")
    assert entry is not None and entry.status == "paused" and "good.v2" not in desk.plan.active
    desk.close()


def test_an_entry_retired_during_a_check_it_fails_is_refused(tmp_path: Path) -> None:
    desk, tokens = desk_of(tmp_path)
    replies = submit_and(desk, tokens["alice"], "bad", bot_folder(tmp_path, "bad", BAD_BOT),
                         (tokens["alice"], "retire"))
    assert replies[1] == (200, {"entrant": "bad", "status": "retired"})
    entry = desk.register.entry("bad")
    assert entry is not None and entry.status == "refused" and entry.report is not None
    assert entry.report["ok"] is False
    status, reply = trio.run(desk.act, tokens["boss"], "reinstate", "bad")
    assert status == 409 and reply["error"].startswith("'bad' was refused (") and "never plays" in reply["error"]
    desk.close()


def test_a_name_in_a_desks_message_is_escaped_once(tmp_path: Path) -> None:
    """printable() and then !r: a control character showed as \\\\x1b, its backslash escaped a second time."""
    desk, tokens = desk_of(tmp_path)
    assert desk.entry(None, "a\x1bb") == (404, {"error": "no submitted entry 'a\\x1bb'"})
    assert trio.run(desk.act, tokens["boss"], "pause", "a\u202eb") == (404, {"error": "no submitted entry "
                                                                                  "'a\\u202eb'"})
    desk.close()


def test_a_damaged_stores_text_is_escaped_once_in_the_message() -> None:
    import sqlite3

    from referee.errors import StoreError
    from tournaments.league import NEXT_TABLE_KEY, Chooser
    from tournaments.ratings import Ratings

    con = sqlite3.connect(":memory:")
    con.executescript("CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE matches (grp TEXT, rotation INTEGER, "
                      "seat1 TEXT, seat2 TEXT, seat3 TEXT, seat4 TEXT);")
    con.execute("INSERT INTO matches VALUES ('G\x1b[2J', 0, 'a', 'b', 'c', 'd')")
    with pytest.raises(StoreError, match=r"^match group 'G\\x1b\[2J' is not a league table$"):
        Chooser(Ratings(), ["a", "b"], "greedy", 1).load(con)
    con.execute("INSERT INTO meta VALUES (?, ?)", (NEXT_TABLE_KEY, "7\x1b"))
    with pytest.raises(StoreError, match=r"is '7\\x1b'$"):
        Chooser(Ratings(), ["a", "b"], "greedy", 1).load(con)


# ------------------------------------------------------------------------------------------------ the page's queries


def get(path: str, query: bytes) -> tuple[int, dict[str, Any]]:
    """``GET path?query`` of the league's app, through ASGI as the server calls it."""
    from referee.league_pages import league_app

    asked: list[int] = []

    def matches(n: int) -> list[dict[str, Any]]:
        asked.append(n)
        return [{"id": f"L{i:07d}-r00"} for i in range(n)]

    app = league_app(lambda: {}, matches)
    sent: list[dict[str, Any]] = []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": query,
             "headers": [(b"host", b"league")], "client": ("127.0.0.1", 1), "server": ("league", 80)}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    trio.run(app, scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body)


@pytest.mark.parametrize("limit", [b"9" * 5000, b"1" + b"0" * 4400, b"0" * 5000, b"101", b"0", b"", b"-1", b"1e2",
                                   b"%D9%A3", b"1%00"])
def test_a_bad_number_in_the_query_is_a_400_whatever_its_length(limit: bytes) -> None:
    """5,000 digits: int() raised past Python's limit on a number's digits, an HTTP 500 and a traceback."""
    assert get("/api/matches", b"limit=" + limit) == (400, {"error": "limit: give a whole number from 1 to 100"})


def test_a_good_number_in_the_query_is_read() -> None:
    status, data = get("/api/matches", b"limit=100")
    assert status == 200 and len(data["matches"]) == 100
    assert get("/api/matches", b"")[0] == 200 and len(get("/api/matches", b"")[1]["matches"]) == 20


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
