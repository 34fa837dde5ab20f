"""The words of the game as types: what a question asks, what an answer says, what a meld is, what a group of an
arrangement is.

They are ``typing.Literal`` aliases, and so need ``typing`` at run time, which a bot process should not pay for at
its start (``import typing`` pulls in ``re`` and ``enum``: some 20 ms of CPU on the development machine, more than
the rest of a bot's own imports).  So the modules on a bot's path (``referee.game.types``, ``analysis``,
``wrappers.codec``) import these names for type checking only; code that needs them at run time (the network
frames' pydantic models) imports them from here.
"""

from __future__ import annotations

from typing import Literal

AskKind = Literal["throw", "hu", "gong", "pong", "eat", "declare"]
# What a bot of the ICGA protocol is asked (``/ask KIND``); ``declare`` is asked only of a seat that declares its sets
# (an xmj client), never of a bot process, here or behind a wrapper
IcgaAsk = Literal["throw", "hu", "gong", "pong", "eat"]
ICGA_ASKS: tuple[str, ...] = IcgaAsk.__args__  # type: ignore[attr-defined]
AnswerKind = Literal["throw", "hu", "gong", "pong", "eat", "pass", "declare"]
MeldType = Literal["eat", "pong", "gong", "concealed_gong", "concealed_pong"]  # (the last: a robbed concealed gong)
GroupType = Literal["chow", "pung", "pair"]  # a group of an arrangement (``analysis.Group``)
