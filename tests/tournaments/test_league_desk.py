"""The league's desk and page against what the fuzzing found: an entry unusable on disk is refused alone and the
league starts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tournaments.league import load_league, open_league
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
