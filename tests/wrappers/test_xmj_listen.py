"""``mjref serve --xmj-listen``: clients of mj-server's protocol log in to ``xmj:NAME`` seats over TCP with the seat's
token as password (mj-server's ``--auth-basic``), behind the door's rules; then play at the table.

A scripted client speaks the protocol itself (right and wrong tokens, silence, a second connection); Debian's
``mj-player`` (``--password``) plays a whole served match; Debian's ``xmj`` under Xvfb logs in through its own
password dialog, typed into as a person would, is seated and shown its deal.  127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mjserver
import pytest
import trio
import xdisplay
from xmj_relay import _pump

from referee.cli import main as mjref
from referee.rulesets import playable_rules, with_match_options
from referee.server import Server, serve_match
from wrappers.spec import SpecError, check_protocol_family, parse_bot
from wrappers.xmj import listen

HOST = "127.0.0.1"
WAIT = 120.0  # seconds a test waits for what must come (a margin no load eats; it never passes by waiting)
TOKEN = "a-good-token-for-alice-0123"


def classical(hands: int = 1) -> Any:
    return with_match_options(playable_rules("classical", [], "serve"), hands=hands)


class Wire:
    """A scripted client: mj-server's protocol over TCP, one CRLF line a message (no text spans lines here)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    @classmethod
    async def open(cls, port: int) -> Wire:
        return cls(await trio.open_tcp_stream(HOST, port))

    async def send(self, line: str) -> None:
        await self.stream.send_all(line.encode() + b"\r\n")

    async def line(self) -> str | None:
        """The next line; None when the server closed the connection."""
        while b"\r\n" not in self.buffer:
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line.decode()

    async def login(self, name: str, password: str) -> str | None:
        await self.send(f"Connect 1110 0 {name}")
        assert await self.line() == "AuthReqd basic "  # mj-server's: the type, and an empty text
        await self.send(f"AuthInfo basic {password}")
        return None

    async def closed(self) -> list[str]:
        """Every line until the server closes the connection."""
        lines = []
        while (line := await self.line()) is not None:
            lines.append(line)
        return lines


async def with_door(body: Callable[[Server, int], Awaitable[None]], names: tuple[str, ...] = ("alice",)) -> Server:
    """A server whose xmj port listens on 127.0.0.1 for ``names`` (each with ``TOKEN``), running ``body``."""
    said: list[str] = []
    server = Server(dict.fromkeys(names, TOKEN) | {"wrapper": TOKEN + "-ws"}, say=said.append, xmj=names)
    async with trio.open_nursery() as nursery:
        await server.start_xmj(nursery, HOST, 0)
        with trio.fail_after(WAIT):
            await body(server, server.xmj_port)
        nursery.cancel_scope.cancel()
    return server


def reasons(server: Server) -> list[str]:
    return [a.reason for a in server.refused]


# ------------------------------------------------------------------------------------------------ the door
def test_the_right_token_logs_in_and_holds_the_seat() -> None:
    async def body(server: Server, port: int) -> None:
        assert server.xmj.missing() == ["alice"]
        wire = await Wire.open(port)
        await wire.login("alice", TOKEN)
        while server.xmj.missing():
            await trio.sleep(0.01)
        assert server.status("alice")[0]
        conn = await server.xmj.client("alice").open()  # the seat gets the connection, its Connect first
        assert (await conn.receive()).name == "alice"  # type: ignore[attr-defined]

    assert reasons(trio.run(with_door, body)) == []


def test_a_wrong_token_gets_mj_servers_refusal_and_the_connection_closes() -> None:
    async def body(server: Server, port: int) -> None:
        for name, password in (("alice", "wrong-token-0123456789"), ("nobody", TOKEN), ("wrapper", TOKEN + "-ws")):
            wire = await Wire.open(port)
            await wire.login(name, password)
            assert await wire.closed() == ["ConnectReply 1110 0 Authentication failure"]
        assert server.xmj.missing() == ["alice"]

    server = trio.run(with_door, body)
    assert reasons(server) == ["wrong name or token"] * 3  # a WebSocket wrapper's name does not log in here


def test_an_xmj_seats_token_does_not_log_in_on_the_websocket_port() -> None:
    server = Server({"alice": TOKEN, "bob": TOKEN}, say=lambda _: None, xmj=["alice"])
    assert not server._check("alice", TOKEN) and server._check("alice", TOKEN, xmj=True)
    assert server._check("bob", TOKEN) and not server._check("bob", TOKEN, xmj=True)
    assert "alice" not in server.slots


def test_a_silent_connection_is_closed_after_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listen, "AUTH_TIMEOUT", 0.2)

    async def body(server: Server, port: int) -> None:
        wire = await Wire.open(port)
        assert await wire.closed() == []  # nothing said, nothing told: closed

    assert reasons(trio.run(with_door, body)) == ["no Connect within 0.2 s"]


def test_a_silent_password_is_closed_after_its_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listen, "PASSWORD_TIMEOUT", 0.2)

    async def body(server: Server, port: int) -> None:
        wire = await Wire.open(port)
        await wire.send("Connect 1110 0 alice")
        assert await wire.closed() == ["AuthReqd basic "]

    assert reasons(trio.run(with_door, body)) == ["no password within 0.2 s"]


def test_a_second_connection_for_a_name_is_refused() -> None:
    async def body(server: Server, port: int) -> None:
        first = await Wire.open(port)
        await first.login("alice", TOKEN)
        while server.xmj.missing():
            await trio.sleep(0.01)
        second = await Wire.open(port)
        await second.login("alice", TOKEN)
        assert await second.closed() == ["ConnectReply 1110 0 Your id is already connected elsewhere"]
        assert server.xmj.logins["alice"].conn is not None  # the first still holds the seat

    assert reasons(trio.run(with_door, body)) == ["already logged in on another connection"]


def test_a_login_that_leaves_before_its_seat_is_played_frees_the_name() -> None:
    """A person who logged in and closed xmj while the table was still waiting for others held the name for the
    whole match: the next login was refused as "connected elsewhere", and the match began on the dead connection.
    What a client sends while it waits is kept for its seat; a flood ends its login."""

    async def body(server: Server, port: int) -> None:
        first = await Wire.open(port)
        await first.login("alice", TOKEN)
        while server.xmj.missing():
            await trio.sleep(0.01)
        await first.stream.aclose()
        while not server.xmj.missing():  # the door notices, and the name is free again
            await trio.sleep(0.01)
        second = await Wire.open(port)
        await second.login("alice", TOKEN)
        await second.send("Ready")  # sent before the seat takes the connection: kept for it
        while server.xmj.missing():
            await trio.sleep(0.01)
        conn = await server.xmj.client("alice").open()
        assert (await conn.receive()).name == "alice"  # type: ignore[attr-defined]
        assert type(await conn.receive()).__name__ == "PMsgReady"
        third = await Wire.open(port)
        await third.login("alice", TOKEN)
        assert await third.closed() == ["ConnectReply 1110 0 Your id is already connected elsewhere"]

    assert reasons(trio.run(with_door, body)) == ["login given up: it left before its seat was played",
                                                  "already logged in on another connection"]


def test_a_login_that_floods_before_its_seat_is_played_is_let_go() -> None:
    async def body(server: Server, port: int) -> None:
        wire = await Wire.open(port)
        await wire.login("alice", TOKEN)
        for _ in range(listen.LOBBY_MESSAGES + 1):
            await wire.send("Ready")
        assert await wire.closed() == []
        assert server.xmj.missing() == ["alice"]

    assert reasons(trio.run(with_door, body)) == [
        f"login given up: more than {listen.LOBBY_MESSAGES} messages before its seat was played"]


def test_strangers_of_the_same_address_cannot_close_a_login_waiting_for_its_password() -> None:
    """A person types the password xmj asks for: idle connections from the same address (any local process, or a
    web page's requests to the port) were let in in its place, the oldest first, and its login was closed."""

    async def body(server: Server, port: int) -> None:
        person = await Wire.open(port)
        await person.send("Connect 1110 0 alice")
        assert await person.line() == "AuthReqd basic "
        idle = [await Wire.open(port) for _ in range(3 * 8)]  # three times the per-address cap (server.Door)
        await trio.sleep(0.2)
        await person.send(f"AuthInfo basic {TOKEN}")
        with trio.move_on_after(10):
            while server.xmj.missing():
                await trio.sleep(0.01)
        assert server.xmj.missing() == [], "the person's login was closed to make room"
        closed = 0
        for wire in idle:
            with trio.move_on_after(0.05):
                closed += await wire.line() is None
            await wire.stream.aclose()
        assert closed == len(idle) - 7, closed  # the newest seven stay, beside the person's

    trio.run(with_door, body)


@pytest.mark.parametrize(("lines", "told", "reason"), [
    (["Connect 2000 0 alice"], ["ConnectReply 1110 0 Protocol major version mismatch"], "protocol version 2000"),
    (["Connect 1050 0 alice"], ["ConnectReply 1110 0 Protocol version 1050 is older than 1110: this server plays "
                                "mj-server 1.11's rules only"], "protocol version 1050"),
    (["Ready"], [], "Ready before Connect"),
    (["Bogus 1 2"], [], "not a message of mj-server's protocol"),
    (["Connect 1110 0 alice", "AuthInfo md5 x"], ["AuthReqd basic ", "ConnectReply 1110 0 Authentication failure"],
     "AuthInfo md5 where AuthInfo basic was asked"),
])
def test_other_logins_are_refused(lines: list[str], told: list[str], reason: str) -> None:
    async def body(server: Server, port: int) -> None:
        wire = await Wire.open(port)
        for line in lines:
            await wire.send(line)
        assert await wire.closed() == told

    refused = reasons(trio.run(with_door, body))
    assert len(refused) == 1 and refused[0].startswith(reason)


# ------------------------------------------------------------------------------------------------ the seat
def test_xmj_seat_specs() -> None:
    spec = parse_bot("xmj:alice", set())
    assert spec.remote and spec.protocol == "xmj" and not spec.human and spec.describe() == "xmj:alice"
    with pytest.raises(SpecError, match="1-64 letters"):
        parse_bot("xmj:a b", set())
    with pytest.raises(SpecError, match="Chinese Classical only, not taiwan16"):
        check_protocol_family(spec, "taiwan16")


def test_serve_refuses_an_xmj_seat_without_its_port_or_under_taiwan16(capsys: pytest.CaptureFixture[str]) -> None:
    assert mjref(["serve", "--listen", f"{HOST}:0", "--rules", "classical", "xmj:alice"]) == 2
    assert "xmj:alice is played by an xmj client: give --xmj-listen HOST:PORT" in capsys.readouterr().err
    assert mjref(["serve", "--listen", f"{HOST}:0", "--xmj-listen", f"{HOST}:0", "xmj:alice"]) == 2
    assert "plays Chinese Classical only, not taiwan16" in capsys.readouterr().err
    assert mjref(["serve", "--listen", f"{HOST}:0", "--xmj-listen", f"{HOST}:0", "greedy"]) == 2
    assert "--xmj-listen: no xmj:NAME seat" in capsys.readouterr().err
    assert mjref(["serve", "--xmj-listen", "nowhere", "xmj:alice"]) == 2
    assert "--xmj-listen 'nowhere': give HOST:PORT" in capsys.readouterr().err


def test_a_scripted_client_is_seated_and_dealt(tmp_path: Path) -> None:
    """Logged in on the xmj port, the client gets mj-server's login and its deal; then it leaves, and the match
    goes on without it (a disconnected seat's stand-in): each hand after is a ``disconnected`` fault too, as for a
    remote seat whose wrapper is away (it was ``start_failed``, which is for a client mjref starts itself)."""
    specs = [parse_bot(b, {"greedy"}) for b in ("xmj:alice", "greedy", "greedy", "greedy")]
    seen: list[str] = []

    async def main() -> Any:
        server = Server({"alice": TOKEN}, say=lambda _: None, xmj=["alice"])
        address: list[str] = []
        async with trio.open_nursery() as nursery:
            async def client() -> None:
                while not address:
                    await trio.sleep(0.01)
                wire = await Wire.open(int(address[0].rsplit(":", 1)[1]))
                await wire.login("alice", TOKEN)
                while (line := await wire.line()) is not None:
                    seen.append(line)
                    if line.startswith("Pause"):
                        await wire.send("Ready")
                    if sum(x.startswith("PlayerDraws 1 ") for x in seen) == 14:
                        break  # the dealer's fourteen tiles
                await wire.stream.aclose()

            nursery.start_soon(client)
            with trio.fail_after(WAIT):
                result = await serve_match(specs, server, listen=(HOST, 0), xmj_listen=(HOST, 0),
                                           on_xmj=address.append, on_fault=None, rules=classical(hands=3),
                                           log_path=tmp_path / "m.jsonl", seed=7)
        return result

    result = trio.run(main)
    assert seen[0] == "ConnectReply 1110 1 " and seen[1:4] == ["Player 2 greedy#2", "Player 3 greedy#3",
                                                                "Player 4 greedy#4"]
    own = [x.split()[2] for x in seen if x.startswith("PlayerDraws 1 ")]
    assert len(own) == 14 and "--" not in own  # its own tiles, face up
    assert any(x.startswith("PlayerDraws 2 --") for x in seen)  # another's, face down
    assert len(result.hands) == 3
    kinds = [(f.hand, f.kind) for f in result.faults if f.position == 1]
    assert [k for _, k in kinds if k != "forfeit"] == ["disconnected"] * 3, kinds
    assert [h for h, _ in kinds][:3] == [0, 1, 2], kinds


# ------------------------------------------------------------------------------------------------ real clients
def serve(tmp_path: Path, *bots: str, hands: int = 1) -> tuple[subprocess.Popen[str], str]:
    """``mjref serve --xmj-listen`` as a user runs it, its alice's token from a tokens file; its xmj address."""
    (tmp_path / "tokens.toml").write_text(f'alice = "{TOKEN}"\n')
    proc = subprocess.Popen(
        ["mjref", "serve", "--listen", f"{HOST}:0", "--xmj-listen", f"{HOST}:0", "--tokens",
         str(tmp_path / "tokens.toml"), "--rules", "classical", "--hands", str(hands), "--seed", "7", "--log",
         str(tmp_path / "m.jsonl"), *bots], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.match(r"alice xmj: xmj --server (\S+) --name alice --connect", line)
    assert match, line
    return proc, match.group(1)


def test_mj_player_plays_a_served_match_over_tcp(tmp_path: Path) -> None:
    mjserver.require()
    proc, address = serve(tmp_path, "xmj:alice", "greedy", "greedy", "greedy")
    try:
        player = subprocess.run([mjserver.PLAYER, "--server", address, "--name", "alice", "--password", TOKEN],
                                timeout=WAIT, capture_output=True)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        proc.kill()
    assert player.returncode == 0 and proc.returncode == 0, err
    assert "alice logged in with xmj from 127.0.0.1:" in err
    assert re.search(r"│ +\d │ +1 │ alice +│ +-?\d+ │ +\d+ │ +0 │", out), out  # played, without a fault


class TcpRelay:
    """A TCP relay on 127.0.0.1 that keeps every byte each way (``xmj_relay._pump``): what xmj was told."""

    def __init__(self, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.listener = socket.create_server((HOST, 0))
        self.address = f"{HOST}:{self.listener.getsockname()[1]}"
        self.to_client = bytearray()
        self.to_server = bytearray()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        client, _ = self.listener.accept()
        server = socket.create_connection(self.target)
        threading.Thread(target=_pump, args=(client, server, self.to_server), daemon=True).start()
        _pump(server, client, self.to_client)


def test_xmj_under_xvfb_logs_in_with_its_password_dialog_and_is_dealt(tmp_path: Path) -> None:
    """Debian's xmj, as a person starts it: it asks for the password in a dialog, typed into (XTEST), and OK;
    seated, it is asked Ready (Return on its Ready button), then dealt.  The screen is saved (``XMJ_SCREENSHOT``:
    where; docs/xmj-table.png was made so)."""
    mjserver.require()
    if not Path("/usr/games/xmj").exists():
        mjserver.programs()
        if os.environ.get(mjserver.REQUIRE_ENV, "") not in ("", "0"):
            pytest.fail("/usr/games/xmj is missing")
        pytest.skip("xmj is not installed")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".xmjrc").write_text("DebugReports never\n")
    proc, address = serve(tmp_path, "xmj:alice", "greedy", "greedy", "greedy")
    relay = TcpRelay(address)
    with xdisplay.xvfb() as name:
        xmj = subprocess.Popen(["/usr/games/xmj", "--server", relay.address, "--name", "alice", "--connect"],
                               env={**os.environ, "DISPLAY": name, "HOME": str(home)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        display = xdisplay.Display(name)
        try:
            until(lambda: b"AuthReqd basic" in relay.to_client)
            dialog = until(lambda: next((w for w in display.windows() if w[4] < 300 and w[5] < 150), None))
            display.type_into(dialog[0], TOKEN, ("Tab", "Return"))  # the entry, then its OK button
            until(lambda: b"ConnectReply 1110 1" in relay.to_client and b"Pause 0 0 to start hand" in relay.to_client)
            table = max(display.windows(), key=lambda w: w[4] * w[5])
            until(lambda: _press_ready(display, table[0], relay))
            until(lambda: relay.to_client.count(b"PlayerDraws 1 ") >= 14)
            time.sleep(2.0)  # only for the picture: xmj draws the tiles it was dealt
            shot = Path(os.environ.get("XMJ_SCREENSHOT", tmp_path / "xmj-table.png"))
            display.screenshot(shot, table[2:])
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        finally:
            display.close()
            xmj.kill()
            xmj.wait()
            proc.kill()
            proc.communicate()
    told = relay.to_client.decode()
    assert f"AuthInfo basic {TOKEN}" in relay.to_server.decode()  # typed in its dialog, sent as mj-server's
    own = re.findall(r"PlayerDraws 1 (\S+)", told)
    assert len(own) >= 14 and "--" not in own[:14]
    assert "Player 2 greedy#2" in told


def _press_ready(display: xdisplay.Display, window: int, relay: TcpRelay) -> bool:
    if b"\r\nReady" in b"\r\n" + bytes(relay.to_server):
        return True
    display.type_into(window, "", ("Return",))
    time.sleep(0.5)
    return b"\r\nReady" in b"\r\n" + bytes(relay.to_server)


def until(check: Callable[[], Any]) -> Any:
    """Poll ``check`` until it gives something true (a margin of ``WAIT`` seconds, never a timed assertion)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"still waiting after {WAIT:g} s for {check}")


def test_mjref_play_seats_the_person_in_xmj(tmp_path: Path) -> None:
    """``mjref play --xmj-listen``: the person's seat is ``xmj:NAME``; what it prints starts the client (here
    mj-player, which takes the password as an option, where xmj asks for it in a dialog)."""
    mjserver.require()
    proc = subprocess.Popen(
        ["mjref", "play", "--rules", "classical", "--hands", "1", "--seed", "7", "--name", "ann", "--no-browser",
         "--xmj-listen", f"{HOST}:0", "--log", str(tmp_path / "m.jsonl")], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.match(r"your seat \(ann, seat 1\): xmj --server (\S+) --name ann --connect, password (\S+)$", line)
        assert match, line
        player = subprocess.run([mjserver.PLAYER, "--server", match.group(1), "--name", "ann", "--password",
                                 match.group(2)], timeout=WAIT, capture_output=True)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        proc.kill()
    assert player.returncode == 0 and proc.returncode == 0, err
    header = json.loads((tmp_path / "m.jsonl").read_text().splitlines()[0])
    assert header["seats"][0]["spec"] == "xmj:ann"


def test_mjref_play_in_xmj_needs_chinese_classical(capsys: pytest.CaptureFixture[str]) -> None:
    assert mjref(["play", "--no-browser", "--xmj-listen", f"{HOST}:0"]) == 2
    assert "speaks mj-server's protocol (xmj), which plays Chinese Classical only, not taiwan16" in \
        capsys.readouterr().err
