"""The play page (``mjref play``, ``human:NAME``): a person's seat at the table, in the browser.

It is the match viewer's table, style and tile art (``viewer_page.CSS``, ``viewer_page.SHARED_JS``,
``tiles.symbol_defs``) with the person's seat at the bottom, plus ``play.css`` and ``play.js`` (plain files of this
package, no build step).  ``referee.pages`` serves it; the script logs in to the referee's WebSocket and shows what
the seat may see, and only the legal answers.

DOM contract (the browser test and users' scripts rely on it; docs/play.md lists it):

* ``#seat-N`` per seat as in the viewer (``#hand-N``, ``#melds-N``, ``#river-N``, ``#flowers-N``, ``#score-N``),
  placed ``pos-bottom`` for the person; ``body[data-position]`` the person's seat, ``body[data-state]``
  ``connecting``, ``waiting``, ``asked``, ``hand-over``, ``away`` (the stand-in plays), ``over`` or ``refused``.
* when asked: ``#answers`` holds one ``button.answer[data-line]`` per legal answer other than a throw (with
  ``data-kind`` eat, pong, gong, hu or pass); a throw is a click on ``#hand-N .tile.playable``; ``#countdown``
  (``data-seconds``) counts down the deadline; ``#prompt`` says what is asked.
* ``#winner-panel`` (``data-outcome`` win or draw) after a hand, as in the viewer; ``#wall-count``, ``#round-info``.
* keys: 1-9 the n-th answer button, H hu, P pong, G gong, E eat, Esc or X pass, D throw the drawn tile,
  ← → choose a tile and Enter throw it.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from referee.game.taiwan16.scoring import ITEM_TITLES

from .tiles import symbol_defs, tile_names
from .viewer_page import _SEAT, CSS, SHARED_JS, fill

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mjref: your seat</title>
<link rel="stylesheet" href="/play.css">
<link rel="icon" href="data:,">
</head>
<body data-state="connecting">
@@SYMBOLS@@
<header class="bar">
  <div><h1>mjref · your seat</h1><div class="sub" id="who">connecting…</div></div>
  <div class="controls"><span id="status" class="status" aria-live="polite">connecting…</span></div>
  <span class="keys">click a tile to throw · 1-9 answer · H hu · P pong · G gong · E eat · Esc pass · D throw the
    drawn tile · ← → Enter</span>
</header>
<main class="wrap">
  <section class="table" id="table">
    @@SEATS@@
    <div class="center">
      <div class="round" id="round-info"></div>
      <div><div class="label">wall · live tiles left</div><div id="wall-count">0</div></div>
      <div id="prompt" aria-live="assertive"></div>
      <div id="key-hint" aria-live="polite"></div>
      <div id="countdown" hidden></div>
    </div>
  </section>
  <aside class="side">
    <div class="card" id="answer-card"><h2>Your move</h2><div id="answers"></div></div>
    <div class="card" id="keep-open"><p>Keep this tab open until the match ends. While it is closed (or the connection
      is lost), a stand-in plays your seat to the end of each hand and you pay the fault penalty for that hand; you
      play again from the next hand once the page is back.</p></div>
    <div class="card" id="winner-panel" hidden></div>
    <div class="card"><h2>Scores</h2><div id="scores"></div></div>
    <div class="card"><h2>Table</h2><ul id="notes"></ul></div>
  </aside>
</main>
<script type="application/json" id="play-data">@@DATA@@</script>
<script src="/play.js"></script>
</body>
</html>
"""

_POSITIONS = {1: "bottom", 2: "right", 3: "top", 4: "left"}


def _asset(name: str) -> str:
    return resources.files("referee.html").joinpath(name).read_text(encoding="utf-8")


def _json_for_script(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(ws_port: int) -> str:
    """The HTML document: the table's skeleton, the tile symbols, and what the script needs (the WebSocket's port,
    tile names, tai item titles)."""
    seats = [_SEAT.format(pos=_POSITIONS[p], p=p, name=f"seat {p}", spec="", kind="") for p in (3, 4, 2, 1)]
    data = {"ws_port": ws_port, "tiles": tile_names(), "items": {k: list(v) for k, v in ITEM_TITLES.items()}}
    return fill(_PAGE, {"SYMBOLS": symbol_defs(), "SEATS": "\n    ".join(seats), "DATA": _json_for_script(data)})


def script() -> str:
    """The page's script: the shared tile and result code, then ``play.js``."""
    return SHARED_JS + _asset("play.js")


def style() -> str:
    """The viewer's style, then ``play.css``."""
    return CSS + _asset("play.css")


__all__ = ["page", "script", "style"]
