"""A new user's first day, through the installed ``mjref`` as they run it (issue 35): nothing they made is
overwritten, a closed pipe or a Ctrl-C ends a command cleanly (no traceback, the log complete or marked
``aborted``), and a bot that cannot start is told apart from one that is missing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from installed import ENV, MJREF, WAIT, mjref, one_line

ROOT = Path(__file__).resolve().parents[2]




def records(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


# ------------------------------------------------------------------------------------------ nothing overwritten
def test_an_existing_log_is_refused_unless_force(tmp_path: Path) -> None:
    first = mjref("match", "greedy", "--hands", "2", "--seed", "3", "--log", "keep.jsonl", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    kept = (tmp_path / "keep.jsonl").read_bytes()
    again = mjref("match", "greedy", "--hands", "1", "--log", "keep.jsonl", cwd=tmp_path)
    line = one_line(again)
    assert line == ("mjref match: --log keep.jsonl: the file exists; give --force to replace it, or another name")
    assert (tmp_path / "keep.jsonl").read_bytes() == kept  # not a byte changed
    forced = mjref("match", "greedy", "--hands", "1", "--log", "keep.jsonl", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert records(tmp_path / "keep.jsonl")[-1]["hands"] == 1


@pytest.mark.parametrize("argv", [
    ["match", "greedy", "--hands", "1", "--log", "new.jsonl", "--html", "page.html"],
    ["view", "keep.jsonl", "-o", "page.html"],
    ["view", "keep.jsonl"],  # its default output, keep.html, exists too
])
def test_every_written_page_is_refused_when_it_exists(tmp_path: Path, argv: list[str]) -> None:
    assert mjref("match", "greedy", "--hands", "1", "--log", "keep.jsonl", cwd=tmp_path).returncode == 0
    for name in ("page.html", "keep.html"):
        (tmp_path / name).write_text("mine\n")
    line = one_line(mjref(*argv, cwd=tmp_path))
    assert "exists; give --force" in line
    assert (tmp_path / "page.html").read_text() == (tmp_path / "keep.html").read_text() == "mine\n"
    assert not (tmp_path / "new.jsonl").exists()  # refused before the match
    assert mjref(*argv, "--force", cwd=tmp_path).returncode == 0


def test_a_bots_stderr_file_from_an_earlier_match_is_not_overwritten(tmp_path: Path) -> None:
    bot = f"{sys.executable} {ROOT / 'examples' / 'mybot.py'}"
    args = ["match", bot, "--hands", "1", "--log", "none", "--stderr-dir", "errs"]
    assert mjref(*args, cwd=tmp_path).returncode == 0
    [made] = list((tmp_path / "errs").iterdir())
    made.write_text("what the bot said last time\n")
    line = one_line(mjref(*args, cwd=tmp_path))
    assert made.name in line and "--force" in line
    assert made.read_text() == "what the bot said last time\n"


# ---------------------------------------------------------------------------------------------- a closed pipe
def test_a_match_whose_stdout_is_closed_stops_in_order(tmp_path: Path) -> None:
    """The reader of stdout is gone before the first hand ends (``| head -0``): the match stops as SIGPIPE would,
    without a traceback; its log ends with an ``aborted`` record and replays without a divergence."""
    read, write = os.pipe()
    os.close(read)  # nobody will read: the first line printed meets a closed pipe
    try:
        proc = subprocess.run([str(MJREF), "match", "greedy", "--hands", "8", "--log", "pm.jsonl", "--seed", "1"],
                              cwd=tmp_path, stdout=write, stderr=subprocess.PIPE, text=True, timeout=WAIT, env=ENV)
    finally:
        os.close(write)
    assert "Traceback" not in proc.stderr and "Exception" not in proc.stderr, proc.stderr
    assert proc.returncode == 128 + signal.SIGPIPE, proc.stderr
    assert proc.stderr.strip() == ("mjref match: stopped by SIGPIPE (its output was closed) after 1 hand (seed 1); "
                                   "log: pm.jsonl (ends with an aborted record)")
    last = records(tmp_path / "pm.jsonl")[-1]
    assert last["type"] == "aborted" and last["signal"] == "SIGPIPE" and last["hands"] == 1
    replay = mjref("replay", "pm.jsonl", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "divergence" not in replay.stdout and "aborted" in replay.stdout


def test_head_1_ends_a_match_without_a_traceback(tmp_path: Path) -> None:
    """As a user types it: ``mjref match … | head -1``.  Whether the match had ended when ``head`` left or not, the
    log is whole (``final``) or marked (``aborted``), and replay finds no divergence."""
    line = f"{MJREF} match greedy --hands 8 --log pm.jsonl | head -1; echo \"status ${{PIPESTATUS[0]}}\""
    proc = subprocess.run(line,
                          shell=True, executable="/bin/bash", cwd=tmp_path, capture_output=True, text=True,
                          timeout=WAIT, env=ENV)
    assert "Traceback" not in proc.stderr and "Exception" not in proc.stderr, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("hand  1 ") and lines[-1] in ("status 0", "status 141"), proc.stdout
    last = records(tmp_path / "pm.jsonl")[-1]
    assert last["type"] == ("aborted" if lines[-1] == "status 141" else "final")
    assert mjref("replay", "pm.jsonl", cwd=tmp_path).returncode == 0


def test_a_tournament_whose_stdout_is_closed_keeps_what_it_finished(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('name = "t"\nseeds = 2\nhands = 1\n[[bots]]\nname = "g"\nbuiltin = "greedy"\n'
                                     '[[bots]]\nname = "r"\nbuiltin = "random"\n')
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([str(MJREF), "tournament", "t.toml"], cwd=tmp_path, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=WAIT, env=ENV)
    finally:
        os.close(write)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 128 + signal.SIGPIPE
    assert "stopped by SIGPIPE (its output was closed)" in proc.stderr
    resumed = mjref("tournament", "t.toml", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr


def test_a_closed_pipe_ends_any_command_with_141(tmp_path: Path) -> None:
    assert mjref("match", "greedy", "--hands", "2", "--log", "m.jsonl", cwd=tmp_path).returncode == 0
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([str(MJREF), "replay", "m.jsonl"], cwd=tmp_path, stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=WAIT, env=ENV)
    finally:
        os.close(write)
    assert proc.returncode == 141 and proc.stderr == "", proc.stderr


# ------------------------------------------------------------------------------------------------------ Ctrl-C
@pytest.mark.parametrize("argv", [
    ["tournament", "sig.toml"],
    ["match", "greedy", "PYBOT", "--log", "none", "--hands", "200"],  # longer than the latest SIGINT below
    ["regress", "--candidate", "greedy", "--baseline", "random", "--store", "r.sqlite"],
    ["serve", "remote:x", "greedy", "--listen", "127.0.0.1:0", "--log", "none"],
    ["play", "--no-browser", "--port", "0", "--log", "none", "random"],
])
def test_ctrl_c_at_any_moment_exits_130_without_a_traceback(tmp_path: Path, argv: list[str]) -> None:
    """SIGINT while Python imports the command's modules, while the run is planned and while matches are played:
    each time exit 130 and at most two lines, never a traceback.  The moments are spread over the first seconds;
    whichever phase each lands in, the same must hold (no assertion depends on when it lands)."""
    pybot = f"{sys.executable} {ROOT / 'examples' / 'mybot.py'}"
    (tmp_path / "sig.toml").write_text(f'name = "sig"\nseeds = 4\nhands = 8\n[[bots]]\nname = "g"\nbuiltin = "greedy"\n'
                                       f'[[bots]]\nname = "m"\ncmd = {json.dumps(pybot.split())}\n')
    argv = [pybot if a == "PYBOT" else a for a in argv]
    for delay in (0.0, 0.05, 0.15, 0.3, 0.6, 1.2):
        proc = subprocess.Popen([str(MJREF), *argv], cwd=tmp_path, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=WAIT)
        ours = [line for line in err.splitlines() if line.strip().startswith('File "') and "/referee/" in line
                and "/referee/__init__.py" not in line]
        if "Traceback" in err and not ours:
            # Python's own start, its launcher's `import re`, or the package's first lines before they set mjref's
            # handler (referee/__init__.py): before mjref can act, not mjref's
            continue
        assert "Traceback" not in err and len(err.strip().splitlines()) <= 2, (delay, err)
        # Before Python has set up its handler the signal's default action ends the process: killed by SIGINT,
        # which a shell reports as 130 too.
        assert proc.returncode in (130, -signal.SIGINT), (delay, proc.returncode, err)


# ------------------------------------------------------------------------------------------- a bot that cannot start
def test_a_missing_interpreter_is_named(tmp_path: Path) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/nonexistent/interp\necho hi\n")
    script.chmod(0o755)
    line = one_line(mjref("match", "./bot.sh", "--hands", "1", "--log", "none", cwd=tmp_path))
    assert line == ("mjref match: bot './bot.sh': cannot run './bot.sh': its interpreter '/nonexistent/interp' (the "
                    "script's #! line) does not exist")
    (tmp_path / "t.toml").write_text('name = "t"\n[[bots]]\nname = "mine"\ncmd = ["./bot.sh"]\n')
    line = one_line(mjref("tournament", "t.toml", cwd=tmp_path))
    assert "bot 'mine'" in line and "'/nonexistent/interp'" in line and not (tmp_path / "t.sqlite").exists()
    envbot = tmp_path / "envbot"
    envbot.write_text("#!/usr/bin/env no-such-language-mjref\n")
    envbot.chmod(0o755)
    line = one_line(mjref("check", "./envbot", cwd=tmp_path))
    assert "'no-such-language-mjref'" in line and "not on the PATH" in line


def test_missing_and_not_executable_are_told_apart(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text("print('hi')\n")
    missing = one_line(mjref("match", "./nothere", "--log", "none", cwd=tmp_path))
    plain = one_line(mjref("match", "./plain.py", "--log", "none", cwd=tmp_path))
    folder = one_line(mjref("match", str(tmp_path), "--log", "none", cwd=tmp_path))
    assert missing.endswith("cannot run './nothere': no such file")
    assert "the file is not executable (chmod +x it" in plain
    assert "is a folder, not a program" in folder
    word = one_line(mjref("match", "nosuchcommand", "--log", "none", cwd=tmp_path))
    assert "a command on the PATH" in word
