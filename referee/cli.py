"""The ``mjref`` command: a thin face over the library.  Each subcommand lives in ``referee/commands/``.

Commands are registered in one explicit table, :data:`COMMANDS`; a command's module is imported only when that
command runs (or prints its own ``--help``), so that ``mjref --version`` or ``mjref standings`` does not pay for
importing the match referee, the sequential test and the server.  A registered module that is missing fails loudly:
when its command runs (a traceback: a bug) and in ``tests/cli/test_cli.py``, which imports every one.
"""

from __future__ import annotations

import signal
import sys

from referee import INTERRUPTED_EARLY as _INTERRUPTED  # a Ctrl-C that came while mjref started
from referee import note_interrupt

# ``python -m referee.cli``: the package could not tell it was mjref (``mjref`` itself noted Ctrl-C from its start).
if __name__ == "__main__" and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, note_interrupt)

import argparse
import importlib
from collections.abc import Collection, Sequence
from typing import Any, NoReturn

from . import __version__
from .errors import USAGE_ERROR, MjrefError, printable

# Every subcommand, in the order ``mjref --help`` lists them: name -> (its module, its one-line help).  The help is
# written here only: the module's ``register(sub, name, summary)`` is handed it.
COMMANDS: dict[str, tuple[str, str]] = {
    "match": ("referee.commands.match", "play one match between up to four bots (missing seats get greedy)"),
    "play": ("referee.commands.play", "play a match yourself against up to three bots, in the browser"),
    "serve": ("referee.commands.serve",
              "referee a match or tournament whose remote seats are played by wrappers logging in (mjref connect)"),
    "connect": ("referee.commands.connect", "play a seat of a served match (mjref serve) with a bot on this machine"),
    "tournament": ("referee.commands.tournament",
                   "run or resume a tournament: a file, or bots named on the command line (nothing: a demo)"),
    "league": ("referee.commands.league",
               "run a league: bots play continuously, each next table chosen to learn the most, rated as they go"),
    "submit": ("referee.commands.submit",
               "submit a bot (a folder or archive) to a running league; it enters if its check passes"),
    "standings": ("referee.commands.standings",
                  "standings of a results store: points per hand with 95%% intervals, ranks, rates, head-to-head"),
    "regress": ("referee.commands.regress",
                "regression test for CI: is the candidate weaker than the baseline? (SPRT on duplicate deals)"),
    "replay": ("referee.commands.replay",
               "verify a match log by replaying it through the engine; show hands, moves and scoring"),
    "transcript": ("referee.commands.transcript",
                   "the exact protocol lines one seat received and sent in a logged match, with answer times"),
    "refeed": ("referee.commands.refeed",
               "run a bot through the recorded hands of a log in one seat; report the first answer that differs"),
    "check": ("referee.commands.check",
              "protocol conformance suite: one crafted situation per question; pass or fail per scenario"),
    "view": ("referee.commands.view",
             "write a match log's viewer: one self-contained HTML page (step through every hand, face up)"),
    "report": ("referee.commands.report",
               "write a tournament's report: one self-contained HTML page with standings, charts and head-to-head"),
    "score": ("referee.commands.score", "score a winning hand (tai items, arrangement, payments)"),
    "schema": ("referee.commands.schema",
               "print the JSON Schema of the log, tournament file, ruleset or network messages"),
}


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``mjref check: the following arguments are required: BOT``), like
    every other bad input, instead of the usage block and a second line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # No abbreviations: ``mjref tournament … --seed 3`` (match's option) was read as --seeds 3 without a word.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: {printable(message)} (see {self.prog} --help)\n")


def add_command(sub: Any, name: str) -> None:
    """Import command ``name``'s module and add its parser, with its options, to the subparsers ``sub``."""
    module, summary = COMMANDS[name]
    importlib.import_module(module).register(sub, name, summary)


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``mjref`` parser, listing every command with its help.  The options of ``commands`` (default: all) are
    registered by their modules; any other command is only named (its module is not imported)."""
    parser = Parser(
        prog="mjref",
        description="A referee harness for Mahjong AI bots (ICGA protocol, Taiwan 16-tile rules).",
    )
    parser.add_argument("--version", action="version", version=f"mjref {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, summary) in COMMANDS.items():
        if commands is None or name in commands:
            add_command(sub, name)
        else:
            sub.add_parser(name, help=summary)
    return parser


PIPE_CLOSED = 141  # 128 + SIGPIPE: the reader of stdout went away (``| head``), as a killed ``git log`` says


def main(argv: Sequence[str] | None = None) -> int:
    """``mjref``: its exit status.  A Ctrl-C at any moment (also while the command's modules are imported, before
    the command watches for it) ends it with exit status 130 and one line, never a traceback; a closed stdout
    with 141 and no word."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("mjref: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _pipe_closed()


def _pipe_closed() -> int:
    from .commands import to_null  # here: startup stays light

    to_null(sys.stdout)  # what is still buffered goes nowhere, without "Exception ignored" at exit
    return PIPE_CLOSED


def _command_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The parser of ``command`` (``mjref match``), or ``mjref``'s own."""
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)  # noqa: SLF001
    if command is None or sub is None or command not in sub.choices:
        return parser
    return sub.choices[command]  # type: ignore[no-any-return]


# Commands whose whole run is under ``referee.shutdown.watching_signals``: mjref's starting handler stays theirs
# (a Ctrl-C is noted, never raised) until that takes the signals over and acts on one noted before.
_SIGNALS_IN_TRIO = ("play", "serve")


def _main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The command is the first word that is not an option (mjref's own options, --help and --version, take no value).
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser([command] if command in COMMANDS else [])
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # said by the command's own parser: "mjref match: unrecognized arguments: --frob"
            _command_parser(parser, getattr(args, "command", None)).error(
                f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:
        if not exc.code:  # --help, --version
            raise
        return int(exc.code) if isinstance(exc.code, int) else USAGE_ERROR  # said in one line by Parser.error
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if _INTERRUPTED:  # Ctrl-C while starting: nothing was done yet
        raise KeyboardInterrupt
    if signal.getsignal(signal.SIGINT) is note_interrupt and \
            getattr(args, "command", None) not in _SIGNALS_IN_TRIO:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # what trio and the commands expect
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return _pipe_closed()
    except BaseException as exc:  # a Ctrl-C or a user error may arrive wrapped in a trio exception group
        from .aio import is_interrupt, leaves  # here: startup stays light
        from .shutdown import Interrupted

        if is_interrupt(exc):
            stop = next((e for e in leaves(exc) if isinstance(e, Interrupted)), None)
            print(f"mjref: interrupted{f' ({stop})' if stop is not None else ''}", file=sys.stderr)
            return stop.exit_status if stop is not None else 130
        found = leaves(exc) or [exc]
        if all(isinstance(e, BrokenPipeError) for e in found):
            return _pipe_closed()
        if all(isinstance(e, MjrefError) for e in found):  # bad input: one line, exit 2; anything else is a bug
            print(f"mjref {args.command}: {printable(found[0])}", file=sys.stderr)
            return USAGE_ERROR
        raise


if __name__ == "__main__":
    sys.exit(main())
