"""Text a user or a bot controls is shown as written: never read as rich console markup (a name ``mybot[v1]`` once
showed as ``mybot``, ``[reverse]BOT`` as ``BOT`` in reverse video, and a ``[/]`` in a bot's or a tournament's
name, or in a path, ended the command with a ``MarkupError``, a match mid-way with no ``final`` record), nor as
emoji codes, nor as markdown or HTML in ``standings --format markdown`` and ``regress --markdown``.

The commands run as real processes: with their output in a pipe (lines) and in a terminal (the live tables)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from installed import in_a_terminal

from referee.commands import regress as regress_command
from referee.game.taiwan16.rules import make_ruleset
from referee.markdown import md_code, md_text
from tournaments.regress import RegressSettings, RegressState
from tournaments.sprt import Sprt
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
EVIL = "evil[/]name"  # an unbalanced closing tag
HTML = "<img/src=x/onerror=alert(1)>|x"  # no whitespace: a tournament's bot names have none


def mjref(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``mjref ARGS`` with its output in a pipe."""
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def mjref_in_a_terminal(*args: str, cwd: Path) -> tuple[int, str, str]:
    """``mjref ARGS`` with its stdout in a wide terminal; the exit status, what it showed, and stderr."""
    return in_a_terminal([sys.executable, "-m", "referee.cli", *args], cwd=cwd)


def bot_file(folder: Path, name: str, builtin_bot: str) -> Path:
    path = folder / f"{builtin_bot}-{len(list(folder.glob('*.toml')))}.toml"
    path.write_text(f"name = {json.dumps(name)}\nbuiltin = {json.dumps(builtin_bot)}\n")
    return path


def process_bot(path: Path) -> str:
    """A process bot (``drawdiscard``) at ``path``: its command line, whose name is the script's stem."""
    path.write_text(f"import runpy, sys\nsys.path.insert(0, {str(ROOT)!r})\n"
                    "runpy.run_module('bots.drawdiscard', run_name='__main__', alter_sys=True)\n")
    return f"{sys.executable} {path}"


def records(log: Path) -> list[str]:
    return [json.loads(line)["type"] for line in log.read_text().splitlines()]


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "MarkupError" not in done.stderr, done.stderr
    return done.stdout


def test_bracketed_and_emoji_names_are_shown_as_written(tmp_path: Path) -> None:
    """Two bot files named ``mybot[v1]`` and ``mybot[v2]`` were two rows named ``mybot``; a script
    ``[reverse]BOT.py`` showed as ``BOT`` (in reverse video on a terminal); ``x:smile:`` as ``x😄``."""
    bots = [str(bot_file(tmp_path, "mybot[v1]", "greedy")), str(bot_file(tmp_path, "mybot[v2]", "greedy")),
            process_bot(tmp_path / "[reverse]BOT.py"), str(bot_file(tmp_path, "x:smile:", "drawdiscard"))]
    out = ok(mjref("match", *bots, "--hands", "1", "--seed", "1", "--log", "none", cwd=tmp_path))
    standings = out[out.index("Standings"):]
    for name in ("mybot[v1]", "mybot[v2]", "[reverse]BOT", "x:smile:"):
        assert f" {name} " in standings, standings
    assert "😄" not in out


def test_a_match_won_by_a_bot_named_with_a_closing_tag_is_played_to_the_end(tmp_path: Path) -> None:
    """``evil[/]name`` wins the first hand: its hand line ended the match mid-way (an ExceptionGroup from the
    hand callback, a log with neither ``final`` nor ``aborted``); the standings ended ``mjref match``.  Its log
    is replayed: the replay's hand table once raised the same error."""
    (tmp_path / "logs[").mkdir()
    (tmp_path / "logs[" / "x]").mkdir()
    log = tmp_path / "logs[" / "x]" / "m.jsonl"  # a path is shown literally too: ".../logs[/x]/m.jsonl"
    bots = [str(bot_file(tmp_path, EVIL, "greedy")), "drawdiscard", "drawdiscard", "drawdiscard"]
    out = ok(mjref("match", *bots, "--hands", "2", "--seed", "1", "--log", str(log), cwd=tmp_path))
    assert f"dealer 1: 1 {EVIL} wins" in out, out  # the hand line, printed as the hand ended
    assert f" {EVIL} " in out[out.index("Standings"):]
    assert f"log: {log}" in out
    kinds = records(log)
    assert kinds[-1] == "final" and kinds.count("result") == 2, kinds
    out = ok(mjref("replay", str(log), cwd=tmp_path))
    assert f"seats: 1 {EVIL}, 2" in out and f"┃ 1 {EVIL} ┃" in out and f"│ 1 {EVIL} wins" in out, out
    assert "verified: 2 hands" in out, out
    out = ok(mjref("replay", str(log), "--hand", "1", "--explain", cwd=tmp_path))
    assert f"seat 1 ({EVIL}) wins" in out, out


def test_the_live_score_table_shows_names_as_written(tmp_path: Path) -> None:
    """On a terminal the score table is drawn live, hand by hand: its columns and results are named literally."""
    bots = [str(bot_file(tmp_path, EVIL, "greedy")), str(bot_file(tmp_path, "mybot[v1]", "drawdiscard")),
            "drawdiscard", "drawdiscard"]
    status, shown, err = mjref_in_a_terminal("match", *bots, "--hands", "1", "--seed", "1", "--log",
                                             str(tmp_path / "m.jsonl"), cwd=tmp_path)
    assert status == 0 and "Traceback" not in err, err
    assert f"1 {EVIL}" in shown and "2 mybot[v1]" in shown and f"1 {EVIL} wins" in shown, shown
    assert records(tmp_path / "m.jsonl")[-1] == "final"


def tournament_file(tmp_path: Path) -> Path:
    bots = [(EVIL, "greedy"), ("mybot[v1]", "drawdiscard"), ("[reverse]BOT", "drawdiscard"), (HTML, "drawdiscard")]
    text = (f"name = {json.dumps(EVIL + ' cup')}\nformat = \"round-robin\"\nduplicate = false\nseeds = 1\n"
            "hands = 1\nconcurrency = 1\nstore = \"t.sqlite\"\n")
    text += "".join(f"[[bots]]\nname = {json.dumps(n)}\nbuiltin = {json.dumps(b)}\n" for n, b in bots)
    path = tmp_path / "cup.toml"
    path.write_text(text)
    return path


def test_a_tournament_and_its_bots_are_named_as_written(tmp_path: Path) -> None:
    """A tournament named ``evil[/]name cup`` ended ``mjref tournament`` at its first line; its live view (the
    progress bar's label, the live standings) and its final standings name it and its bots literally; the
    markdown standings escape a name's HTML and ``|``."""
    cup = tournament_file(tmp_path)
    status, shown, err = mjref_in_a_terminal("tournament", str(cup), cwd=tmp_path)
    assert status == 0 and "Traceback" not in err, err
    assert f"{EVIL} cup: 1 match (" in shown, shown
    live = shown[shown.index("Live standings"):]
    bar = [line for line in shown.splitlines() if "━" in line and "matches" in line][-1]  # the progress bar
    assert bar.startswith(f"{EVIL} cup ") and "1/1 matches" in bar, bar
    for name in (EVIL, "mybot[v1]", "[reverse]BOT"):
        assert f" {name} " in live, live
    # again in a pipe (resumed: nothing left to play): the first line and the standings
    out = ok(mjref("tournament", str(cup), cwd=tmp_path))
    assert f"{EVIL} cup: 1 match (" in out and f"Standings: {EVIL} cup" in out, out
    for name in (EVIL, "mybot[v1]", "[reverse]BOT", HTML):
        assert name in out[out.index("Standings"):], out
    md = ok(mjref("standings", "t.sqlite", "--format", "markdown", cwd=tmp_path))
    assert "<" not in md and ">" not in md, md
    assert "&lt;img/src=x/onerror=alert(1)&gt;\\|x" in md and "## Standings: evil\\[/\\]name cup" in md, md
    assert "| mybot\\[v1\\] |" in md and "| \\[reverse\\]BOT |" in md, md


def test_a_regression_run_names_its_bots_and_store_as_written(tmp_path: Path) -> None:
    """A candidate's command line and the store are paths under ``runs[/x]``: the run's first line (``[/x]``, a
    closing tag) ended ``mjref regress`` with a ``MarkupError``."""
    folder = tmp_path / "runs[" / "x]"
    folder.mkdir(parents=True)
    candidate = process_bot(folder / "bot.py")
    store, md = folder / "r.sqlite", folder / "summary.md"
    out = ok(mjref("regress", "--candidate", candidate, "--baseline", "drawdiscard", "--hands", "1", "--max-hands",
                   "8", "--store", str(store), "--markdown", str(md), "--concurrency", "1", cwd=tmp_path))
    command = shlex.join([sys.executable, str(folder / "bot.py")])  # as the run names it
    flat = " ".join(out.split())  # a long line is folded at the console's width
    assert f"candidate {command} vs baseline builtin:drawdiscard" in flat and f"results in {store}" in flat, out
    assert f"| candidate | `{command}` |" in md.read_text()


def test_markdown_text_and_code_spans_are_literal() -> None:
    assert md_text("plain-name.v2") == "plain-name.v2"
    assert md_text("a|b<c>&d") == "a\\|b&lt;c&gt;&amp;d"
    assert md_text("![x](http://x/t.png) *b* _c_ `d` ~e~ \\") == \
        "!\\[x\\](http://x/t.png) \\*b\\* \\_c\\_ \\`d\\` \\~e\\~ \\\\"
    assert md_code("builtin:greedy") == "`builtin:greedy`"
    assert md_code("a `b` c") == "``a `b` c``"
    assert md_code("`x") == "`` `x ``"


def test_the_regress_summary_quotes_a_command_line_as_code() -> None:
    """A candidate's command line is a code span in the CI summary: a backtick in it no longer ends the span and
    lets the rest (HTML, a link) render."""
    s = RegressSettings(BotSpec(name="greedy", builtin="greedy"), BotSpec(name="random", builtin="random"),
                        rules=make_ruleset({"hands": 4}), max_hands=400)
    r = replace(RegressState(s, Sprt(s.test)).result(), candidate="python bot.py `<img src=x>` |")
    md = regress_command.to_markdown(r, Path("runs/s.sqlite"))
    assert "| candidate | ``python bot.py `<img src=x>` \\|`` |" in md, md
