"""mjref: a referee harness for Mahjong AI bots (ICGA protocol, Taiwan 16-tile rules)."""

__version__ = "0.1.0"

# ``typing.TYPE_CHECKING`` without importing ``typing``, for the modules a bot process imports (``import typing``
# pulls in ``re`` and ``enum``: see ``referee.game.kinds``).  Type checkers read any ``TYPE_CHECKING`` as true.
TYPE_CHECKING = False
