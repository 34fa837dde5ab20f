"""An xmj seat's connection: what it posts goes at once, in order with what it sends; a peer that reads nothing
costs no wait; a broken connection is told by the next send."""

from __future__ import annotations

import socket

import pytest
import trio

from wrappers.xmj import messages as m
from wrappers.xmj.codec import write
from wrappers.xmj.seat import ClientGone, XmjConnection


def _pair() -> tuple[XmjConnection, socket.socket]:
    ours, theirs = trio.socket.socketpair()
    peer = socket.socket(fileno=theirs.detach())
    peer.setblocking(False)
    return XmjConnection(trio.SocketStream(ours)), peer


def _read_all(peer: socket.socket) -> bytes:
    out = b""
    while True:
        try:
            data = peer.recv(1 << 20)
        except BlockingIOError:
            return out
        if not data:
            return out
        out += data


def test_a_post_is_on_the_wire_at_once_and_in_order_with_sends() -> None:
    async def main() -> None:
        conn, peer = _pair()
        discard = m.CMsgPlayerDiscards(2, "5D", 7, False)
        conn.post([discard])
        assert _read_all(peer) == write(discard), "no await, no question: the client has it"
        # a peer that reads nothing: posts fill its socket and queue the rest, never block, never reorder
        msgs = [m.CMsgPlayerDraws(3, "--") for _ in range(40_000)]
        conn.post(msgs)
        conn.post([discard])
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.send, [m.CMsgPause(0, 0, "to continue")])
            got = b""
            while not got.endswith(write(m.CMsgPause(0, 0, "to continue"))):
                got += _read_all(peer)
                await trio.sleep(0.001)
        assert got == b"".join(map(write, msgs)) + write(discard) + write(m.CMsgPause(0, 0, "to continue"))
        await conn.close()
        peer.close()

    trio.run(main)


def test_a_post_to_a_closed_peer_is_told_by_the_next_send() -> None:
    async def main() -> None:
        conn, peer = _pair()
        peer.close()
        conn.post([m.CMsgPlayerDiscards(2, "5D", 7, False)])  # no exception here: the match goes on
        with pytest.raises(ClientGone, match="the connection broke"):
            await conn.send([m.CMsgPause(0, 0, "to continue")])
        await conn.close()

    trio.run(main)


def test_a_closed_connection_never_reads_or_writes_the_socket_that_took_its_number() -> None:
    """Once its socket is closed (a door closing a stranger's connection), a connection reads and writes nothing,
    even when the next socket opened gets the closed one's descriptor number."""

    async def main() -> None:
        conn, peer = _pair()
        number = conn.stream.socket.fileno()  # type: ignore[attr-defined]
        conn.stream.socket.close()  # type: ignore[attr-defined]
        a, b = socket.socketpair()
        a.setblocking(False)
        b.setblocking(False)
        victim, other = (a, b) if a.fileno() == number else (b, a)
        assert victim.fileno() == number, "the next socket took the closed one's number"
        other.send(write(m.PMsgReady()))
        with pytest.raises(ClientGone, match="closed"):
            conn.take()
        conn.post([m.CMsgPause(0, 0, "to continue")])
        assert _read_all(other) == b""
        with pytest.raises(ClientGone):
            await conn.send([m.CMsgPause(0, 0, "to continue")])
        assert _read_all(other) == b""
        for s in (a, b, peer):
            s.close()

    trio.run(main)


def test_nothing_to_send_makes_no_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """A question's wait sends the seat's outbox, most often already posted: an empty send is no system call (in an
    xmj match, a tenth of the referee's writes were empty)."""
    import wrappers.xmj.seat as seat_module

    writes: list[bytes] = []
    real_write = seat_module.os.write

    def counting_write(fd: int, data: bytes) -> int:
        writes.append(bytes(data))
        return real_write(fd, data)

    async def main() -> None:
        conn, peer = _pair()
        monkeypatch.setattr(seat_module.os, "write", counting_write)
        conn.post([])
        await conn.send([])
        assert writes == [] and conn.settled
        discard = m.CMsgPlayerDiscards(2, "5D", 7, False)
        await conn.send([discard])
        assert writes == [write(discard)] and _read_all(peer) == write(discard)
        await conn.close()
        peer.close()

    trio.run(main)
