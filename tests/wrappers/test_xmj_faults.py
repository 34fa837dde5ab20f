"""The xmj seat's faults and its answers, with a scripted client on an in-memory connection: each decision answers
the questions the table in docs/xmj.md says, and a client that sends garbage, plays what it cannot, answers the
wrong question, goes silent or disconnects gets that fault (and the seat says so, never raises)."""

from __future__ import annotations

import select
import socket
import threading

import pytest
import trio
import trio.testing

from referee.game.classical.options import GameOptions
from referee.game.engine import HandResult
from referee.game.types import HU, PASS, Answer, Dealt, Eat, Hu, InitCard, InitGame, Mo, Pong, Question, Throw
from wrappers.seat import HandInfo, Reply
from wrappers.xmj import messages as m
from wrappers.xmj.codec import Framer, XmjProtocolError, parse_server, write
from wrappers.xmj.seat import ClientGone, XmjConnection, XmjSeat
from wrappers.xmj.table import PRIOR_CLAIM
from wrappers.xmj.translate import code_of

ME = 2
DEAL = (110, 111, 120, 130, 140, 150, 160, 170, 180, 190, 210, 220, 230)  # 1C 1C 2C ... 9C 1B 2B 3B


class Scripted:
    """The client side: an in-memory connection whose messages the test writes and reads."""

    gone = "disconnected"
    restarts = False

    def __init__(self) -> None:
        self.server_side, self.client_side = trio.testing.memory_stream_pair()
        self.framer = Framer()
        self.seen: list[m.Message] = []

    async def open(self) -> XmjConnection:
        return XmjConnection(self.server_side)

    async def stop(self) -> None:
        await self.client_side.aclose()

    async def send(self, data: bytes) -> None:
        await self.client_side.send_all(data)

    async def drain(self) -> None:
        with trio.move_on_after(0.05):
            while True:
                data = await self.client_side.receive_some(65536)
                if not data:
                    return
                self.framer.feed(bytes(data))
                self.seen += [parse_server(t) for t in self.framer.messages()]


def seat_with(client: Scripted, timeout: float = 5.0) -> XmjSeat:
    return XmjSeat("bob", ME, names={p: f"p{p}" for p in (1, 2, 3, 4)}, options=GameOptions(), client=client,
                   timeout=timeout)


async def started(client: Scripted, seat: XmjSeat) -> None:
    await client.send(write(m.PMsgConnect(1110, ME, "bob")))
    assert await seat.begin_hand(HandInfo(0, 0, ME, True, 14, False, False, 5.0, 5.0)) is None
    seat.deliver(InitGame("EAST", "SOUTH", 1, 1, 0))
    seat.deliver(InitCard(ME, DEAL))
    await client.send(write(m.PMsgReady()) * 2)


async def ask(client: Scripted, seat: XmjSeat, q: Question, *sends: m.Message) -> Reply:
    for s in sends:
        await client.send(write(s))
    reply = await seat.ask(q)
    await client.drain()
    return reply


CLAIM = Question(ME, "pong", (Answer.pong(110, 111), PASS), 112)


def test_decisions_answer_the_questions_one_at_a_time() -> None:
    async def main() -> None:
        client = Scripted()
        seat = seat_with(client)
        await started(client, seat)
        seat.deliver(Throw(1, 112))  # 1C, serial 1
        hu = Question(ME, "hu", (HU, PASS), 112)
        assert (await ask(client, seat, hu, m.PMsgPung(1))).answer == PASS  # the pung waits for its question
        assert (await ask(client, seat, CLAIM)).answer == Answer.pong(110, 111)
        assert m.CMsgConnectReply(1110, ME, "") in client.seen and m.CMsgPause(1, 0, "to start play") in client.seen
        assert m.CMsgPlayerDiscards(1, "1C", 1, False) in client.seen
        assert [x for x in client.seen if isinstance(x, m.CMsgPlayerDraws) and x.id == ME] == [
            m.CMsgPlayerDraws(ME, code_of(t)) for t in DEAL]
        seat.deliver(Throw(1, 240))  # 4B, serial 2: a no-claim is acknowledged as mj-server does
        eat = Question(ME, "eat", (Answer.eat(220, 230), PASS), 240)
        assert (await ask(client, seat, eat, m.PMsgNoClaim(2))).answer == PASS
        seat.deliver(Throw(1, 241))  # serial 3
        eat = Question(ME, "eat", (Answer.eat(220, 230), PASS), 241)
        assert (await ask(client, seat, eat, m.PMsgChow(3, "Upper"))).answer == Answer.eat(220, 230)
        # the acknowledgement goes with what the client is sent next, before the next discard
        ack = client.seen.index(m.CMsgPlayerDoesntClaim(ME, 2, False))
        assert ack < client.seen.index(m.CMsgPlayerDiscards(1, code_of(241), 3, False))
        throw = Question(ME, "throw", tuple(Answer.throw(t) for t in DEAL))
        assert (await ask(client, seat, throw, m.PMsgDiscard("9C", False))).answer == Answer.throw(190)
        await seat.close()

    trio.run(main)


def test_a_claim_that_loses_is_told_claim_denied_before_the_winners_set() -> None:
    """As mj-server does: the client that claimed a discard another player gets is told ``ClaimDenied <id> There
    was a prior claim`` just before that player's set; a claim that wins, and a discard not claimed, are not."""

    async def main() -> None:
        client = Scripted()
        seat = seat_with(client)
        await started(client, seat)
        eat = Question(ME, "eat", (Answer.eat(220, 230), PASS), 240)
        seat.deliver(Throw(1, 240))  # 4B, serial 1: not claimed by this client, and player 3 chows it
        assert (await ask(client, seat, eat, m.PMsgNoClaim(1))).answer == PASS
        seat.deliver(Eat(3, (230, 240, 250)))
        seat.deliver(Throw(3, 112))  # 1C, serial 2: this client claims it, and player 4 goes Mah-Jong on it
        assert (await ask(client, seat, CLAIM, m.PMsgPung(2))).answer == Answer.pong(110, 111)
        seat.deliver(Hu(4, 112, ()))
        await seat.end_hand()
        await client.drain()
        seen = client.seen
        assert seen.count(m.CMsgClaimDenied(ME, PRIOR_CLAIM)) == 1, seen
        denied = seen.index(m.CMsgClaimDenied(ME, PRIOR_CLAIM))
        assert seen[denied - 1:denied + 2] == [m.CMsgPlayerClaimsMahJong(4, 2), m.CMsgClaimDenied(ME, PRIOR_CLAIM),
                                               m.CMsgPlayerMahJongs(4, "--")]
        await seat.close()

        client = Scripted()
        seat = seat_with(client)
        await started(client, seat)
        seat.deliver(Throw(1, 112))
        assert (await ask(client, seat, CLAIM, m.PMsgPung(1))).answer == Answer.pong(110, 111)
        seat.deliver(Pong(ME, (112, 110, 111)))  # the claim won
        throw = Question(ME, "throw", tuple(Answer.throw(t) for t in DEAL[2:]))
        assert (await ask(client, seat, throw, m.PMsgDiscard("9C", False))).answer == Answer.throw(190)
        assert m.CMsgPlayerPungs(ME, "1C") in client.seen
        assert not any(isinstance(x, m.CMsgClaimDenied) for x in client.seen)
        await seat.close()

    trio.run(main)


def test_a_no_claim_the_seat_reads_at_its_own_turn_is_acknowledged_too() -> None:
    """mj-player answers every discard, asked or not; mjref asks only where a claim is legal, so a no-claim may be
    read only at the seat's own turn, when no discard is in play: it is acknowledged all the same."""

    async def main() -> None:
        client = Scripted()
        seat = seat_with(client)
        await started(client, seat)
        seat.deliver(Throw(1, 250))  # 5B, serial 1: nothing to claim, not asked
        seat.deliver(Mo(ME, 240))
        throw = Question(ME, "throw", tuple(Answer.throw(t) for t in (*DEAL, 240)))
        assert (await ask(client, seat, throw, m.PMsgNoClaim(1), m.PMsgDiscard("4B", False))).answer == \
            Answer.throw(240)
        seat.deliver(Throw(ME, 240))
        seat.deliver(Throw(3, 112))  # 1C, serial 3: a pung to claim
        assert (await ask(client, seat, CLAIM, m.PMsgNoClaim(3))).answer == PASS
        assert m.CMsgPlayerDoesntClaim(ME, 1, False) in client.seen
        await seat.close()

    trio.run(main)


def _fault(*sends: bytes, q: Question = CLAIM, timeout: float = 5.0, close: bool = False) -> Reply:
    async def main() -> Reply:
        client = Scripted()
        seat = seat_with(client, timeout)
        await started(client, seat)
        seat.deliver(Throw(1, 112))
        for s in sends:
            await client.send(s)
        if close:
            await client.client_side.aclose()
        reply = await seat.ask(q)
        await seat.close()
        return reply

    return trio.run(main)


def test_garbage_is_a_garbage_fault() -> None:
    r = _fault(b"Pung one\r\n")
    assert r.fault is not None and r.fault.kind == "garbage"
    assert r.fault.detail == "`Pung one`: Pung: discard one is not an integer"


def test_a_claim_of_the_wrong_discard_is_a_wrong_answer() -> None:
    r = _fault(write(m.PMsgPung(7)))
    assert r.fault is not None and r.fault.kind == "wrong_answer"
    assert r.fault.detail == "a claim of discard 7; the discard in play is 1"


def test_a_set_the_client_cannot_make_is_illegal() -> None:
    eat = Question(ME, "eat", (Answer.eat(120, 130), PASS), 112)
    r = _fault(write(m.PMsgChow(1, "Upper")), q=eat)
    assert r.fault is not None and r.fault.kind == "illegal" and "Chow Upper of 1C" in r.fault.detail


def test_a_discard_when_a_claim_is_asked_is_a_wrong_answer() -> None:
    r = _fault(write(m.PMsgDiscard("5C", False)))
    assert r.fault is not None and r.fault.kind == "wrong_answer"
    assert r.fault.detail == "Discard when another player's discard is in play"


def test_silence_is_a_timeout() -> None:
    r = _fault(timeout=0.2)
    assert r.fault is not None and r.fault.kind == "timeout" and r.fault.detail == "no decision within 0.2 s"


def test_a_dropped_connection_is_disconnected() -> None:
    r = _fault(close=True)
    assert r.fault is not None and r.fault.kind == "disconnected"


@pytest.mark.parametrize("restarts", [True, False], ids=["started-by-mjref", "a-persons"])
def test_after_a_fault_a_client_mjref_started_is_ended_and_a_persons_connection_kept(restarts: bool) -> None:
    """``abandon`` after a timeout: a client that mjref starts is stopped at once (its connection dropped) and opened
    anew by the next hand's start, as a process bot is; a person's connection stays, the hand's end told on it."""

    async def main() -> None:
        client = Scripted()
        client.restarts = restarts
        calls: list[str] = []
        opened, stopped = client.open, client.stop

        async def open_() -> XmjConnection:
            calls.append("open")
            return await opened()

        async def stop() -> None:
            calls.append("stop")
            await stopped()

        client.open, client.stop = open_, stop  # type: ignore[method-assign]
        seat = seat_with(client, timeout=0.2)
        await started(client, seat)
        seat.deliver(Throw(1, 112))
        reply = await seat.ask(CLAIM)
        assert reply.fault is not None and reply.fault.kind == "timeout"
        with trio.fail_after(5):
            await seat.abandon()
        seat.hand_over(HandResult("draw", (), (0, 0, 0, 0)))  # the stand-in's hand ends
        if restarts:
            assert seat.conn is None and calls == ["open", "stop"]
            fresh = Scripted()
            client.open = fresh.open  # type: ignore[method-assign]
            await fresh.send(write(m.PMsgConnect(1110, ME, "bob")))
            assert await seat.begin_hand(HandInfo(1, 0, ME, True, 14, False, False, 5.0, 5.0)) is None
            assert seat.conn is not None  # the next hand's client, logged in
            # nothing of the hand its predecessor left waits to be sent to it (its login told it the scores)
            assert not any(isinstance(x, m.CMsgWashOut) for x in seat.outbox), seat.outbox
            await fresh.drain()
            assert isinstance(fresh.seen[0], m.CMsgConnectReply), fresh.seen
        else:
            assert seat.conn is not None and calls == ["open"]
            await client.drain()
            assert m.CMsgPause(0, 0, "to start next hand") in client.seen  # told the hand is over
        await seat.close()

    trio.run(main)


def test_a_client_that_does_not_log_in_fails_to_start() -> None:
    async def main() -> None:
        client = Scripted()
        seat = seat_with(client)
        await client.send(write(m.PMsgReady()))
        fault = await seat.begin_hand(HandInfo(0, 0, ME, True, 14, False, False, 5.0, 5.0))
        assert fault is not None and fault.kind == "wrong_answer" and "not Connect" in fault.detail

    trio.run(main)


def test_a_client_of_an_older_protocol_is_told_why_and_fails_to_start() -> None:
    """mj-server plays an older client's game by that client's older rules; mjref has only protocol 1110's, so a
    client of 1050 is told so (as mj-server tells a client of another major version) and the seat fails to start."""

    async def main() -> None:
        client = Scripted()
        stopped: list[bool] = []

        async def stop() -> None:  # the seat stops the client: keep this side open to read what it was told
            stopped.append(True)

        client.stop = stop  # type: ignore[method-assign]
        seat = seat_with(client)
        await client.send(write(m.PMsgConnect(1050, ME, "bob")))
        fault = await seat.begin_hand(HandInfo(0, 0, ME, True, 14, False, False, 5.0, 5.0))
        assert fault is not None and fault.kind == "start_failed", fault
        assert "protocol 1050" in fault.detail and "older than 1110" in fault.detail
        await client.drain()
        assert [type(x) for x in client.seen] == [m.CMsgConnectReply]
        assert "older than 1110" in client.seen[0].reason  # type: ignore[attr-defined]
        assert stopped  # and the client was stopped

    trio.run(main)


class OnSocket(Scripted):
    """The client side on a socket pair: the seat reads and writes the socket's descriptor itself (the path an
    mj-player's connection takes), not an in-memory stream's methods."""

    def __init__(self) -> None:
        ours, self.raw = socket.socketpair()
        self.server_side = trio.SocketStream(trio.socket.from_stdlib_socket(ours))  # type: ignore[assignment]
        self.client_side = trio.SocketStream(trio.socket.from_stdlib_socket(self.raw))  # type: ignore[assignment]
        self.framer = Framer()
        self.seen = []


def test_on_a_socket_decisions_already_read_answer_at_once_and_a_flood_of_asides_still_times_out() -> None:
    """A decision the client sent before the question answers it without a wait; a client that sends messages that
    decide nothing, without end and faster than they are read, still meets the question's deadline."""

    async def main() -> None:
        client = OnSocket()
        seat = seat_with(client, timeout=0.3)
        await started(client, seat)
        seat.deliver(Throw(1, 112))
        await client.send(write(m.PMsgReady()) + write(m.PMsgPung(1)))  # an aside, then the claim
        await trio.sleep(0.05)  # on the wire before the question
        assert (await seat.ask(Question(ME, "hu", (HU, PASS), 112))).answer == PASS
        assert (await seat.ask(CLAIM)).answer == Answer.pong(110, 111)
        seat.deliver(Throw(3, 113))  # serial 2
        await client.send(write(m.PMsgNoClaim(2)))
        await trio.sleep(0.05)
        assert (await seat.ask(Question(ME, "hu", (HU, PASS), 113))).answer == PASS
        seat.deliver(Throw(4, 112))  # serial 3
        seat.delivered()  # (as the table's deliveries do: a discard to claim goes at once)
        await client.drain()
        assert m.CMsgPlayerDoesntClaim(ME, 2, False) in client.seen  # acknowledged, with what was sent next

        stop = threading.Event()
        raw = client.raw

        def flood() -> None:  # another thread, as fast as the socket takes it: faster than the seat reads
            data = write(m.PMsgReady()) * 5000
            while not stop.is_set():
                try:
                    raw.send(data)
                except BlockingIOError:
                    select.select([], [raw], [], 0.05)
                except OSError:
                    return

        flooder = threading.Thread(target=flood, daemon=True)
        flooder.start()
        try:
            with trio.fail_after(20):  # (a bound on a hang, not a speed figure: the deadline is 0.3 s)
                reply = await seat.ask(CLAIM)
        finally:
            stop.set()
            flooder.join()
        assert reply.fault is not None and reply.fault.kind == "timeout", reply
        await seat.close()

    trio.run(main)


def test_a_no_claim_repeated_is_acknowledged_once() -> None:
    """A client that sends one discard's no-claim over and over gets one acknowledgement: what it sends does not pile
    up in what the seat writes."""

    async def main() -> None:
        client = OnSocket()  # (a socket: what is posted is on the wire at once)
        seat = seat_with(client)
        await started(client, seat)
        seat.deliver(Throw(1, 112))  # serial 1
        await client.send(write(m.PMsgNoClaim(1)) * 2000)
        assert (await seat.ask(Question(ME, "hu", (HU, PASS), 112))).answer == PASS
        seat.deliver(Throw(3, 113))  # serial 2
        await client.send(write(m.PMsgNoClaim(2)))
        assert (await seat.ask(Question(ME, "hu", (HU, PASS), 113))).answer == PASS
        seat.deliver(Throw(4, 112))  # serial 3
        seat.delivered()
        await client.drain()
        acks = [x for x in client.seen if isinstance(x, m.CMsgPlayerDoesntClaim)]
        assert acks == [m.CMsgPlayerDoesntClaim(ME, 1, False), m.CMsgPlayerDoesntClaim(ME, 2, False)]
        await seat.close()

    trio.run(main)


def test_a_deal_goes_ahead_once_the_clients_ready_is_here_and_not_before() -> None:
    """A new hand's deal waits for the client's ``Ready``; once that is here, the deal goes when the hand's events
    are delivered, not at the seat's first question, so that four clients take in their deals side by side."""

    async def main() -> None:
        client = OnSocket()
        seat = seat_with(client)
        await client.send(write(m.PMsgConnect(1110, ME, "bob")))
        assert await seat.begin_hand(HandInfo(0, 0, ME, True, 14, False, False, 5.0, 5.0)) is None
        seat.deliver(InitGame("EAST", "SOUTH", 1, 1, 0))
        seat.deliver(InitCard(ME, DEAL))
        seat.deliver(Dealt(ME, DEAL))
        seat.delivered()
        await client.drain()
        kinds = [type(x) for x in client.seen]
        assert m.CMsgGame in kinds and m.CMsgNewHand not in kinds, "the game's start goes; the deal waits for Ready"
        await client.send(write(m.PMsgReady()))
        await trio.sleep(0.05)
        seat.delivered()  # (as the table's deliveries do after each step)
        await client.drain()
        assert m.CMsgNewHand in [type(x) for x in client.seen], "its Ready here: the deal goes without a question"
        assert [x.tile for x in client.seen if isinstance(x, m.CMsgPlayerDraws) and x.id == ME] == \
            [code_of(t) for t in DEAL]
        seat.deliver(Throw(1, 112))  # East's discard: the deal is over; the pause to start play waits for Ready
        seat.delivered()
        await client.send(write(m.PMsgReady()) + write(m.PMsgNoClaim(1)))
        assert (await seat.ask(Question(ME, "hu", (HU, PASS), 112))).answer == PASS
        await seat.close()

    trio.run(main)


def test_ready_here_takes_a_ready_and_leaves_anything_else_for_the_question() -> None:
    """``ready_here`` reads without waiting: a ``Ready`` is taken; another message is put back for ``take``; a
    message that does not parse, or a closed connection, is raised by the next ``take`` (the seat's fault, told
    when it is asked, as it would have been without the look ahead)."""

    async def main() -> None:
        client = OnSocket()
        conn = await client.open()
        assert not conn.ready_here()  # nothing yet
        await client.send(write(m.PMsgReady()) + write(m.PMsgNoClaim(3)))
        await trio.sleep(0.05)
        assert conn.ready_here() and not conn.ready_here()
        assert conn.take() == m.PMsgNoClaim(3) and conn.take() is None
        await client.send(b"Bogus 1 2\r\n")
        await trio.sleep(0.05)
        assert not conn.ready_here() and not conn.ready_here()
        with pytest.raises(XmjProtocolError, match="Bogus"):
            conn.take()
        client.raw.close()
        await trio.sleep(0.05)
        assert not conn.ready_here()
        with pytest.raises(ClientGone, match="closed the connection"):
            conn.take()
        await conn.close()

    trio.run(main)


def test_a_hands_end_is_told_without_a_wait_unless_something_waits_for_the_client() -> None:
    """The hand's end (``Pause ... to start next hand``) goes at once when nothing waits for the client: the match
    awaits no ``end_hand`` of the seat.  A seat still waiting for its client's ``Ready`` (a deal not yet sent) tells
    it in ``end_hand``, after that wait, with one ``Pause``."""

    async def main() -> None:
        client = OnSocket()
        seat = seat_with(client)
        await started(client, seat)
        seat.deliver(Throw(1, 112))
        seat.delivered()
        await client.send(write(m.PMsgNoClaim(1)))
        assert (await seat.ask(Question(ME, "hu", (HU, PASS), 112))).answer == PASS
        assert seat.end_hand_nowait()
        await client.drain()
        assert client.seen[-1] == m.CMsgPause(0, 0, "to start next hand")

        other = OnSocket()
        waiting = seat_with(other)
        await other.send(write(m.PMsgConnect(1110, ME, "bob")))
        assert await waiting.begin_hand(HandInfo(0, 0, ME, True, 14, False, False, 5.0, 5.0)) is None
        waiting.deliver(InitGame("EAST", "SOUTH", 1, 1, 0))  # its deal waits for a Ready not sent yet
        assert not waiting.end_hand_nowait()
        await other.send(write(m.PMsgReady()))
        await waiting.end_hand()
        await other.drain()
        pauses = [x for x in other.seen if isinstance(x, m.CMsgPause) and "next hand" in x.reason]
        assert pauses == [m.CMsgPause(0, 0, "to start next hand")] and other.seen[-1] == pauses[0]
        assert m.CMsgNewHand in [type(x) for x in other.seen], "the deal went once its Ready came, then the end"
        await seat.close()
        await waiting.close()

    trio.run(main)
