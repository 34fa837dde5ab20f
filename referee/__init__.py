"""mjref: a referee harness for Mahjong AI bots (ICGA protocol, Taiwan 16-tile rules)."""

__version__ = "0.1.0"
