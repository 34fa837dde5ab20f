"""The subcommands of ``mjref``: each module has ``register(subparsers, name, summary)`` (``referee.cli`` holds the
table of names, modules and one-line helps) and stays a thin face over library calls.

A command's module is imported only when that command runs (or prints its ``--help``); this module, which every
command imports, imports only what every parser needs (rich, trio and the rules are imported where they are used)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from referee.aio import first_leaf, is_interrupt, leaves
from referee.errors import USAGE_ERROR, printable
from referee.numbers import is_float_text
from wrappers.sandbox import MODE_ENV, MODES

if TYPE_CHECKING:
    from rich.console import Console

    from referee.game.engine import WinRecord

PIPE_WIDTH = 160  # the width of tables written to a file or a pipe (a terminal's own width otherwise)


def make_console(*, stderr: bool = False, width: int = PIPE_WIDTH,
                 on_closed: Callable[[], None] | None = None) -> Console:
    """The one rich console of a command: a terminal's own width, or ``width`` when the output is a file or a
    pipe (rich would fold tables at 80 columns there).

    A closed pipe (``mjref match … | head -1``): the console goes quiet (what it writes goes to ``/dev/null``) and
    calls ``on_closed``, which stops the run in order as SIGPIPE would (``referee.shutdown``: a match's log ends
    with its ``aborted`` record); without ``on_closed`` it raises ``BrokenPipeError``, which ``mjref`` ends with
    exit status 141 and no traceback.  (rich's own answer was ``SystemExit(1)`` from inside the match: a traceback
    and a log cut short.)

    Text a user, a log, a store, a bot or a server controls (a bot's or a tournament's name, a path, a bot's line)
    is printed as written: ``Text(printable(x))`` where it fills a cell or a line, :func:`shown` where it sits in a
    string of our markup (a name ``evil[/]`` once ended a match with a ``MarkupError``; a name with ``\\x1b]8;;``
    once wrote a link on the terminal).  No emoji codes either: ``x:smile:``
    stays ``x:smile:``."""
    cls = _console_class()
    console = cls(highlight=False, emoji=False, stderr=stderr)
    if not console.is_terminal:
        console = cls(highlight=False, emoji=False, stderr=stderr, width=width)
    console.on_closed = on_closed
    return console


# How a hand was won (``WinRecord.how``), in the words the commands print.
HOW = {"self_draw": "self-draw", "throw": "on a throw", "robbed_gong": "robbing the gong", "flowers": "eight flowers"}


def score_words(w: WinRecord, *, none: str | None = "no items") -> str:
    """A win's score in words: Taiwan's tai with its items (``none`` when there are none: None leaves the
    brackets out), or a classical winner's points (its explanation is its own table)."""
    if w.score.unit != "tai":  # a classical winner's points (told by its unit: no import of the classical family)
        return f"{w.score.tai} {w.score.unit}"
    items = ", ".join(f"{i.key} {i.tai}" for i in w.score.items) or none
    return f"{w.score.tai} tai" + (f" ({items})" if items else "")


def shown(text: object) -> str:
    """Text from a log, a store, a bot or a server, ready to sit in a string of our rich markup: its control
    characters escaped by ``printable`` (the one escaping for a terminal), then every ``[`` that could open a tag
    escaped (``rich.markup.escape``): a name ``[link=https://x]evil`` or ``\\x1b]8;;…`` is shown as written."""
    from rich.markup import escape

    return escape(printable(text))


def _console_class() -> type[Console]:
    """rich's ``Console``, with :func:`make_console`'s answer to a closed pipe (made once, when first needed: rich
    is imported only by the commands that print with it)."""
    global _CONSOLE  # noqa: PLW0603 - a class made once
    if _CONSOLE is None:
        from rich.console import Console

        class PipeConsole(Console):
            on_closed: Callable[[], None] | None = None
            closed = False

            def render_str(self, text: str, **kwargs: Any) -> Any:
                """Every string this console shows passes here (a line, a table's cell, markup or not): a control
                character in it (a store path or a name from a file someone else wrote) is shown escaped, never
                obeyed."""
                return super().render_str(_lines_shown(text), **kwargs)

            def print(self, *objects: Any, **kwargs: Any) -> None:
                """A ``Text`` of one style (``Text(f"results in {path}")``) is not rendered from a string: its
                text is escaped here, as ``render_str`` escapes a string's."""
                from rich.text import Text

                super().print(*(Text(_lines_shown(o.plain), style=o.style, end=o.end)
                                if isinstance(o, Text) and not o.spans and not o.plain.isprintable() else o
                                for o in objects), **kwargs)

            def on_broken_pipe(self) -> None:
                self.quiet = True
                self.closed = True
                to_null(self.file)
                if self.on_closed is None:
                    raise BrokenPipeError(32, "the reader of the output went away")
                self.on_closed()

        _CONSOLE = PipeConsole
    return _CONSOLE


_CONSOLE: type[Console] | None = None


def _lines_shown(text: str) -> str:
    """``text`` with its control characters escaped as ``printable`` escapes them, line by line (a newline stays
    one, a tab is shown as ``\\t``)."""
    return text if text.isprintable() else "\n".join(printable(line) for line in text.split("\n"))


def to_null(stream: Any) -> None:
    """Point ``stream``'s file descriptor at ``/dev/null``, so that what is still written (a buffer flushed at exit)
    does not raise a second ``BrokenPipeError`` ("Exception ignored …" on stderr)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def fail(command: str, message: str) -> int:
    """Say why on one line, ``mjref COMMAND: message`` (escaped: ``printable``), on stderr; return the exit status
    for bad usage or input."""
    print(f"mjref {command}: {printable(message)}", file=sys.stderr)
    return USAGE_ERROR


class _SandboxAction(argparse.Action):
    """``--sandbox MODE``: the mode for every bot process of the run, handed down (also to local workers) as
    ``MJREF_SANDBOX``, which ``wrappers.sandbox`` reads; it wins over a bot's own ``sandbox``."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        os.environ[MODE_ENV] = str(values)
        setattr(namespace, self.dest, values)


def add_sandbox_option(p: argparse.ArgumentParser) -> None:
    """The one ``--sandbox`` option of every command that starts bot processes."""
    p.add_argument("--sandbox", choices=MODES, default=None, action=_SandboxAction,
                   help="box every bot process: auto (default: bubblewrap where it works, else none with a "
                   "warning), bwrap, or none; see docs/security.md")


def add_force_option(p: argparse.ArgumentParser, what: str) -> None:
    """The one ``--force`` option: without it, a command refuses to replace a file that exists (``what``: the
    options that name the files it would replace), so that a second run never destroys the first one's output."""
    p.add_argument("--force", action="store_true",
                   help=f"replace {what} if it exists (without --force an existing file is refused and left as it is)")


class _VerboseAction(argparse.Action):
    """``-v``: the debug log of every line in and out of each bot process played in this process, on stderr."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        log = logging.getLogger("mjref.protocol")
        if not log.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(relativeCreated)10.1f ms %(message)s"))
            log.addHandler(handler)
        log.setLevel(logging.DEBUG)
        setattr(namespace, self.dest, True)


def seconds_arg(text: str, *, example: str, least: float | None = None) -> float:
    """Seconds given on the command line: ASCII digits, above 0 (or at least ``least``) and at most
    ``MAX_SECONDS``, the bound of every time mjref is given (``example``: what the message suggests)."""
    from referee.game.match_options import MAX_SECONDS

    if not is_float_text(text):  # ASCII digits only: not "５" (referee.numbers)
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds{example}")
    value = float(text)
    low = value > 0 if least is None else value >= least
    if not (low and value <= MAX_SECONDS):  # also refuses nan (every comparison is false) and inf
        lowest = "above 0" if least is None else f"at least {least:g}"
        raise argparse.ArgumentTypeError(f"{text}: must be {lowest} and at most {MAX_SECONDS:g} seconds")
    return value


def timeout_seconds(text: str) -> float:
    """The value of ``--timeout``: seconds per question (the bounds of a bot file's ``timeout`` and of the
    ruleset's ``move_timeout``)."""
    return seconds_arg(text, example=" per question, e.g. 5")


def add_timeout_option(p: argparse.ArgumentParser, default: str = "the bot file's timeout, else the ruleset's "
                       "move_timeout, 10") -> None:
    """The one ``--timeout`` option of every command that plays bots: it wins over a bot file's ``timeout``, which
    wins over the ruleset's ``move_timeout`` (``wrappers.spec.seat_timeout``)."""
    p.add_argument("--timeout", type=timeout_seconds, default=None, metavar="SECONDS",
                   help=f"seconds per question for every bot, over a bot file's timeout (default: {default})")


def add_rules_options(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The one ``--rules NAME|FILE`` and ``--set OPTION=VALUE`` of every command that plays (match, play, serve,
    check, regress, a command-line tournament); ``referee.rulesets.playable_rules(args.rules, args.options,
    command)`` reads them (``rules_table`` for a tournament's ``[rules]``)."""
    p.add_argument("--rules", default=None, metavar="NAME|FILE",
                   help="the ruleset: taiwan16 (the default), classical or a preset of it (xmj, dmjl), an mj-server "
                   "option file or a TOML ruleset file; --set changes single options over it")
    p.add_argument("--set", dest="options", action="append", default=[], metavar="OPTION=VALUE",
                   help="a ruleset option (repeatable), e.g. --set flowers=true --set tai.dealer=2 (taiwan16), "
                   "--set SevenPairs=true (classical)")


def add_play_options(p: argparse.ArgumentParser) -> None:
    """The options of every command that starts bot processes: ``--sandbox`` and ``-v``."""
    add_sandbox_option(p)
    p.add_argument("-v", "--verbose", nargs=0, action=_VerboseAction, default=False,
                   help="log every line sent to and read from each bot process on stderr (seat, direction, line); "
                   "matches played in worker processes are not logged")


def stopped(command: str, exc: BaseException, recorded: str) -> int:
    """A long run (tournament, regression) ended by ``exc``: a Ctrl-C or another stop signal (exit 128 + its
    number: 130, 143 SIGTERM, 129 SIGHUP) or a failure such as a lost
    worker (exit 2), said in one line with what is kept (``recorded``: "N matches are recorded in STORE") and how
    to go on.  Anything else (SystemExit, a cancellation) is raised again."""
    from referee.shutdown import Interrupted

    if is_interrupt(exc):
        stop = next((e for e in leaves(exc) if isinstance(e, Interrupted)), None)
        by = f" by {stop}" if stop is not None else ""
        if stop is not None and stop.signum == signal.SIGPIPE:
            by += " (its output was closed)"
        print(f"\nmjref {command}: stopped{by}; {recorded}. Run the same command again to resume.", file=sys.stderr)
        return stop.exit_status if stop is not None else 130
    if not isinstance(exc, Exception):
        raise exc
    leaf = first_leaf(exc)
    print(f"mjref {command}: {type(leaf).__name__}: {printable(leaf)}; {recorded}. "
          "Run the same command again to resume.", file=sys.stderr)
    return USAGE_ERROR
