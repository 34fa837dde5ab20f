"""Messages, help texts and defaults that said something else than the program (issue 35), each checked through the
installed ``mjref`` as a user meets it."""

from __future__ import annotations

import sys
from pathlib import Path

from installed import mjref, one_line

ROOT = Path(__file__).resolve().parents[2]
BOT = '[[bots]]\nname = "g"\nbuiltin = "greedy"\n'




def test_the_help_says_greedy_fills_a_match(tmp_path: Path) -> None:
    top = " ".join(mjref("--help", cwd=tmp_path).stdout.split())
    assert "missing seats get greedy" in top and "default dummy" not in top
    assert "greedy fills the other seats" in " ".join(mjref("match", "--help", cwd=tmp_path).stdout.split())


def test_a_tournament_file_with_seeds_as_text_says_so(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('seeds = "8"\n' + BOT)
    line = one_line(mjref("tournament", "t.toml", cwd=tmp_path))
    assert line == ("mjref tournament: t.toml: seeds: give a whole number of seeds (seeds = 8) or a list of seeds "
                    "(seeds = [1, 5, 9]), not the text '8'")


def test_a_timeout_of_nan_says_what_it_is(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(f'cmd = ["{sys.executable}", "-m", "bots.greedy"]\ntimeout = nan\n')
    line = one_line(mjref("match", "bot.toml", cwd=tmp_path))
    assert line.endswith("timeout: must be seconds per question, above 0 and at most 3600, not nan")


def test_standings_of_an_empty_file_does_not_suggest_restart(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    line = one_line(mjref("standings", "empty.jsonl", cwd=tmp_path))
    assert "not a results store" in line and "--restart" not in line


def test_a_commands_usage_error_names_the_command(tmp_path: Path) -> None:
    assert one_line(mjref("match", "--frob", cwd=tmp_path)) == (
        "mjref match: unrecognized arguments: --frob (see mjref match --help)")
    # no abbreviations: --seed (match's option) is not --seeds
    line = one_line(mjref("tournament", "greedy", "random", "--seed", "3", cwd=tmp_path))
    assert line.startswith("mjref tournament: unrecognized arguments: --seed")


def test_a_store_that_cannot_be_written_is_named_not_its_logs_folder(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('store = "/proc/t.sqlite"\n' + BOT)
    line = one_line(mjref("tournament", "t.toml", cwd=tmp_path))
    assert "store /proc/t.sqlite" in line and "logs" not in line


def test_a_default_written_out_is_the_same_tournament(tmp_path: Path) -> None:
    head = 'name = "t"\nseeds = 1\nhands = 1\nduplicate = false\n'
    (tmp_path / "t.toml").write_text(head + BOT)
    assert mjref("tournament", "t.toml", cwd=tmp_path).returncode == 0
    (tmp_path / "t.toml").write_text(head + "[rules]\nflowers = false\n" + BOT)
    again = mjref("tournament", "t.toml", cwd=tmp_path)
    assert again.returncode == 0 and "(1 already in" in again.stdout, again.stderr
    (tmp_path / "t.toml").write_text(head + "[rules]\nflowers = true\n" + BOT)
    assert "rules.flowers: false -> true" in one_line(mjref("tournament", "t.toml", cwd=tmp_path))


def test_counts_are_words(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('name = "t"\nseeds = 1\nhands = 1\nduplicate = false\n' + BOT)
    out = mjref("tournament", "t.toml", cwd=tmp_path).stdout
    assert "t: 1 match (0 already in" in out and "1 hand each" in out and "1 match played in" in out
    assert "1 matches" not in out and "1 hands" not in out
    match = mjref("match", "greedy", "--hands", "1", "--log", "none", cwd=tmp_path).stdout
    assert "Standings after 1 hand " in match


def test_one_match_at_once_is_not_warned_about_and_warnings_go_to_stderr(tmp_path: Path) -> None:
    bot = f'[[bots]]\nname = "p"\ncmd = ["{sys.executable}", "{ROOT / "examples" / "mybot.py"}"]\nthreads = 64\n'
    (tmp_path / "t.toml").write_text('name = "t"\nseeds = 1\nhands = 1\nduplicate = false\nconcurrency = 1\n' + bot)
    proc = mjref("tournament", "t.toml", cwd=tmp_path)
    assert proc.returncode == 0 and "warning" not in proc.stdout + proc.stderr
    (tmp_path / "t.toml").write_text('name = "t"\nseeds = 1\nhands = 1\nduplicate = false\nconcurrency = 2\n' + bot)
    proc = mjref("tournament", "t.toml", cwd=tmp_path)
    assert "warning" not in proc.stdout and "warning: 2 matches at once" in proc.stderr


def test_regress_keeps_logs_by_default(tmp_path: Path) -> None:
    proc = mjref("regress", "--candidate", "greedy", "--baseline", "random", "--store", "r.sqlite", "--hands", "2",
                 "--max-hands", "8", cwd=tmp_path)
    assert proc.returncode in (0, 1, 3), proc.stderr  # the verdict does not matter here
    logs = sorted((tmp_path / "r-logs").glob("*.jsonl"))
    assert logs and mjref("replay", str(logs[0]), cwd=tmp_path).returncode == 0
    mjref("regress", "--candidate", "greedy", "--baseline", "random", "--store", "n.sqlite", "--hands", "2",
          "--max-hands", "8", "--logs", "none", cwd=tmp_path)
    assert not (tmp_path / "n-logs").exists() and not (tmp_path / "none").exists()
