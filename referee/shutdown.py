"""Stopping on a signal: SIGINT, SIGTERM and SIGHUP all end a match or a tournament the same orderly way.

Without this, SIGTERM or SIGHUP ended the referee at once: a hung bot kept running with PPID 1 and the log held
only its header.  Now :func:`watching_signals` receives the three signals (``trio.open_signal_receiver``) into a
:class:`Shutdown`, which cancels only the scopes that *play* (the hands of a match, a built-in match waiting in a
worker pool), never the nursery that holds the bot processes: so each seat is then closed the way a match ends a
bot (``/exit``, end of input, a grace, SIGTERM and SIGKILL of its group), the match log gets its ``aborted``
record, and a tournament records nothing it did not finish.  The caller then raises :class:`Interrupted`, which
``mjref`` turns into exit status 128 + the signal's number (130 for Ctrl-C).
"""

from __future__ import annotations

import signal
import threading
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from referee import INTERRUPTED_EARLY

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """The referee was stopped by a signal after an orderly shutdown (a KeyboardInterrupt, as Ctrl-C always was)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class Shutdown:
    """Which stop signal came (``signum``), and the cancel scopes it cancels when one does."""

    def __init__(self) -> None:
        self.signum: int | None = None
        # Weak: a scope is held only while its owner holds it.  A list pruned of cancelled scopes kept every scope
        # that ended normally: one per match, a tournament of 100,000 matches held 100,000 (some 11 MB).
        self._scopes: weakref.WeakSet[trio.CancelScope] = weakref.WeakSet()

    @property
    def stopped(self) -> bool:
        return self.signum is not None

    @property
    def reason(self) -> str | None:
        return None if self.signum is None else signal_name(self.signum)

    def scope(self) -> trio.CancelScope:
        """A cancel scope that a stop cancels (at once, when the stop came already)."""
        scope = trio.CancelScope()
        if self.stopped:
            scope.cancel()
        self._scopes.add(scope)
        return scope

    def stop(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        for scope in list(self._scopes):
            scope.cancel()

    def raise_if_stopped(self) -> None:
        if self.signum is not None:
            raise Interrupted(self.signum)

    async def watch(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Receive the stop signals until cancelled (only in the main thread, as Python's signals allow)."""
        with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
            task_status.started()
            async for batch in signals:
                self.stop(batch)


@asynccontextmanager
async def watching_signals(shutdown: Shutdown | None = None) -> AsyncIterator[Shutdown]:
    """A :class:`Shutdown` fed by SIGINT, SIGTERM and SIGHUP while the block runs (in the main thread; elsewhere it
    never stops by itself).  ``shutdown``: the one to feed (its owner may also stop it: a closed stdout stops a
    run as SIGPIPE, ``referee.commands.make_console``); default a new one."""
    shutdown = shutdown if shutdown is not None else Shutdown()
    if threading.current_thread() is not threading.main_thread():
        yield shutdown
        return
    async with trio.open_nursery() as nursery:
        await nursery.start(shutdown.watch)
        if INTERRUPTED_EARLY:  # a Ctrl-C noted before the signals were ours (referee.cli)
            shutdown.stop(INTERRUPTED_EARLY[0])
        try:
            yield shutdown
        finally:
            nursery.cancel_scope.cancel()


__all__ = ["STOP_SIGNALS", "Interrupted", "Shutdown", "signal_name", "watching_signals"]
