"""The tournament report's page: skeleton and CSS (the body is built by :mod:`tournaments.report`).

DOM contract (docs/viewer.md): ``#standings tbody tr.standing[data-bot][data-rank][data-mean]`` best first;
``#ci-chart .ci-row[data-bot]``; ``#distribution .hist[data-bot]``; ``#cumulative .line[data-bot][data-final]``;
``#h2h td[data-a][data-b]``; ``#fault-counts tr[data-bot][data-faults]``; ``#matches tr.match[data-id]`` with
``a.viewer`` when the viewers were written.
"""

from __future__ import annotations

from referee.html import html_text
from referee.html.viewer_page import fill

CSS = r"""
* { box-sizing: border-box; }
body { margin: 0; font-family: "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; font-size: 14px;
  color: #1d2722; background: #eef2ef; }
header { background: #173d2c; color: #f3f1e7; padding: 14px 22px; }
header h1 { margin: 0; font-size: 20px; }
header .sub { color: #b9c8bd; font-size: 12px; margin-top: 4px; }
main { max-width: 1180px; margin: 0 auto; padding: 16px; display: flex; flex-direction: column; gap: 16px; }
.card { background: #fff; border: 1px solid #d5ddd8; border-radius: 10px; padding: 14px 18px; overflow-x: auto; }
.card h2 { font-size: 16px; margin: 0 0 10px; color: #173d2c; }
table.grid { border-collapse: collapse; font-variant-numeric: tabular-nums; margin-bottom: 10px; }
table.grid th, table.grid td { padding: 4px 7px; text-align: right; border-bottom: 1px solid #e3e8e5;
  font-size: 13px; white-space: nowrap; }
table.grid th { background: #f3f6f4; font-weight: 600; }
table.grid .l { text-align: left; }
table.grid td.detail { white-space: normal; max-width: 480px; }
tr.dummy td { color: #7b8680; }
.tag { font-size: 10px; background: #e3e8e5; color: #555; border-radius: 4px; padding: 0 4px; margin-left: 4px; }
.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
.pos { color: #16803c; font-weight: 600; } .neg { color: #c0392b; font-weight: 600; }
#h2h td.pos { background: #e3f5e9; } #h2h td.neg { background: #fbe6e3; } #h2h td.flat { background: #f6f7f6; }
#h2h td.self, #h2h td.none { color: #9aa3a0; text-align: center; }
#h2h td small { color: #666; font-weight: normal; }
.notes, .note { color: #56615b; font-size: 12px; }
.notes { margin: 0 0 10px; padding-left: 18px; }
svg.chart { display: block; max-width: 100%; height: auto; margin-top: 6px; }
.seats .seat { margin-right: 10px; } .seats .seat.first { font-weight: 700; }
a.viewer { color: #1d4f91; font-weight: 600; }
code { font-size: 12px; background: #f3f6f4; padding: 0 3px; border-radius: 3px; }
details.fault-group { margin: 4px 0; }
details.fault-group summary { cursor: pointer; white-space: normal; }
@media (max-width: 600px) {
  header { padding: 10px 12px; }
  main { padding: 8px; gap: 10px; }
  .card { padding: 10px; }
  /* A chart keeps its own size and scrolls sideways in its card: shrunk to the screen, its labels were 5 px tall. */
  svg.chart { max-width: none; }
  /* A wide table scrolls sideways under its bot names, which stay: the columns past the fifth were out of reach
     of the eye (nothing said the table went on) and, scrolled to, no longer said whose they were. */
  #standings td.name, #standings th.l { position: sticky; left: 0; background: #fff; z-index: 1;
    box-shadow: 1px 0 0 #d5ddd8; }
  #standings th.l { background: #f3f6f4; }
  .card .scroll-note { display: block; }
}
.scroll-note { display: none; color: #56615b; font-size: 12px; margin: 0 0 6px; }
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>@@TITLE@@</title>
<style>@@CSS@@</style>
</head>
<body>
<header><h1>@@TITLE@@</h1><div class="sub">@@SUBTITLE@@</div></header>
<main>
@@BODY@@
</main>
</body>
</html>
"""


def render(*, title: str, subtitle: str, body: str) -> str:
    """``subtitle`` and ``body`` are HTML already (escaped by the caller); ``title`` is text."""
    return fill(_PAGE, {"TITLE": html_text(title), "SUBTITLE": subtitle, "CSS": CSS, "BODY": body})
