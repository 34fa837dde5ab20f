"""Hostile submissions found by fuzzing the league's desk: every one is refused whole with one line naming the member
(or unpacked, if it is harmless), never an exception out of the unpacking (an HTTP 500 and a traceback)."""

from __future__ import annotations

import io
import stat
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.tournaments.test_submissions import tar_of
from tournaments.submissions import MAX_UNPACKED, SubmissionError, unpack

BOT_TOML = b'cmd = ["python3", "bot.py"]\n'


def zip_of(members: list[tuple[str, Any]]) -> bytes:
    """A zip of (name, content): bytes for a file, ("sym", target bytes) for a link, None for a folder."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, content in members:
            info = zipfile.ZipInfo(name)
            if content is None:
                info.external_attr = (stat.S_IFDIR | 0o755) << 16
                z.writestr(info, b"")
            elif isinstance(content, tuple):
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                z.writestr(info, content[1])
            else:
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                z.writestr(info, content)
    return buf.getvalue()


def refused(data: bytes, dest: Path, why: str) -> str:
    with pytest.raises(SubmissionError, match=why) as err:
        unpack(data, dest)
    assert "\n" not in str(err.value) and not dest.exists()  # one line; nothing is left of it
    return str(err.value)


@pytest.mark.parametrize("name", ["a/./b", "a\\b", "./a/b", "a//b"])
def test_a_member_named_with_a_dot_a_backslash_or_a_double_slash_is_read_by_its_own_header(tmp_path: Path,
                                                                                           name: str) -> None:
    """Its content was looked up again by its normalised name (``a/b``), which the tar does not hold: KeyError."""
    unpack(tar_of([("bot.toml", BOT_TOML), (name, b"content")]), tmp_path / "e")
    assert (tmp_path / "e" / "a" / "b").read_bytes() == b"content"


@pytest.mark.parametrize(("members", "why"), [
    ([("bot.toml", BOT_TOML), ("e", ("sym", ""))], r"^archive member 'e': a link to nothing"),
    ([("bot.toml", BOT_TOML), ("a", b"x"), ("a/b", b"y")], r"^archive member 'a/b': under 'a', which is a file$"),
    ([("bot.toml", BOT_TOML), ("a", b"x"), ("a/c/d", b"y")], r"^archive member 'a/c/d': under 'a', which is a file"),
    ([("bot.toml", BOT_TOML), ("x" * 300, b"y")],
     r"^archive member 'x{120}…': cannot be unpacked \(File name too long\)"),
])
def test_a_tar_that_cannot_be_unpacked_is_refused_in_one_line(tmp_path: Path, members: list[tuple[str, Any]],
                                                             why: str) -> None:
    refused(tar_of(members), tmp_path / "e", why)


@pytest.mark.parametrize(("members", "why"), [
    ([("bot.toml", BOT_TOML), ("n", ("sym", b"a\0b"))], r"^archive member 'n': a link target holds a NUL character"),
    ([("bot.toml", BOT_TOML), ("n", ("sym", b""))], r"^archive member 'n': a link to nothing"),
    ([("bot.toml", BOT_TOML), ("a", b"x"), ("a/b", b"y")], r"^archive member 'a/b': under 'a', which is a file$"),
    ([("bot.toml", BOT_TOML), ("x/", None), ("x", b"q")], r"^archive member 'x' appears twice"),
    ([("bot.toml", BOT_TOML), ("x", b"q"), ("x/", None)], r"^archive member 'x' appears twice"),
])
def test_a_zip_that_cannot_be_unpacked_is_refused_in_one_line(tmp_path: Path, members: list[tuple[str, Any]],
                                                             why: str) -> None:
    refused(zip_of(members), tmp_path / "e", why)


def test_a_damaged_zip_member_is_refused_naming_it(tmp_path: Path) -> None:
    good = zip_of([("bot.toml", BOT_TOML)])
    refused(good.replace(b"python3", b"pythoN3", 1), tmp_path / "crc", r"^archive member 'bot\.toml': cannot be "
            r"read \(Bad CRC-32")
    data = bytearray(good)  # a compression method zipfile does not know, in both headers
    central = data.index(b"PK\x01\x02")
    data[8:10] = data[central + 10:central + 12] = struct.pack("<H", 99)
    refused(bytes(data), tmp_path / "method", r"^archive member 'bot\.toml': cannot be read \(That compression "
            r"method is not supported")
    data = bytearray(good)  # said to be encrypted
    data[6] |= 1
    data[central + 8] |= 1
    refused(bytes(data), tmp_path / "encrypted", r"^archive member 'bot\.toml': cannot be read")


def test_a_truncated_or_bad_tar_gz_is_refused(tmp_path: Path) -> None:
    data = tar_of([("bot.toml", BOT_TOML)])
    refused(data[:-20], tmp_path / "a", r"^not a tar, tar\.gz or zip archive \(its compressed data end early\)")
    refused(b"\x1f\x8b" + b"\xff" * 100, tmp_path / "b", r"^not a tar, tar\.gz or zip archive")
    unpack(data + b"\0" * 512, tmp_path / "c")  # gzip's padding after the stream: as gzip reads it
    assert (tmp_path / "c" / "bot.toml").read_bytes() == BOT_TOML
    for mode in ("w", "w:bz2", "w:xz"):  # what tarfile opened before is still opened
        unpack(tar_of([("bot.toml", BOT_TOML)], mode), tmp_path / mode.replace(":", "-"))


def test_a_tar_gz_is_inflated_no_further_than_a_submission_may_unpack(tmp_path: Path) -> None:
    """tarfile reads a pax header's data whole into memory: a 100 KB tar.gz claiming a 100 MB header took 200 MB
    (a 20 MB upload, 20 GB) before the size of anything was checked, and was then refused only as damaged."""
    header = tarfile.TarInfo("././@PaxHeader")
    header.type = tarfile.XHDTYPE
    header.size = MAX_UNPACKED + (40 << 20)
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = z.compress(header.tobuf(tarfile.USTAR_FORMAT))
    zeros = b"\0" * (1 << 20)
    for _ in range(header.size >> 20):
        data += z.compress(zeros)
    data += z.flush()
    assert len(data) < 1 << 20
    refused(data, tmp_path / "e", r"^the archive unpacks to more than 64 MB$")


# ------------------------------------------------------------------------------------------------ links out, in chains


CHAIN = [("bot.toml", BOT_TOML), ("bot.py", b""), ("l2", ("sym", ".")), ("l1", ("sym", "l2/..")),
         ("l3", ("sym", "l1/..")), ("s", ("sym", "l3/league.sqlite"))]


def test_a_chain_of_links_each_inside_by_its_text_is_refused_once_it_leads_out(tmp_path: Path) -> None:
    """l2 -> ., l1 -> l2/.., s -> l3/league.sqlite: each link's text stays inside, together they reach the folder
    that holds the submissions (the league's store was hashed into the entrant's identity)."""
    (tmp_path / "league.sqlite").write_bytes(b"the league's store")
    dest = tmp_path / "e"
    refused(tar_of(CHAIN), dest,
            r"^'(l1|l3|s)': a link out of the submission's folder \(to '.*', through other links\)$")
    refused(tar_of([("bot.toml", BOT_TOML), ("l2", ("sym", ".")), ("s", ("sym", "l2/../gone"))]), dest,
            r"^'s': a link out of the submission's folder")  # leading out to nothing is leading out too
    unpack(tar_of([("bot.toml", BOT_TOML), ("d/l2", ("sym", ".")), ("d/s", ("sym", "l2/../bot.toml")),
                   ("loop", ("sym", "loop"))]), dest)  # a chain that stays inside, a loop: harmless
    assert (dest / "d" / "s").read_bytes() == BOT_TOML


def test_a_submissions_folder_with_a_link_out_already_on_disk_is_refused(tmp_path: Path) -> None:
    """Unpacked before the chain was caught: its spec (what the league starts and hashes) is refused."""
    from tournaments.submissions import bot_spec

    (tmp_path / "league.sqlite").write_bytes(b"the league's store")
    entry = tmp_path / "subs" / "chain"
    entry.mkdir(parents=True)
    (entry / "bot.toml").write_bytes(BOT_TOML)
    (entry / "bot.py").write_text("")
    (entry / "s").symlink_to("../../league.sqlite")
    with pytest.raises(SubmissionError, match=r"^'s': a link out of the submission's folder"):
        bot_spec(entry, "chain")
    with pytest.raises(SubmissionError, match=r"^its folder '.*gone' is missing$"):
        bot_spec(tmp_path / "subs" / "gone", "gone")


def test_a_bot_files_command_may_not_name_a_file_outside_the_submission(tmp_path: Path) -> None:
    """Every argument of cmd that names a file is hashed into the entrant's identity: "../../league.sqlite" was the
    store's changing bytes, and a restart was refused."""
    from tournaments.submissions import bot_spec

    (tmp_path / "league.sqlite").write_bytes(b"the league's store")
    entry = tmp_path / "subs" / "x"
    entry.mkdir(parents=True)
    (entry / "bot.py").write_text("")
    (entry / "bot.toml").write_text('cmd = ["python3", "bot.py", "../../league.sqlite"]\n')
    with pytest.raises(SubmissionError, match=r"^bot\.toml: cmd: '.*league\.sqlite' is a file outside the "
                                              r"submission"):
        bot_spec(entry, "x")
    (entry / "bot.toml").write_text('cmd = ["python3", "bot.py", "-q", "nothing-here"]\n')
    assert bot_spec(entry, "x").cmd == ("python3", "bot.py", "-q", "nothing-here")
