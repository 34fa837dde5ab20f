"""A person's seat (``human:NAME``, ``wrappers.human``) end to end on 127.0.0.1, with a scripted page: the test logs
in over the referee's WebSocket as the play page does and answers from the legal answers it is sent.

Checked: the table and the legal answers the page gets, an answer outside them is a fault (the stand-in plays on),
the person's own deadline (``human_timeout``), the information rule over every frame the page is sent, closing the
page mid-hand (stand-in) and rejoining at the next hand, and that ``replay`` verifies the log.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from trio_websocket import ConnectionClosed, ConnectionRejected, open_websocket_url

from referee.cli import main as mjref
from referee.game.engine import Hand
from referee.game.taiwan16.rules import Ruleset, make_ruleset
from referee.game.tiles import ALL_TIDS
from referee.game.wall import Wall
from referee.match import MatchResult, resolve_bots
from referee.server import MAX_PENDING, Server, serve_match
from wrappers import messages as m

ROOT = Path(__file__).resolve().parents[2]
Policy = Callable[[m.Table, m.PageAsk], str | None]  # the line to answer, or None: say nothing


def first_legal(table: m.Table, ask: m.PageAsk) -> str:
    """A simple person: wins when it can, claims when it can, throws the drawn tile."""
    for line in ask.legal:
        if line == "/hu":
            return line
    if ask.ask == "throw":
        if table.drawn is not None and f"/throw {table.drawn}" in ask.legal:
            return f"/throw {table.drawn}"
        return ask.legal[0]
    claims = [x for x in ask.legal if x != "/pass"]
    return claims[0] if claims else "/pass"


class Page:
    """A scripted play page: logs in, answers ``ready`` and each question, keeps every frame it was sent."""

    def __init__(self, url: str, name: str, token: str, policy: Policy = first_legal,
                 origin: str | None = None) -> None:
        self.url, self.name, self.token, self.policy = url, name, token, policy
        self.origin = origin  # the Origin a browser sends (None: none, as a script)
        self.frames: list[str] = []
        self.tables: list[m.Table] = []
        self.results: list[dict[str, Any]] = []
        self.abandons: list[m.Abandon] = []
        self.asked = 0
        self.close_after: int | None = None  # close the connection after this many questions

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        headers = [(b"Origin", self.origin.encode())] if self.origin is not None else []
        async with open_websocket_url(self.url, extra_headers=headers) as ws:
            await ws.send_message(m.write(m.Hello(v=m.PROTOCOL, name=self.name, token=self.token)))
            task_status.started()
            try:
                while True:
                    frame = await ws.get_message()
                    assert isinstance(frame, str)
                    self.frames.append(frame)
                    msg = m.read_page(frame)
                    if isinstance(msg, m.Hand):
                        await ws.send_message(m.write(m.Ready(hand=msg.hand)))
                    elif isinstance(msg, m.Table):
                        self.tables.append(msg)
                        if msg.ask is not None:
                            self.asked += 1
                            if self.close_after is not None and self.asked >= self.close_after:
                                self.close_after = None
                                await ws.aclose()
                                return
                            line = self.policy(msg, msg.ask)
                            if line is not None:
                                await ws.send_message(m.write(m.Reply(q=msg.ask.q, line=line)))
                    elif isinstance(msg, m.HandOver):
                        self.results.append(msg.result)
                    elif isinstance(msg, m.Abandon):
                        self.abandons.append(msg)
                    elif isinstance(msg, m.Over):
                        return
            except ConnectionClosed:
                return


async def _play(tmp_path: Path, rules: Ruleset, seed: int, pages: Callable[[str, str], list[Page]],
                seat: int = 1) -> tuple[MatchResult, list[Page]]:
    bots = ["greedy"] * 3
    bots.insert(seat - 1, "human:ann")
    specs = resolve_bots(bots)
    server = Server({"ann": "t" * 24}, say=lambda _: None)
    made: list[Page] = []
    links: dict[str, str] = {}
    result: list[MatchResult] = []
    async with trio.open_nursery() as nursery:
        ws_url: list[str] = []

        async def match() -> None:
            result.append(await serve_match(specs, server, listen=("127.0.0.1", 0), on_listen=ws_url.append,
                                            on_page=links.__setitem__, on_fault=None, seed=seed, rules=rules,
                                            log_path=tmp_path / "m.jsonl"))

        nursery.start_soon(match)
        while not ws_url or "ann" not in links:
            await trio.sleep(0.01)
        assert links["ann"].startswith("http://127.0.0.1:") and links["ann"].endswith("#name=ann&token=" + "t" * 24)
        made.extend(pages(ws_url[0], "t" * 24))

        async def people() -> None:
            for page in made:  # one after the other: a closed tab, then the page opened again
                await page.run()
                await trio.sleep(0.3)

        nursery.start_soon(people)
    return result[0], made


def test_a_person_plays_a_match_and_replay_verifies_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = make_ruleset({"hands": 4})
    result, (page,) = trio.run(_play, tmp_path, rules, 11, lambda url, token: [Page(url, "ann", token)])
    assert len(result.hands) == 4 and not result.faults
    assert page.asked > 20 and len(page.results) == 4
    asked = [t for t in page.tables if t.ask is not None]
    assert {t.ask.ask for t in asked if t.ask} >= {"throw"}
    for t in asked:
        assert t.ask is not None and t.ask.legal and t.ask.seconds == rules.human_timeout
        if t.ask.ask == "throw":  # every throw offered is a tile the person holds
            assert all(int(x.split()[1]) in t.concealed for x in t.ask.legal if x.startswith("/throw"))
    assert [r["totals"] for r in page.results][-1] == list(result.totals)
    header = json.loads((tmp_path / "m.jsonl").read_text().splitlines()[0])
    assert header["seats"][0]["kind"] == "human" and header["seats"][0]["spec"] == "human:ann"
    assert mjref(["replay", str(tmp_path / "m.jsonl")]) == 0
    capsys.readouterr()
    assert mjref(["transcript", str(tmp_path / "m.jsonl"), "--seat", "1"]) == 0
    assert "seat 1: ann (a person at the play page: human:ann)" in capsys.readouterr().out


def test_an_answer_outside_the_legal_ones_is_a_fault(tmp_path: Path) -> None:
    def cheat(table: m.Table, ask: m.PageAsk) -> str:
        if ask.ask == "throw":
            held = set(table.concealed)
            return f"/throw {next(t for t in sorted(ALL_TIDS) if t not in held)}"  # a real tile not held
        return first_legal(table, ask)

    rules = make_ruleset({"hands": 1})
    result, (page,) = trio.run(_play, tmp_path, rules, 5, lambda url, token: [Page(url, "ann", token, cheat)])
    kinds = {f.kind for f in result.faults}
    assert kinds & {"illegal", "wrong_answer"} and all(f.position == 1 for f in result.faults)
    assert page.abandons and page.results  # told of the fault, and shown the hand's result all the same
    assert mjref(["replay", str(tmp_path / "m.jsonl")]) == 0


def test_the_person_has_its_own_deadline(tmp_path: Path) -> None:
    rules = make_ruleset({"hands": 1, "human_timeout": 0.3, "network_grace": 0.1, "move_timeout": 5})
    result, (page,) = trio.run(_play, tmp_path, rules, 3, lambda url, token: [Page(url, "ann", token,
                                                                                    lambda t, a: None)])
    assert [f.kind for f in result.faults] == ["timeout"]
    assert "0.4" in result.faults[0].detail
    assert page.tables[0].ask is not None and page.tables[0].ask.seconds == pytest.approx(0.3)


def test_closing_the_page_mid_hand_the_stand_in_plays_on_and_the_person_rejoins(tmp_path: Path) -> None:
    rules = make_ruleset({"hands": 3, "start_grace": 5})
    pages: list[Page] = []

    def two(url: str, token: str) -> list[Page]:
        first = Page(url, "ann", token)
        first.close_after = 3  # the tab is closed at the third question
        pages.extend([first, Page(url, "ann", token)])
        return pages

    result, (first, second) = trio.run(_play, tmp_path, rules, 8, two)
    assert [f.kind for f in result.faults] == ["disconnected"] and result.faults[0].hand == 0
    assert len(result.hands) == 3
    assert not first.results  # gone before the first hand ended
    hands_seen = sorted({t.hand for t in second.tables})
    assert hands_seen and hands_seen[0] >= 1  # rejoined at a later hand, not mid-hand
    assert len(second.results) >= 2
    assert mjref(["replay", str(tmp_path / "m.jsonl")]) == 0


def tids_of(value: Any) -> set[int]:
    """Every tile ID named in a page frame: tile lists and fields of the table (a tile ID is 11..478)."""
    found: set[int] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("position", "hand", "dealer", "wall", "live", "q", "seconds", "totals", "seat", "source",
                     "thrower", "tai", "scores", "penalties", "payments", "rtt_ms", "faults", "v", "timeout",
                     "start_grace", "seed", "dead_wall", "winners"):
                continue
            found |= tids_of(v)
    elif isinstance(value, list):
        for v in value:
            found |= tids_of(v)
    elif isinstance(value, int) and not isinstance(value, bool):
        found.add(value)
    elif isinstance(value, str):
        found |= {int(w) for w in value.split() if w.isdigit()}
    return found


@pytest.mark.parametrize("seat", [1, 3])
def test_the_page_is_never_sent_a_hidden_tile(tmp_path: Path, seat: int) -> None:
    """The information rule of tests/game/test_information.py, over the page's own traffic: every tile ID in a
    frame sent before the hand's end must be the seat's own, exposed, thrown, or a flower, never in the undrawn
    wall or another seat's concealed hand at that moment.  The engine is replayed alongside from the log."""
    rules = make_ruleset({"hands": 3, "flowers": True})
    seed = 21
    result, (page,) = trio.run(_play, tmp_path, rules, seed,
                               lambda url, token: [Page(url, "ann", token)], seat)
    assert len(result.hands) == 3
    records = [json.loads(x) for x in (tmp_path / "m.jsonl").read_text().splitlines()]
    answers = [r for r in records if r["type"] == "answer"]
    by_hand: dict[int, list[dict[str, Any]]] = {}
    for a in answers:
        by_hand.setdefault(a["hand"], []).append(a)
    checked = 0
    hand_records = {r["hand"]: r for r in records if r["type"] == "hand"}
    for table in page.tables:
        if table.ask is None:
            continue  # the hand's last table: the hand is over, the winner's hand shown
        h = table.hand
        hr = hand_records[h]
        # Rebuild the engine at the moment of this question: the answers of the hand before it, in order.
        engine = Hand(Wall(tuple(hr["wall"])), rules, dealer=hr["dealer"], round_wind=hr["round_wind"],
                      hand_wind=hr["hand_wind"], cont=hr.get("cont", 0), check=False)
        engine.start()
        from referee.game.types import Answer

        mine = sum(1 for t in page.tables if t.ask is not None and t.hand == h and t.ask.q <= table.ask.q)
        n_mine = 0
        for a in by_hand[h]:
            q = engine.question
            assert q is not None
            if q.seat == seat:
                n_mine += 1
                if n_mine == mine:
                    break
            parts = a["answer"].split()
            kind = parts[0][1:]
            nums = [int(x) for x in parts[1:]]
            mode = nums.pop(0) if kind == "gong" else None
            engine.apply(Answer(kind, tuple(sorted(nums)), mode))  # type: ignore[arg-type]
        q = engine.question
        assert q is not None and q.seat == seat and q.ask == table.ask.ask
        assert [str(x) for x in q.legal] == table.ask.legal  # exactly the referee's legal answers
        named = tids_of(json.loads(table.model_dump_json()))
        undrawn = set(engine.undrawn())
        others = set().union(*(set(engine.concealed(p)) for p in (1, 2, 3, 4) if p != seat))
        assert not named & undrawn, f"hand {h}: the page was sent undrawn tiles {sorted(named & undrawn)}"
        assert not named & others, f"hand {h}: the page was sent another seat's concealed tiles"
        assert set(table.concealed) == set(engine.concealed(seat))
        checked += 1
    assert checked > 20
    for frame in page.frames:  # and no frame carries the seed, the wall or a bot's lines
        data = json.loads(frame)
        assert data["type"] in ("welcome", "seat", "hand", "table", "hand_over", "over", "unseat")
        assert "wall" not in data.get("result", {})


def _wait_line(proc: subprocess.Popen[str], pattern: str, timeout: float = 60) -> re.Match[str]:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        found = re.search(pattern, line)
        if found:
            return found
    raise AssertionError(f"no line matching {pattern!r} in {seen!r}")


def _get(url: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, ""


def test_mjref_play_serves_the_page_and_a_person_plays_through_it(tmp_path: Path) -> None:
    """``mjref play --no-browser`` as a process: the printed address serves the page (and its script and style,
    nothing else, with a strict Content-Security-Policy); the page's WebSocket port plays the match."""
    log = tmp_path / "p.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "play", "--no-browser", "--seat", "2", "--hands",
                             "2", "--seed", "4", "--log", str(log), "--name", "bea", "random"], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        found = _wait_line(proc, r"your seat \(bea, seat 2\): (http://127\.0\.0\.1:(\d+)/#name=bea&token=(\S+))")
        base = f"http://127.0.0.1:{found.group(2)}"
        status, headers, body = _get(base + "/")
        assert status == 200 and headers["content-type"].startswith("text/html")
        csp = headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src ws://127.0.0.1:" in csp
        data = json.loads(re.search(r'<script type="application/json" id="play-data">(.*?)</script>', body,
                                    re.S).group(1))  # type: ignore[union-attr]
        assert f"ws://127.0.0.1:{data['ws_port']}" in csp
        for asset, kind in (("/play.js", "text/javascript"), ("/play.css", "text/css")):
            status, headers, text = _get(base + asset)
            assert status == 200 and headers["content-type"].startswith(kind) and len(text) > 1000
        assert _get(base + "/../etc/passwd")[0] == 404 and _get(base + "/favicon.ico")[0] == 404
        for path in ("/favicon.ico", "/play.js/"):  # every response has the headers; no redirect made from Host
            status, headers, _ = _get(base + path)
            assert status == 404 and headers["x-content-type-options"] == "nosniff", path
            assert headers["content-security-policy"] == csp and headers["cache-control"] == "no-store", path
        page = Page(f"ws://127.0.0.1:{data['ws_port']}", "bea", urllib.parse.unquote(found.group(3)))
        trio.run(page.run)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert len(page.results) == 2 and page.tables[0].position == 2
    header = json.loads(log.read_text().splitlines()[0])
    assert [s["spec"] for s in header["seats"]] == ["builtin:random", "human:bea", "builtin:greedy", "builtin:greedy"]
    assert mjref(["replay", str(log)]) == 0


@contextlib.contextmanager
def _serving_one_person(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, re.Match[str]]]:
    """``mjref serve greedy human:cy`` for one hand: the process, cy's token, and the match of its page line
    (group 1 the page's base URL, 2 its port, 3 the token in the address); the process is killed on the way out."""
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "greedy", "human:cy", "--listen",
                             "127.0.0.1:0", "--hands", "1", "--log", "none"], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        token = _wait_line(proc, r"^cy (\S+)$").group(1)
        yield proc, token, _wait_line(proc, r"^cy page: (http://127\.0\.0\.1:(\d+))/#name=cy&token=(\S+)$")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _play_through_the_page(base: str, token: str) -> Page:
    """Load the page from ``base``, read the WebSocket port it names, and play cy's seat through it to the end."""
    body = _get(base + "/")[2]
    ws_port = json.loads(re.search(r'id="play-data">(.*?)</script>', body).group(1))["ws_port"]  # type: ignore
    page = Page(f"ws://127.0.0.1:{ws_port}", "cy", token)
    trio.run(page.run)
    return page


def test_serve_prints_a_page_address_for_each_person(tmp_path: Path) -> None:
    with _serving_one_person(tmp_path) as (proc, token, found):
        assert urllib.parse.unquote(found.group(3)) == token
        page = _play_through_the_page(found.group(1), token)
        proc.communicate(timeout=60)
    assert proc.returncode == 0 and len(page.results) == 1


def test_play_refuses_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert mjref(["play", "--no-browser", "greedy", "greedy", "greedy", "greedy"]) == 2
    assert "at most three bots" in capsys.readouterr().err
    assert mjref(["play", "--no-browser", "--name", "a b"]) == 2
    assert "--name" in capsys.readouterr().err
    assert mjref(["play", "--no-browser", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def test_play_refuses_a_page_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert mjref(["play", "--no-browser", "--port", str(port), "--log", "none"]) == 2
    err = capsys.readouterr().err
    # checked before a token is minted or printed (referee.server.check_listen), naming the option
    assert f"cannot listen on 127.0.0.1:{port} (--port)" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_play_with_json_keeps_stdout_for_the_result(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "play", "--no-browser", "--json", "--hands", "1",
                             "--log", "none"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        found = None
        for line in proc.stderr:
            found = re.search(r"(http://127\.0\.0\.1:\d+)/#name=you&token=(\S+)", line)
            if found:
                break
        assert found
        body = _get(found.group(1) + "/")[2]
        ws_port = json.loads(re.search(r'id="play-data">(.*?)</script>', body).group(1))["ws_port"]  # type: ignore
        page = Page(f"ws://127.0.0.1:{ws_port}", "you", urllib.parse.unquote(found.group(2)))
        trio.run(page.run)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    result = json.loads(out)  # one JSON object, nothing else
    assert result["seats"][0]["spec"] == "human:you" and len(result["hands"]) == 1


@pytest.mark.parametrize("when", ["waiting", "playing"])
def test_a_stop_signal_ends_mjref_play_in_order(tmp_path: Path, when: str) -> None:
    """SIGINT while waiting for the page: exit 130, nothing played; mid-match (the person thinking): the match
    stops as ``mjref match`` does, exit 130, the log ends with its ``aborted`` record and replay verifies it."""
    log = tmp_path / "stop.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "play", "--no-browser", "--hands", "8", "--log",
                             str(log)], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        found = _wait_line(proc, r"(http://127\.0\.0\.1:\d+)/#name=you&token=(\S+)")
        if when == "playing":
            body = _get(found.group(1) + "/")[2]
            ws_port = json.loads(re.search(r'id="play-data">(.*?)</script>', body).group(1))["ws_port"]  # type: ignore
            thinking = trio.Event()

            def slow(table: m.Table, ask: m.PageAsk) -> str | None:
                if table.hand == 1:  # the second hand: the person thinks, and the referee is stopped
                    thinking.set()
                    return None
                return first_legal(table, ask)

            async def person() -> None:
                page = Page(f"ws://127.0.0.1:{ws_port}", "you", urllib.parse.unquote(found.group(2)), slow)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(page.run)
                    await thinking.wait()
                    proc.send_signal(signal.SIGINT)

            trio.run(person)
        else:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    if when == "playing":
        last = json.loads(log.read_text().splitlines()[-1])
        assert last["type"] == "aborted" and last["signal"] == "SIGINT" and last["hands"] == 1
        assert mjref(["replay", str(log)]) == 0
    else:
        assert not log.exists()


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


async def _never_reading(port: int, count: int) -> list[trio.SocketStream]:
    """``count`` clients of the page's port that ask for the page 50 times in one go and never read the answers."""
    streams = []
    for i in range(count):  # from twelve loopback addresses: one alone may hold only a few (server.Door)
        stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=f"127.0.0.{1 + i % 12}")
        stream.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            await stream.send_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 50)
        except trio.BrokenResourceError:
            pass  # turned away at once
        streams.append(stream)
    return streams


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts the server's file descriptors in /proc")
def test_page_clients_that_never_read_hold_a_bounded_number_of_connections_for_a_bounded_time(
        tmp_path: Path) -> None:
    """The page's port keeps at most ``MAX_PENDING`` connections open, each for at most ``pages.MAX_SECONDS``:
    clients that ask for the page and never read the answers once held a file descriptor each for ever, and
    enough of them took every descriptor of the referee (its bots' pipes, its accepts: a traceback a tenth of a
    second).  The person plays on."""
    with _serving_one_person(tmp_path) as (proc, token, found):
        before = _open_fds(proc.pid)

        async def flood() -> tuple[int, int]:
            streams = await _never_reading(int(found.group(2)), 3 * MAX_PENDING)
            most = now = _open_fds(proc.pid)
            for _ in range(240):  # until the server has cut them all (give up after a minute)
                await trio.sleep(0.25)
                now = _open_fds(proc.pid)
                most = max(most, now)
                if now <= before:
                    break
            for stream in streams:
                await trio.aclose_forcefully(stream)
            return most, now

        most, after = trio.run(flood)
        assert most <= before + MAX_PENDING + 2, (before, most)
        assert after <= before, (before, after)
        page = _play_through_the_page(found.group(1), token)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and len(page.results) == 1, err
    assert f"more than {MAX_PENDING} connections at once to the play page" in err and "Traceback" not in err, err


# ------------------------------------------------------------------------------------------ strangers and origins
def _upgrade_request(port: int, origin: str | None = None) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            + (f"Origin: {origin}\r\n" if origin else "") + "\r\n").encode()


async def _idle(port: int, count: int, request: bytes | None) -> list[trio.SocketStream]:
    """``count`` connections from 127.0.0.1 (the person's own address) that send ``request`` (or nothing) and
    then stay silent: a local process holding the referee's ports."""
    streams = []
    for _ in range(count):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        if request is not None:
            with contextlib.suppress(trio.BrokenResourceError):
                await stream.send_all(request)
        streams.append(stream)
    return streams


def test_idle_local_connections_never_keep_the_person_out(tmp_path: Path) -> None:
    """A local process opens three times as many connections as the door holds to the page's port and to the
    WebSocket port, from 127.0.0.1 like the person's browser, and stays silent (some after a complete WebSocket
    handshake).  The person still loads the page and plays: a new connection takes the oldest stranger's place.
    Before, eight of them from 127.0.0.1 were enough, and the person's page and login got a 503."""
    with _serving_one_person(tmp_path) as (proc, token, found):
        base, page_port = found.group(1), int(found.group(2))
        ws_port = json.loads(re.search(r'id="play-data">(.*?)</script>', _get(base + "/")[2])  # type: ignore
                             .group(1))["ws_port"]

        page = Page(f"ws://127.0.0.1:{ws_port}", "cy", token)

        async def hold_and_play() -> None:
            held = [*await _idle(page_port, 3 * MAX_PENDING, None),
                    *await _idle(ws_port, 3 * MAX_PENDING // 2, _upgrade_request(ws_port)),
                    *await _idle(ws_port, 3 * MAX_PENDING // 2, None)]
            status, _, body = await trio.to_thread.run_sync(_get, base + "/")  # the page loads
            assert status == 200 and 'id="play-data"' in body
            await page.run()  # and the person plays
            for stream in held:
                await trio.aclose_forcefully(stream)

        trio.run(hold_and_play)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and len(page.results) == 1, err
    assert "connections at once from 127.0.0.1 not logged in: the oldest was closed" in err, err
    assert "Traceback" not in err, err


async def _handshake(port: int, origin: str | None, token: str) -> int | m.Welcome:
    """A WebSocket handshake to ``port`` with ``origin`` (None: no Origin header, as a wrapper), then a login as
    cy: the HTTP status of a refusal, or the server's welcome."""
    headers = [(b"Origin", origin.encode())] if origin is not None else []
    try:
        async with open_websocket_url(f"ws://127.0.0.1:{port}", extra_headers=headers) as ws:
            await ws.send_message(m.write(m.Hello(v=m.PROTOCOL, name="cy", token=token)))
            welcome = m.read_server(await ws.get_message())
            assert isinstance(welcome, m.Welcome)
            return welcome
    except ConnectionRejected as exc:
        return exc.status_code


def test_a_page_of_another_origin_cannot_open_the_websocket(tmp_path: Path) -> None:
    """A browser sends the Origin of the page that opens a WebSocket: only the play page's own is let in (its
    scheme, its port, its host: on 127.0.0.1 any loopback name), and a client without an Origin (a wrapper, a
    script); any other page gets a 403 before the handshake completes, even with the right token (a page could
    guess none, but it could hold the door, or try).  Before, every Origin was accepted."""
    with _serving_one_person(tmp_path) as (proc, token, found):
        base, page_port = found.group(1), found.group(2)
        ws_port = json.loads(re.search(r'id="play-data">(.*?)</script>', _get(base + "/")[2])  # type: ignore
                             .group(1))["ws_port"]
        foreign = ["http://evil.example", f"http://evil.example:{page_port}", f"https://127.0.0.1:{page_port}",
                   f"http://127.0.0.1:{ws_port}", "null", "http://127.0.0.1", f"http://10.0.0.1:{page_port}"]

        async def tries() -> list[int | m.Welcome]:
            return [await _handshake(ws_port, origin, token) for origin in foreign]

        assert trio.run(tries) == [403] * len(foreign)
        page = Page(f"ws://127.0.0.1:{ws_port}", "cy", token, origin=base)  # the page's own origin: it plays
        trio.run(page.run)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and len(page.results) == 1, err
    assert "Origin 'http://evil.example' is not the play page's" in err, err
