"""Page parts for the self-contained HTML pages (match viewer, tournament report).

Everything a page needs (CSS, JavaScript, SVG tile art) lives in Python modules as strings, so the pages are
written with no network, no package data and no template engine: :mod:`referee.viewer` and
:mod:`tournaments.report` fill the placeholders and inline the lot into one file that opens from disk.
"""

from __future__ import annotations

from html import escape

from referee.errors import printable


def html_text(text: object) -> str:
    """Text from a store, a log, a bot or a server, ready for a page (an element's text or an attribute's value):
    its control characters, bidi overrides and other unprintable characters shown escaped by ``printable`` (the one
    escaping, as on a terminal: ``\\x1b``, ``\\u202e``), then HTML-escaped (quotes too)."""
    return escape(printable(text))


__all__ = ["html_text"]
