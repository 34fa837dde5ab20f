"""Run a built-in policy as an ICGA protocol executable: server lines on stdin, answers on stdout.

This is the reference client, and the example bot authors copy::

    python -m bots.greedy [--seed N] [--keep-alive] [--chowness 0.3 ...]

The loop reads one line at a time, parses it with ``wrappers.codec.parse_server_line`` and folds every event
into a ``SeatView``, exactly as ``BuiltinSeat`` does in-process.  On ``/ask <kind>`` it computes
``view.legal(kind)`` and prints ``codec.format_answer(policy.decide(view, kind, legal))``, flushed at once.

* A hand begins at ``/start MJ <pos> …`` (or at an ``/initGame`` that is not preceded by ``/start`` in that
  hand): a fresh view for position ``pos``.
* ``/exit …`` ends the hand; the process exits with status 0, unless ``--keep-alive``, in which case it waits
  for the next ``/start``.  End of input also exits 0.
* A line that does not parse, or an event the view cannot fold, is reported on stderr and skipped.  An
  ``/ask`` before any hand started is answered ``/pass`` (or with nothing sensible possible, a warning) so the
  referee's clock is never left running.

Seeding: ``policy.start_hand(seed, hand, position)`` at each hand's ``/initGame``, with ``seed`` from
``--seed`` (default 0) and ``hand = 4 * round + game`` (+ 16 for each full 16 hands a keep-alive process has
already played), where round and game are the indices (EAST 0 … NORTH 3) of ``/initGame``'s two winds.  That is
the match's own hand index, so a process bot started with the match seed makes the same choices as the same
policy in-process (``mjref refeed`` relies on it), whether it lives for one hand or the whole match.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bots.base import BasePolicy, make_policy, pick, policy_class
from referee.game.tiles import WINDS_IN_ORDER
from referee.game.types import PASS, TYPE_CHECKING, Event, Exit, InitGame
from referee.game.view import SeatView, new_view
from wrappers.codec import Ask, ProtocolError, Start, format_answer, parse_server_line

if TYPE_CHECKING:  # ``typing`` is no part of a bot's start (see ``referee.game.kinds``)
    import argparse
    from typing import TextIO

DEFAULT_SEED = 0  # --seed when not given



def build_parser(name: str) -> argparse.ArgumentParser:
    import argparse  # only when options are given: a bot started without any does not pay for it (see main)

    from referee.numbers import float_arg, int_arg

    cls = policy_class(name)
    parser = argparse.ArgumentParser(
        prog=f"python -m bots.{name}",
        description=f"The built-in '{name}' bot as an ICGA protocol executable (stdin/stdout).",
    )
    parser.add_argument(
        "--seed", type=int_arg, default=DEFAULT_SEED, help=f"seed for the bot's choices (default {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--keep-alive", action="store_true", help="stay up after /exit and play the next hand's /start"
    )
    for key, default in cls.PARAMS.items():
        parser.add_argument(
            f"--{key}",
            type=float_arg,
            default=None,
            metavar="X",
            help=f"personality weight 0..1 (default {default:g})",
        )
    return parser


def _log(err: TextIO, message: str) -> None:
    print(f"[bot] {message}", file=err, flush=True)


class Runner:
    """The protocol loop for one policy; separated from ``main`` so that tests can drive it with strings."""

    def __init__(
        self,
        policy: BasePolicy,
        *,
        seed: int = 0,
        keep_alive: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.policy = policy
        self.seed = seed
        self.keep_alive = keep_alive
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.position = 0
        self.view: SeatView | None = None
        self.hands_played = 0
        self.in_hand = False

    def _begin(self, position: int) -> None:
        self.position = position
        self.view = new_view(position)
        self.in_hand = True

    def _answer(self, kind: str) -> None:
        view = self.view
        if view is None:
            _log(self.err, f"/ask {kind} before any hand started: answering /pass")
            line = format_answer(PASS)
        elif not (legal := view.legal(kind)):
            _log(self.err, f"/ask {kind} with no legal answer (no tiles in hand?): answering /pass")
            line = format_answer(PASS)
        else:
            try:
                answer = self.policy.decide(view, kind, legal)
                if answer not in legal:
                    _log(
                        self.err, f"{self.policy.name} answered {answer} to /ask {kind}, not legal; replaced"
                    )
                    answer = pick(legal, None)
            except Exception as exc:  # noqa: BLE001  (a bug in a policy must not cost the seat its hand)
                _log(self.err, f"{self.policy.name} failed on /ask {kind}: {exc!r}")
                answer = pick(legal, None)
            line = format_answer(answer)
        self.out.write(line + "\n")
        self.out.flush()

    def _event(self, e: Event) -> bool:
        """Fold one event; True when the process should exit now."""
        if isinstance(e, InitGame):
            if not self.in_hand:
                _log(self.err, f"/initGame without /start: keeping position {self.position or 1}")
                self._begin(self.position or 1)
            try:
                number = 4 * WINDS_IN_ORDER.index(e.round_wind) + WINDS_IN_ORDER.index(e.hand_wind)
            except ValueError:
                number = 0
            self.policy.start_hand(self.seed, 16 * (self.hands_played // 16) + number, self.position)
        if self.view is None:
            _log(self.err, f"{type(e).__name__} before any hand started: ignored")
            return isinstance(e, Exit) and not self.keep_alive
        try:
            self.view.apply(e)
        except Exception as exc:  # noqa: BLE001  (an inconsistent line must not end the process)
            _log(self.err, f"could not fold {type(e).__name__}: {exc!r}")
        if isinstance(e, Exit):
            self.in_hand = False
            self.hands_played += 1
            return not self.keep_alive
        return False

    def feed(self, line: str) -> bool:
        """Handle one server line; True when the process should exit now."""
        if not line.strip():
            return False
        try:
            msg = parse_server_line(line, seat=self.position)
        except ProtocolError as exc:
            _log(self.err, f"bad line skipped: {exc.reason}")
            return False
        if isinstance(msg, Start):
            if self.in_hand:
                _log(self.err, "/start inside a hand: starting over")
            self._begin(msg.position)
            return False
        if isinstance(msg, Ask):
            self._answer(msg.kind)
            return False
        return self._event(msg)

    def run(self, stdin: TextIO) -> int:
        while True:
            line = stdin.readline()
            if not line:
                return 0
            if self.feed(line):
                return 0


def main(
    name: str,
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """``python -m bots.<name>``: parse the options, run the protocol loop until ``/exit`` or end of input.

    Without any option (the usual start of a per-hand bot) the parser is not even built: every option is at its
    default, and ``argparse`` is a noticeable part of a bot process's start."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args:
        parser = build_parser(name)
        options = parser.parse_args(args)
        params = {k: getattr(options, k) for k in policy_class(name).PARAMS if getattr(options, k) is not None}
        spec = name + (":" + ",".join(f"{k}={v!r}" for k, v in params.items()) if params else "")
        try:
            policy = make_policy(spec)
        except ValueError as exc:
            parser.error(str(exc))
        seed, keep_alive = options.seed, options.keep_alive
    else:
        policy, seed, keep_alive = make_policy(name), DEFAULT_SEED, False
    runner = Runner(policy, seed=seed, keep_alive=keep_alive, out=stdout or sys.stdout, err=stderr or sys.stderr)
    try:
        return runner.run(stdin or sys.stdin)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


__all__ = ["Runner", "build_parser", "main"]
