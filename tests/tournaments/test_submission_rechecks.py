"""What a submitted bot runs stays what joined the league: the program, the first word of its ``cmd``, is a file of
its own folder or one of the league's interpreters; an entry reinstated after its files changed on disk is refused
("changed since it joined"), not joined under the identity it had."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from tests.tournaments.test_league_desk import bot_folder, desk_of, submit_and
from tournaments.submissions import INTERPRETERS, SubmissionError, bot_spec


def entry(tmp: Path, cmd: str) -> Path:
    folder = tmp / "subs" / "x"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text(f"cmd = {cmd}\n")
    return folder


@pytest.mark.parametrize(("cmd", "why"), [
    ('["/bin/sh", "bot.py"]', "'/bin/sh' is a file outside the submission"),
    ('["../x/../../y", "bot.py"]', "'../x/../../y' is a file outside the submission"),
    ('["sh", "-c", "cat /etc/passwd"]', "'sh' is not an interpreter the league runs"),
    ('["curl", "bot.py"]', "'curl' is not an interpreter the league runs"),
    ('["./"]', "'./' is a file outside the submission"),
])
def test_a_program_outside_the_folder_and_not_an_interpreter_is_refused_naming_cmd(tmp_path: Path, cmd: str,
                                                                                   why: str) -> None:
    """Only the arguments of cmd were held to the folder: its first word ran whatever the system had."""
    folder = entry(tmp_path, cmd)
    with pytest.raises(SubmissionError) as info:
        bot_spec(folder, "x")
    line = str(info.value)
    assert line.startswith("bot.toml: cmd: the program ") and why in line and "\n" not in line
    assert ", ".join(INTERPRETERS) in line


def test_a_program_of_its_own_or_an_interpreter_is_taken(tmp_path: Path) -> None:
    folder = entry(tmp_path, '["python3", "bot.py"]')
    assert bot_spec(folder, "x").cmd == ("python3", "bot.py")
    (folder / "bin").mkdir()
    for run in (folder / "run", folder / "bin" / "run"):
        run.write_text("#!/bin/sh\n")
        run.chmod(0o755)
    for cmd in ('["./run"]', '["bin/run"]'):
        (folder / "bot.toml").write_text(f"cmd = {cmd}\n")
        assert bot_spec(folder, "x").cmd is not None


def test_a_reinstated_entry_whose_files_changed_is_refused(tmp_path: Path) -> None:
    """Reinstating an entrant that had played read its bot file again but not its files: what it ran after was
    not what the store's identity said it runs."""
    desk, tokens = desk_of(tmp_path)
    replies = submit_and(desk, tokens["alice"], "good", bot_folder(tmp_path, "good"))
    assert replies[0][0] == 202
    entry = desk.register.entry("good")
    assert entry is not None and entry.status == "active" and "good" in desk.plan.active
    joined = dict(desk.plan.identity["files"]["good"])
    assert trio.run(desk.act, tokens["boss"], "pause", "good")[0] == 200
    source = desk.plan.submissions_dir / "good" / "bot.py"
    original = source.read_text()
    source.write_text(original + "\n# changed while paused\n")
    status, reply = trio.run(desk.act, tokens["boss"], "reinstate", "good")
    assert status == 409, reply
    assert reply["error"].startswith("'good' changed since it joined the league (") and "bot.py" in reply["error"]
    entry = desk.register.entry("good")
    assert entry is not None and entry.status == "paused" and "good" not in desk.plan.active
    assert desk.plan.identity["files"]["good"] == joined
    source.write_text(original)  # as it joined: it plays again, once in the identity
    assert trio.run(desk.act, tokens["boss"], "reinstate", "good") == (200, {"entrant": "good", "status": "active"})
    assert "good" in desk.plan.active
    assert [b["name"] for b in desk.plan.identity["bots"]].count("good") == 1
    desk.close()
