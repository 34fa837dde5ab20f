"""``mjref connect`` against a server that does not keep the protocol: every message it cannot act on is one line
and a reconnection (here ``--once``: the end), never a traceback, and a server that says nothing cannot hold it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from trio_websocket import serve_websocket

from wrappers import messages as m

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SEAT = m.write(m.Seat(match="x", position=1, timeout=5.0))
HAND = json.loads(m.write(m.Hand(hand=0, seed=1, position=1, flowers=True, dead_wall=16,
                                 gong_from_previous_player=False, seven_pairs_and_pung=False, timeout=5.0,
                                 start_grace=5.0)))


def _hand(**changes: Any) -> str:
    return json.dumps({**HAND, **changes})


def _ask(ask: str, lines: list[str]) -> str:
    return json.dumps({"type": "ask", "q": 1, "lines": lines, "ask": ask})


def _connect(frames: list[str] | None, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``mjref connect --once`` against a server that logs it in (``welcome``) and sends ``frames`` (None: it
    accepts the WebSocket and says nothing at all); the wrapper's output, and how long it took."""

    async def handler(request: Any) -> None:
        ws = await request.accept()
        m.read_client(await ws.get_message())
        if frames is None:
            await trio.sleep(60)
            return
        await ws.send_message(m.write(m.Welcome(v=m.PROTOCOL, name="a")))
        for frame in frames:
            await ws.send_message(frame)
        await trio.sleep(60)

    async def main() -> tuple[subprocess.CompletedProcess[str], float]:
        async with trio.open_nursery() as nursery:
            server = await nursery.start(serve_websocket, handler, "127.0.0.1", 0, None)
            started = time.monotonic()
            done = await trio.to_thread.run_sync(lambda: subprocess.run(
                [sys.executable, "-m", "referee.cli", "connect", f"ws://127.0.0.1:{server.port}",
                 f"{sys.executable} -m bots.greedy", "--token", "t" * 20, "--name", "a", "--once",
                 "--stderr", str(tmp_path / "a.stderr")], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                timeout=60, stdin=subprocess.DEVNULL))
            nursery.cancel_scope.cancel()
        return done, time.monotonic() - started

    return trio.run(main)


@pytest.mark.parametrize(("frames", "said"), [
    # a question only a seat that declares its sets is asked, never a bot of the ICGA protocol
    ([SEAT, _hand(), _ask("declare", [])], "ask: Input should be 'throw', 'hu', 'gong', 'pong' or 'eat'"),
    # protocol lines are printable ASCII: the wrapper writes them to its bot's stdin as they are
    ([SEAT, _hand(), _ask("throw", ["/mo 1\u00e9"])], "lines[0]: String should match pattern"),
    ([SEAT, _hand(), _ask("throw", ["/mo 11\n/mo 12"])], "lines[0]: String should match pattern"),
    ([SEAT, _hand(), json.dumps({"type": "end_hand", "lines": ["/exit \x1b[2J"]})], "String should match pattern"),
    # a deadline that is no number of seconds
    ([SEAT, _hand(start_grace=float("nan"))], "start_grace: Input should be a finite number"),
    ([SEAT, _hand(timeout=-1e308)], "timeout: Input should be greater than 0"),
    ([SEAT.replace('"timeout":5.0', '"timeout":1e309')], "timeout: Input should be"),
], ids=["declare", "non-ascii", "newline", "escape", "nan-grace", "negative-timeout", "huge-timeout"])
def test_a_message_the_wrapper_cannot_act_on_is_one_line(frames: list[str], said: str, tmp_path: Path) -> None:
    done, _ = _connect(frames, tmp_path)
    shown = done.stdout + done.stderr
    assert "Traceback" not in shown and "\x1b" not in shown, shown
    assert "the server sent a message this wrapper does not understand" in shown and said in shown, shown
    assert done.returncode == 2, shown


def test_a_server_that_never_says_welcome_cannot_hold_the_wrapper(tmp_path: Path) -> None:
    done, took = _connect(None, tmp_path)
    shown = done.stdout + done.stderr
    assert "Traceback" not in shown, shown
    assert f"the server sent no welcome within {m.AUTH_TIMEOUT:g} s" in shown and done.returncode == 2, shown
    assert took < 30, took
