"""Bots submitted to a league: unsafe archives are refused whole with the reason, a bot file may not choose its own
box, and over HTTP a bot whose check fails is refused with its report and never plays, one that passes enters and
plays, a new version keeps the old one's history, and only an entry's author or an organiser may retire it."""

from __future__ import annotations

import io
import json
import sys
import tarfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from tournaments.store import connect
from tournaments.submissions import MAX_FILES, Register, SubmissionError, bot_spec, pack_folder, unpack

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from leagues import served_league  # noqa: E402

GOOD_BOT = (ROOT / "examples" / "mybot.py").read_text()
BAD_BOT = ("import sys\nfor line in sys.stdin:\n    if line.startswith('/ask'):\n"
           "        print('/nonsense', flush=True)\n")
BOT_TOML = 'cmd = ["python3", "bot.py"]\n'


def tar_of(members: list[tuple[str, Any]], mode: str = "w:gz") -> bytes:
    """A tar (by default a tar.gz; ``mode`` as ``tarfile.open`` takes it) of (name, content): bytes for a file,
    ("sym", target) or ("hard", target) for links."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for name, content in members:
            info = tarfile.TarInfo(name)
            if isinstance(content, tuple):
                info.type = tarfile.SYMTYPE if content[0] == "sym" else tarfile.LNKTYPE
                info.linkname = content[1]
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    return buf.getvalue()


def bot_folder(tmp: Path, name: str, source: str) -> Path:
    folder = tmp / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(BOT_TOML)
    return folder


@pytest.mark.parametrize(("members", "why"), [
    ([("bot.toml", b"x"), ("../evil.py", b"x")], r"'\.\./evil\.py': a path out of its folder"),
    ([("bot.toml", b"x"), ("a/../../evil", b"x")], r"a path out of its folder"),
    ([("/etc/evil", b"x")], r"an absolute path"),
    ([("bot.toml", b"x"), ("out", ("sym", "../../etc/passwd"))], r"'out': a link out of its folder"),
    ([("bot.toml", b"x"), ("out", ("sym", "/etc/passwd"))], r"'out': a link out of its folder"),
    ([("bot.toml", b"x"), ("d/out", ("sym", "../.."))], r"'d/out': a link out of its folder"),
    ([("link", ("sym", "sub")), ("link/f", b"x")], r"'link/f': inside a link"),
    ([("bot.toml", b"x"), ("h", ("hard", "bot.toml"))], r"'h': a hard link"),
    ([(f"f{i}", b"") for i in range(MAX_FILES + 1)], rf"more than {MAX_FILES} files"),
    ([("bot.toml", b"x"), ("bot.toml", b"y")], r"appears twice"),
])
def test_unsafe_archives_are_refused_whole(tmp_path: Path, members: list[tuple[str, Any]], why: str) -> None:
    dest = tmp_path / "entry"
    with pytest.raises(SubmissionError, match=why):
        unpack(tar_of(members), dest)
    assert not dest.exists()  # nothing is left of a refused submission
    assert not (tmp_path / "evil.py").exists() and not (tmp_path.parent / "evil").exists()


def test_a_zip_with_a_path_out_or_a_symlink_out_is_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("bot.toml", BOT_TOML)
        z.writestr("../../evil", "x")
    with pytest.raises(SubmissionError, match="a path out of its folder"):
        unpack(buf.getvalue(), tmp_path / "a")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        info = zipfile.ZipInfo("out")
        info.external_attr = (0o120777 << 16)
        z.writestr(info, "/etc")
    with pytest.raises(SubmissionError, match="a link out of its folder"):
        unpack(buf.getvalue(), tmp_path / "b")


def test_a_zip_links_target_is_read_no_further_than_a_target_may_go(tmp_path: Path) -> None:
    """A symlink member holding 200 MB of zeros (0.2 MB compressed) was inflated whole before its first 4096 bytes
    were kept: a 20 MB upload could take 20 GB of the league's memory."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bot.toml", BOT_TOML)
        info = zipfile.ZipInfo("bomb")
        info.external_attr = (0o120777 << 16)
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, b"\0" * (200 << 20))
    with pytest.raises(SubmissionError, match="a link target over 4096 bytes"):
        unpack(buf.getvalue(), tmp_path / "a")


def test_a_safe_archive_unpacks_with_inner_links_and_a_bot_file(tmp_path: Path) -> None:
    data = tar_of([("mine/bot.toml", BOT_TOML.encode()), ("mine/bot.py", GOOD_BOT.encode()),
                   ("mine/lib/x.py", b""), ("mine/alias.py", ("sym", "bot.py"))])
    unpack(data, tmp_path / "e")
    assert (tmp_path / "e" / "mine" / "alias.py").resolve() == (tmp_path / "e" / "mine" / "bot.py").resolve()
    spec = bot_spec(tmp_path / "e", "mine")  # bot.toml in the single top-level folder
    assert spec.name == "mine" and spec.cwd == str((tmp_path / "e" / "mine").resolve())
    assert spec.sandbox is None and not spec.network and not spec.writable  # the league's box, not its own


@pytest.mark.parametrize(("text", "why"), [
    ('cmd = ["python3", "bot.py"]\nsandbox = "none"\n', r"bot\.toml: sandbox: not a field a submitted bot may set"),
    ('cmd = ["python3", "bot.py"]\nnetwork = true\n', r"bot\.toml: network: not a field"),
    ('cmd = ["python3", "bot.py"]\ncwd = "/"\n', r"bot\.toml: cwd: not a field"),
    ('builtin = "greedy"\n', r"bot\.toml: builtin: not a field"),
    ('env = {}\n', r"bot\.toml: cmd: give the command"),
])
def test_a_bot_file_may_not_choose_its_box(tmp_path: Path, text: str, why: str) -> None:
    (tmp_path / "bot.toml").write_text(text)
    with pytest.raises(SubmissionError, match=why):
        bot_spec(tmp_path, "x")


def test_a_submission_without_a_bot_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    with pytest.raises(SubmissionError, match="no bot.toml at the top"):
        bot_spec(tmp_path, "x")


def test_tokens_are_kept_only_as_their_hash(tmp_path: Path) -> None:
    register = Register(tmp_path)
    token = register.add_author("alice")
    assert register.author(token) is not None and register.author(token).name == "alice"  # type: ignore[union-attr]
    assert register.author("wrong") is None and register.author(None) is None
    assert token.encode() not in (tmp_path / "entries.sqlite").read_bytes()
    with pytest.raises(SubmissionError, match="exists already"):
        register.add_author("alice")
    with pytest.raises(SubmissionError, match="author name"):
        register.add_author("../x")
    register.close()


# ------------------------------------------------------------------------------------------------ over HTTP


def request(url: str, token: str | None = None, data: bytes | None = None,
            method: str | None = None) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def seated(store: Path) -> set[str]:
    con = connect(store, readonly=True)
    try:
        return {str(n) for r in con.execute("SELECT seat1, seat2, seat3, seat4 FROM matches") for n in r}
    finally:
        con.close()


def test_an_authors_token_never_starts_with_a_dash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One random token in 64 would: ``mjref submit URL --token -x…`` then reads it as an option (exit 2)."""
    drawn = iter(["-starts-with-a-dash", "fine-token"])
    monkeypatch.setattr("secrets.token_urlsafe", lambda n: next(drawn))
    register = Register(tmp_path)
    assert register.add_author("alice") == "fine-token"
    register.close()


def test_submitting_over_http(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    league = tmp_path / "league.toml"
    text = 'name = "class"\nhands = 1\nduplicate = false\nconcurrency = 1\nstore = "league.sqlite"\n'
    for name, builtin in (("greedy", "greedy"), ("random", "random"), ("drawdiscard", "drawdiscard")):
        text += f'[[bots]]\nname = "{name}"\nbuiltin = "{builtin}"\n'
    league.write_text(text)
    tokens = {}
    for who, extra in (("alice", []), ("bob", []), ("boss", ["--organiser"])):
        assert main(["league", "add-author", who, "--league", str(league), *extra]) == 0
        tokens[who] = capsys.readouterr().out.strip()
    good, bad = bot_folder(tmp_path, "good", GOOD_BOT), bot_folder(tmp_path, "bad", BAD_BOT)
    with served_league(league) as (url, _):
        # a failing check: refused with its report, never plays
        assert main(["submit", url, "--token", tokens["alice"], str(bad), "--json"]) == 1
        refused = json.loads(capsys.readouterr().out)
        assert refused["status"] == "refused" and refused["report"]["ok"] is False
        assert "throw_after_mo" in refused["report"]["failed"]
        # a wrong token, an unsafe archive
        assert main(["submit", url, "--token", "nope", str(good)]) == 2
        assert "a valid author's token is needed" in capsys.readouterr().err
        status, reply = request(f"{url}/api/submit?bot=greedy", tokens["alice"], pack_folder(good), "POST")
        assert status == 400 and "'greedy' is taken by one of the league's own bots" in reply["error"]
        status, reply = request(f"{url}/api/submit?bot=evil", tokens["alice"],
                                tar_of([("bot.toml", b"x"), ("../evil", b"x")]), "POST")
        assert status == 400 and "a path out of its folder" in reply["error"]
        # a passing check: enters and plays
        assert main(["submit", url, "--token", tokens["alice"], str(good)]) == 0
        assert "good entered the league" in capsys.readouterr().out
        deadline = time.monotonic() + 60
        while "good" not in seated(tmp_path / "league.sqlite") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "good" in seated(tmp_path / "league.sqlite")
        # another author may not take its name, nor retire it
        status, reply = request(f"{url}/api/submit?bot=good", tokens["bob"], pack_folder(good), "POST")
        assert status == 400 and "belongs to another author" in reply["error"]
        status, reply = request(f"{url}/api/entries/good/retire", tokens["bob"], b"", "POST")
        assert status == 403
        status, reply = request(f"{url}/api/entries/good/pause", tokens["alice"], b"", "POST")
        assert status == 403 and "only an organiser" in reply["error"]
        # a new version: a new entrant; the old one is retired and keeps its history
        played = seated(tmp_path / "league.sqlite")
        assert main(["submit", url, "--token", tokens["alice"], str(good)]) == 0
        assert "good.v2 entered the league" in capsys.readouterr().out
        status, entries = request(f"{url}/api/entries")
        by_name = {e["name"]: e for e in entries["entries"]}
        assert by_name["good"]["status"] == "retired" and by_name["good.v2"]["status"] == "active"
        assert by_name["good.v2"]["author"] == "alice" and by_name["good.v2"]["version"] == 2
        assert by_name["bad"]["status"] == "refused" and "report" not in by_name["bad"]  # the report: its author's
        status, standings = request(f"{url}/api/standings")
        assert "good" in {b["name"] for b in standings["bots"]} and "good" in played
        # each version's page lists both versions; the old one keeps its rating history
        status, page = request(f"{url}/api/bots/good.v2")
        assert status == 200 and page["kind"] == "submitted"
        assert [(v["name"], v["status"], v["current"], v["check"]["ok"]) for v in page["versions"]] == \
            [("good", "retired", False, True), ("good.v2", "active", True, True)]
        status, old = request(f"{url}/api/bots/good")
        assert status == 200 and old["active"] is False and len(old["history"]) >= 1
        assert old["standing"]["matches"] >= 1 and old["standing"]["rating"]["matches"] == old["standing"]["matches"]
        status, refused = request(f"{url}/api/bots/bad")  # refused: never played, but its page says so
        assert status == 200 and refused["versions"][0]["check"]["ok"] is False and refused["history"] == []
        # the organiser pauses and reinstates
        assert request(f"{url}/api/entries/good.v2/pause", tokens["boss"], b"", "POST")[0] == 200
        assert request(f"{url}/api/entries/good.v2/reinstate", tokens["boss"], b"", "POST")[0] == 200
        assert request(f"{url}/api/entries/good.v2/retire", tokens["alice"], b"", "POST") == \
            (200, {"entrant": "good.v2", "status": "retired"})
        # a request from another site is refused
        req = urllib.request.Request(f"{url}/api/entries/good.v2/reinstate", data=b"", method="POST",
                                     headers={"Authorization": f"Bearer {tokens['boss']}",
                                              "Origin": "http://evil.example"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=30)
        assert err.value.code == 403
    assert "bad" not in seated(tmp_path / "league.sqlite")


def test_a_restarted_league_plays_its_active_entries_and_refuses_one_changed_on_disk(tmp_path: Path) -> None:
    """An entry changed on disk since it joined is refused alone, the reason in its report and on the organiser's
    terminal: it stopped the whole league at every start."""
    import trio

    from tournaments.league import load_league, open_league, run_league

    league = tmp_path / "league.toml"
    league.write_text('name = "class"\nhands = 1\nduplicate = false\nconcurrency = 1\nstore = "league.sqlite"\n'
                      '[[bots]]\nname = "greedy"\nbuiltin = "greedy"\n[[bots]]\nname = "random"\nbuiltin = "random"\n')
    register = Register(tmp_path / "submissions")
    register.add_author("alice")
    for name, status in (("mine", "active"), ("old", "retired"), ("halted", "paused"), ("broken", "refused")):
        unpack(pack_folder(bot_folder(tmp_path / "src", name, GOOD_BOT)), tmp_path / "submissions" / name)
        register.add(name, name, 1, "alice", status, tmp_path / "submissions" / name, None)
    register.close()
    p = open_league(load_league(league), tmp_path, where=str(league))
    assert sorted(p.active) == ["greedy", "mine", "random"]
    assert trio.run(lambda: run_league(p, matches=2)) == 2
    assert "mine" in seated(tmp_path / "league.sqlite")
    played = mine_played(tmp_path / "league.sqlite")
    (tmp_path / "submissions" / "mine" / "bot.py").write_text(GOOD_BOT + "\n# edited\n")
    p = open_league(load_league(league), tmp_path, where=str(league))
    assert sorted(p.active) == ["greedy", "random"] and "mine" not in p.specs
    notes = [n for n in p.notes if "mine" in n]
    assert len(notes) == 1 and notes[0].startswith(
        f"{tmp_path / 'submissions'}: entry 'mine' refused when the league started: it changed since it joined the "
        "league (files.bot.py: ")
    register = Register(tmp_path / "submissions")
    mine = register.entry("mine")
    register.close()
    assert mine is not None and mine.status == "refused" and mine.report is not None
    assert mine.report["error"].startswith("refused when the league started: it changed since it joined")
    assert "bot.py" in p.identity["files"]["mine"]  # its history stays, as it was when it played
    assert trio.run(lambda: run_league(p, matches=2)) == 2
    assert mine_played(tmp_path / "league.sqlite") == played >= 1  # 'mine' played before, not since


def mine_played(store: Path) -> int:
    con = connect(store, readonly=True)
    try:
        return sum("mine" in r for r in con.execute("SELECT seat1, seat2, seat3, seat4 FROM matches"))
    finally:
        con.close()
