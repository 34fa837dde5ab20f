"""Tournaments from the command line (issue 35), through the installed ``mjref``: bots as ``mjref match`` takes
them, the settings as options, ``--each``, a bot registry (``bots.toml``), and ``--save`` writing the same
tournament as a file that resumes the command line's store."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from installed import ENV, MJREF, in_a_terminal, mjref, one_line

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--seeds", "1", "--hands", "1", "--no-duplicate"]




def standings_bots(proc: subprocess.CompletedProcess[str]) -> set[str]:
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout.splitlines()[-1])["bots"]  # JSON lines: the final standings last
    return {row["name"] for row in rows if not row["dummy"]}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with an executable bot script (``./mybot``) and a registry naming two builds of it."""
    bot = tmp_path / "mybot"
    bot.write_text(f"#!{sys.executable}\n" + (ROOT / "examples" / "mybot.py").read_text())
    bot.chmod(0o755)
    for version in ("v1", "v2"):
        build = tmp_path / "builds" / version
        build.mkdir(parents=True)
        (build / "mybot").write_bytes(bot.read_bytes() + f"# {version}\n".encode())
        (build / "mybot").chmod(0o755)
    (tmp_path / "bots.toml").write_text('[[bots]]\nname = "mine@v1"\ncmd = ["./builds/v1/mybot"]\n\n'
                                        '[[bots]]\nname = "mine@v2"\ncmd = "./builds/v2/mybot --fast"\ntimeout = 5\n')
    return tmp_path


def test_bots_as_match_takes_them(folder: Path) -> None:
    (folder / "rnd.toml").write_text('name = "rnd"\nbuiltin = "random"\n')
    proc = mjref("tournament", "greedy:chowness=0.8", "./mybot", f"{sys.executable} {folder / 'mybot'}", "rnd.toml",
                 *FAST, "--json", cwd=folder)
    # the command line's two bots named mybot are told apart
    assert standings_bots(proc) == {"greedy:chowness=0.8", "mybot", "mybot-2", "rnd"}


def test_the_registry_names_bots(folder: Path) -> None:
    proc = mjref("tournament", "mine@v2", "mine@v1", "greedy", "random", *FAST, "--json", cwd=folder)
    assert standings_bots(proc) == {"mine@v2", "mine@v1", "greedy", "random"}
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    proc = mjref("tournament", "mine@v1", "greedy", "--bots", "../bots.toml", *FAST, "--json", cwd=elsewhere)
    assert "mine@v1" in standings_bots(proc)  # paths in a registry are relative to it, not to the current folder
    line = one_line(mjref("tournament", "mine@v3", "greedy", cwd=folder))
    assert line.startswith("mjref tournament: bot 'mine@v3': not a name in the registry (mine@v1, mine@v2)")


def test_save_writes_the_same_tournament_which_resumes_the_store(folder: Path) -> None:
    argv = ["mine@v2", "greedy", "./mybot", "--seeds", "2", "--hands", "1", "--format", "gauntlet",
            "--each", "timeout=3", "--each", "env.LEVEL=2", "--set", "flowers=true"]
    first = mjref("tournament", *argv, cwd=folder)
    assert first.returncode == 0, first.stderr
    assert "0 already in" in first.stdout
    saved = mjref("tournament", *argv, "--save", "club.toml", cwd=folder)
    assert saved.returncode == 0 and saved.stdout.startswith("wrote club.toml"), saved.stderr
    data = tomllib.loads((folder / "club.toml").read_text())
    assert data["format"] == "gauntlet" and data["seeds"] == 2 and data["hands"] == 1
    assert data["rules"] == {"flowers": True}
    bots = {b["name"]: b for b in data["bots"]}
    assert bots["mine@v2"] == {"name": "mine@v2", "cmd": ["./builds/v2/mybot", "--fast"], "timeout": 3,
                               "env": {"LEVEL": "2"}}
    assert bots["greedy"] == {"name": "greedy", "builtin": "greedy"}  # --each is for bots that run as processes
    assert bots["mybot"]["cmd"] == ["./mybot"]
    again = mjref("tournament", "club.toml", cwd=folder)  # the file resumes the command line's store
    assert again.returncode == 0, again.stderr
    total = first.stdout.split(":", 1)[1].split(" matches")[0].strip()
    assert f"({total} already in" in again.stdout and "0 matches played" in again.stdout
    assert one_line(mjref("tournament", *argv, "--save", "club.toml", cwd=folder)).endswith(
        "--save club.toml: the file exists; give --force to replace it, or another name")


def test_rules_on_the_command_line_play_classical_and_save_as_a_rules_table(folder: Path) -> None:
    """``--rules dmjl --set …``: the tournament plays Chinese Classical (its logs say so), and ``--save`` writes the
    preset's options away from mj-server's defaults, with the change, as the file's ``[rules]``."""
    argv = ["greedy", "random", "--rules", "dmjl", "--set", "LosersSettle=false", "--seeds", "1", "--hands", "1"]
    first = mjref("tournament", *argv, "--json", cwd=folder)
    assert standings_bots(first) == {"greedy", "random"}
    logs = sorted((folder / "mjref-tournaments").rglob("*.jsonl"))
    assert logs and all(json.loads(log.read_text().splitlines()[0])["rules"]["family"] == "classical"
                        for log in logs)
    header = json.loads(logs[0].read_text().splitlines()[0])["rules"]
    assert header["options"]["ScoreLimit"] == 500 and header["options"]["LosersSettle"] is False
    saved = mjref("tournament", *argv, "--save", "club.toml", cwd=folder)
    assert saved.returncode == 0, saved.stderr
    rules = tomllib.loads((folder / "club.toml").read_text())["rules"]
    assert rules["family"] == "classical" and rules["ScoreLimit"] == 500 and rules["LosersSettle"] is False
    again = mjref("tournament", "club.toml", cwd=folder)  # the same tournament: the store resumes, nothing played
    assert again.returncode == 0 and "0 matches played" in again.stdout, again.stderr


def test_the_file_and_the_demo_keep_working_and_refuse_command_line_settings(folder: Path) -> None:
    (folder / "t.toml").write_text('name = "t"\nseeds = 1\nhands = 1\nduplicate = false\n'
                                   '[[bots]]\nname = "g"\nbuiltin = "greedy"\n')
    assert mjref("tournament", "t.toml", "--quiet", cwd=folder).returncode == 0
    assert one_line(mjref("tournament", "t.toml", "--seeds", "3", cwd=folder)) == (
        "mjref tournament: --seeds is for bots named on the command line: t.toml is a tournament file; it sets its "
        "own (see docs/cli.md)")
    assert "the demo sets its own" in one_line(mjref("tournament", "--hands", "2", cwd=folder))


@pytest.mark.parametrize(("argv", "said"), [
    (["greedy", "random", "--each", "timeout=3"], "--each timeout: every bot here is built in"),
    (["greedy", "./mybot", "--each", "colour=red"], "--each colour: not a field every bot can take"),
    (["greedy", "./mybot", "--each", "timeout=nan"], "bots[1].timeout: Input should be a valid number"),
    (["greedy", "./mybot", "--seeds", "1,1"], "seeds: a seed is listed twice"),
    (["greedy", "./mybot", "--seeds", "٣"], "argument --seeds: '٣' is not a whole number"),
    (["greedy", "./nothere"], "the command line: bot 'nothere': cannot run './nothere': no such file"),
    (["greedy", "random", "--bots", "missing.toml"], "missing.toml: cannot read"),
    (["greedy", "random", "--set", "flowers=maybe"], "rule option 'flowers'"),
    (["greedy", "random", "--rules", "nosuch"], "--rules 'nosuch': not a rule family"),
    (["greedy", "random", "--rules", "dmjl", "--set", "NoSuch=1"], "unknown classical option 'NoSuch'"),
])
def test_bad_command_lines_are_one_line(folder: Path, argv: list[str], said: str) -> None:
    assert said in one_line(mjref("tournament", *argv, cwd=folder))
    assert not (folder / "mjref-tournaments").exists()  # nothing was started


def test_a_broken_registry_is_named(folder: Path) -> None:
    (folder / "bots.toml").write_text('[[bots]]\nname = "x"\ncmd = ["./mybot"]\nspeed = 3\n')
    assert one_line(mjref("tournament", "x", "greedy", cwd=folder)) == (
        "mjref tournament: " + str(folder / "bots.toml") + ": bots[0]: unknown field 'speed'")


# ------------------------------------------------------------------------------------------- a line per match
BADBOT = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'badbot.py'} bad_throw"
LINE = re.compile(r"^\[ ?(\d+)/(\d+)\] (g\d{4}-s\d+-r\d+)  (.+)  \((\d+) hands?, [0-9.]+ s\)(  faults: .*)?$")


def test_a_line_per_finished_match_in_a_pipe(tmp_path: Path) -> None:
    proc = mjref("tournament", "greedy", "random", BADBOT, "--seeds", "3", "--hands", "2", "--no-duplicate",
                 "--standings-every", "2", "--each", "timeout=30", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [m for m in (LINE.match(x) for x in proc.stdout.splitlines()) if m]
    assert [int(m[1]) for m in lines] == [1, 2, 3] and {m[2] for m in lines} == {"3"}
    assert len({m[3] for m in lines}) == 3  # each match once, by its id
    for m in lines:
        seats = re.findall(r"(\S+) ([+-]\d+)", m[4])
        assert {name for name, _ in seats} == {"greedy", "random", "badbot", "dummy-greedy"}
        assert sum(int(points) for _, points in seats) == 0  # points as the store holds them: they sum to 0
        assert m[6] is not None and "badbot illegal" in m[6]  # its bad throws, by bot and kind
    standings = [x for x in proc.stdout.splitlines() if x.startswith("standings after ")]
    assert len(standings) == 1 and re.match(r"standings after 2/3 matches \([0-9.]+ matches/min, ETA \d+ s\):$",
                                            standings[0]), standings
    assert "matches, 0 faults" not in proc.stdout  # the old progress line gave way to the match lines


def test_json_lines(tmp_path: Path) -> None:
    proc = mjref("tournament", "greedy", "random", "--seeds", "4", "--hands", "1", "--no-duplicate", "--json",
                 "--standings-every", "3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [r["type"] for r in records] == ["match"] * 3 + ["standings"] + ["match", "standings"]
    assert [r["done"] for r in records if r["type"] == "match"] == [1, 2, 3, 4]
    match = records[0]
    assert match["total"] == 4 and len(match["seats"]) == 4 and match["faults"] == []
    assert {s["bot"] for s in match["seats"]} == {"greedy", "random", "dummy-greedy"}
    assert records[3]["after"] == 3 and records[3]["eta_seconds"] is not None and "bots" in records[3]
    assert records[-1]["final"] is True and records[-1]["matches"] == 4
    quiet = mjref("tournament", "greedy", "random", "--seeds", "4", "--hands", "1", "--no-duplicate", "--json",
                  "--quiet", cwd=tmp_path)
    assert json.loads(quiet.stdout)["matches"] == 4  # one object, as before


def test_lines_on_a_terminal(tmp_path: Path) -> None:
    """``--lines`` on a terminal: the same lines instead of the live view."""
    status, shown, err = in_a_terminal([str(MJREF), "tournament", "greedy", "random", "--seeds", "2", "--hands", "1",
                                        "--no-duplicate", "--lines"], cwd=tmp_path, env=ENV)
    assert status == 0, err
    shown = shown.replace("\r", "")
    assert len([x for x in shown.splitlines() if LINE.match(x)]) == 2, shown
    assert "Live standings" not in shown


# ------------------------------------------------------------------------------------------------------ openings
def wall_lines(n: int, first_seed: int = 500) -> list[str]:
    from referee.game.taiwan16.rules import Ruleset
    from referee.game.wall import generate_wall

    return [" ".join(map(str, generate_wall(first_seed + i, 0, Ruleset()).tiles)) for i in range(n)]


def logged_walls(logs: Path, match_id: str) -> list[str]:
    records = [json.loads(x) for x in (logs / f"{match_id}.jsonl").read_text().splitlines()]
    return [" ".join(map(str, r["wall"])) for r in records if r["type"] == "hand"]


def test_a_wall_file_gives_the_openings_in_order(tmp_path: Path) -> None:
    lines = wall_lines(5)  # hands = 2: two openings, the fifth wall left over
    (tmp_path / "openings.walls").write_text("# openings\n" + "\n".join(lines) + "\n")
    proc = mjref("tournament", "greedy", "random", "--hands", "2", "--wallfile", "openings.walls",
                 "--no-duplicate", "--store", "t.sqlite", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "2 matches (0 already in" in proc.stdout  # one seed per opening
    assert logged_walls(tmp_path / "t-logs", "g0000-s1-r00") == lines[0:2]
    assert logged_walls(tmp_path / "t-logs", "g0000-s2-r01") == lines[2:4]


def test_a_folder_of_wall_files_one_per_seed_by_name_in_every_seating(tmp_path: Path) -> None:
    lines = wall_lines(6)
    folder = tmp_path / "openings"
    folder.mkdir()
    for name, k in (("b.walls", 2), ("a.walls", 1), ("10.walls", 0)):  # by name: 10, a, b
        (folder / name).write_text(f"{lines[2 * k]}\n{lines[2 * k + 1]}\n")
    (folder / ".hidden").write_text("not a wall\n")
    (tmp_path / "t.toml").write_text('name = "t"\nhands = 2\nseeds = [7, 3]\nwallfile = "openings"\n'
                                     '[[bots]]\nname = "g"\nbuiltin = "greedy"\n[[bots]]\nname = "r"\n'
                                     'builtin = "random"\n')
    proc = mjref("tournament", "t.toml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    logs = tmp_path / "t-logs"
    for rotation in range(4):  # duplicate: every seating of a seed plays its opening
        assert logged_walls(logs, f"g0000-s7-r{rotation:02d}") == lines[0:2]
        assert logged_walls(logs, f"g0000-s3-r{rotation:02d}") == lines[2:4]
    (folder / "a.walls").write_text(f"{lines[5]}\n{lines[4]}\n")  # another opening: another tournament
    changed = one_line(mjref("tournament", "t.toml", cwd=tmp_path))
    assert "walls:" in changed and "--restart" in changed


@pytest.mark.parametrize(("walls", "argv", "said"), [
    (1, ["--hands", "2"], "wallfile openings.walls: 1 wall, fewer than the 2 hands of one match"),
    (4, ["--hands", "2", "--seeds", "3"], "3 seeds but only 2 openings in the wallfile"),
    (0, ["--hands", "1"], "openings.walls: no walls"),
])
def test_openings_that_cannot_be_played_are_one_line(tmp_path: Path, walls: int, argv: list[str], said: str) -> None:
    (tmp_path / "openings.walls").write_text("".join(f"{x}\n" for x in wall_lines(walls)))
    assert said in one_line(mjref("tournament", "greedy", "random", "--wallfile", "openings.walls", *argv,
                                  cwd=tmp_path))


def test_a_bad_wall_names_its_file_and_line(tmp_path: Path) -> None:
    lines = wall_lines(2)
    lines[1] = lines[1].replace(lines[1].split()[0], lines[1].split()[1], 1)  # a tile twice
    (tmp_path / "openings.walls").write_text("\n".join(lines) + "\n")
    line = one_line(mjref("tournament", "greedy", "random", "--hands", "1", "--wallfile", "openings.walls",
                          cwd=tmp_path))
    assert "openings.walls:2:" in line
