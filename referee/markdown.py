"""The one escaping of text that mjref writes into markdown (``standings --format markdown``, ``regress
--markdown``): a bot's or a tournament's name, a command line, a path.  GitHub renders markdown with inline HTML,
links and images, so a name such as ``<img src=…>`` or ``![x](https://…)`` must reach the page as text.

For a terminal, text is made literal with ``rich.markup.escape`` or a ``rich.text.Text`` instead."""

from __future__ import annotations

import re

_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")  # markdown's own marks; a table cell ends at "|"
_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))  # "&" first: the others add one


def md_text(text: str) -> str:
    """``text`` shown literally in markdown, also in a table cell: no HTML, link, image, emphasis or cell break.
    Rendered, it reads as written; an ordinary name (letters, digits, ``-``, ``.``, ``:``, ``#``) is unchanged."""
    out = _PUNCTUATION.sub(r"\\\1", text)
    for raw, entity in _ENTITIES:
        out = out.replace(raw, entity)
    return " ".join(out.splitlines())  # one line: a newline would end the table row or the heading


def md_code(text: str) -> str:
    """``text`` as a markdown code span: fenced by more backticks than any run of them inside it (so that none
    ends it early), and padded with a space where it begins or ends with one."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{' '.join(text.splitlines())}{pad}{fence}"
