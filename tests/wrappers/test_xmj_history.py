"""The same game: mj-server's hand histories replayed to a real ``mj-player`` by mjref's server half of the protocol
(``wrappers.xmj.table``), one player at a time, and every move that player makes compared with the history's.

For each hand and each of its four players, the test is the server: it logs the player in as mj-server does, shows
it the hand as mj-server showed it (``View``: the others' draws hidden, the others' no-claims not sent, a lost
claim denied), and wherever the history has a move of this player (a discard, a claim or no-claim, a flower, a
kong, Mah-Jong, a set declared while scoring, ``Ready``), reads the player's own message and requires the one that
mj-server implemented with that move (``client_message``).  ``mj-player`` decides on what it is shown, so any
difference in what mjref shows it (a tile, an order, a message left out) shows up as a different move.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import mjserver
import pytest

from referee.game.classical.history import HandHistory, parse_history
from wrappers.xmj import messages as m
from wrappers.xmj.codec import Framer, frame, parse_client, parse_server, write
from wrappers.xmj.table import View, client_message, game_messages, login_messages

READ_TIMEOUT = 60.0  # seconds for mj-player's next message: it answers in milliseconds; the margin is for load

CORPORA = [(31, None, "default"), (32, "flowers-0", "mixed"), (33, "seven-pairs-1", "pungs"),
           (34, "kong-has-3-types-1", "default")]


class Client:
    """One mj-player connected to the test, read message by message."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.framer = Framer()
        self.queue: list[str] = []
        conn.settimeout(READ_TIMEOUT)

    def send(self, msgs: list[m.Message]) -> None:
        self.conn.sendall(b"".join(write(x) for x in msgs))

    def receive(self) -> m.Message:
        while not self.queue:
            data = self.conn.recv(65536)
            assert data, "mj-player closed the connection"
            self.framer.feed(data)
            self.queue += list(self.framer.messages())
        return parse_client(self.queue.pop(0))


def _records(path: Path) -> tuple[HandHistory, list[m.Message]]:
    """The history (for its players) and all its messages as records of the codec."""
    data = path.read_bytes()
    return parse_history(data.decode(), str(path)), [parse_server(t) for t in frame(data)]


def replay_to_player(path: Path, client_id: int, folder: Path, args: list[str], *, sorted_deal: bool = False) -> int:
    """Replay one hand history to a fresh mj-player playing ``client_id``; return how many of its moves matched
    (a difference fails the test, naming the history's line).  ``sorted_deal``: deal each player's tiles sorted
    instead of in the order dealt."""
    history, records = _records(path)
    if sorted_deal:
        records = _sort_deal(records)
    names = {p.id: p.name for p in records if isinstance(p, m.CMsgPlayer)}
    game = next(r for r in records if isinstance(r, m.CMsgGame))
    options = [r for r in records if isinstance(r, m.CMsgGameOption)]
    start = next(i for i, r in enumerate(records) if isinstance(r, m.CMsgNewHand))
    lines = list(history.moves)  # the history's own reading, for line numbers in failures
    assert len(lines) == len(records) - start
    sock_path = folder / f"p{client_id}.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(sock_path))
    listener.listen(1)
    listener.settimeout(READ_TIMEOUT)
    player = subprocess.Popen([mjserver.PLAYER, "--id", str(client_id), "--server", str(sock_path), *args],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    matched = 0
    try:
        conn, _ = listener.accept()
        client = Client(conn)
        hello = client.receive()
        assert isinstance(hello, m.PMsgConnect) and hello.pvers == 1110 and hello.last_id == client_id, hello
        client.send(login_messages(client_id, names) + game_messages(game, options))
        while not isinstance(reply := client.receive(), m.PMsgReady):
            assert reply == m.PMsgListGameOptions(False), reply
            client.send(list(options))
        client.send([m.CMsgPlayerReady(pid) for pid in game_seats(game)])
        view = View(client_id)
        scoring = False
        for n, record in zip(lines, records[start:]):
            expected = client_message(record, client_id, scoring=scoring)
            if expected is not None:
                got = client.receive()
                while got == m.PMsgReady() and expected != got or got == m.PMsgListGameOptions(False):
                    got = client.receive()  # a second Ready (ignored by mj-server) or a question of options
                assert got == expected, (f"{path.name}:{n.line}: player {client_id} sent {got}, the history has "
                                         f"{expected}")
                matched += 1
            if isinstance(record, m.CMsgPlayerMahJongs | m.CMsgPlayerRobsKong):
                scoring = True
            client.send(view.see(record))
    finally:
        player.kill()
        player.wait()
        listener.close()
        sock_path.unlink()
    return matched


def _sort_deal(records: list[m.Message]) -> list[m.Message]:
    out = list(records)
    start = next(i for i, r in enumerate(out) if isinstance(r, m.CMsgNewHand))
    end = next(i for i, r in enumerate(out) if isinstance(r, m.CMsgPlayerDeclaresSpecial))
    for pid in (1, 2, 3, 4):
        at = [i for i in range(start, end) if isinstance(out[i], m.CMsgPlayerDraws) and out[i].id == pid]  # type: ignore[attr-defined]
        for i, tile in zip(at, sorted(out[i].tile for i in at)):  # type: ignore[attr-defined]
            out[i] = m.CMsgPlayerDraws(pid, tile)
    return out


def game_seats(game: m.CMsgGame) -> tuple[int, int, int, int]:
    return (game.east, game.south, game.west, game.north)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, str]]:
    """(history, the personalities its players had)"""
    mjserver.require()
    base = tmp_path_factory.mktemp("xmj-history")
    out: list[tuple[Path, str]] = []
    for seed, options, who in CORPORA:
        out += [(p, who) for p in mjserver.corpus(base / f"seed-{seed}", seed, options=options, personality=who)]
    return out


def test_mj_player_makes_the_history_s_moves_when_mjref_serves_it(corpora: list[tuple[Path, str]],
                                                                  tmp_path: Path) -> None:
    assert len(corpora) >= 20
    total = 0
    for path, who in corpora:
        for pid in (1, 2, 3, 4):  # mjserver.corpus starts player i with the personality's i-th options
            total += replay_to_player(path, pid, tmp_path, mjserver.PERSONALITIES[who][pid - 1])
    assert total > 1000


def test_the_order_of_the_deal_matters_to_mj_player(corpora: list[tuple[Path, str]], tmp_path: Path) -> None:
    """Why an xmj seat deals a client its tiles in the order dealt: mj-player declares its flowers and its closing
    sets in the order of its hand, so a sorted deal changes some of its moves (and the test above can fail)."""
    differ = 0
    for path, who in corpora[:8]:
        for pid in (1, 2, 3, 4):
            try:
                replay_to_player(path, pid, tmp_path, mjserver.PERSONALITIES[who][pid - 1], sorted_deal=True)
            except AssertionError:
                differ += 1
    assert differ > 0
