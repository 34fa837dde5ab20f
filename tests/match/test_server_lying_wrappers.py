"""What a wrapper (or anyone on the WebSocket port) says is checked at the server: a fault kind only the referee
decides is not taken from it, an answer sent before its question is not taken as that question's, a login that
dies while its round trip is measured frees its name at once, and every attempt refused before a hello is in the
server's log, its text cut."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from pathlib import Path
from typing import Any

import trio
from trio_websocket import ConnectionClosed, open_websocket_url

from referee.cli import main as mjref
from tests.match.test_server import (  # noqa: F401 - procs: a fixture
    TOKENS,
    Proc,
    connect,
    procs,
    scripted_wrapper,
    serve,
    write_tokens,
)
from wrappers import messages as m
from wrappers.remote import PING_TIMEOUT, Link
from wrappers.websocket import ping


async def _answer_every_question_with(url: str, fault: str) -> int:
    """Log in as ``a`` and report ``fault`` for every question; the number of questions."""
    asked = 0

    async def report(msg: m.Ask) -> str:
        nonlocal asked
        asked += 1
        return m.write(m.Reply(q=msg.q, fault=fault, detail="said by the wrapper"))

    async with open_websocket_url(url) as ws:
        await scripted_wrapper(ws, "a", report)
    return asked


def test_a_wrapper_cannot_report_a_forfeit_or_a_disconnection(tmp_path: Path, procs: list[Proc]) -> None:
    """A wrapper that reports ``forfeit`` at its first fault made a log that its replay refused (the rules give a
    forfeit only at max_faults); what a wrapper reports is what its bot process did, and anything else a crash."""
    for fault in ("forfeit", "disconnected", "start_failed"):
        where = tmp_path / fault
        where.mkdir()
        server, url = serve(procs, where, "remote:a", "greedy", "greedy", "greedy", "--tokens",
                            str(write_tokens(where)), "--hands", "4", "--seed", "5", "--json", "--log", "m.jsonl")
        assert trio.run(_answer_every_question_with, url, fault) >= 1
        code, out = server.finish()
        assert code == 0, server.stderr
        kinds = [f["kind"] for f in json.loads(out)["faults"]]
        assert kinds == ["crash"] * 3 + ["forfeit"], (fault, kinds)  # max_faults = 3: the rules' forfeit
        assert mjref(["replay", str(where / "m.jsonl")]) == 0, fault


class _Frames:
    """Just enough of a WebSocket for a ``Link``: frames to read, and what it was sent."""

    def __init__(self) -> None:
        self.incoming, self._frames = trio.open_memory_channel[str](100)
        self.sent: list[str] = []

    async def get_message(self) -> str:
        return await self._frames.receive()

    async def send_message(self, frame: str) -> None:
        self.sent.append(frame)


def test_an_answer_sent_before_its_question_is_not_taken() -> None:
    """A reply numbered above the last question sent answers nothing: kept, it was taken as the next question's
    answer the moment that question was asked (an answer time of nothing, and an answer chosen before the bot
    could see the question's lines)."""

    async def main() -> list[tuple[int, str | None]]:
        ws = _Frames()
        link = Link(ws, "a", "127.0.0.1:1")  # type: ignore[arg-type]
        got = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(link._read)
            await link.send(m.Seat(match="x", position=1, timeout=5.0))
            await link.send(m.Ask(q=1, lines=[], ask="throw"))
            await ws.incoming.send(m.write(m.Reply(q=1, line="/throw 111")))
            await ws.incoming.send(m.write(m.Reply(q=2, line="/throw 222")))  # before question 2
            await trio.sleep(0.1)
            reply = await link.receive()
            assert isinstance(reply, m.Reply)
            got.append((reply.q, reply.line))
            await trio.sleep(0.1)
            await link.send(m.Ask(q=2, lines=[], ask="throw"))
            await ws.incoming.send(m.write(m.Reply(q=2, line="/throw 333")))
            reply = await link.receive()
            assert isinstance(reply, m.Reply)
            got.append((reply.q, reply.line))
            # a new match's seat numbers its questions from 1 again
            await link.send(m.Seat(match="y", position=1, timeout=5.0))
            await ws.incoming.send(m.write(m.Reply(q=1, line="/throw 444")))  # before its question
            await trio.sleep(0.1)  # (read before the question is sent, as a frame sent early would be)
            await link.send(m.Ask(q=1, lines=[], ask="throw"))
            await ws.incoming.send(m.write(m.Reply(q=1, line="/throw 555")))
            reply = await link.receive()
            assert isinstance(reply, m.Reply)
            got.append((reply.q, reply.line))
            nursery.cancel_scope.cancel()
        return got

    assert trio.run(main) == [(1, "/throw 111"), (2, "/throw 333"), (1, "/throw 555")]


async def _silent_peer(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """A WebSocket peer that completes the handshake, answers no ping, and closes its TCP connection after 0.5 s."""

    async def handler(stream: trio.SocketStream) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            request += await stream.receive_some(4096)
        key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
                   if line.lower().startswith(b"sec-websocket-key:"))
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())  # noqa: S324
        await stream.send_all(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
        await trio.sleep(0.5)
        await stream.aclose()

    await trio.serve_tcp(handler, 0, host="127.0.0.1", task_status=task_status)


def test_a_ping_ends_when_the_connection_does() -> None:
    """trio-websocket's ping waits for its pong even after the connection closed: a login that dropped while its
    round trip was measured held its name for the whole ``PING_TIMEOUT`` (a wrapper reconnecting was refused as
    already logged in meanwhile)."""

    async def main() -> tuple[bool, float]:
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(_silent_peer)
            port = listeners[0].socket.getsockname()[1]
            async with open_websocket_url(f"ws://127.0.0.1:{port}") as ws:
                started = time.monotonic()
                answered = await ping(ws, PING_TIMEOUT)
                took = time.monotonic() - started
            nursery.cancel_scope.cancel()
        return answered, took

    answered, took = trio.run(main)
    assert not answered and took < PING_TIMEOUT / 2, took


async def _before_hello(url: str) -> None:
    host, port = url.removeprefix("ws://").rsplit(":", 1)
    async with open_websocket_url(url) as ws:  # a frame over the limit before any hello: 1009
        await ws.send_message("x" * (m.MAX_CLIENT_MESSAGE + 1))
        try:
            await ws.get_message()
        except ConnectionClosed:
            pass
    async with open_websocket_url(url) as ws:  # the right token, a version of 4,200 digits
        await ws.send_message(json.dumps({"type": "hello", "v": int("9" * 4200), "name": "a",
                                          "token": TOKENS["a"]}).replace('"v": 9', '"v":9'))
        try:
            await ws.get_message()
        except ConnectionClosed:
            pass


def test_attempts_refused_before_a_hello_are_logged_and_cut(tmp_path: Path, procs: list[Proc]) -> None:
    server, url = serve(procs, tmp_path, "remote:a", "greedy", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--hands", "1", "--wait", "60")
    trio.run(_before_hello, url)
    server.wait_for(r"the connection closed before a hello \(1009")
    version = server.wait_for(r"refused \S+ as 'a': protocol version (\S+)")
    assert len(version.group(0)) < 200, version.group(0)
    assert "Traceback" not in server.stderr
    connect(procs, tmp_path, url, "a")
    assert server.finish()[0] == 0, server.stderr
