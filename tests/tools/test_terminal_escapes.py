"""Nothing a log, a store or a server says reaches a terminal raw: every text field of a crafted log, a crafted store
and a crafted server's messages is planted with terminal escapes (ESC, CSI, an OSC 8 hyperlink, BEL, CR, the 8-bit
CSI) and rich markup (``[bold]``, ``[link=…]``), and every command that prints them is run as a process: its output
holds none of those bytes, and the markup is shown as text, not read as markup.  A wind or a fault kind that is
none is a bad record: one line, exit 2."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from trio_websocket import serve_websocket

from referee.game.taiwan16.rules import make_ruleset
from referee.match import play_match, resolve_bots
from wrappers import messages as m

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
MARKUP = "[bold red]x[/][link=https://evil.example/]y[/link]"
EVIL = f"\x1b[2J\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\r\x07\x9b31m{MARKUP}"
RAW = ("\x1b", "\x07", "\r", "\x9b")
GARBAGE_BOT = f"{sys.executable} {ROOT / 'tests/bots/badbot.py'} garbage"


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def _assert_clean(done: subprocess.CompletedProcess[str], *, status: int | None = 0) -> str:
    shown = done.stdout + done.stderr
    for raw in RAW:
        assert raw not in shown, (raw, shown)
    assert "Traceback" not in shown, shown
    if status is not None:
        assert done.returncode == status, shown
    return shown


# ------------------------------------------------------------------------------------------------ a crafted log
@pytest.fixture(scope="module")
def crafted_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real match (seat 2 a process bot that sends garbage, so the log has faults), then every text field a
    reader shows replaced by EVIL: the rules' default_dummy, each seat's spec, command, folder and hash, the seat
    names (markup only: a name with control characters was refused already), the mjref version, each fault's
    line and detail.  (An answer's raw line is crafted where transcript reads it: replay checks it.)"""
    where = tmp_path_factory.mktemp("crafted")
    log = where / "real.jsonl"
    play_match(resolve_bots(["greedy", GARBAGE_BOT, "random", "greedy"]), seed=3,
               rules=make_ruleset({"hands": 2}), log_path=log)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    header = records[0]
    header["rules"]["default_dummy"] = EVIL
    header["mjref"] += MARKUP
    for s in header["seats"]:
        s["name"] = f"n{s['position']}{MARKUP}"
        s["spec"], s["cwd"], s["hash"] = EVIL, EVIL, EVIL
        s["cmd"] = [EVIL, EVIL]
    faults = [r for r in records if r["type"] == "fault"]
    assert faults, "the garbage bot made no fault"
    for r in faults:
        r["line"], r["detail"] = EVIL, EVIL
    out = where / "crafted.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


def test_replay_of_a_crafted_log_prints_no_escape(crafted_log: Path) -> None:
    shown = ""
    for extra in ([], ["--hand", "1"], ["--explain"], ["--hand", "2", "--explain"]):
        done = _run("replay", str(crafted_log), *extra)
        shown += _assert_clean(done, status=None)
        assert done.returncode in (0, 1), done.stderr  # verified, or a divergence: either way shown escaped
    assert "\\x1b]8;;https://evil.example/\\x07" in shown  # the default dummy and the faults, shown escaped
    assert "[link=https://evil.example/]y[/link]" in shown  # markup in a name is text


def test_transcript_of_a_crafted_log_prints_no_escape(crafted_log: Path, tmp_path: Path) -> None:
    records = [json.loads(line) for line in crafted_log.read_text().splitlines()]
    for r in records:
        if r["type"] == "answer":
            r["raw"] = EVIL
    raw = tmp_path / "raw.jsonl"
    raw.write_text("".join(json.dumps(r) + "\n" for r in records))
    for log in (crafted_log, raw):
        for seat in ("1", "2"):
            shown = _assert_clean(_run("transcript", str(log), "--seat", seat))
            assert "\\x1b[2J" in shown  # the command and the bot's lines, escaped


def test_refeed_of_a_crafted_log_prints_no_escape(crafted_log: Path) -> None:
    """Refeed shows the log's words only in its notes and a divergence's reason: escaped either way."""
    done = _run("refeed", str(crafted_log), "greedy", "--seat", "2")
    _assert_clean(done, status=None)
    assert done.returncode in (0, 1), done.stderr


@pytest.mark.parametrize(("record", "field"), [("hand", "round_wind"), ("hand", "hand_wind"), ("fault", "kind")])
@pytest.mark.parametrize("command", ["replay", "transcript", "refeed"])
def test_a_wind_or_a_fault_kind_that_is_none_is_a_bad_record(crafted_log: Path, tmp_path: Path, record: str,
                                                             field: str, command: str) -> None:
    real = crafted_log.with_name("real.jsonl")  # the crafted one diverges before its first fault
    records = [json.loads(line) for line in real.read_text().splitlines()]
    target = next(i for i, r in enumerate(records) if r["type"] == record)
    records[target][field] = "\x1b]8;;x\x07[bold]no"  # short: a kind has a length limit of its own
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in records))
    args = {"replay": [], "transcript": ["--seat", "2"], "refeed": ["greedy", "--seat", "2"]}[command]
    done = _run(command, str(bad), *args)
    _assert_clean(done, status=2)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"bad.jsonl:{target + 1}: bad record" in lines[0] and field in lines[0], done.stderr


# ------------------------------------------------------------------------------------------------ a crafted store
@pytest.fixture(scope="module")
def crafted_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real store whose every name a reader shows is EVIL: the tournament's name, the bots (in every table that
    holds one), the fault kinds, a log's path."""
    where = tmp_path_factory.mktemp("store")
    (where / "t.toml").write_text(
        'name = "t"\nseeds = 1\nhands = 1\nconcurrency = 1\nstore = "t.sqlite"\n'
        + "".join(f'[[bots]]\nname = "{n}"\nbuiltin = "{b}"\n'
                  for n, b in (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("h", "greedy"))))
    assert _run("tournament", "t.toml", "--quiet", cwd=where).returncode == 0
    con = sqlite3.connect(where / "t.sqlite")
    with con:
        con.execute("UPDATE meta SET value = ? WHERE key = 'name'", (EVIL,))
        for table, column in (("seats", "bot"), ("faults", "bot"), ("agg_bot", "bot"), ("agg_faults", "bot"),
                              ("agg_bot_cluster", "bot"), ("agg_bot_moments", "bot"), ("agg_pair_cluster", "a"),
                              ("agg_pair", "a"), ("agg_hand_points", "bot")):
            con.execute(f"UPDATE {table} SET {column} = ? || {column}", (EVIL,))  # noqa: S608 - fixed names
        for c in ("seat1", "seat2", "seat3", "seat4"):
            con.execute(f"UPDATE matches SET {c} = ? || {c}", (EVIL,))  # noqa: S608 - fixed names
        con.execute("INSERT INTO agg_faults (bot, kind, n) SELECT bot, ?, 1 FROM agg_bot LIMIT 1", (EVIL,))
        con.execute("UPDATE matches SET log = ? || log", ("x" + EVIL,))
    con.close()
    return where / "t.sqlite"


@pytest.mark.parametrize("form", ["table", "csv", "markdown", "json"])
def test_standings_of_a_crafted_store_print_no_escape(crafted_store: Path, form: str) -> None:
    shown = _assert_clean(_run("standings", str(crafted_store), "--format", form))
    assert "evil.example" in shown, shown  # the names are there, escaped
    if form == "table":
        assert "[link=https://evil.example/]" in shown, shown  # markup in a name is text


def test_report_of_a_crafted_store_prints_no_escape(crafted_store: Path, tmp_path: Path) -> None:
    _assert_clean(_run("report", str(crafted_store), "-o", str(tmp_path / "r.html"), "--with-matches"))


# ------------------------------------------------------------------------------------------------ a crafted server
async def _evil_server(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """A server that logs the wrapper in, then says EVIL in every text field of the messages a wrapper prints."""
    async def handler(request: Any) -> None:
        ws = await request.accept()
        m.read_client(await ws.get_message())
        for message in (m.Welcome(v=m.PROTOCOL, name=EVIL), m.Seat(match=EVIL, position=1, timeout=5.0),
                        m.Abandon(kind=EVIL, detail=EVIL), m.Unseat(match=EVIL), m.Over(reason=EVIL)):
            await ws.send_message(m.write(message))
        await trio.sleep(5)

    await serve_websocket(handler, "127.0.0.1", 0, ssl_context=None, task_status=task_status)


def test_connect_to_a_crafted_server_prints_no_escape(tmp_path: Path) -> None:
    async def main() -> subprocess.CompletedProcess[str]:
        async with trio.open_nursery() as nursery:
            server = await nursery.start(_evil_server)
            port = server.port
            done = await trio.to_thread.run_sync(lambda: subprocess.run(
                [sys.executable, "-m", "referee.cli", "connect", f"ws://127.0.0.1:{port}",
                 f"{sys.executable} -m bots.greedy", "--token", "t" * 20, "--name", "a", "--once",
                 "--stderr", str(tmp_path / "a.stderr")], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                timeout=120, stdin=subprocess.DEVNULL))
            nursery.cancel_scope.cancel()
        return done

    done = trio.run(main)
    shown = _assert_clean(done)
    assert "\\x1b]8;;https://evil.example/\\x07" in shown and shown.replace("\n", "").count(MARKUP) >= 4, shown
