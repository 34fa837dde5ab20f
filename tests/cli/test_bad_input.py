"""Every command against hostile input: exit status 2, exactly one line on stderr naming the problem, no traceback.

The table walks every command with bad arguments and bad files (logs, stores, TOML, JSON); hypothesis then fuzzes
log files, TOML files and score requests.  A traceback (or any exit status but 2) is a bug in mjref.  A few cases
also run the installed ``mjref`` in a subprocess, as a user would.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden-seed7.jsonl"
TINY = """name = "tiny"
seeds = 1
hands = 1
duplicate = false
store = "tiny.sqlite"
[[bots]]
name = "g"
builtin = "greedy"
[[bots]]
name = "r"
builtin = "random"
"""


def _bot_toml(builtin: str, store: str = "bb.sqlite") -> str:
    return (f'name = "x"\nseeds = 1\nhands = 1\nstore = "{store}"\n[[bots]]\nname = "a"\nbuiltin = "{builtin}"\n'
            '[[bots]]\nname = "b"\nbuiltin = "random"\n')


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of hostile files, and one real store to damage."""
    d = tmp_path_factory.mktemp("bad")
    lines = GOLDEN.read_bytes().split(b"\n")
    (d / "g.jsonl").write_bytes(b"\x00\x01garbage")
    (d / "empty.jsonl").write_bytes(b"")
    (d / "nested.jsonl").write_bytes(b"[" * 100_000 + b"\n")
    (d / "nested_header.jsonl").write_bytes(b'{"type":"header","rules":' + b'{"a":' * 50_000 + b"\n")
    header = json.loads(lines[0])
    header["seats"] = header["seats"][:2]
    (d / "twoseats.jsonl").write_bytes(json.dumps(header).encode() + b"\n" + b"\n".join(lines[1:]))
    (d / "badutf.jsonl").write_bytes(b"\n".join([*lines[:5], lines[5][:-3] + b"\xff\xfe}", *lines[6:]]))
    (d / "t.toml").write_text('name = "x"\nseeds = "many"\n')
    (d / "latin.toml").write_bytes('name = "caf\xe9"\nseeds = 1\n'.encode("latin-1"))
    (d / "deep.toml").write_text("a = " + "[" * 100_000)
    (d / "chownes.toml").write_text(_bot_toml("greedy:chownes=0.9"))
    (d / "chowness.toml").write_text(_bot_toml("greedy:chowness=5"))
    (d / "storedir.toml").write_text(_bot_toml("greedy", "adir"))
    (d / "adir").mkdir()
    (d / "deep.json").write_bytes(b"[" * 100_000)
    (d / "bin.json").write_bytes(b"\xff\xfe{}")
    (d / "list.json").write_text("[1, 2]")
    (d / "wall.txt").write_bytes(b"\xff\xfe")
    (d / "tiny.toml").write_text(TINY)
    assert main(["tournament", str(d / "tiny.toml"), "--quiet"]) == 0
    con = sqlite3.connect(d / "tiny.sqlite")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copy(d / "tiny.sqlite", d / "cell.sqlite")
    con = sqlite3.connect(d / "cell.sqlite")
    con.execute("UPDATE seats SET points = 'abc'")
    con.execute("UPDATE agg_bot SET points = 'abc'")  # what standings read: the totals kept at commit
    con.commit()
    con.close()
    (d / "text.sqlite").write_text("hello, not a store")
    # A store edited to put a file outside the report's folder, or HTML into its page
    for name, sql in (("id_path", "UPDATE matches SET id = '../../outside' WHERE idx = 0"),
                      ("seed_html", "UPDATE matches SET seed = '<img src=x onerror=alert(1)>' WHERE idx = 0")):
        shutil.copy(d / "tiny.sqlite", d / f"{name}.sqlite")
        con = sqlite3.connect(d / f"{name}.sqlite")
        con.execute("PRAGMA foreign_keys = OFF")
        con.execute(sql)
        con.commit()
        con.close()
    # A log whose tiles are not numbers: the viewer's page drew them as markup
    records = [json.loads(line) for line in lines if line.strip()]
    deal = next(r for r in records if r.get("kind") == "init_card")
    deal["tiles"] = ['"><img src=x onerror=alert(1)>', *deal["tiles"][1:]]
    (d / "tile_html.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    records = [json.loads(line) for line in lines if line.strip()]
    at = next(i for i, r in enumerate(records) if r.get("type") == "answer")
    huge = [*records[:at], {"type": "fault", "hand": records[at]["hand"], "seat": 1, "kind": "garbage",
                            "detail": "x" * 100_000}, *records[at:]]
    (d / "fault_huge.jsonl").write_text("".join(json.dumps(r) + "\n" for r in huge))
    won = next(r for r in records if r.get("type") == "result" and r.get("wins"))
    won["wins"][0]["arrangement"][0]["tiles"][0] = "<b>"
    (d / "set_html.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    # Control characters and ANSI escapes (clear the screen, ring the bell, a bidi override) in every kind of input
    (d / "ansi.jsonl").write_bytes(b"\x1b[2J\x1b[31m\x07garbage\x1b]0;title\x07\n")
    (d / "ansi.toml").write_text(_bot_toml("\\u001b[2Jgreedy\\u0007"))
    (d / "ansi_key.toml").write_text('"\\u001b[31mkey\\u202e" = 1\n' + _bot_toml("greedy"))
    (d / "ansi.json").write_text('{"concealed": "\\u001b[2J\\u0007"}')
    (d / "ansi_key.json").write_text('{"\\u001b[2Jx": 1}')
    bot = '[[bots]]\nname = "a"\nbuiltin = "greedy"\n'
    (d / "seeds_nan.toml").write_text('name = "x"\nseeds = nan\n' + bot)
    (d / "seed_unstorable.toml").write_text('name = "x"\nseeds = [18446744073709551615]\nhands = 1\n' + bot)
    (d / "store_fifo.toml").write_text('name = "x"\nseeds = 1\nhands = 1\nstore = "fifo"\n' + bot)
    (d / "logs_proc.toml").write_text('name = "x"\nseeds = 1\nhands = 1\nlogs = "/proc/version"\n' + bot)
    (d / "timeout_inf.toml").write_text('name = "x"\nseeds = 1\nhands = 1\n[[bots]]\nname = "a"\n'
                                        'cmd = ["python3"]\ntimeout = inf\n')
    (d / "empty_cmd.toml").write_text('name = "x"\nseeds = 1\nhands = 1\n[[bots]]\nname = "a"\ncmd = []\n')
    (d / "neg_timeout.toml").write_text('name = "x"\nseeds = 1\nhands = 1\n[rules]\nmove_timeout = -1\n' + bot)
    (d / "ansi_bot.toml").write_text('name = "\\u001b[2Jevil"\ncmd = ["python3"]\n')
    (d / "ansi_name.toml").write_text('name = "x"\nseeds = 1\n[[bots]]\nname = "\\u001b[31mred"\nbuiltin = "greedy"\n')
    (d / "blank_name.toml").write_text('name = "x"\nseeds = 1\n[[bots]]\nname = "   "\nbuiltin = "greedy"\n')
    # A bot file's env and cmd go to exec: a name env(1) would misread, and NUL bytes exec refuses
    (d / "env_key.toml").write_text('name = "e"\ncmd = ["python3", "-c", "pass"]\nenv = { "A=B" = "1" }\n')
    (d / "env_nul.toml").write_text('name = "e"\ncmd = ["python3", "-c", "pass"]\nenv = { A = "x\\u0000y" }\n')
    (d / "cmd_nul.toml").write_text('name = "e"\ncmd = ["python3", "-c", "pa\\u0000ss"]\n')
    (d / "env_key_t.toml").write_text('name = "x"\nseeds = 1\n[[bots]]\nname = "a"\ncmd = ["python3"]\n'
                                      'env = { "-u" = "1" }\n')
    # The dummies that fill empty seats are named dummy-<bot>: a participant taking such a name was replaced
    (d / "name_path.toml").write_text('name = "../../escaped"\nseeds = 1\n[[bots]]\nname = "a"\nbuiltin = "greedy"\n')
    (d / "dummy_name.toml").write_text('name = "x"\nseeds = 1\n[[bots]]\nname = "dummy-greedy"\n'
                                       'builtin = "random"\n')
    (d / "ansi_title.toml").write_text('name = "\\u001b]0;pwned\\u0007cup"\nseeds = 1\n' + bot)
    os.mkfifo(d / "fifo")  # a writer opening it would wait for a reader for ever
    (d / "loop1").symlink_to("loop2")
    (d / "loop2").symlink_to("loop1")
    return d


G = str(GOLDEN)
# (argv, a word the one line must contain)
CASES: list[tuple[str, str]] = [
    ("match nosuchbot", "nosuchbot"),
    ("match greedy:chownes=0.9", "chownes"),
    ("match greedy:chowness=5", "chowness"),
    ("match greedy:chowness=abc", "chowness"),
    ("match greedy:chowness=nan", "chowness"),
    ("match =abc", "=abc"),
    ("match --seed -1 --log none", "seed"),
    (f"match --seed {10**23} --log none", "seed"),
    ("match --seed x", "--seed"),
    ("match --hands 0", "hands"),
    ("match --timeout 0", "--timeout"),
    ("match --log adir --hands 1", "adir"),
    ("match --log /proc/nope/x.jsonl --hands 1", "/proc/nope"),
    ("match --wallfile wall.txt", "UTF-8"),
    ("match --wallfile adir", "adir"),
    ("match --wallfile nosuch.txt", "nosuch"),
    ("match --set x", "--set"),
    ("match --set flowers=maybe", "flowers"),
    ("match --set tai.nope=1", "nope"),
    ("match --set default_dummy=greedy:x=1 --log none", "default_dummy"),
    ("match latin.toml", "UTF-8"),
    ("match greedy greedy greedy greedy greedy", "four"),
    ("match /", "cannot run '/'"),
    ("match ./" + "a" * 65, "no such file"),  # (the name it gives the bot is cut to 64 characters)
    ('match ""', "not a built-in"),
    ("match greedy:chowness=0.10000000000000000000000000000000000000000000000000000001", "64 characters"),
    ("match mj-player:suitness=0.1000000000000000000000000000000000000000000000000000001", "64 characters"),
    ("view /", "is a folder"),
    ("view .", "is a folder"),
    ("report /", "is a folder"),
    ("report .", "is a folder"),
    ("replay /dev/null", "/dev/null"),
    ("replay g.jsonl", "g.jsonl"),
    ("replay empty.jsonl", "empty"),
    ("replay nested.jsonl", "nested"),
    ("replay nested_header.jsonl", "nested"),
    ("replay twoseats.jsonl", "four seats"),
    ("replay badutf.jsonl", "UTF-8"),
    ("replay nosuch.jsonl", "nosuch"),
    ("replay adir", "directory"),
    ("replay tiny.sqlite", "tiny.sqlite"),
    (f"replay --hand 0 {G}", "hand"),
    (f"replay --hand 99 {G}", "99"),
    ("view g.jsonl -o out.html", "g.jsonl"),
    ("view nested.jsonl -o out.html", "nested"),
    ("view twoseats.jsonl -o out.html", "four seats"),
    ("view badutf.jsonl -o out.html", "UTF-8"),
    (f"view {G} -o adir", "adir"),
    ("transcript g.jsonl --seat 1", "g.jsonl"),
    ("transcript nested.jsonl --seat 1", "nested"),
    ("transcript twoseats.jsonl --seat 3", "four seats"),
    ("transcript badutf.jsonl --seat 1", "UTF-8"),
    (f"transcript {G} --seat 9", "seat"),
    (f"transcript {G} --seat 1 --hand 0", "hand"),
    ("refeed g.jsonl --seat 1 greedy", "g.jsonl"),
    ("refeed twoseats.jsonl --seat 3 greedy", "four seats"),
    ("refeed badutf.jsonl --seat 1 greedy", "UTF-8"),
    (f"refeed {G} --seat 1 greedy:chownes=1", "chownes"),
    (f"refeed {G} --seat 7 greedy", "seat"),
    (f"refeed {G} --seat 1 --timeout 0 greedy", "timeout"),
    (f"refeed {G} --seat 1 --stderr adir python3", "adir"),
    ("standings /etc/hostname", "hostname"),
    ("standings nosuch.sqlite", "nosuch"),
    ("standings adir", "directory"),
    ("standings cell.sqlite", "points"),
    ("standings text.sqlite", "text.sqlite"),
    ("report /etc/hostname -o r.html", "hostname"),
    ("report cell.sqlite -o r.html", "points"),
    ("report text.sqlite -o r.html", "text.sqlite"),
    ("tournament t.toml", "seeds"),
    ("tournament env_key_t.toml", "-u"),
    ("tournament dummy_name.toml", "dummy-greedy"),
    ("tournament name_path.toml", "store"),
    ("report id_path.sqlite -o rep/r.html --with-matches", "match ID"),
    ("report seed_html.sqlite -o rep/r.html", "seed"),
    ("view tile_html.jsonl -o v.html", "init_card"),
    ("view set_html.jsonl -o v.html", "arrangement"),
    ("view fault_huge.jsonl -o v.html", "detail"),
    ("tournament ansi_title.toml", "tournament name"),
    ("match env_key.toml --log none", "A=B"),
    ("match env_nul.toml --log none", "NUL"),
    ("match cmd_nul.toml --log none", "NUL"),
    ("tournament latin.toml", "UTF-8"),
    ("tournament deep.toml", "TOML"),
    ("tournament chownes.toml", "chownes"),
    ("tournament chowness.toml", "chowness"),
    ("tournament storedir.toml", "directory"),
    ("tournament nosuch.toml", "nosuch"),
    ("tournament tiny.toml --concurrency 0", "--concurrency"),
    ("tournament tiny.toml --concurrency -2", "--concurrency"),
    ("tournament tiny.toml --store adir", "directory"),
    ("tournament tiny.toml --store text.sqlite", "text.sqlite"),
    ("score g.jsonl", "g.jsonl"),
    ("score deep.json", "nested"),
    ("score list.json", "list.json"),
    ("score bin.json", "UTF-8"),
    ("score nosuch.json", "nosuch"),
    ("score adir", "adir"),
    ("check", "BOT"),
    ("check nosuchbot", "nosuchbot"),
    ("check greedy:chownes=2", "chownes"),
    ("check greedy --timeout 0", "--timeout"),
    ("check greedy --only nosuch", "nosuch"),
    ("regress --candidate greedy:chownes=0.9 --baseline greedy", "chownes"),
    ("regress --candidate greedy --baseline random --concurrency 0", "--concurrency"),
    ("regress --candidate greedy --baseline random --alpha 2", "alpha"),
    ("regress --candidate greedy --baseline random --store adir", "adir"),
    ("regress --candidate greedy --baseline random --hands 0", "hands"),
    ("schema nope", "nope"),
    # Files that never end, or never open: refused at once instead of a hang or a RuntimeError
    ("replay fifo", "not a regular file"),
    ("replay /dev/zero", "not a regular file"),
    ("view fifo -o out.html", "not a regular file"),
    ("view loop1 -o out.html", "loop1"),
    ("transcript /dev/zero --seat 1", "not a regular file"),
    ("refeed fifo --seat 1 greedy", "not a regular file"),
    ("score fifo", "not a regular file"),
    ("score /dev/zero", "not a regular file"),
    ("score loop1", "symbolic links"),
    ("tournament fifo", "not a regular file"),
    ("tournament /dev/zero", "not a regular file"),
    ("match --wallfile fifo", "not a regular file"),
    ("match --wallfile /dev/zero", "not a regular file"),
    ("report loop1 -o r.html", "loop1"),
    ("check fifo", "fifo"),
    ("match ansi_bot.toml --log none", "bot name '\\x1b[2Jevil'"),
    ("check ansi_bot.toml", "bot name"),
    ("tournament ansi_name.toml", "x1b[31mred"),
    ("tournament blank_name.toml", "name"),
    ("tournament seeds_nan.toml", "seeds"),
    ("tournament seed_unstorable.toml", "seeds[0] must be at most 2**63 - 1"),
    ("tournament store_fifo.toml", "fifo"),
    ("tournament logs_proc.toml", "/proc/version"),
    ("tournament timeout_inf.toml", "timeout"),
    ("tournament empty_cmd.toml", "cmd"),
    ("tournament neg_timeout.toml", "move_timeout"),
    ("match --hands nan --log none", "--hands"),
    ("match --timeout inf --log none", "--timeout"),
    ("match --timeout nan --log none", "--timeout"),
    ("match --seed 1e3 --log none", "--seed"),
    ("check greedy --start-grace -1", "--start-grace"),
    ("check greedy --timeout inf", "--timeout"),
    ("tournament tiny.toml --timeout 0", "--timeout"),
    ("regress --candidate greedy --baseline random --timeout nan", "--timeout"),
    ("match --timeout soon --log none", "--timeout"),
    ("regress --plan --candidate greedy --baseline random --sd nan", "--sd"),
    ("regress --plan --candidate greedy --baseline random --margin -1", "margin"),
    # Planning inputs that would make the simulation run for minutes: a documented range, the same for a run
    ("regress --plan --margin 0.001", "--margin must be a number of points per hand, 0.1 or more"),
    ("regress --candidate greedy --baseline random --margin 0.001", "--margin must be"),
    ("regress --plan --sd 1e6", "--sd must be a number of points per hand above 0 and at most 10000"),
    ("regress --plan --alpha 1e-300", "--alpha must be from 1e-06 to 0.5"),
    ("regress --candidate greedy --baseline random --beta 1e-9", "--beta must be from 1e-06 to 0.5"),
    ("regress --plan --max-hands 1000000000000", "--max-hands must be from 1 to 1,000,000"),
    ("regress --candidate greedy --baseline random --max-hands 1000000000000", "--max-hands must be from 1"),
    (f"regress --candidate greedy --baseline random --seeds-from {2**64 - 1}", "--seeds-from"),
    (f"regress --candidate greedy --baseline random --seeds-from {2**63 - 100}", "2**63 - 1"),
    (f"refeed {G} --seat 1 --hand -1 greedy", "--hand"),
    (f"replay --hand nan {G}", "--hand"),
    ("serve greedy --port 70000", "port"),
    # Full-width and other non-ASCII digits are not numbers (referee.numbers): int("１") == 1 in Python
    ("match --seed １ --log none", "--seed"),
    ("match --seed 1_000 --log none", "--seed"),
    ("match --hands ２ --log none", "--hands"),
    ("match --timeout ５ --log none", "--timeout"),
    ("match greedy:chowness=０.5 --log none", "chowness"),
    ("match --set hands=１６ --log none", "hands"),
    ("regress --plan --margin １０", "--margin"),
    ("regress --plan --max-hands １０００", "--max-hands"),
    ("check greedy --start-grace ０.5", "--start-grace"),
    (f"refeed {G} --seat １ greedy", "--seat"),
    (f"replay --hand ２ {G}", "--hand"),
    ("serve greedy --listen 127.0.0.1:８７６５", "port"),
    # Places a command would write, refused before any match starts
    ("match --hands 1 --html adir", "--html adir: is a directory"),
    ("match --hands 1 --log fifo", "--log fifo: is not a regular file"),
    ("match --hands 1 --log loop1", "symbolic links"),
    ("match --hands 1 --log tiny.toml/x.jsonl", "--log"),
    ("match --hands 1 --log /proc/version", "/proc/version: the file exists; give --force"),
    ("match --hands 1 --log /proc/version --force", "/proc/version: cannot write"),
    ("match --hands 1 --log none --stderr-dir /proc/version python3", "--stderr-dir /proc/version"),
    ("regress --candidate greedy --baseline random --store r.sqlite --markdown adir", "--markdown adir"),
    ("regress --candidate greedy --baseline random --store r.sqlite --markdown /proc/nope/x.md", "/proc/nope"),
    ("regress --candidate greedy --baseline random --store r.sqlite --logs /proc/version", "--logs"),
    ("regress --candidate greedy --baseline random --store fifo", "--store fifo"),
    ("tournament tiny.toml --report adir", "--report adir"),
    ("tournament tiny.toml --store fifo", "fifo"),
    (f"view {G} -o /proc/nope/v.html", "-o /proc/nope"),
    (f"view {G} -o fifo", "-o fifo"),
    ("report tiny.sqlite -o adir", "-o adir"),
    (f"refeed {G} --seat 1 greedy --stderr fifo", "--stderr fifo"),
    ("match \x1b[2J\x07bot", "x1b"),
    ("match greedy:chowness=\x1b[31m", "chowness"),
    ("match --set \x1b[2J=1", "x1b"),
    ("replay ansi.jsonl", "ansi.jsonl"),
    ("transcript ansi.jsonl --seat 1", "ansi.jsonl"),
    ("tournament ansi.toml", "x1b"),
    ("tournament ansi_key.toml", "x1b"),
    ("score ansi.json", "concealed"),
    ("score ansi_key.json", "ansi_key.json"),
    ("check \x1b[2Jbot\u202e", "x1b"),
    ("replay \x1b[2J\x1b[31mnosuch\x07.jsonl", "x1b[2J"),
    ("view a\x07\u202e.jsonl -o out.html", "x07"),
    ("standings \x1b]0;title\x07.sqlite", "x1b]0"),
    ("score \x1b[2J.json", "x1b"),
    ("tournament \x1b[2J.toml", "x1b"),
    ("schema \x1b[2J", "x1b"),
    ("nope", "nope"),
]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = int(exc.code or 0)
    return rc, capsys.readouterr().err


def _one_line(rc: int, err: str, argv: list[str]) -> str:
    lines = err.strip("\n").split("\n")  # a line ends at \n only (a quoted U+0085 is not a line break)
    assert rc == 2, f"mjref {' '.join(argv)}: exit {rc}, stderr {err!r}"
    assert len(lines) == 1, f"mjref {' '.join(argv)}: {len(lines)} lines on stderr: {err!r}"
    assert "Traceback" not in err
    assert lines[0].startswith("mjref"), lines[0]
    assert lines[0].isprintable(), f"a control character reached the terminal raw: {lines[0]!r}"
    return lines[0]


@pytest.mark.parametrize(("command", "word"), CASES, ids=[c for c, _ in CASES])
def test_bad_input_is_one_line_and_exit_2(command: str, word: str, files: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(files)
    argv = command.split()
    rc, err = _run(argv, capsys)
    line = _one_line(rc, err, argv)
    assert word.lower() in line.lower(), f"the line does not name {word!r}: {line}"


def test_help_texts_show_percent_signs_once(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("match", "tournament", "standings", "regress", "replay", "transcript", "refeed", "check", "view",
                    "report", "score", "schema"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "%%" not in out, command
        assert "RULES" not in out, command


def test_the_store_keeps_what_was_recorded(files: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad --concurrency on a store with results is refused before anything is touched."""
    monkeypatch.chdir(files)
    before = (files / "tiny.sqlite").read_bytes()
    _one_line(*_run(["tournament", "tiny.toml", "--concurrency", "0"], capsys), ["tournament"])
    assert (files / "tiny.sqlite").read_bytes() == before


@pytest.mark.parametrize("bots", [["mj-player"] * 4, ["greedy", "nosuch.toml"], ["greedy", "remote:bob"]],
                         ids=["xmj-under-taiwan16", "missing-bot-file", "remote-seat"])
def test_a_refused_match_makes_no_folder(bots: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A match refused for its seats is refused before its output folders are made (--stderr-dir and --log's
    folder were created, then the seats refused)."""
    monkeypatch.chdir(tmp_path)
    argv = ["match", *bots, "--hands", "1", "--stderr-dir", "errs", "--log", "logs/m.jsonl"]
    _one_line(*_run(argv, capsys), argv)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------------- fuzzing
FUZZ = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
GOLDEN_LINES = GOLDEN.read_bytes().split(b"\n")


@st.composite
def damaged_logs(draw: st.DrawFn) -> bytes:
    """The golden log with one line replaced, cut, duplicated or filled with bytes, or pure noise."""
    lines = list(GOLDEN_LINES[:60])
    how = draw(st.sampled_from(["replace", "cut", "bytes", "noise", "json"]))
    i = draw(st.integers(0, len(lines) - 1))
    if how == "replace":
        lines[i] = draw(st.binary(max_size=200))
    elif how == "cut":
        lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
    elif how == "bytes":
        j = draw(st.integers(0, max(0, len(lines[i]) - 1)))
        lines[i] = lines[i][:j] + draw(st.binary(min_size=1, max_size=8)) + lines[i][j:]
    elif how == "json":
        value = draw(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                                  lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c,
                                                                                        max_size=3), max_leaves=20))
        lines[i] = json.dumps(value).encode()
    else:
        return draw(st.binary(max_size=400))
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("command", [["replay"], ["view", "-o", "out.html"], ["transcript", "--seat", "2"],
                                     ["refeed", "--seat", "3", "drawdiscard"]])
@FUZZ
@given(data=damaged_logs())
def test_fuzzed_logs_never_give_a_traceback(command: list[str], data: bytes, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "fuzz.jsonl"
    log.write_bytes(data)
    argv = [command[0], str(log), *command[1:]]
    if command[0] == "view":
        argv[3] = str(tmp_path / "out.html")
    if command[0] == "refeed":
        argv = ["refeed", str(log), "--seat", "3", "drawdiscard"]
    rc, err = _run(argv, capsys)
    if rc == 2:
        _one_line(rc, err, argv)
    else:  # a damage that still reads: verified (0) or a divergence (1), said on stdout
        assert rc in (0, 1) and "Traceback" not in err, (argv, rc, err)


TOML_VALUES = st.recursive(
    st.none().map(lambda _: "1") | st.integers(-(10**25), 10**25).map(str) | st.text(max_size=12).map(json.dumps)
    | st.sampled_from(["true", "nan", "inf", '"greedy:chowness=9"', "[]", "{}", "1e999"]),
    lambda c: st.lists(c, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
    max_leaves=8,
)
TOML_KEYS = st.sampled_from(["name", "seeds", "hands", "store", "format", "duplicate", "seatings", "concurrency",
                             "wall_salt", "dask", "logs", "nope"])


@st.composite
def tournament_files(draw: st.DrawFn) -> bytes:
    lines = [f"{draw(TOML_KEYS)} = {draw(TOML_VALUES)}" for _ in range(draw(st.integers(0, 5)))]
    if draw(st.booleans()):
        lines += ["[[bots]]", f"name = {json.dumps(draw(st.text(max_size=8)))}",
                  f"builtin = {json.dumps(draw(st.sampled_from(['greedy', 'greedy:chowness=2', 'x', 'random:'])))}"]
    if draw(st.booleans()):
        lines += ["[rules]", f"{draw(st.sampled_from(['flowers', 'hands', 'tai', 'nope', 'default_dummy']))} = "
                  f"{draw(TOML_VALUES)}"]
    text = "\n".join(lines).encode()
    if draw(st.booleans()):
        text += draw(st.binary(max_size=20))
    return text


@pytest.mark.slow  # a valid file plays its whole tournament
@FUZZ
@given(data=tournament_files())
def test_fuzzed_tournament_files_are_refused_in_one_line(data: bytes, tmp_path_factory: pytest.TempPathFactory,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path_factory.mktemp("t") / "t.toml"  # a folder per example: no store left by the one before
    path.write_bytes(data)
    argv = ["tournament", str(path), "--quiet", "--json"]
    rc, err = _run(argv, capsys)
    if rc == 0:  # a valid file (one good bot: dummies fill the other seats) plays
        assert "Traceback" not in err
        return
    _one_line(rc, err, argv)


@FUZZ
@given(data=st.one_of(st.binary(max_size=300),
                      st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6),
                                   lambda c: st.lists(c, max_size=4) | st.dictionaries(
                                       st.sampled_from(["concealed", "melds", "winning_tile", "seat_wind", "dealer",
                                                        "flowers", "x"]), c, max_size=5), max_leaves=25)
                      .map(lambda v: json.dumps(v).encode())))
def test_fuzzed_score_requests(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "req.json"
    path.write_bytes(data)
    _one_line(*_run(["score", str(path)], capsys), ["score", str(path)])


@FUZZ
@given(data=st.binary(max_size=300))
def test_fuzzed_stores(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.sqlite"
    path.write_bytes(data)
    for command in (["standings", str(path)], ["report", str(path), "-o", str(tmp_path / "r.html")]):
        _one_line(*_run(command, capsys), command)


# ---------------------------------------------------------------------------------------------------- as a user
PROBES = [
    (["match", "nosuchbot"], None),
    (["replay", "/dev/null"], None),
    (["replay", "g.jsonl"], b"\x00\x01garbage"),
    (["view", "g.jsonl", "-o", "out.html"], b"\x00\x01garbage"),
    (["transcript", "g.jsonl", "--seat", "1"], b"\x00\x01garbage"),
    (["standings", "/etc/hostname"], None),
    (["tournament", "t.toml"], None),
    (["score", "g.jsonl"], b"\x00\x01garbage"),
]


@pytest.mark.parametrize(("argv", "content"), PROBES, ids=[" ".join(a) for a, _ in PROBES])
def test_the_installed_command_says_one_line(argv: list[str], content: bytes | None, tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('name = "x"\nseeds = "many"\n')
    if content is not None:
        (tmp_path / "g.jsonl").write_bytes(content)
    exe = Path(sys.executable).parent / "mjref"
    cmd = [str(exe), *argv] if exe.exists() else [sys.executable, "-m", "referee.cli", *argv]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_printable_escapes_what_a_terminal_would_obey() -> None:
    from referee.errors import printable

    assert printable("plain 對局.toml") == "plain 對局.toml"  # printable Unicode stays readable
    assert printable("\x1b[2J\x07x\n\r\t\x7f\x85\u202e\udcff") == "\\x1b[2J\\x07x\\n\\r\\t\\x7f\\x85\\u202e\\udcff"
    assert printable(ValueError("a\x1bb")) == "a\\x1bb"


def test_a_bad_output_place_is_refused_before_any_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``regress --markdown DIR`` used to play the whole regression and fail at the end; now nothing is played."""
    (tmp_path / "md").mkdir()
    store = tmp_path / "r.sqlite"
    argv = ["regress", "--candidate", "greedy", "--baseline", "random", "--store", str(store), "--markdown",
            str(tmp_path / "md"), "--quiet"]
    line = _one_line(*_run(argv, capsys), argv)
    assert "--markdown" in line and not store.exists()


def test_a_log_or_store_someone_else_gives_you_cannot_drive_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log's seat names and header are refused when they hold control characters (mjref never writes them); a
    divergence quoting a tampered line is shown escaped; a store's edited names are shown escaped."""
    records = [json.loads(line) for line in GOLDEN.read_text().splitlines()]
    evil = "\x1b[2J\x1b]0;HACKED\x07"
    named = json.loads(json.dumps(records))
    named[0]["seats"][0]["name"] = "bot" + evil
    (tmp_path / "named.jsonl").write_text("".join(json.dumps(r) + "\n" for r in named))
    assert main(["replay", str(tmp_path / "named.jsonl")]) == 2
    answered = json.loads(json.dumps(records))
    answer = next(r for r in answered if r["type"] == "answer")
    answer["raw"] = answer["answer"] + evil
    (tmp_path / "answered.jsonl").write_text("".join(json.dumps(r) + "\n" for r in answered))
    assert main(["replay", str(tmp_path / "answered.jsonl")]) == 1
    out, err = capsys.readouterr()
    assert "divergence" in out and "\x1b" not in out + err and "\x07" not in out + err
