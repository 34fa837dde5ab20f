"""Page parts for the self-contained HTML pages (match viewer, tournament report).

Everything a page needs (CSS, JavaScript, SVG tile art) lives in Python modules as strings, so the pages are
written with no network, no package data and no template engine: :mod:`referee.viewer` and
:mod:`tournaments.report` fill the placeholders and inline the lot into one file that opens from disk.
"""
