"""The box as a root referee builds it (CI, containers): the seats' own uids, and the copies of bot folders made for
them with root's rights.  Each attack here once worked against a root referee."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from wrappers import sandbox
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def as_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("run by an ordinary user: no seat gets a uid of its own, nothing is copied")


_ALLOCATE = """
import sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from wrappers import sandbox
uids = [sandbox.seat_uid(Path(tempfile.gettempdir()) / f"seat-{i}") for i in range(200)]
print(*uids, flush=True)
sys.stdin.readline()
for uid in uids:
    sandbox._release_uid(uid)
"""


def test_two_referees_never_give_two_seats_one_uid(as_root: None) -> None:
    """Seat uids were made from the referee's pid and a counter: two referees with near pids (a tournament's
    workers, two matches started one after the other) gave seats of both the same uid, whose processes could then
    signal and read each other (mode none), and whose process counts were one."""
    procs = [subprocess.Popen([sys.executable, "-c", _ALLOCATE, str(ROOT)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(3)]
    try:
        uids = [set(map(int, p.stdout.readline().split())) for p in procs]  # type: ignore[union-attr]
    finally:
        for p in procs:
            p.communicate("\n", timeout=30)
    assert all(len(u) == 200 for u in uids)
    assert not (uids[0] & uids[1]) and not (uids[0] & uids[2]) and not (uids[1] & uids[2]), "a uid given twice"


@pytest.mark.parametrize("kind", ["fifo", "socket", "device"])
def test_a_closed_bot_folder_with_a_special_file_is_refused_not_copied(as_root: None, kind: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """As root a bot folder closed to others is copied for the bot's uid.  A named pipe in it blocked the referee
    for ever, a device node was read with root's rights into the copy (``/dev/zero``: gigabytes on the disk in
    seconds; a disk's node: the disk), a socket ended the run with a traceback; each left a half copy behind."""
    import socket
    import stat as st

    folder = Path(tempfile.mkdtemp(prefix="mjref-test-bot-"))
    # The copies go to a temporary folder of this test's own: another test beside it may copy a bot meanwhile
    copies = Path(tempfile.mkdtemp(prefix="mjref-test-copies-"))
    copies.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(copies))
    try:
        folder.chmod(0o700)
        (folder / "bot.sh").write_text("#!/bin/sh\necho hi\n")
        odd = folder / "odd"
        if kind == "fifo":
            os.mkfifo(odd)
        elif kind == "device":
            os.mknod(odd, 0o644 | st.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
        else:
            with socket.socket(socket.AF_UNIX) as s:
                s.bind(str(odd))
        before = set(Path(tempfile.gettempdir()).glob("mjref-copy-*"))
        held = dict(sandbox._uid_locks)
        with pytest.raises(sandbox.BotError) as err:
            sandbox.plan(BotSpec(name="b", cmd=("/bin/sh", "bot.sh"), cwd=str(folder)), folder / "scratch",
                         mode="bwrap")
        assert str(odd) in str(err.value) and "\n" not in str(err.value)
        assert set(Path(tempfile.gettempdir()).glob("mjref-copy-*")) <= before, "nothing is left behind"
        assert sandbox._uid_locks == held, "the seat's uid is freed"
    finally:
        subprocess.run(["rm", "-rf", str(folder), str(copies)], check=False)


_COPY_AND_DIE = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from wrappers import sandbox
from wrappers.spec import BotSpec
launch = sandbox.plan(BotSpec(name="w", cmd=("/bin/sh", "bot.sh"), cwd=sys.argv[2], writable=True),
                      Path(sys.argv[3]), mode="bwrap")
print(launch.copies[0][1], flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_copies_a_killed_referee_left_are_swept(as_root: None) -> None:
    """A referee killed by SIGKILL (the OOM killer, a cluster's scheduler) left its seats' copies in the temporary
    folder, up to 1 GB each, for ever; the next root referee removes those of uids no live seat holds."""
    folder = Path(tempfile.mkdtemp(prefix="mjref-test-bot-"))
    try:
        folder.chmod(0o755)
        (folder / "bot.sh").write_text("#!/bin/sh\n")
        done = subprocess.run([sys.executable, "-c", _COPY_AND_DIE, str(ROOT), str(folder), str(folder / "s")],
                              capture_output=True, text=True, timeout=60)
        copy = Path(done.stdout.strip())
        assert done.returncode == -9 and copy.is_dir(), done
        assert os.path.ismount(copy.parent), "the copy is a tmpfs of its own"
        mine = sandbox.seat_uid(folder / "mine")  # a live seat's copy stays
        made, _ = sandbox._copy_for(str(folder), mine, (), "live")
        live = Path(made)
        try:
            sandbox._sweep_copies.__wrapped__()
            assert not copy.exists() and not copy.parent.exists(), "the dead referee's copy is swept (unmounted)"
            assert live.is_dir(), "a live seat's copy is not"
        finally:
            sandbox._remove_copy(str(live.parent))
            sandbox._release_uid(mine)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_seats_copy_is_closed_to_every_other_uid(as_root: None) -> None:
    """A writable bot's copy (where it writes its notes during the match) kept its folder's modes under a folder
    others could cross (0711): a seat in mode ``none`` (a uid of its own, on the host) could read it."""
    folder = Path(tempfile.mkdtemp(prefix="mjref-test-bot-"))
    try:
        folder.chmod(0o755)
        (folder / "notes.txt").write_text("what I hold\n")
        (folder / "notes.txt").chmod(0o644)
        launch = sandbox.plan(BotSpec(name="w", cmd=("/bin/cat", "notes.txt"), cwd=str(folder), writable=True),
                              folder / "s", mode="bwrap")
        try:
            (_, copy), = launch.copies
            other = sandbox.UID_BASE - 7  # any other unprivileged uid
            done = subprocess.run(["setpriv", f"--reuid={other}", f"--regid={other}", "--clear-groups", "cat",
                                   f"{copy}/notes.txt"], capture_output=True, text=True, timeout=30)
            assert done.returncode != 0 and "what I hold" not in done.stdout, done
        finally:
            sandbox.release(launch)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_hard_link_is_not_copied_where_users_may_link_what_they_cannot_read(
        as_root: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``fs.protected_hardlinks`` is 0, a user may hard-link a file they cannot read (``/etc/shadow``) into a
    bot folder; copied as root for the bot's uid, it would be readable in the box."""
    folder = Path(tempfile.mkdtemp(prefix="mjref-test-bot-"))
    try:
        folder.chmod(0o700)
        (folder / "bot.sh").write_text("#!/bin/sh\n")
        secret = Path(tempfile.mkdtemp(prefix="mjref-test-secret-")) / "secret"
        secret.write_text("root's\n")
        secret.chmod(0o600)
        os.link(secret, folder / "linked")
        spec = BotSpec(name="b", cmd=("/bin/sh", "bot.sh"), cwd=str(folder))
        monkeypatch.setattr(sandbox, "_hardlinks_protected", lambda: False)
        with pytest.raises(sandbox.BotError, match="hard link"):
            sandbox.plan(spec, folder / "s", mode="bwrap")
        monkeypatch.setattr(sandbox, "_hardlinks_protected", lambda: True)  # the kernel's default: a user cannot
        sandbox.release(sandbox.plan(spec, folder / "s", mode="bwrap"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(secret.parent, ignore_errors=True)


_FILL = """#!/bin/sh
i=0
while head -c 60000000 /dev/zero > "fill$i"; do i=$((i+1)); done
exit 1
"""


def test_a_writable_bot_that_fills_its_folder_as_root_fills_its_own_tmpfs_and_is_charged(as_root: None) -> None:
    """As root a ``writable`` bot writes a copy of its folder.  The copy lay on the host's disk, capped only per file
    (``file_mb``): a bot could fill the disk of the store and logs.  It is now a tmpfs of its own (its files and
    ``WRITABLE_MB`` more), and filling it is the bot's ``resource`` fault; the match goes on and is recorded."""
    from referee.game.taiwan16.rules import make_ruleset
    from referee.match import play_match

    folder = Path(tempfile.mkdtemp(prefix="mjref-test-bot-"))
    try:
        folder.chmod(0o755)
        (folder / "bot.sh").write_text(_FILL)
        (folder / "bot.sh").chmod(0o755)
        spec = BotSpec(name="filler", cmd=("/bin/sh", "bot.sh"), cwd=str(folder), writable=True)
        launch = sandbox.plan(spec, folder / "s", mode="bwrap")
        try:
            (_, copy), = launch.copies
            room = os.statvfs(copy)
            assert os.path.ismount(os.path.dirname(copy))
            assert room.f_blocks * room.f_frsize <= (sandbox.WRITABLE_MB + 2) << 20, "capped: files and the room"
            assert launch.watched == (str(folder),)
        finally:
            sandbox.release(launch)
        others = [BotSpec(name=f"d{i}", builtin="drawdiscard") for i in (2, 3, 4)]
        result = play_match([spec, *others], seed=1, rules=make_ruleset({"hands": 1}))
        assert len(result.hands) == 1, "the match is played and recorded"
        kinds = {(f.position, f.kind) for f in result.faults}
        assert (1, "resource") in kinds, result.faults
        assert any("writable folder" in f.detail for f in result.faults if f.position == 1), result.faults
        assert not list(folder.glob("fill*")), "the original folder was never written"
        assert not list(Path(tempfile.gettempdir()).glob(f"mjref-copy-{launch.uid}-*")), "the copy is gone"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
