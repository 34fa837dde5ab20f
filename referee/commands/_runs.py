"""What the long runs share (``mjref tournament`` and ``mjref regress``): matches played into a store, on a Dask
cluster if asked, with a live view on a terminal (or a line now and then into a file or pipe), stopped in order by
a signal or a failed match, with one line saying what the store keeps and how to resume.

Each command says only what differs: its plan, its executor, its view and its output.
"""

from __future__ import annotations

import argparse
import functools
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import trio
from rich.console import Console, RenderableType
from rich.live import Live

from referee.commands import fail, make_console, stopped
from referee.errors import InputError, MjrefError
from referee.shutdown import Shutdown

T = TypeVar("T")
Command = Callable[[argparse.Namespace], int]


def bad_input_exits_2(command: str) -> Callable[[Command], Command]:
    """A long run's ``run``: bad rules, bots, settings, a bad store or cluster (:class:`MjrefError`) said in one line
    with exit status 2 by the command itself (as ``mjref``'s main would), also when it is called directly."""

    def wrap(run: Command) -> Command:
        @functools.wraps(run)
        def checked(args: argparse.Namespace) -> int:
            try:
                return run(args)
            except MjrefError as exc:
                return fail(command, str(exc))

        return checked

    return wrap


class RunStopped(Exception):  # noqa: N818 - not an error: the run ended early, in order
    """The run was stopped (a signal, a failed match): ``status`` is the command's exit status, already said."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def dask_address(text: str) -> str:
    """The value of ``--dask``: an address or ``local``; an empty one is refused (it was taken as no Dask at all,
    and the run played on this machine without a word)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give a Dask scheduler's address (tcp://host:8786) or 'local'")
    return text


def open_dask(address: str | None, opener: Callable[[Any, str], Any]) -> Any:
    """None without an address; else the executor ``opener(tournaments.distributed, address)`` opens.  Without
    Dask installed, or with a cluster that cannot be used (``DaskError``), an :class:`InputError` in one line."""
    if not address:
        return None
    try:
        from tournaments import distributed
    except ImportError:
        raise InputError("--dask needs Dask: pip install 'mjref[dask]'") from None
    return opener(distributed, address)


def check_dask(address: str | None) -> None:
    """Refuse a ``--dask`` address that cannot be used (Dask missing, an address it cannot read or reach) before
    ``--restart`` discards a store's results: they are discarded when the run is planned, before the cluster opens."""
    open_dask(address, lambda d, a: d.check_address(a))


class LongRun:
    """One long run's console and progress.  ``render``: the live view on a terminal; ``line``: what is printed
    instead, at most every ``every`` seconds (and at the end), when the output is a file or a pipe; ``show``
    False (``--quiet``, ``--json``): neither."""

    def __init__(self, command: str, *, json: bool, quiet: bool, render: Callable[[], RenderableType],
                 line: Callable[[], RenderableType], every: float, live: bool = True) -> None:
        self.command = command
        # A closed stdout (``| head``) stops the run in order, as SIGPIPE would: what is finished stays recorded.
        self.shutdown = Shutdown()
        self.console: Console = make_console(stderr=json, on_closed=lambda: self.shutdown.stop(signal.SIGPIPE))
        self.show = not (quiet or json)
        self.live = live  # False: the command prints its own lines (``mjref tournament --lines``)
        self._render = render
        self._line = line
        self._every = every
        self._last = float("-inf")  # the first progress is printed at once
        self._printed = False  # the last progress is on screen (a line printed at the end needs no repeat)
        self._live: Live | None = None
        self.elapsed = 0.0

    def say(self, text: str, **kwargs: Any) -> None:
        """A line before the run, unless only the verdict or the JSON is wanted."""
        if self.show:
            self.console.print(text, **kwargs)

    def update(self, *, final: bool = False) -> None:
        """Progress was made: the live view redrawn, or a line printed when it is time (``final``: always)."""
        if self._live is not None:
            self._live.update(self._render())
        elif self.show:
            now = time.monotonic()
            self._printed = False
            if final or now - self._last >= self._every:
                self._last = now
                self._printed = True
                self.console.print(self._line())

    def finish_line(self) -> None:
        """Without a live view, the last progress line, unless it was just printed."""
        if self.show and self.live and self._live is None and not self._printed:
            self.console.print(self._line())

    def play(self, main: Callable[[], Awaitable[T]], *, executor: Any, recorded: Callable[[], str]) -> T:
        """Run ``main`` in trio under the live view; the executor is shut down whatever happens.  A stop (Ctrl-C,
        SIGTERM, SIGHUP) or a failure such as a lost worker is said in one line with what the store keeps
        (``recorded()``: "N matches are recorded in STORE") and raises :class:`RunStopped` with the exit status."""
        if self.show and self.live and self.console.is_terminal:
            self._live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False)
            self._live.start()
        started = time.monotonic()
        try:
            return trio.run(main)
        except BaseException as exc:  # noqa: BLE001 - Ctrl-C, or a failed match (e.g. on a cluster): keep the results
            self._stop_live()
            raise RunStopped(stopped(self.command, exc, recorded())) from None
        finally:
            self.elapsed = time.monotonic() - started
            self._stop_live()
            if executor is not None:
                executor.shutdown()

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
