"""mjref: a referee harness for Mahjong AI bots (ICGA protocol, Taiwan 16-tile rules)."""

__version__ = "0.1.0"

# ``typing.TYPE_CHECKING`` without importing ``typing``, for the modules a bot process imports (``import typing``
# pulls in ``re`` and ``enum``: see ``referee.game.kinds``).  Type checkers read any ``TYPE_CHECKING`` as true.
TYPE_CHECKING = False

# Ctrl-Cs noted (not raised) by ``mjref``'s own SIGINT handler while it starts (``referee.cli``), and, for commands
# that run under ``referee.shutdown.watching_signals`` (play, serve), until that takes the signals over and acts
# on them: a KeyboardInterrupt raised inside an import can be lost (Python ignores it in a module lock's callback).
INTERRUPTED_EARLY: list[int] = []


def note_interrupt(signum: int, frame: object) -> None:
    """``mjref``'s SIGINT handler while it starts: a Ctrl-C is noted, and acted on once its arguments are read
    (one line, exit 130).  Raised in the middle of an import, a KeyboardInterrupt (or any exception) became an
    ImportError of the module being imported (``PyCapsule_Import could not import module "_socket"``) and a
    traceback."""
    INTERRUPTED_EARLY.append(signum)


def _noting_interrupts() -> None:
    """In the ``mjref`` program only (not in a bot or a library user's process), and not where SIGINT is ignored:
    from here on, the first of mjref's lines that its console script runs, a Ctrl-C is noted.  (``_signal``, not
    ``signal``: the latter imports ``enum``, which a bot process importing this package should not pay for.)"""
    import sys

    if sys.argv and sys.argv[0].rsplit("/", 1)[-1] == "mjref":
        import _signal

        if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
            _signal.signal(_signal.SIGINT, note_interrupt)


_noting_interrupts()
