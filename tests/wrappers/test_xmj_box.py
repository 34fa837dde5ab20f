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

from wrappers.spec import BotSpec
from wrappers.xmj import messages as m
from wrappers.xmj.seat import BoxedClient

_SPY = """import os, socket, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
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
