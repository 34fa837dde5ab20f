"""Hostile inputs found by fuzzing the installed ``mjref``: each is refused in one line with exit status 2 (or, where
the input is fine, handled), never a traceback, a hang or a process killed for its memory.

Every case runs ``mjref`` in a subprocess, as a user would, with a time limit and an address-space limit: a file
that never ends (``/dev/zero``, a FIFO) must be refused, not read until the machine runs out of memory.
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from processes import unprivileged_python

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden-seed7.jsonl"
BOT = '[[bots]]\nname = "g"\nbuiltin = "greedy"\n'
# Mode none (below): as root the bot runs as a uid of its own, which must reach its interpreter (see processes.py).
MYBOT = shlex.join(unprivileged_python([str(ROOT / "examples" / "mybot.py")]))
MEMORY = 2 << 30  # bytes of address space a command gets: reading /dev/zero whole hits it at once


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def mjref(*argv: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "mjref"
    cmd = [str(exe), *argv] if exe.exists() else [sys.executable, "-m", "referee.cli", *argv]
    with open(stdin or os.devnull, "rb") as f:
        return subprocess.run(cmd, cwd=cwd, stdin=f, capture_output=True, text=True, timeout=60,
                              preexec_fn=_limit_memory, env={**os.environ, "PYTHONPATH": str(ROOT),
                                                             "MJREF_SANDBOX": "none"})


def one_line(proc: subprocess.CompletedProcess[str], word: str) -> str:
    lines = proc.stderr.strip("\n").split("\n")
    assert proc.returncode == 2, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert word.lower() in lines[0].lower(), f"the line does not name {word!r}: {lines[0]}"
    return lines[0]


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("fuzz")
    os.mkfifo(d / "fifo")
    (d / "fifo.toml").symlink_to("fifo")
    (d / "zero.toml").symlink_to("/dev/zero")
    (d / "deep.json").write_text("[" * 100_000)
    (d / "afile").write_text("not a folder\n")
    # A bot's cmd string with an unbalanced quote (shlex's ValueError), a cwd holding NUL (resolve's ValueError)
    (d / "quote.toml").write_text('name = "q"\ncmd = "python3 \'x"\n')
    (d / "cwd_nul.toml").write_text('name = "n"\ncmd = ["python3"]\ncwd = "a\\u0000b"\n')
    # Values of another type that pydantic's lax mode took: true seeds (one), "yes" duplicate (true)
    for name, line in (("seeds_true", "seeds = true"), ("duplicate_yes", 'duplicate = "yes"\nseeds = 1'),
                       ("hands_float", "hands = 2.0\nseeds = 1")):
        (d / f"{name}.toml").write_text(f'name = "{name}"\n{line}\n{BOT}')
    for name, path in (("store_nul", "store"), ("logs_nul", "logs")):  # "embedded null byte" where it was used
        (d / f"{name}.toml").write_text(f'name = "{name}"\nseeds = 1\n{path} = "a\\u0000b"\n{BOT}')
    for name, bot in (("quote_t", 'cmd = "python3 \'x"'), ("cwd_nul_t", 'cmd = ["python3"]\ncwd = "a\\u0000b"')):
        (d / f"{name}.toml").write_text(f'name = "{name}"\nseeds = 1\n[[bots]]\nname = "a"\n{bot}\n')
    # A bot's fields of another type, which lax pydantic converted: keep_alive = "yes" kept the bot alive, network =
    # "false" was False, timeout = "5" five seconds, memory_mb = 512.0 a whole number
    for name, line in (("keep_alive_yes", 'keep_alive = "yes"'), ("network_false", 'network = "false"'),
                       ("timeout_str", 'timeout = "5"'), ("memory_float", "memory_mb = 512.0")):
        (d / f"{name}.toml").write_text(f'name = "b"\ncmd = ["python3", "-c", "pass"]\n{line}\n')
        (d / f"{name}_t.toml").write_text(f'name = "{name}"\nseeds = 1\n[[bots]]\nname = "a"\nbuiltin = "random"\n'
                                          f"{line}\n{BOT}")
    records = [json.loads(line) for line in GOLDEN.read_text().splitlines()]
    # An event whose number fields hold lists, or whose list fields hold numbers: the viewer and transcript used
    # them as they came (TypeError) since the check took a list for a number
    for name, field, value in (("seat_list", "seat", []), ("tile_list", "tile", [1]), ("tiles_int", "tiles", 3)):
        changed = json.loads(json.dumps(records))
        event = next(r for r in changed if r["type"] == "event" and field in r)
        event[field] = value
        (d / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in changed))
    # Half of a surrogate pair ("\\ud800" alone) in a fault's line, and in the header: printing the replay's table
    # and writing the viewer's page raised a UnicodeEncodeError
    at = next(i for i, r in enumerate(records) if r["type"] == "answer")
    fault = {"type": "fault", "hand": records[at]["hand"], "seat": 1, "kind": "garbage", "detail": "x",
             "line": "\ud800"}
    faulted = [*records[:at], fault, *records[at:]]
    (d / "surrogate_fault.jsonl").write_text("".join(json.dumps(r) + "\n" for r in faulted))
    header = json.loads(json.dumps(records))
    header[0]["seats"][0]["spec"] = "\udc80"
    (d / "surrogate_header.jsonl").write_text("".join(json.dumps(r) + "\n" for r in header))
    # Numbers of more digits than Python converts to an integer (json's and tomllib's ValueError of their own)
    huge = "9" * 5000
    (d / "huge_request.json").write_text('{"seat_wind": "SOUTH", "concealed": ["1C"], "hands_as_east": ' + huge + "}")
    (d / "huge_rules.toml").write_text(f'family = "classical"\n[options]\nScoreLimit = {huge}\n')
    (d / "huge_bot.toml").write_text(f'name = "h"\ncmd = ["python3"]\ntimeout = {huge}\n')
    (d / "huge.jsonl").write_text(GOLDEN.read_text().replace('"hand":0', '"hand":' + huge, 1)
                                  .replace('"hand": 0', '"hand": ' + huge, 1))
    # An mj-server option of more than a C int holds, as mj-server's option file and as mjref's ruleset
    # A classical hand holding more copies of a tile than there are (scored without complaint)
    five = ["1C", "1C", "1C", "2C", "2C", "2C", "3C", "3C", "3C", "4C", "4C", "4C", "5C", "5C"]
    (d / "five.json").write_text(json.dumps({"seat_wind": "SOUTH", "concealed": five, "sets": ["1C-1C-1C"],
                                             "winning_tile": "5C"}))
    (d / "flower_twice.json").write_text(json.dumps({"seat_wind": "SOUTH", "concealed": five, "specials": ["1F", "1F"],
                                                     "winning_tile": "5C"}))
    (d / "cint.options").write_text("GameOption 0 ScoreLimit nat 0 1 2147483648 limit on hand score\n")
    (d / "cint_rules.toml").write_text('family = "classical"\n[options]\nScoreLimit = 99999999999999999999999\n')
    (d / "game").mkdir()  # a game's first history: the match refuses to write its log over it
    (d / "game" / "hand-01.mjs").write_bytes((ROOT / "tests" / "data" / "mjserver" / "default.mjs").read_bytes())
    return d


LOG_CASES = [*((["view", "-o", "v.html"], log) for log in ("seat_list", "tile_list", "tiles_int")),
             (["transcript", "--seat", "1"], "tiles_int")]


@pytest.mark.parametrize(("command", "log"), LOG_CASES, ids=[f"{' '.join(c)} {n}" for c, n in LOG_CASES])
def test_an_event_field_of_the_wrong_shape_is_refused(command: list[str], log: str, d: Path) -> None:
    one_line(mjref(command[0], f"{log}.jsonl", *command[1:], cwd=d), f"{log}.jsonl")


def test_replay_says_where_a_log_holds_half_a_surrogate_pair(d: Path) -> None:
    """Replay's verdict on a damaged line is a divergence (exit 1) on stdout, not a UnicodeEncodeError."""
    proc = mjref("replay", "surrogate_fault.jsonl", "--hand", "1", cwd=d)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "surrogate" in proc.stdout


def test_a_score_request_on_stdin_is_bounded_as_a_file_is(d: Path) -> None:
    one_line(mjref("score", "-", cwd=d, stdin="/dev/zero"), "<stdin>")


def test_check_with_stderr_to_a_device_does_not_read_it_whole(d: Path) -> None:
    """``--stderr /dev/zero`` (or /dev/full) is a place to write; the check's report used to read it back whole."""
    proc = mjref("check", "greedy", "--stderr", "/dev/zero", "--only", "pass", cwd=d)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]


FILE_CASES = [
    (["view", "surrogate_header.jsonl", "-o", "v.html"], "surrogate_header.jsonl"),
    # Files that never end or never open, and JSON that nests past Python's stack
    (["regress", "--plan", "--resample", "/dev/zero"], "/dev/zero"),
    (["regress", "--plan", "--resample", "fifo"], "fifo"),
    (["regress", "--plan", "--resample", "deep.json"], "deep.json"),
    (["serve", "remote:abc", "greedy", "--tokens", "fifo", "--listen", "127.0.0.1:0"], "fifo"),
    (["serve", "remote:abc", "greedy", "--tokens", "/dev/zero", "--listen", "127.0.0.1:0"], "/dev/zero"),
    (["serve", "fifo.toml", "--listen", "127.0.0.1:0"], "fifo.toml"),
    (["serve", "zero.toml", "--listen", "127.0.0.1:0"], "zero.toml"),
    (["serve", "remote:abc", "--cert", "fifo", "--key", "fifo", "--listen", "127.0.0.1:0"], "fifo"),
    (["connect", "wss://127.0.0.1:1/", "--token", "abcdefghijklmnop", "--cafile", "fifo", MYBOT, "--once"], "fifo"),
    (["match", "quote.toml", "--log", "none"], "cmd"),
    (["match", "cwd_nul.toml", "--log", "none"], "cwd"),
    (["tournament", "quote_t.toml"], "cmd"),
    (["tournament", "cwd_nul_t.toml"], "cwd"),
    (["tournament", "seeds_true.toml"], "seeds"),
    (["tournament", "duplicate_yes.toml"], "duplicate"),
    (["tournament", "hands_float.toml"], "hands"),
    (["tournament", "store_nul.toml"], "store"),
    (["match", "keep_alive_yes.toml", "--log", "none"], "keep_alive"),
    (["match", "network_false.toml", "--log", "none"], "network"),
    (["check", "timeout_str.toml"], "timeout"),
    (["match", "memory_float.toml", "--log", "none"], "memory_mb"),
    (["tournament", "keep_alive_yes_t.toml"], "bots[0].keep_alive"),
    (["tournament", "timeout_str_t.toml"], "bots[0].timeout"),
    (["tournament", "logs_nul.toml"], "logs"),
    (["serve", "remote:abc", "--wait", "-1", "--listen", "127.0.0.1:0"], "--wait"),
    (["serve", "remote:abc", "--wait", "nan", "--listen", "127.0.0.1:0"], "--wait"),
    # A Dask address of a scheme Dask has not, or that works within one process only: 20 s, then a traceback
    (["tournament", "--dask", "nonsense://x", "--quiet"], "nonsense"),
    (["tournament", "--dask", "inproc://x", "--quiet"], "inproc"),
    # A seat played through `mjref serve`: nothing to run here (an AssertionError)
    (["check", "remote:abc"], "remote:abc"),
    (["refeed", str(GOLDEN), "--seat", "1", "remote:abc"], "remote:abc"),
    # A URL urllib cannot split
    (["connect", "ws://[::1", "--token", "abcdefghijklmnop", MYBOT, "--once"], "URL"),
    (["connect", "ws://127.0.0.1:99999/", "--token", "abcdefghijklmnop", MYBOT, "--once"], "URL"),
    (["connect", "ws://:80", "--token", "abcdefghijklmnop", MYBOT, "--once"], "URL"),
    # Points that a store cannot keep (SQLite's integers end at 2**63 - 1), refused before any match
    (["match", "--set", f"base={10**23}", "--log", "none"], "base"),
    (["match", "--set", f"fault_penalty={10**23}", "--log", "none"], "fault_penalty"),
    (["match", "--set", f"tai.dealer={10**23}", "--log", "none"], "tai.dealer"),
    # Rule values of another type that pydantic's lax mode took: hands=true played one hand, flowers="yes" flowers
    (["match", "--set", "hands=true", "--log", "none"], "hands"),
    (["match", "--set", 'flowers="yes"', "--log", "none"], "flowers"),
    # A tai table set to a number, then one of its items (a TypeError)
    (["score", str(ROOT / "examples" / "score-request.json"), "--set", "tai=2", "--set", "tai.dealer=1"], "tai"),
    (["match", "--set", "tai=null", "--set", "tai.dealer=1", "--log", "none"], "tai"),
    # Numbers of more digits than Python converts, in JSON and TOML files
    (["score", "--rules", "classical", "huge_request.json"], "4300 digits"),
    (["match", "--rules", "huge_rules.toml", "--log", "none"], "4300 digits"),
    (["match", "huge_bot.toml", "--log", "none"], "4300 digits"),
    (["view", "huge.jsonl", "-o", "v.html"], "4300 digits"),
    # Classical options mj-server keeps in a C int, or of another type (lax pydantic took 1e3 and true)
    (["match", "--rules", "cint.options", "--log", "none"], "ScoreLimit"),
    (["match", "--rules", "cint_rules.toml", "--log", "none"], "ScoreLimit"),
    (["match", "--rules", "classical", "--set", "MahJongScore=2147483648", "--log", "none"], "MahJongScore"),
    (["match", "--rules", "classical", "--set", "ScoreLimit=1e3", "--log", "none"], "ScoreLimit"),
    (["match", "--rules", "classical", "--set", "ScoreLimit=true", "--log", "none"], "ScoreLimit"),
    (["score", "--rules", "classical", "five.json"], "1C"),
    (["score", "--rules", "classical", "flower_twice.json"], "1F"),
    # A family changed by --set over --rules (it was taken and ignored)
    (["match", "--rules", "classical", "--set", "family=taiwan16", "--log", "none"], "family"),
    # An output that is the same file as another output or an input: the log was destroyed by its own viewer
    (["match", "--hands", "1", "--log", "same.jsonl", "--html", "./same.jsonl", "--force"], "--html"),
    (["match", "--hands", "1", "--log", "game/hand-01.mjs", "--wallfile", "game", "--force"], "--log"),
]


@pytest.mark.parametrize(("argv", "word"), FILE_CASES, ids=[" ".join(a) for a, _ in FILE_CASES])
def test_hostile_files_and_arguments_are_one_line(argv: list[str], word: str, d: Path) -> None:
    one_line(mjref(*argv, cwd=d), word)


def test_a_tournament_whose_logs_is_a_file_is_refused_before_any_match(d: Path) -> None:
    (d / "logs.toml").write_text(f'name = "l"\nseeds = 1\nhands = 1\nstore = "l.sqlite"\nlogs = "afile"\n{BOT}')
    one_line(mjref("tournament", "logs.toml", "--quiet", cwd=d), "afile")
    assert (d / "afile").read_text() == "not a folder\n"


def test_a_tournament_whose_logs_cannot_be_written_is_refused_before_any_match(d: Path) -> None:
    """/proc is a folder that access() calls writable for root, and no file can be made in it: the matches played,
    then each failed to write its log."""
    (d / "proc.toml").write_text(f'name = "p"\nseeds = 1\nhands = 1\nstore = "p.sqlite"\nlogs = "/proc"\n{BOT}')
    one_line(mjref("tournament", "proc.toml", "--quiet", cwd=d), "/proc")
    assert not (d / "p.sqlite").exists()


def test_a_tournament_with_points_a_store_cannot_keep_is_refused_before_any_match(d: Path) -> None:
    (d / "base.toml").write_text(f'name = "b"\nseeds = 1\nhands = 1\nstore = "b.sqlite"\n[rules]\nbase = {10**23}\n'
                                 + BOT)
    line = one_line(mjref("tournament", "base.toml", "--quiet", cwd=d), "base")
    assert "OverflowError" not in line and not (d / "b.sqlite").exists()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament's store (two built-in bots and two dummies, one seed, one hand)."""
    d = tmp_path_factory.mktemp("store")
    (d / "t.toml").write_text(f'name = "t"\nseeds = 1\nhands = 1\nstore = "t.sqlite"\n{BOT}'
                              '[[bots]]\nname = "r"\nbuiltin = "random"\n')
    proc = mjref("tournament", "t.toml", "--quiet", cwd=d)
    assert proc.returncode == 0, proc.stderr
    con = sqlite3.connect(d / "t.sqlite")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return d


STORE_CASES = [
    # A total that is a float: the report's page formats it as a whole number (ValueError)
    ("UPDATE matches SET total4 = -1e308", ["report", "e.sqlite", "-o", "r.html"], "total4"),
    ("UPDATE matches SET total1 = 1.5", ["report", "e.sqlite", "-o", "r.html"], "total1"),
    # A rank past SQLite's integers: totalling it again was an OverflowError
    ("UPDATE seats SET rank = 9223372036854775807", ["standings", "e.sqlite", "--recount"], "e.sqlite"),
    # A count that is a huge real: kept as given in an INTEGER column, it overflowed the statistics' int to float
    ("UPDATE agg_bot_moments SET rg = 1e308", ["standings", "e.sqlite", "--cluster", "seed"], "rg"),
    ("UPDATE agg_bot SET deal_ins = 1e308 * 10", ["standings", "e.sqlite"], "deal_ins"),
    ("UPDATE seats SET deal_ins = 1e308", ["standings", "e.sqlite", "--recount"], "deal_ins"),
    # Moments no matches give: Σn² of 0 beside a Σn that is not divided by zero; sums past any points' overflowed
    ("UPDATE agg_pair SET snn = 0", ["standings", "e.sqlite"], "snn"),
    ("UPDATE agg_bot_moments SET snn = 0", ["standings", "e.sqlite", "--no-head-to-head"], "snn"),
    ("UPDATE agg_bot_moments SET sy = 1e308", ["report", "e.sqlite", "-o", "r.html"], "sy"),
    ("UPDATE agg_pair SET syn = -1e308", ["standings", "e.sqlite"], "syn"),
    # Cells the report read as numbers before it looked at them
    ("UPDATE agg_hand_points SET hands = 'x'", ["report", "e.sqlite", "-o", "r.html"], "hands"),
    ("UPDATE matches SET idx = 'nan' WHERE rowid = 1", ["report", "e.sqlite", "-o", "r.html"], "idx"),
]


@pytest.mark.parametrize(("sql", "argv", "word"), STORE_CASES, ids=[s for s, _, _ in STORE_CASES])
def test_a_store_edited_by_hand_is_refused_in_one_line(sql: str, argv: list[str], word: str, store: Path,
                                                       tmp_path: Path) -> None:
    edited_store(store, tmp_path, sql)
    one_line(mjref(*argv, cwd=tmp_path), word)


def edited_store(store: Path, tmp_path: Path, *statements: str | tuple[str, tuple[Any, ...]]) -> Path:
    """``tmp_path/e.sqlite``: a copy of the real store in ``store`` with ``statements`` (SQL, or SQL and its
    parameters) run on it, as a hand would."""
    edited = tmp_path / "e.sqlite"
    shutil.copy(store / "t.sqlite", edited)
    con = sqlite3.connect(edited)
    for statement in statements:
        con.execute(*((statement,) if isinstance(statement, str) else statement))
    con.commit()
    con.close()
    return edited


@pytest.mark.parametrize("address", ["nonsense://x", "tcp://127.0.0.1:1"])
def test_restart_with_a_dask_address_that_cannot_be_used_keeps_the_store(address: str, store: Path,
                                                                         tmp_path: Path) -> None:
    """``--restart`` discarded the store when the run was planned, and only then was the address refused."""
    shutil.copy(store / "t.toml", tmp_path / "t.toml")
    shutil.copy(store / "t.sqlite", tmp_path / "t.sqlite")
    before = (tmp_path / "t.sqlite").read_bytes()
    one_line(mjref("tournament", "t.toml", "--restart", "--dask", address, "--quiet", cwd=tmp_path), address)
    assert (tmp_path / "t.sqlite").read_bytes() == before


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root (CI runs as root)")
def test_a_device_named_as_an_output_is_written_to_never_replaced(tmp_path: Path) -> None:
    """``--log /dev/null --force`` as root replaced the machine's ``/dev/null`` with a regular file (a log is made
    fresh, and what stood at its path was removed first), and with it the ``/dev/null`` of every box after: a
    character device at an output's path (a log, a bot's stderr) is written to as it is; a block device is
    refused before the match."""
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    err = tmp_path / "err"
    err.mkdir()
    os.mknod(err / "seat1-mybot.stderr", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    proc = mjref("match", MYBOT, "--hands", "1", "--log", str(null), "--force", "--stderr-dir", str(err), "--quiet",
                 cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert stat.S_ISCHR(null.lstat().st_mode) and stat.S_ISCHR((err / "seat1-mybot.stderr").lstat().st_mode)
    block = tmp_path / "block"
    os.mknod(block, 0o600 | stat.S_IFBLK, os.makedev(7, 250))
    one_line(mjref("match", "--hands", "1", "--log", str(block), "--force", cwd=tmp_path), "not a regular file")
    assert stat.S_ISBLK(block.lstat().st_mode)
