"""mjref: a referee harness for Mahjong AI bots (ICGA protocol, Taiwan 16-tile rules)."""

__version__ = "0.1.0"

# ``typing.TYPE_CHECKING`` without importing ``typing``, for the modules a bot process imports (``import typing``
# pulls in ``re`` and ``enum``: see ``referee.game.kinds``).  Type checkers read any ``TYPE_CHECKING`` as true.
TYPE_CHECKING = False

# Ctrl-Cs noted (not raised) by ``mjref``'s own SIGINT handler while it starts (``referee.cli``), and, for commands
# that run under ``referee.shutdown.watching_signals`` (play, serve), until that takes the signals over and acts
# on them: a KeyboardInterrupt raised inside an import can be lost (Python ignores it in a module lock's callback).
INTERRUPTED_EARLY: list[int] = []
