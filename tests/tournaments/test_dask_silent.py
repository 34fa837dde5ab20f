"""A Dask scheduler that takes the connection and then stops answering (a frozen machine, a stopped process) is a
``DaskError`` naming its address, at the start-up checks and while matches are awaited, never a wait without end;
the matches recorded before it went silent stay recorded.

The silent scheduler is a real one behind a relay on 127.0.0.1 that the test freezes: from then on it keeps every
connection open and passes nothing either way."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed: pip install 'mjref[dask]'")

from tournaments.config import parse_config
from tournaments.distributed import DaskError, NoAnswer, dask_executor, open_dask_executor
from tournaments.runner import execute, plan

ROOT = Path(__file__).resolve().parents[2]
BOUND = 5  # seconds the scheduler has to answer: ample for a loaded machine (1 s was not, for a worker's answer)
HANG = 300.0  # seconds: only a guard against a wait without end


class Relay:
    """A TCP relay to ``upstream`` on 127.0.0.1 that :meth:`freeze` makes silent: connections stay open, no byte
    passes any more (new ones are accepted and get nothing)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.frozen = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp://127.0.0.1:{self.listener.getsockname()[1]}"
        self.socks: list[socket.socket] = [self.listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            self.socks += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while not self.frozen.is_set():
                data = src.recv(65536)
                if not data or self.frozen.is_set():  # frozen meanwhile: what was read is never passed on
                    break
                dst.sendall(data)
        except OSError:
            return
        if not self.frozen.is_set():
            for s in (src, dst):
                s.close()

    def freeze(self) -> None:
        self.frozen.set()

    def close(self) -> None:
        for s in self.socks:
            s.close()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as c:
        yield c


@pytest.fixture()
def relay(cluster: Any) -> Iterator[Relay]:
    host, port = cluster.scheduler_address.removeprefix("tcp://").rsplit(":", 1)
    r = Relay((host, int(port)))
    yield r
    r.close()


def within_guard(fn: Callable[[], Any]) -> BaseException | None:
    """Run ``fn`` in a thread; what it raised (None: nothing).  A thread still waiting after ``HANG`` seconds fails
    the test: the wait had no end."""
    raised: list[BaseException | None] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            raised.append(exc)
        else:
            raised.append(None)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(HANG)
    assert not t.is_alive(), "a call to the silent scheduler never returned"
    return raised[0]


def one_error(exc: BaseException | None) -> BaseException:
    """The one exception in ``exc`` (trio's nursery groups what its tasks raised)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    assert exc is not None
    return exc


def test_a_scheduler_silent_after_the_connection_is_refused_at_the_start_up_check(
        relay: Relay, monkeypatch: pytest.MonkeyPatch) -> None:
    """The identity check and Client() were bounded; the checks of the scheduler and the workers after them waited
    for ever."""
    wait_for_workers = distributed.Client.wait_for_workers

    def then_freeze(client: Any, *args: Any, **kwargs: Any) -> None:  # connected, a worker there: now silent
        wait_for_workers(client, *args, **kwargs)
        relay.freeze()

    monkeypatch.setattr(distributed.Client, "wait_for_workers", then_freeze)
    exc = one_error(within_guard(lambda: open_dask_executor(relay.address, specs=(), namespace="silent",
                                                            connect_timeout=BOUND)))
    assert isinstance(exc, DaskError), repr(exc)
    line = str(exc)
    assert line.startswith(f"{relay.address}: the Dask scheduler did not answer within {BOUND} s (")
    assert "\n" not in line


def test_a_scheduler_silent_while_matches_are_awaited_stops_the_run_and_keeps_what_is_recorded(
        tmp_path: Path, relay: Relay) -> None:
    cfg = parse_config({"name": "silent", "seeds": 30, "hands": 2, "store": "s.sqlite",
                        "bots": [{"name": n, "builtin": b} for n, b in (("g", "greedy"), ("r", "random"),
                                                                         ("d", "drawdiscard"))]})
    p = plan(cfg, tmp_path)
    executor = dask_executor(relay.address, p, workers=1, connect_timeout=BOUND)
    recorded: list[str] = []

    def on_match(rec: Any) -> None:
        recorded.append(rec.id)
        if len(recorded) == 1:
            relay.freeze()

    try:
        exc = one_error(within_guard(lambda: trio.run(lambda: execute(p, concurrency=1, executor=executor,
                                                                      on_match=on_match))))
    finally:
        assert within_guard(executor.shutdown) is None  # and shutting down does not wait for it either
    assert isinstance(exc, NoAnswer), repr(exc)
    assert str(exc).startswith(f"{relay.address}: the Dask scheduler did not answer within {BOUND} s (")
    with sqlite3.connect(p.store_path) as con:
        kept = [r[0] for r in con.execute("SELECT id FROM matches")]
    assert kept and set(kept) == set(recorded) and len(kept) < len(p.schedule)


@pytest.mark.slow
def test_the_tournament_command_says_so_in_one_line_with_what_it_kept(tmp_path: Path, relay: Relay) -> None:
    """As a user meets it: exit status 2, one line naming the address and the matches kept (the connection's
    default time, 10 s, bounds each question)."""
    (tmp_path / "t.toml").write_text('name = "silent"\nseeds = 60\nhands = 2\nstore = "s.sqlite"\n'
                                     '[[bots]]\nname = "g"\nbuiltin = "greedy"\n[[bots]]\nname = "r"\n'
                                     'builtin = "random"\n[[bots]]\nname = "d"\nbuiltin = "drawdiscard"\n')
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "tournament", "t.toml", "--dask", relay.address,
                             "--quiet"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        store = tmp_path / "s.sqlite"
        while proc.poll() is None:  # the first match recorded: the scheduler goes silent
            if store.exists():
                with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(store)) as con:
                    if con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]:
                        relay.freeze()
                        break
            time.sleep(0.02)
        _, err = proc.communicate(timeout=HANG)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert relay.frozen.is_set(), err
    with contextlib.closing(sqlite3.connect(store)) as con:
        kept = con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    assert proc.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"mjref tournament: NoAnswer: {relay.address}: the Dask scheduler did not answer "
                               "within 10 s (")
    assert re.search(rf"running\?\); {kept} of \d+ match(es)? (is|are) recorded in ", lines[0]), lines[0]
