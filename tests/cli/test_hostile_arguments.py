"""Hostile command-line arguments found by a second fuzzing pass: each is refused in one line naming the argument,
exit status 2, never a traceback (the helpers are ``test_fuzz_inputs``')."""

from __future__ import annotations

import http.server
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_fuzz_inputs import ROOT, mjref, one_line, store  # noqa: F401 - store: a fixture

HUGE = "9" * 5000  # more digits than Python converts to an integer (a ValueError of its own, not a JSONDecodeError)
DEEP = "[" * 50_000  # JSON nested past Python's stack (a RecursionError)
BOT_TOML = 'name = "c"\ncmd = ["python3", "-c", "pass"]\n'

VALUE_CASES = [
    (["match", "--set", f"hands={HUGE}", "--log", "none"], "--set hands: a number of more than 4300 digits"),
    (["match", "--set", f"tai.dealer={HUGE}", "--log", "none"], "--set tai.dealer: a number of more"),
    (["match", "--set", f"hands={DEEP}", "--log", "none"], "--set hands: nested more than"),
    (["match", "--rules", "classical", "--set", f"ScoreLimit={HUGE}", "--log", "none"], "--set ScoreLimit: a number"),
    (["match", "--rules", "classical", "--set", f"ScoreLimit={DEEP}", "--log", "none"], "--set ScoreLimit: nested"),
    (["score", str(ROOT / "examples" / "score-request.json"), "--set", f"tai.dealer={HUGE}"], "--set tai.dealer"),
    (["tournament", "greedy", "c.toml", "--set", f"hands={HUGE}", "--quiet"], "--set hands: a number"),
    (["tournament", "greedy", "c.toml", "--rules", "classical", "--set", f"ScoreLimit={HUGE}", "--quiet"],
     "--set ScoreLimit: a number"),
    (["tournament", "greedy", "c.toml", "--each", f"timeout={HUGE}", "--quiet"], "--each timeout: a number"),
    (["tournament", "greedy", "c.toml", "--each", f"timeout={DEEP}", "--quiet"], "--each timeout: nested"),
]


@pytest.mark.parametrize(("argv", "word"), VALUE_CASES, ids=[" ".join(a)[:60] for a, _ in VALUE_CASES])
def test_an_option_value_json_cannot_hold_is_one_line(argv: list[str], word: str, tmp_path: Path) -> None:
    """``--set``/``--each`` values are read as JSON where they parse: a number of 5000 digits raised json's
    ValueError of its own and 50,000 brackets a RecursionError, both past the ``except JSONDecodeError``."""
    (tmp_path / "c.toml").write_text(BOT_TOML)
    one_line(mjref(*argv, cwd=tmp_path), word)


def test_an_option_value_that_is_not_json_is_still_text(tmp_path: Path) -> None:
    one_line(mjref("match", "--set", "hands=abc", "--log", "none", cwd=tmp_path), "not 'abc'")


@pytest.fixture()
def not_dask() -> Iterator[str]:
    """An HTTP server: it accepts a connection and never answers as Dask does (``Client()`` waited for ever)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("address", ["ucx://127.0.0.1:1", "ws://127.0.0.1:1", "not_dask"])
def test_a_dask_address_that_cannot_be_used_is_one_line(address: str, request: pytest.FixtureRequest,
                                                        tmp_path: Path) -> None:
    """``ucx://``: a scheme Dask registers but cannot use without its package (a TypeError from Client, then a
    second traceback as the half-made client timed out closing at exit); a server that is not a scheduler: a
    wait without end.  Each is refused in one line before any client is made."""
    if address == "not_dask":
        address = request.getfixturevalue("not_dask")
    (tmp_path / "c.toml").write_text(BOT_TOML)
    started = time.monotonic()
    one_line(mjref("tournament", "greedy", "random", "--dask", address, "--quiet", cwd=tmp_path), address)
    assert time.monotonic() - started < 40  # the connection's timeout is 10 s


@pytest.mark.parametrize("command", [["tournament", "greedy", "random"], ["league", "l.toml"],
                                     ["regress", "greedy", "greedy"]])
def test_an_empty_dask_address_is_a_usage_error(command: list[str], tmp_path: Path) -> None:
    """``--dask ""`` was no Dask at all: the run played on this machine without a word."""
    one_line(mjref(*command, "--dask", "", "--quiet", cwd=tmp_path), "--dask")


def test_an_empty_dask_address_in_a_tournament_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('name = "t"\nseeds = 1\ndask = ""\n[[bots]]\nname = "g"\nbuiltin = "greedy"\n')
    one_line(mjref("tournament", "t.toml", "--quiet", cwd=tmp_path), "dask")
    assert not list(tmp_path.rglob("*.sqlite"))


def test_restart_with_a_server_that_is_not_dask_keeps_the_store(not_dask: str, store: Path, tmp_path: Path) -> None:
    """``--restart`` checks the address before it discards the store: a server that accepts and never answers as
    a scheduler is refused there too."""
    shutil.copy(store / "t.toml", tmp_path / "t.toml")
    shutil.copy(store / "t.sqlite", tmp_path / "t.sqlite")
    before = (tmp_path / "t.sqlite").read_bytes()
    one_line(mjref("tournament", "t.toml", "--restart", "--dask", not_dask, "--quiet", cwd=tmp_path), not_dask)
    assert (tmp_path / "t.sqlite").read_bytes() == before


@pytest.mark.parametrize("wait", ["inf", "1e309", "1e300", "3601", "0", "1e-320", "nan", "-1"])
def test_serve_refuses_a_wait_that_is_no_time_or_forever(wait: str, tmp_path: Path) -> None:
    """``--wait`` took inf, 1e309 and huge numbers (waiting for ever, or trio's OverflowError), and 0 and 1e-320
    (giving up at once); it is bounded as every time mjref is given is."""
    proc = mjref("serve", "remote:abc", "greedy", "--wait", wait, "--listen", "127.0.0.1:0", cwd=tmp_path)
    one_line(proc, "--wait")
    assert proc.stdout == ""


@pytest.fixture()
def taken_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


LEAGUE = ('name = "l"\nstore = "l.sqlite"\ntrust_memory = true\n[[bots]]\nname = "a"\nremote = true\n'
          '[[bots]]\nname = "g"\nbuiltin = "greedy"\n')
# {taken}: an address another socket listens on; 192.0.2.1 (TEST-NET-1) is no machine's
LISTEN_CASES = [
    (["serve", "remote:abc", "greedy", "--listen", "{taken}"], "--listen"),
    (["serve", "remote:abc", "greedy", "--listen", "192.0.2.1:0"], "--listen"),
    (["serve", "remote:abc", "greedy", "--listen", "127.0.0.1:0", "--page", "{taken}"], "--page"),
    (["serve", "xmj:abc", "greedy", "--rules", "classical", "--listen", "127.0.0.1:0", "--xmj-listen", "{taken}"],
     "--xmj-listen"),
    (["league", "l.toml", "--wrappers", "{taken}"], "--wrappers"),
    (["league", "l.toml", "--wrappers", "127.0.0.1:0", "--listen", "{taken}"], "--listen"),
    (["play", "--port", "{port}", "--no-browser"], "--port"),
]


@pytest.mark.parametrize(("argv", "option"), LISTEN_CASES, ids=[" ".join(a) for a, _ in LISTEN_CASES])
def test_an_address_that_cannot_be_listened_on_is_refused_before_any_token(argv: list[str], option: str,
                                                                           taken_port: int, tmp_path: Path) -> None:
    """A bad ``--listen`` printed newly minted tokens (a secret given away for a server that never ran), then
    its error; every address is now checked first (and before a league's store is made)."""
    (tmp_path / "l.toml").write_text(LEAGUE)
    proc = mjref(*(a.format(taken=f"127.0.0.1:{taken_port}", port=taken_port) for a in argv), cwd=tmp_path)
    line = one_line(proc, "cannot listen on")
    assert option in line and proc.stdout == ""
    assert not (tmp_path / "l.sqlite").exists()
