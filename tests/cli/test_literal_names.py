"""Text a user or a bot controls is shown as written: never read as rich console markup (a name ``mybot[v1]`` once
showed as ``mybot``, ``[reverse]BOT`` as ``BOT`` in reverse video, and a ``[/]`` in a bot's or a tournament's
name, or in a path, ended the command with a ``MarkupError``, a match mid-way with no ``final`` record), nor as
emoji codes, nor as markdown or HTML in ``standings --format markdown`` and ``regress --markdown``.

The commands run as real processes: with their output in a pipe (lines) and in a terminal (the live tables)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from referee.commands import regress as regress_command
from referee.game.rules import make_ruleset
from referee.markdown import md_code, md_text
from tournaments.regress import RegressSettings, RegressState
from tournaments.sprt import Sprt
from wrappers.spec import BotSpec


def test_markdown_text_and_code_spans_are_literal() -> None:
    assert md_text("plain-name.v2") == "plain-name.v2"
    assert md_text("a|b<c>&d") == "a\\|b&lt;c&gt;&amp;d"
    assert md_text("![x](http://x/t.png) *b* _c_ `d` ~e~ \\") == \
        "!\\[x\\](http://x/t.png) \\*b\\* \\_c\\_ \\`d\\` \\~e\\~ \\\\"
    assert md_code("builtin:greedy") == "`builtin:greedy`"
    assert md_code("a `b` c") == "``a `b` c``"
    assert md_code("`x") == "`` `x ``"


def test_the_regress_summary_quotes_a_command_line_as_code() -> None:
    """A candidate's command line is a code span in the CI summary: a backtick in it no longer ends the span and
    lets the rest (HTML, a link) render."""
    s = RegressSettings(BotSpec(name="greedy", builtin="greedy"), BotSpec(name="random", builtin="random"),
                        rules=make_ruleset({"hands": 4}), max_hands=400)
    r = replace(RegressState(s, Sprt(s.test)).result(), candidate="python bot.py `<img src=x>` |")
    md = regress_command.to_markdown(r, Path("runs/s.sqlite"))
    assert "| candidate | ``python bot.py `<img src=x>` \\|`` |" in md, md
