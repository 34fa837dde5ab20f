"""The ``mjref`` command: a thin face over the library.  Each subcommand lives in ``referee/commands/``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__
from .aio import is_interrupt, leaves
from .commands import (
    USAGE_ERROR,
    check,
    connect,
    match,
    play,
    refeed,
    regress,
    replay,
    report,
    schema,
    score,
    serve,
    standings,
    tournament,
    transcript,
    view,
)
from .errors import MjrefError, printable
from .shutdown import Interrupted

# Every subcommand, in the order ``mjref --help`` lists them: imported here, so that a missing or broken module
# fails at once, loudly, instead of a command silently gone from the CLI.
COMMANDS = (
    match,
    play,
    serve,
    connect,
    tournament,
    standings,
    regress,
    replay,
    transcript,
    refeed,
    check,
    view,
    report,
    score,
    schema,
)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``mjref check: the following arguments are required: BOT``), like
    every other bad input, instead of the usage block and a second line."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: {printable(message)} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="mjref",
        description="A referee harness for Mahjong AI bots (ICGA protocol, Taiwan 16-tile rules).",
    )
    parser.add_argument("--version", action="version", version=f"mjref {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        if not exc.code:  # --help, --version
            raise
        return int(exc.code) if isinstance(exc.code, int) else USAGE_ERROR  # said in one line by Parser.error
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except BaseException as exc:  # a Ctrl-C or a user error may arrive wrapped in a trio exception group
        if is_interrupt(exc):
            stop = next((e for e in leaves(exc) if isinstance(e, Interrupted)), None)
            print(f"mjref: interrupted{f' ({stop})' if stop is not None else ''}", file=sys.stderr)
            return stop.exit_status if stop is not None else 130
        found = leaves(exc) or [exc]
        if all(isinstance(e, MjrefError) for e in found):  # bad input: one line, exit 2; anything else is a bug
            print(f"mjref {args.command}: {printable(found[0])}", file=sys.stderr)
            return USAGE_ERROR
        raise


if __name__ == "__main__":
    sys.exit(main())
