"""An xmj seat's client (mj-player, xmj) is boxed like any bot: started by a keeper in its box, never as root, with
no network, and with one thing from outside: its own unix socket, on which it logs in."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from tests.processes import unprivileged_python
from wrappers.spec import BotSpec
from wrappers.xmj import messages as m
from wrappers.xmj.seat import LOGIN_TIMEOUT, BoxedClient, ClientGone

_SPY = """import os, socket, sys
import time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
time.sleep(float(os.environ.get("SPY_DELAY", "0")))
try:
    socket.create_connection(("127.0.0.1", int(os.environ["SPY_PORT"])), timeout=2).close()
    net = "yes"
except OSError:
    net = "no"
s = socket.socket(socket.AF_UNIX)
s.connect(args["--server"])
s.sendall(f"Connect 1110 {args['--id']} uid{os.getuid()}-net{net}\\r\\n".encode())
s.recv(1)
"""


@pytest.fixture
def spy_folder() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="mjref-xmj-spy-", dir="/tmp"))
    folder.chmod(0o755)
    (folder / "spy.py").write_text(_SPY)
    (folder / "spy.py").chmod(0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def _login(spec: BotSpec) -> tuple[m.Message, Path | None]:
    """The client's first message, and the folder of its socket (which must be gone once it is stopped)."""
    async with trio.open_nursery() as nursery:
        client = BoxedClient(spec, 3, "spy", nursery)
        try:
            with trio.fail_after(30):
                conn = await client.open()
                folder = client._folder
                hello = await conn.receive()
            await conn.close()
        finally:
            await client.stop()
    return hello, folder


def test_a_boxed_client_logs_in_on_its_own_socket_never_as_root_and_without_network(spy_folder: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        spec = BotSpec(name="spy", cmd=(sys.executable, str(spy_folder / "spy.py")), protocol="xmj",
                       env={"SPY_PORT": str(port)})
        hello, folder = trio.run(_login, spec)
    assert isinstance(hello, m.PMsgConnect) and hello.last_id == 3
    uid, net = hello.name.removeprefix("uid").split("-net")
    assert int(uid) != 0 or os.geteuid() != 0, "never root"
    assert net == "no", "no network in the box"
    assert folder is not None and not folder.exists(), "its socket's folder goes with it"


def test_mj_player_plays_from_its_box() -> None:
    """Debian's mj-player, started in its box, connects and logs in."""
    if shutil.which("mj-player") is None and not os.path.exists("/usr/games/mj-player"):
        if os.environ.get("MJREF_REQUIRE_MAHJONG"):
            pytest.fail("mj-player is not installed (Debian package mah-jong)")
        pytest.skip("mj-player is not installed (Debian package mah-jong)")
    hello, _ = trio.run(_login, BotSpec(name="mp", cmd=("mj-player", "--suitness", "1"), protocol="xmj"))
    assert isinstance(hello, m.PMsgConnect) and hello.last_id == 3 and hello.name == "spy"


_INTRUDER = """import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as exc:
    print("refused", exc.errno)
    sys.exit()
try:
    s.sendall(b"Connect 1110 9 intruder\\r\\n")
    s.settimeout(20)
    print("closed" if s.recv(1) == b"" else "answered")
except (BrokenPipeError, ConnectionResetError):
    print("closed")
"""


async def _intruded(spec: BotSpec, mode: str, folder: Path) -> tuple[m.Message, list[str]]:
    """The client's first message, while other processes (this test's own, and as root one of another uid) try its
    socket before it connects: what each of them saw."""
    seen: list[str] = []
    async with trio.open_nursery() as nursery:
        client = BoxedClient(spec, 3, "spy", nursery, mode=mode)

        async def intrude() -> None:
            while client.path is None or not client.path.exists():
                await trio.sleep(0.01)
            path = str(client.path)
            while True:  # the referee's own user, outside the box (refused until the socket listens)
                mine = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
                try:
                    await mine.connect(path)
                    break
                except ConnectionRefusedError:
                    mine.close()
                    await trio.sleep(0.01)
            await mine.send(b"Connect 1110 9 intruder\r\n")
            intruder = unprivileged_python([str(folder / "intruder.py"), path])
            intruders = [intruder]
            if os.geteuid() == 0:
                intruders.append(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *intruder])
            for argv in intruders:
                seen.append((await trio.run_process(argv, capture_stdout=True)).stdout.decode().strip())
            with trio.fail_after(20):
                try:
                    seen.append("closed" if await mine.recv(1) == b"" else "answered")
                except ConnectionResetError:  # closed with the intruder's line unread
                    seen.append("closed")
            mine.close()

        nursery.start_soon(intrude)
        try:
            with trio.fail_after(60):
                conn = await client.open()
                hello = await conn.receive()
            await conn.close()
        finally:
            await client.stop()
    return hello, seen


@pytest.mark.parametrize("mode", ["none", "auto"])
def test_only_the_seats_own_client_gets_its_socket(spy_folder: Path, mode: str) -> None:
    """A process outside the seat's box that finds the socket first (another seat's bot under ``--sandbox none``,
    the same user as the referee; or as root, another seat's uid) is not taken for the client: its connection is
    closed, or the socket's folder is closed to it, and the seat waits for its own client."""
    (spy_folder / "intruder.py").write_text(_INTRUDER)
    (spy_folder / "intruder.py").chmod(0o644)
    spec = BotSpec(name="spy", cmd=tuple(unprivileged_python([str(spy_folder / "spy.py")])), protocol="xmj",
                   env={"SPY_PORT": "9", "SPY_DELAY": "2"})
    hello, seen = trio.run(_intruded, spec, mode, spy_folder)
    assert isinstance(hello, m.PMsgConnect) and hello.name.startswith("uid"), hello
    expected = ["closed"] if os.geteuid() != 0 else ["closed", "refused 13"]
    assert seen == [*expected, "closed"], seen


def test_a_client_that_ends_before_it_connects_is_a_fault_at_once_with_its_last_words(spy_folder: Path) -> None:
    """A client that cannot start (a missing table, a bad option) ends at once: the seat says so with the end of
    its stderr, and does not wait out the login time for a connection that will never come."""
    (spy_folder / "broken.py").write_text("import sys\nprint('loading...', file=sys.stderr)\n"
                                          "sys.exit('broken: cannot read its tables')\n")
    (spy_folder / "broken.py").chmod(0o644)
    spec = BotSpec(name="broken", cmd=tuple(unprivileged_python([str(spy_folder / "broken.py")])), protocol="xmj")

    async def start() -> str:
        async with trio.open_nursery() as nursery:
            client = BoxedClient(spec, 2, "broken", nursery)
            try:
                with trio.fail_after(LOGIN_TIMEOUT / 2):  # the seat's login time is not waited out
                    with pytest.raises(ClientGone) as gone:
                        await client.open()
            finally:
                await client.stop()
        return str(gone.value)

    said = trio.run(start)
    assert said.endswith("exited with status 1 before it connected: broken: cannot read its tables"), said
