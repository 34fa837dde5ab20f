"""The referee server and its wrappers, end to end on 127.0.0.1 (ports chosen by the OS): ``mjref serve`` and
``mjref connect`` as real processes, hostile clients as trio-websocket connections from the test."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
import trio
from trio_websocket import ConnectionClosed, ConnectionRejected, WebSocketConnection, open_websocket_url
from wsproto import ConnectionType, WSConnection
from wsproto import events as wsevents

from referee.cli import main as mjref
from referee.server import (
    MAX_PENDING,
    MAX_PENDING_PER_ORIGIN,
    Door,
    ServeError,
    _network,
    _origin,
    generate_tokens,
    load_tokens,
    parse_listen,
)
from wrappers import messages as m
from wrappers.spec import SpecError, parse_bot
from wrappers.websocket import SEND_TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
GREEDY = f"{sys.executable} -m bots.greedy"
TOKENS = {"a": "a" * 20, "b": "b" * 20}
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


class Proc:
    """A command-line process whose stderr is collected line by line (so a test can wait for a line)."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.lines: list[str] = []
        # TMPDIR: what a process killed here leaves (its seat's scratch folder) stays in the test's folder
        self.p = subprocess.Popen([sys.executable, "-m", "referee.cli", *args], cwd=cwd,
                                  env={**ENV, "TMPDIR": str(cwd)},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.p.stderr is not None
        for line in self.p.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                found = re.search(pattern, line)
                if found:
                    return found
            if self.p.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError(f"no line matching {pattern!r}; stderr:\n" + "\n".join(self.lines))

    def finish(self, timeout: float = 120) -> tuple[int, str]:
        """Wait for the exit: (status, stdout).  stderr stays with the reader thread."""
        assert self.p.stdout is not None
        out: list[str] = []
        reading = threading.Thread(target=lambda: out.append(self.p.stdout.read()), daemon=True)  # type: ignore
        reading.start()
        self.p.wait(timeout)
        reading.join(10)
        self._reader.join(10)
        return self.p.returncode, "".join(out)

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    @property
    def stderr(self) -> str:
        return "\n".join(self.lines)


@pytest.fixture
def procs() -> Any:
    started: list[Proc] = []
    yield started
    for p in started:
        p.kill()


def write_tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.toml"
    path.write_text("".join(f'{n} = "{t}"\n' for n, t in TOKENS.items()))
    return path


def serve(procs: list[Proc], tmp_path: Path, *args: str, listen: str = "127.0.0.1:0") -> tuple[Proc, str]:
    server = Proc(["serve", *args, "--listen", listen], tmp_path)
    procs.append(server)
    url = server.wait_for(r"listening on (ws\S+)").group(1)
    return server, url


def connect(procs: list[Proc], tmp_path: Path, url: str, name: str, bot: str = GREEDY, *args: str) -> Proc:
    wrapper = Proc(["connect", url, bot, "--token", TOKENS[name], "--name", name,
                    "--stderr", str(tmp_path / f"{name}.stderr"), *args], tmp_path)
    procs.append(wrapper)
    return wrapper


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def comparable(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A log without its timings and the labels that say where a seat ran (remote, process, names)."""
    out = []
    for r in recs:
        r = {k: v for k, v in r.items() if k not in ("ms", "started", "finished", "rtt_ms")}
        if r["type"] == "header":
            r["seats"] = [{k: s[k] for k in ("position", "keep_alive", "extensions", "bot_seed")} for s in r["seats"]]
        out.append(r)
    return out


# ------------------------------------------------------------------------------------------ end to end
@pytest.mark.slow
def test_served_match_gives_the_local_log(tmp_path: Path, procs: list[Proc]) -> None:
    server, url = serve(procs, tmp_path, "remote:a", "remote:b", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--hands", "2", "--seed", "5", "--json", "--log", "m.jsonl")
    a = connect(procs, tmp_path, url, "a")
    b = connect(procs, tmp_path, url, "b")
    code, out = server.finish()
    assert code == 0, server.stderr
    result = json.loads(out)
    assert [s["spec"] for s in result["seats"]] == ["remote:a", "remote:b", "builtin:greedy", "builtin:greedy"]
    assert result["faults"] == []
    for w in (a, b):
        assert w.finish()[0] == 0, w.stderr
        assert "hand 2" in w.stderr and "over" in w.stderr
    assert re.search(r"a logged in from 127\.0\.0\.1:\d+ \(round trip [\d.]+ ms\)", server.stderr)

    # the same match played here with the same bots as local processes (in this process: one Python start less)
    assert mjref(["match", GREEDY, GREEDY, "greedy", "greedy", "--hands", "2", "--seed", "5", "--json", "--log",
                  str(tmp_path / "local.jsonl")]) == 0
    served = records(tmp_path / "m.jsonl")
    assert comparable(served) == comparable(records(tmp_path / "local.jsonl"))
    header = served[0]
    assert [s["kind"] for s in header["seats"]] == ["remote", "remote", "builtin", "builtin"]
    assert all(isinstance(s["rtt_ms"], float) for s in header["seats"][:2])
    results = [r for r in served if r["type"] == "result"]
    assert all(r["rtt_ms"][2:] == [None, None] and r["rtt_ms"][0] is not None for r in results)

    assert mjref(["replay", str(tmp_path / "m.jsonl")]) == 0  # here: a replay starts no process


def test_wrong_token_exits_2_and_the_attempt_is_logged(tmp_path: Path, procs: list[Proc]) -> None:
    server, url = serve(procs, tmp_path, "remote:a", "--tokens", str(write_tokens(tmp_path)), "--hands", "1",
                        "--log", "none")
    wrapper = Proc(["connect", url, GREEDY, "--token", "x" * 20, "--name", "a"], tmp_path)
    procs.append(wrapper)
    code, _ = wrapper.finish(60)
    assert code == 2
    assert "mjref connect: the server refused the login: wrong name or token" in wrapper.stderr
    server.wait_for(r"refused 127\.0\.0\.1:\d+ as 'a': wrong name or token")
    assert server.p.poll() is None  # still waiting for the right wrapper


def test_missing_wrappers_are_named_after_wait(tmp_path: Path, procs: list[Proc]) -> None:
    server, _ = serve(procs, tmp_path, "remote:a", "remote:b", "--tokens", str(write_tokens(tmp_path)),
                      "--wait", "0.5", "--log", "none")
    code, _ = server.finish(60)
    assert code == 2
    assert "mjref serve: after 0.5 s, still waiting for: a, b" in server.stderr


def test_random_tokens_are_printed(tmp_path: Path, procs: list[Proc]) -> None:
    server, _ = serve(procs, tmp_path, "remote:a", "greedy", "--wait", "0.2", "--log", "none")
    code, out = server.finish(60)
    assert code == 2
    name, token = out.split()
    assert name == "a" and len(token) >= 24


@pytest.mark.slow
def test_tls_with_a_certificate_made_here(tmp_path: Path, procs: list[Proc]) -> None:
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    cert.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "server.pem"))
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    server, url = serve(procs, tmp_path, "remote:a", "--tokens", str(write_tokens(tmp_path)), "--hands", "1",
                        "--cert", str(tmp_path / "server.pem"), "--key", str(tmp_path / "server.pem"), "--json",
                        "--log", "tls.jsonl")
    assert url.startswith("wss://127.0.0.1:")
    # Without trusting the CA the wrapper cannot log in (and says why); with it, it plays.
    untrusting = Proc(["connect", url, GREEDY, "--token", TOKENS["a"], "--name", "a", "--once"], tmp_path)
    procs.append(untrusting)
    assert untrusting.finish(60)[0] == 2
    assert "the server's certificate is not trusted" in untrusting.stderr
    wrapper = connect(procs, tmp_path, url, "a", GREEDY, "--cafile", str(tmp_path / "ca.pem"))
    code, out = server.finish()
    assert code == 0, server.stderr
    assert json.loads(out)["faults"] == []
    assert wrapper.finish()[0] == 0


@pytest.mark.slow
def test_wrapper_killed_mid_hand_is_disconnected_and_rejoins(tmp_path: Path, procs: list[Proc]) -> None:
    slow = f"env BADBOT_DELAY=0.05 {sys.executable} {ROOT / 'tests/bots/badbot.py'} slow"
    server, url = serve(procs, tmp_path, "remote:a", "--tokens", str(write_tokens(tmp_path)), "--hands", "4",
                        "--seed", "3", "--json", "--log", "m.jsonl")
    first = connect(procs, tmp_path, url, "a", slow)
    first.wait_for(r"a: hand 2")
    time.sleep(0.3)  # a few throws into hand 2
    first.p.send_signal(signal.SIGKILL)
    first.p.wait()
    server.wait_for(r"a \(127\.0\.0\.1:\d+\) left")
    second = connect(procs, tmp_path, url, "a", slow)
    code, out = server.finish()
    assert code == 0, server.stderr
    faults = json.loads(out)["faults"]
    assert [(f["hand"], f["kind"]) for f in faults] == [(1, "disconnected")], faults
    assert second.finish()[0] == 0, second.stderr
    recs = records(tmp_path / "m.jsonl")
    by_bot = {(r["hand"], r["by"]) for r in recs if r["type"] == "answer" and r["seat"] == 1}
    assert (1, "dummy") in by_bot and (2, "bot") in by_bot and (3, "bot") in by_bot
    assert recs[-1]["type"] == "final" and recs[-1]["complete"]


async def _hostile(url: str) -> dict[str, Any]:
    """What the server does with clients that are not wrappers: each must be dropped, having been sent nothing."""
    seen: dict[str, Any] = {}

    async def never_authenticates() -> None:
        async with open_websocket_url(url) as ws:
            try:
                seen["silent"] = await ws.get_message()
            except ConnectionClosed as exc:
                seen["silent"] = exc.reason.code if exc.reason else None

    async def huge_frame() -> None:
        async with open_websocket_url(url) as ws:
            await ws.send_message("x" * (m.MAX_CLIENT_MESSAGE + 1))
            try:
                seen["huge"] = await ws.get_message()
            except ConnectionClosed as exc:
                seen["huge"] = exc.reason.code if exc.reason else None

    async def garbage_frame() -> None:
        async with open_websocket_url(url) as ws:
            await ws.send_message("/throw 111")
            try:
                seen["garbage"] = await ws.get_message()
            except ConnectionClosed as exc:
                seen["garbage"] = exc.reason.code if exc.reason else None

    async def garbage_bytes() -> None:
        host, port = url.removeprefix("ws://").rsplit(":", 1)
        stream = await trio.open_tcp_stream(host, int(port))
        await stream.send_all(b"\x00\xff garbage, not HTTP\r\n\r\n" * 100)
        with trio.move_on_after(10):
            data = b""
            while chunk := await stream.receive_some(4096):
                data += chunk
            seen["raw"] = data
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        for task in (never_authenticates, huge_frame, garbage_frame, garbage_bytes):
            nursery.start_soon(task)
    return seen


@pytest.mark.slow
def test_hostile_clients_are_dropped_without_disturbing_the_match(tmp_path: Path, procs: list[Proc]) -> None:
    # Slow enough that the match outlasts the silent client's AUTH_TIMEOUT.
    slow = f"env BADBOT_DELAY=0.25 {sys.executable} {ROOT / 'tests/bots/badbot.py'} slow"
    server, url = serve(procs, tmp_path, "remote:a", "--tokens", str(write_tokens(tmp_path)), "--hands", "2",
                        "--seed", "2", "--json", "--log", "m.jsonl")
    wrapper = connect(procs, tmp_path, url, "a", slow)
    wrapper.wait_for(r"a: hand 1")
    seen = trio.run(_hostile, url)
    assert server.p.poll() is None, "the match ended before the test was done"
    assert seen["silent"] == m.CLOSE_AUTH_TIMEOUT
    assert seen["huge"] == 1009  # the WebSocket library's "message too big"
    assert seen["garbage"] == m.CLOSE_BAD_MESSAGE
    assert b"welcome" not in seen.get("raw", b"") and b"seat" not in seen.get("raw", b"")
    code, out = server.finish()
    assert code == 0, server.stderr
    assert json.loads(out)["faults"] == []
    assert wrapper.finish()[0] == 0
    assert "no hello within 5 s" in server.stderr and "not a hello" in server.stderr


# ------------------------------------------------------------------------------------------ inputs
def test_remote_seat_specs() -> None:
    spec = parse_bot("remote:team-1", {"greedy"})
    assert spec.remote and spec.name == "team-1" and spec.describe() == "remote:team-1"
    with pytest.raises(SpecError, match="a remote seat's name is"):
        parse_bot("remote:", {"greedy"})
    with pytest.raises(SpecError, match="a remote seat's name is"):
        parse_bot("remote:a;rm -rf", {"greedy"})


def test_match_refuses_a_remote_seat(capsys: pytest.CaptureFixture[str]) -> None:
    assert mjref(["match", "remote:a", "--log", "none"]) == 2
    assert "waits for a wrapper to log in: play it with `mjref serve`" in capsys.readouterr().err


def test_a_remote_name_sits_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert mjref(["serve", "remote:a", "remote:a", "--listen", "127.0.0.1:0", "--log", "none"]) == 2
    assert "remote:a sits twice" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "message"), [
    ('a = "short"\n', "a: a token is 16-256 printable ASCII characters"),
    ("a = 12345678901234567890\n", "a: the token must be a string, not int"),
    ('"a b" = "aaaaaaaaaaaaaaaaaaaa"\n', "'a b': a name is 1-64 letters"),
    ('b = "bbbbbbbbbbbbbbbbbbbb"\n', "no token for the remote bot(s) a"),
    ("a = [\n", "not valid TOML"),
    ('a = "aaaaaaaa aaaaaaaaaaaa"\n', "without spaces"),
    ('a = "-aaaaaaaaaaaaaaaaaaa"\n', "not starting with '-'"),
])
def test_bad_tokens_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ServeError, match=re.escape(message)):
        load_tokens(path, ["a"])


def test_generated_tokens_never_start_with_a_dash() -> None:
    """One random token in 64 did, and ``mjref connect --token -x…`` then refused it as an option."""
    tokens = generate_tokens([f"b{i}" for i in range(2000)])
    assert len(set(tokens.values())) == 2000 and not any(t.startswith("-") for t in tokens.values())


@pytest.mark.parametrize(("text", "message"), [
    ("8765", "give HOST:PORT"), ("host:http", "is not a number"), ("host:70000", "0-65535"),
])
def test_bad_listen(text: str, message: str) -> None:
    with pytest.raises(ServeError, match=message):
        parse_listen(text)
    assert parse_listen("[::1]:0") == ("::1", 0)


def test_a_busy_port_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert mjref(["serve", "remote:a", "--listen", f"127.0.0.1:{port}", "--log", "none", "--wait", "1"]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_connect_bad_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    assert mjref(["connect", "http://127.0.0.1:1", GREEDY, "--token", "t"]) == 2
    assert "give ws://HOST:PORT" in capsys.readouterr().err
    assert mjref(["connect", "ws://127.0.0.1:1", "greedy", "--token", "t"]) == 2
    assert "a built-in bot plays at the server" in capsys.readouterr().err
    assert mjref(["connect", "ws://127.0.0.1:1", "./no-such-bot", "--token", "t"]) == 2
    assert "cannot run './no-such-bot': no such file" in capsys.readouterr().err


TOURNAMENT = """name = "net"
seeds = 1
hands = 1
concurrency = 1
trust_memory = true
[[bots]]
name = "a"
remote = true
[[bots]]
name = "b"
remote = true
[[bots]]
name = "g"
builtin = "greedy"
[[bots]]
name = "r"
builtin = "random"
"""


@pytest.mark.slow
def test_served_tournament_resumes_after_sigkill(tmp_path: Path, procs: list[Proc]) -> None:
    (tmp_path / "t.toml").write_text(TOURNAMENT)
    tokens = str(write_tokens(tmp_path))
    first, url = serve(procs, tmp_path, "t.toml", "--tokens", tokens)
    port = url.rsplit(":", 1)[1]
    wrappers = [connect(procs, tmp_path, url, n) for n in ("a", "b")]
    first.wait_for(r"recorded \(2/4\)")
    first.p.send_signal(signal.SIGKILL)
    first.p.wait()
    # The same port, so that the wrappers, reconnecting with backoff, find the new server.
    second = Proc(["serve", "t.toml", "--tokens", tokens, "--listen", f"127.0.0.1:{port}", "--json"], tmp_path)
    procs.append(second)
    done = int(second.wait_for(r"4 matches, (\d) already in").group(1))
    assert 2 <= done < 4
    code, out = second.finish()
    assert code == 0, second.stderr
    assert "recorded (4/4)" in second.stderr
    assert len(re.findall(r"match \S+ recorded", second.stderr)) == 4 - done
    standings = json.loads(out)
    assert standings["matches"] == 4
    assert {row["name"]: row["matches"] for row in standings["bots"]} == {"a": 4, "b": 4, "g": 4, "r": 4}
    for w in wrappers:
        assert w.finish()[0] == 0, w.stderr
        assert "reconnecting" in w.stderr


@pytest.mark.slow
def test_a_served_classical_match_and_tournament_play_13_tile_hands(tmp_path: Path, procs: list[Proc]) -> None:
    """``mjref serve --rules xmj``: a wrapper's bot plays classical over the network, and the log is the one the same
    match played here writes; a tournament file with classical rules is served too."""
    server, url = serve(procs, tmp_path, "remote:a", "greedy", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--rules", "xmj", "--hands", "2", "--seed", "5", "--json",
                        "--log", "c.jsonl")
    a = connect(procs, tmp_path, url, "a")
    code, out = server.finish()
    assert code == 0, server.stderr
    assert a.finish()[0] == 0, a.stderr
    served = records(tmp_path / "c.jsonl")
    assert served[0]["rules"]["family"] == "classical"
    assert all(len(r["wall"]) == 144 for r in served if r["type"] == "hand")
    assert mjref(["match", GREEDY, "greedy", "greedy", "greedy", "--rules", "xmj", "--hands", "2", "--seed", "5",
                  "--json", "--log", str(tmp_path / "local.jsonl")]) == 0
    assert comparable(served) == comparable(records(tmp_path / "local.jsonl"))
    assert mjref(["replay", str(tmp_path / "c.jsonl")]) == 0

    (tmp_path / "t.toml").write_text(TOURNAMENT.replace("hands = 1\n", 'hands = 1\nrules = "classical"\n', 1))
    server, url = serve(procs, tmp_path, "t.toml", "--tokens", str(write_tokens(tmp_path)), "--json")
    wrappers = [connect(procs, tmp_path, url, n) for n in ("a", "b")]
    code, out = server.finish()
    assert code == 0, server.stderr
    assert json.loads(out)["matches"] == 4
    for w in wrappers:
        assert w.finish()[0] == 0, w.stderr
    logs = sorted(tmp_path.glob("*-logs/*.jsonl"))
    assert logs and all(records(log)[0]["rules"]["family"] == "classical" for log in logs)


def test_tournament_command_refuses_remote_bots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.toml").write_text(TOURNAMENT)
    assert mjref(["tournament", str(tmp_path / "t.toml"), "--quiet"]) == 2
    assert "bot 'a' is remote: run the tournament with `mjref serve FILE`" in capsys.readouterr().err


def test_match_options_do_not_apply_to_a_served_tournament(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.toml").write_text(TOURNAMENT)
    assert mjref(["serve", str(tmp_path / "t.toml"), "--hands", "3", "--listen", "127.0.0.1:0"]) == 2
    assert "--hands is for a match; a tournament file sets its own" in capsys.readouterr().err


@pytest.mark.slow
def test_a_slow_remote_bot_times_out_at_the_server(tmp_path: Path, procs: list[Proc]) -> None:
    """The deadline is the server's: the bot's timeout plus network_grace; the stand-in plays on."""
    slow = f"env BADBOT_DELAY=3 {sys.executable} {ROOT / 'tests/bots/badbot.py'} slow"
    server, url = serve(procs, tmp_path, "remote:a", "--tokens", str(write_tokens(tmp_path)), "--hands", "1",
                        "--timeout", "0.3", "--set", "network_grace=0.2", "--set", "start_grace=2", "--json",
                        "--log", "m.jsonl")
    wrapper = connect(procs, tmp_path, url, "a", slow)
    code, out = server.finish()
    assert code == 0, server.stderr
    faults = json.loads(out)["faults"]
    assert faults and faults[0]["kind"] == "timeout", faults
    assert wrapper.finish()[0] == 0
    assert "fault reported by the server: timeout" in wrapper.stderr


# ------------------------------------------------------------------------------------------ hostile clients
async def scripted_wrapper(ws: WebSocketConnection, name: str,
                           answer: Callable[[m.Ask], Awaitable[str]]) -> int | None:
    """A wrapper that logs in as ``name``, is ready for every hand and sends ``answer(question)`` (a whole frame)
    for every question, until the match is over (None) or the server closes the connection (its close code)."""
    await ws.send_message(m.write(m.Hello(v=m.PROTOCOL, name=name, token=TOKENS[name])))
    try:
        while True:
            msg = m.read_server(await ws.get_message())
            if isinstance(msg, m.Hand):
                await ws.send_message(m.write(m.Ready(hand=msg.hand, started=True)))
            elif isinstance(msg, m.Ask):
                await ws.send_message(await answer(msg))
            elif isinstance(msg, m.Over):
                return None
    except ConnectionClosed as exc:
        return exc.reason.code if exc.reason else None


async def _attack_logged_in(url: str) -> dict[str, Any]:
    """Clients that get past the door, or try to hold it.  First 300 idle connections at once, and a login while
    they are open; then, together: ``b`` logs in with its own token and sends garbage at its first question, a
    second login with ``a``'s token while ``a`` plays, and a handshake trickled a byte at a time (slowloris)."""
    seen: dict[str, Any] = {}
    host, port = url.removeprefix("ws://").rsplit(":", 1)

    async def retrying(body: Callable[[WebSocketConnection], Awaitable[None]]) -> None:
        """``body`` on a WebSocket once the door is free again (the idle connections' slots free within
        AUTH_TIMEOUT)."""
        for _ in range(40):
            try:
                async with open_websocket_url(url) as ws:
                    await body(ws)
                    return
            except ConnectionRejected:
                await trio.sleep(0.25)
        raise AssertionError("the door stayed shut")

    async def garbage_after_login(ws: WebSocketConnection) -> None:
        async def garbage(msg: m.Ask) -> str:
            seen.setdefault("b_asked", msg.ask)
            return "/throw 111 for the referee, from seat b"

        seen["b"] = await scripted_wrapper(ws, "b", garbage)

    async def second_login_as_a(ws: WebSocketConnection) -> None:
        await ws.send_message(m.write(m.Hello(v=m.PROTOCOL, name="a", token=TOKENS["a"])))
        try:
            seen["a_twice"] = await ws.get_message()
        except ConnectionClosed as exc:
            seen["a_twice"] = exc.reason.code if exc.reason else None

    async def slowloris() -> None:
        stream = await trio.open_tcp_stream(host, int(port))
        started = time.monotonic()
        request = f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n".encode()
        try:
            for i in range(len(request)):
                await stream.send_all(request[i:i + 1])
                await trio.sleep(0.25)
            seen["slowloris"] = "never closed"
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            seen["slowloris"] = time.monotonic() - started
        await stream.aclose()

    # from ten loopback addresses: one address alone may hold only MAX_PENDING_PER_ORIGIN of them
    streams = [await trio.open_tcp_stream(host, int(port), local_address=f"127.0.0.{1 + i % 10}") for i in range(300)]
    try:
        async with open_websocket_url(url):
            seen["busy"] = "let in"  # in the place of the oldest stranger
    except ConnectionRejected as exc:
        seen["busy"] = exc.status_code
    closed = 0  # the server accepts in order: all 300 were accepted before the last one was let in
    for s in streams:
        with trio.move_on_after(0.01):
            try:
                if not await s.receive_some(4096):  # the server's close of a connection whose place was taken
                    closed += 1
            except (trio.BrokenResourceError, OSError):
                closed += 1
    seen["closed_at_once"] = closed
    for s in streams:
        await trio.aclose_forcefully(s)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(retrying, garbage_after_login)
        nursery.start_soon(retrying, second_login_as_a)
        nursery.start_soon(slowloris)
    return seen


@pytest.mark.slow
def test_hostile_clients_that_log_in_or_hold_the_door_fault_alone(tmp_path: Path, procs: list[Proc]) -> None:
    slow = f"env BADBOT_DELAY=0.05 {sys.executable} {ROOT / 'tests/bots/badbot.py'} slow"
    server, url = serve(procs, tmp_path, "remote:a", "remote:b", "--tokens", str(write_tokens(tmp_path)),
                        "--hands", "2", "--seed", "2", "--set", "start_grace=2", "--json", "--log", "m.jsonl")
    wrapper = connect(procs, tmp_path, url, "a", slow)
    wrapper.wait_for(r"logged in")
    seen = trio.run(_attack_logged_in, url)
    code, out = server.finish()
    assert code == 0, server.stderr
    result = json.loads(out)
    assert seen["b"] == m.CLOSE_BAD_MESSAGE and "b_asked" in seen, seen
    assert seen["a_twice"] == m.CLOSE_TAKEN, seen
    assert isinstance(seen["slowloris"], float) and seen["slowloris"] < m.AUTH_TIMEOUT + 3, seen
    # at most MAX_PENDING connections not logged in are open at once: each new one closed the oldest
    assert seen["closed_at_once"] >= 300 - MAX_PENDING + 1, seen
    assert seen["busy"] == "let in", seen
    faults = result["faults"]
    assert faults and {f["position"] for f in faults} == {2}, faults
    assert {f["kind"] for f in faults} <= {"disconnected", "forfeit"}, faults
    totals = [s["total"] for s in result["seats"]]
    assert all(totals[1] < t for i, t in enumerate(totals) if i != 1), totals
    assert wrapper.finish()[0] == 0, wrapper.stderr
    assert f"more than {MAX_PENDING} connections at once not logged in: the oldest from" in server.stderr
    assert "already logged in on another connection" in server.stderr
    assert mjref(["replay", str(tmp_path / "m.jsonl")]) == 0  # here: a replay starts no process


def test_a_bad_frames_reason_quotes_the_sender_escaped() -> None:
    """The reason for refusing a frame quotes the sender's keys and tags and goes to the server's log: a terminal
    escape in them is shown, never sent to the operator's terminal."""
    for frame in ('{"type":"hello","v":1,"name":"a","token":"b","\\u001b]0;x\\u0007":1}', '{"type":"\\u001b[2J"}'):
        with pytest.raises(m.BadMessage) as err:
            m.read_client(frame)
        assert "\x1b" not in str(err.value) and "\\x1b" in str(err.value), err.value


_ESCAPING_BOT = """import sys
for line in sys.stdin:
    if line.startswith("/ask"):
        if sys.argv[1] == "garbage":  # judged by the server: the wrapper relays the line as it came
            sys.stdout.write("/throw \\x1b]0;pwned\\x07 [bold red]seat 3 cheated[/]\\n")
        else:  # judged by the wrapper (line_too_long): the server gets its report, escaped there
            sys.stdout.write("\\x1b[2J\\x1b]0;pwned\\x07" + "x" * 5000 + "\\n")
        sys.stdout.flush()
"""


@pytest.mark.slow
def test_a_served_bots_terminal_escapes_never_reach_a_terminal(tmp_path: Path, procs: list[Proc]) -> None:
    """A remote bot's line with terminal escapes, judged at the server (garbage) or reported by its wrapper
    (line_too_long): the server's terminal, its JSON and its log, and the wrapper's terminal show it escaped."""
    (tmp_path / "esc.py").write_text(_ESCAPING_BOT)
    server, url = serve(procs, tmp_path, "remote:a", "remote:b", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--hands", "1", "--seed", "3", "--log", "m.jsonl")
    wrappers = [connect(procs, tmp_path, url, name, f"{sys.executable} {tmp_path / 'esc.py'} {how}")
                for name, how in (("a", "garbage"), ("b", "long"))]
    code, out = server.finish()
    assert code == 0, server.stderr
    faults = {r["seat"]: r for r in records(tmp_path / "m.jsonl") if r["type"] == "fault"}
    assert faults[1]["kind"] == "garbage" and faults[2]["kind"] == "line_too_long", faults
    assert "\\x1b]0;pwned\\x07" in faults[1]["line"] and faults[2]["line"].startswith("\\x1b[2J"), faults
    for w in wrappers:
        assert w.finish()[0] == 0, w.stderr
        assert "\x1b" not in w.stderr and "\x07" not in w.stderr, w.stderr
    shown = server.stderr + out
    assert "\x1b" not in shown and "\x07" not in shown, shown
    assert "seat 3 cheated[/]" in shown, shown  # shown as text: the markup was not read as markup


# ------------------------------------------------------------------------------------------ around a refusal's close
def _upgrade(host: str, port: str) -> bytes:
    """A valid WebSocket upgrade request, as raw bytes (the clients below speak the wire themselves)."""
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


async def _door_after_silent_strangers(url: str, count: int) -> dict[str, Any]:
    """``count`` strangers complete the WebSocket handshake, then neither send nor read anything (so they never
    answer the close that refuses them); while they stay connected, the rightful wrapper tries the door."""
    seen: dict[str, Any] = {}
    host, port = url.removeprefix("ws://").rsplit(":", 1)
    silent = []
    for i in range(count):  # from twelve other loopback addresses: one alone may hold only a few (server.Door)
        stream = await trio.open_tcp_stream(host, int(port), local_address=f"127.0.0.{2 + i % 12}")
        await stream.send_all(_upgrade(host, port))
        silent.append(stream)
    for _ in range(int((m.AUTH_TIMEOUT + 10) / 0.25)):  # give up long after the strangers' hello time is over
        try:
            async with open_websocket_url(url) as ws:
                await ws.send_message(m.write(m.Hello(v=m.PROTOCOL, name="a", token=TOKENS["a"])))
                seen["welcome"] = m.read_server(await ws.get_message())
                break
        except ConnectionRejected as exc:
            seen["refused"] = exc.status_code
            await trio.sleep(0.25)
    await trio.sleep(m.AUTH_TIMEOUT + 5)  # the strangers stay, silent, past their hello time and the close after it
    for stream in silent:
        await trio.aclose_forcefully(stream)
    return seen


@pytest.mark.slow
def test_strangers_that_never_answer_the_close_do_not_hold_the_door(tmp_path: Path, procs: list[Proc]) -> None:
    """A refusal's close handshake is bounded: a stranger that never answers it (here: every connection the server
    admits, silent after the handshake) is cut.  It once kept the door shut for as long as the strangers kept their
    sockets open, without a token; then for their hello time; now not at all: the wrapper takes the place of the
    oldest of them."""
    server, url = serve(procs, tmp_path, "remote:a", "greedy", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--hands", "1", "--seed", "2", "--json", "--wait", "120")
    seen = trio.run(_door_after_silent_strangers, url, MAX_PENDING + 1)
    assert "refused" not in seen, seen  # the strangers filled the door, and the wrapper got in at once
    assert isinstance(seen.get("welcome"), m.Welcome), seen
    wrapper = connect(procs, tmp_path, url, "a")
    code, out = server.finish()
    assert code == 0, server.stderr
    assert json.loads(out)["faults"] == []
    assert wrapper.finish()[0] == 0, wrapper.stderr
    assert "no hello within 5 s" in server.stderr and "Traceback" not in server.stderr


def _masked(opcode: int, payload: bytes) -> bytes:
    """One client frame written by hand (wsproto will not send a ping or a message after a close it received)."""
    mask = os.urandom(4)
    size = bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 127]) + len(payload).to_bytes(8, "big")
    return bytes([0x80 | opcode]) + size + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _frames_after_the_refusal(url: str) -> list[int | None]:
    """Strangers with a wrong token who, instead of answering the close that refuses them, send a ping, or a
    message over the size limit: frames the server may no longer answer."""
    host, port = url.removeprefix("ws://").rsplit(":", 1)
    codes: list[int | None] = []
    for after in (_masked(0x9, b"ping"), _masked(0x1, b"x" * (m.MAX_CLIENT_MESSAGE + 1))):
        stream = await trio.open_tcp_stream(host, int(port))
        ws = WSConnection(ConnectionType.CLIENT)
        await stream.send_all(ws.send(wsevents.Request(host=host, target="/")))
        code = None
        while code is None and (data := await stream.receive_some(65536)):
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, wsevents.AcceptConnection):
                    hello = m.Hello(v=m.PROTOCOL, name="a", token="not the token, but long")
                    await stream.send_all(ws.send(wsevents.TextMessage(data=m.write(hello))))
                elif isinstance(event, wsevents.CloseConnection):
                    code = event.code
        codes.append(code)
        with suppress(trio.BrokenResourceError):
            await stream.send_all(after)
            await stream.receive_some(65536)  # the server cuts the connection
        await trio.aclose_forcefully(stream)
    return codes


@pytest.mark.slow
def test_frames_after_a_refusal_never_end_the_server(tmp_path: Path, procs: list[Proc]) -> None:
    """A ping, or a message too big, sent after the server's close used to end the whole server with a traceback
    (the WebSocket library answered it in a state where its protocol layer refuses to: ``wrappers.websocket``)."""
    server, url = serve(procs, tmp_path, "remote:a", "greedy", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--hands", "1", "--seed", "2", "--json")
    assert trio.run(_frames_after_the_refusal, url) == [m.CLOSE_REFUSED, m.CLOSE_REFUSED]
    wrapper = connect(procs, tmp_path, url, "a")
    code, out = server.finish()
    assert code == 0, server.stderr
    assert json.loads(out)["faults"] == []
    assert wrapper.finish()[0] == 0, wrapper.stderr
    assert "Traceback" not in server.stderr, server.stderr


async def _door_while_one_address_floods(url: str, local_address: str | None = "127.0.0.2") -> dict[str, Any]:
    """A stranger at ``local_address`` (None: the address the system picks) opens three times as many connections
    as the door holds, completes each handshake and stays silent; meanwhile the rightful wrapper logs in."""
    seen: dict[str, Any] = {}
    host, port = url.removeprefix("ws://").rsplit(":", 1)
    flood = []
    for _ in range(3 * MAX_PENDING):
        stream = await trio.open_tcp_stream(host.strip("[]"), int(port), local_address=local_address)
        with suppress(trio.BrokenResourceError):
            await stream.send_all(_upgrade(host, port))
        flood.append(stream)
    try:
        async with open_websocket_url(url) as ws:
            await ws.send_message(m.write(m.Hello(v=m.PROTOCOL, name="a", token=TOKENS["a"])))
            seen["a"] = m.read_server(await ws.get_message())
    except ConnectionRejected as exc:
        seen["a"] = exc.status_code
    for stream in flood:
        await trio.aclose_forcefully(stream)
    return seen


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.parametrize(("listen", "stranger", "shown"), [
    ("127.0.0.1:0", "127.0.0.2", "127.0.0.2"),
    # the same host and /64 as the wrapper: before, eight silent strangers from ::/64 kept it out with a 503
    pytest.param("[::1]:0", None, "::/64", marks=pytest.mark.skipif(
        not _has_ipv6_loopback() and os.environ.get("CI") != "true", reason="no IPv6 loopback here")),
])
def test_one_address_cannot_fill_the_door(tmp_path: Path, procs: list[Proc], listen: str, stranger: str | None,
                                          shown: str) -> None:
    """Connections not logged in count against their address (``MAX_PENDING_PER_ORIGIN``; an IPv6 /64): a
    stranger holding as many as it can from one address has its oldest closed as new ones come, and the wrapper
    gets in, even from that address.  Before, it took the whole door, and a wrapper that dropped stayed out (a
    ``disconnected`` fault for an honest seat) for as long as it went on."""
    server, url = serve(procs, tmp_path, "remote:a", "greedy", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--hands", "1", "--seed", "2", "--json", "--wait", "120",
                        listen=listen)
    seen = trio.run(_door_while_one_address_floods, url, stranger)
    assert isinstance(seen["a"], m.Welcome), seen
    wrapper = connect(procs, tmp_path, url, "a")
    code, out = server.finish()
    assert code == 0, server.stderr
    assert json.loads(out)["faults"] == [] and wrapper.finish()[0] == 0, wrapper.stderr
    assert f"more than {MAX_PENDING_PER_ORIGIN} connections at once from {shown} not logged in" in server.stderr


# ------------------------------------------------------------------------------------------ a seat that never reads
async def _ping_flood_without_reading(url: str) -> dict[str, Any]:
    """Seat ``a`` logs in properly and says it is ready for hand 1, then sends WebSocket pings and never reads:
    the server's pongs fill the socket's buffers until its writes to ``a`` block."""
    seen: dict[str, Any] = {"pings": 0}
    host, port = url.removeprefix("ws://").rsplit(":", 1)
    stream = await trio.open_tcp_stream(host, int(port))
    ws = WSConnection(ConnectionType.CLIENT)
    await stream.send_all(ws.send(wsevents.Request(host=host, target="/")))
    ready = False
    while not ready:
        data = await stream.receive_some(65536)
        assert data, seen
        ws.receive_data(data)
        for event in ws.events():
            if isinstance(event, wsevents.AcceptConnection):
                hello = m.Hello(v=m.PROTOCOL, name="a", token=TOKENS["a"])
                await stream.send_all(ws.send(wsevents.TextMessage(data=m.write(hello))))
            elif isinstance(event, wsevents.Ping):  # the login's round trips
                await stream.send_all(ws.send(event.response()))
            elif isinstance(event, wsevents.TextMessage):
                message = m.read_server(event.data)
                if isinstance(message, m.Hand):
                    await stream.send_all(ws.send(wsevents.TextMessage(data=m.write(m.Ready(hand=0)))))
                    ready = True
    ping = ws.send(wsevents.Ping(payload=b"x" * 125))
    with trio.move_on_after(120):
        try:
            while True:
                await stream.send_all(ping)
                seen["pings"] += 1
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            seen["cut"] = True
    await trio.aclose_forcefully(stream)
    return seen


@pytest.mark.slow
def test_a_seat_that_never_reads_is_cut_and_holds_up_nobody(tmp_path: Path, procs: list[Proc]) -> None:
    """Every frame to a wrapper or page has a deadline (``SEND_TIMEOUT``): a seat whose socket takes nothing more
    is cut, with the reason in the log, and faults alone.  Before, a frame without a deadline of its own (``hand``,
    ``seat``, ``end_hand``) held the match until the ping's timeout noticed, and a frame with one left the link
    up, stuck."""
    server, url = serve(procs, tmp_path, "remote:a", "greedy", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--hands", "2", "--seed", "2", "--json", "--log", "m.jsonl")
    seen = trio.run(_ping_flood_without_reading, url)
    assert seen.get("cut"), seen
    code, out = server.finish()
    assert code == 0, server.stderr
    faults = json.loads(out)["faults"]
    assert faults and {f["position"] for f in faults} == {1}, faults
    assert {f["kind"] for f in faults} <= {"timeout", "disconnected"}, faults
    assert any(f"it did not read what it was sent for {SEND_TIMEOUT:g} s" in f["detail"] for f in faults), faults
    assert "Traceback" not in server.stderr
    assert mjref(["replay", str(tmp_path / "m.jsonl")]) == 0


# ------------------------------------------------------------------------------------------ who counts at the door
def test_ipv6_addresses_count_by_64_and_make_room_by_48() -> None:
    """One IPv6 host has a whole /64 (an address per connection, if it likes), and one client a /56 or a /48: an
    address is a /64 for the per-address cap, and when the door is full the network holding the most (a /48;
    an IPv4 /24) gives up its oldest, so that 256 /64s of one /56 flood out their own connections, not a
    person's elsewhere."""
    assert _origin("2001:db8:0:1::5") == _origin("2001:db8:0:1:ffff:ffff:ffff:ffff") == "2001:db8:0:1::/64"
    assert _origin("2001:db8:0:2::5") == "2001:db8:0:2::/64" and _origin("::ffff:192.0.2.7") == "192.0.2.7"
    assert _network(_origin("2001:db8:0:ff::1")) == _network(_origin("2001:db8::1")) == "2001:db8::/48"
    assert _network("192.0.2.7") == "192.0.2.0/24"
    closed: list[str] = []
    door = Door(MAX_PENDING, lambda peer, why: closed.append(why))
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(512)
        clients, served = [], []

        def arrive(ip: str) -> socket.socket:
            clients.append(socket.create_connection(listener.getsockname()))
            sock = listener.accept()[0]
            served.append(sock)
            assert door.admit(sock, (ip, 1)) is None  # nobody is ever turned away
            return sock

        person = arrive("2001:db8:9999::1")  # a person elsewhere, not logged in yet
        wrapper = arrive("2001:db8:7777::1")
        door.vouch(wrapper.getpeername())  # a wrapper that logged in: never closed to make room
        flood = [arrive(f"2001:db8:0:{i:x}::1") for i in range(256)]  # one /64 each, all of one /56
        assert person.fileno() != -1 and wrapper.fileno() != -1, closed
        assert sum(s.fileno() != -1 for s in flood) == MAX_PENDING - 1  # the person holds the last place
        assert closed and "whose network 2001:db8::/48 holds" in closed[-1], closed
        same = [arrive("2001:db8:5555::1") for _ in range(MAX_PENDING_PER_ORIGIN + 3)]
        assert [s.fileno() == -1 for s in same] == [True] * 3 + [False] * MAX_PENDING_PER_ORIGIN
        for s in clients + served:
            s.close()


def test_connect_says_when_the_servers_timeout_replaces_the_bot_files(tmp_path: Path, procs: list[Proc]) -> None:
    """The server judges the answers, so its deadline counts; the wrapper says so when the bot file gave another
    (it ran the bot with the server's timeout without a word, the file saying 60 s)."""
    (tmp_path / "mine.toml").write_text(f'name = "a"\ncmd = ["{sys.executable}", "-m", "bots.greedy"]\ntimeout = 60\n')
    server, url = serve(procs, tmp_path, "remote:a", "--tokens", str(write_tokens(tmp_path)), "--hands", "1",
                        "--timeout", "7", "--json", "--log", "none")
    wrapper = connect(procs, tmp_path, url, "a", str(tmp_path / "mine.toml"))
    code, _ = server.finish()
    assert code == 0, server.stderr
    assert wrapper.finish()[0] == 0
    assert any("the server gives 7 s per question; the bot file's timeout (60 s) does not apply to a served match"
               in line for line in wrapper.lines), wrapper.lines


def test_a_wrappers_next_hands_bot_starts_while_the_hand_before_is_played(tmp_path: Path, procs: list[Proc],
                                                                         open_folder: Path) -> None:
    """A wrapper's bot started per hand starts each next hand's process while the hand before is played, as at a
    local table (``ProcessSeat._prestart``): the server says nothing of which hand is the match's last, so the
    wrapper always starts one, and the one started during the last hand is killed unused at the unseat."""
    server, url = serve(procs, tmp_path, "remote:a", "greedy", "greedy", "greedy", "--tokens",
                        str(write_tokens(tmp_path)), "--hands", "3", "--seed", "5", "--json", "--log", "none")
    wrapper = connect(procs, tmp_path, url, "a", f"{sys.executable} {open_folder / 'stamps.py'}")
    code, out = server.finish()
    assert code == 0, server.stderr
    assert json.loads(out)["faults"] == []
    assert wrapper.finish()[0] == 0, wrapper.stderr
    lines = (tmp_path / "a.stderr").read_text().splitlines()
    starts = [int(x.split()[1]) for x in lines if x.startswith("START ")]
    ends = [int(x.split()[1]) for x in lines if x.startswith("END ")]
    assert len(ends) == 3 and len(starts) in (3, 4), lines  # (the unused one's stderr may be dropped at its kill)
    assert all(starts[k] < ends[k - 1] for k in (1, 2)), "the next hand's process starts beside the hand"
