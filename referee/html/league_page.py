"""The league's page (``mjref league --listen``): live standings (rating ± sigma, points per hand ± interval, matches,
faults) and the latest matches, redrawn from ``/api/standings`` and ``/api/matches`` every few seconds.

DOM contract (the browser test relies on it; docs/league.md lists it): ``#standings-body`` holds one
``tr[data-bot]`` per bot, best first; ``#matches-body`` one ``tr[data-match]`` per recent match, newest first;
``body[data-state]`` is ``loading``, ``live`` or ``away`` (the league cannot be reached); ``#entries-body`` one
``tr[data-entry]`` per submitted entry (a ``button.retire`` on each that is not retired or refused);
``#submit-form`` (``#token``, ``#bot-name``, ``#archive``) submits, and ``#submit-result`` (``data-outcome``
``accepted``, ``refused`` or ``error``) shows the answer and then the check's report.  Each standings row links to
the bot's page (``a.bot``) and draws its rating over time (``svg.spark``, ``data-points``); a remote bot's row has
``data-online`` (``yes`` or ``no``: whether its wrapper is logged in).
"""

from __future__ import annotations

from importlib import resources

POLL_MS = 2000  # how often the page asks for the standings and the matches

_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="/league.css">
<link rel="icon" href="data:,">
</head>
"""

_PAGE = """<body data-state="loading" data-poll="{poll}">
<h1 id="title">league</h1>
<div id="summary"></div>
<h2>Standings</h2>
<div class="scroll"><table id="standings">
<thead><tr><th>#</th><th class="name">bot</th><th title="Plackett-Luce rating, mu ± sigma">rating</th>
<th title="the rating (mu) over the bot's matches">trend</th>
<th title="points per hand ± 95% interval">points/hand</th><th>matches</th><th class="wide">hands</th>
<th class="wide">1st</th><th>faults</th></tr></thead>
<tbody id="standings-body"></tbody></table></div>
<p class="note">Ranked by rating minus three sigma. Points per hand ± a 95% interval clustered by table.</p>
<h2>Latest matches</h2>
<div class="scroll"><table id="matches">
<thead><tr><th class="name">match</th><th class="name">seats and points</th><th>faults</th>
<th class="wide">finished (UTC)</th></tr></thead>
<tbody id="matches-body"></tbody></table></div>
<h2>Entries</h2>
<div class="scroll"><table id="entries">
<thead><tr><th class="name">entry</th><th class="name">author</th><th>status</th><th>check</th><th></th></tr></thead>
<tbody id="entries-body"></tbody></table></div>
<h2>Submit a bot</h2>
<form id="submit-form" autocomplete="off">
<label>your token <input id="token" type="password" required></label>
<label>bot name <input id="bot-name" required pattern="[A-Za-z][A-Za-z0-9_-]{0,39}"></label>
<label>archive (tar, tar.gz or zip with bot.toml) <input id="archive" type="file" required></label>
<button id="submit" type="submit">Submit</button>
</form>
<pre id="submit-result"></pre>
<p id="status"></p>
<script src="/league.js"></script>
</body>
</html>
"""


_BOT_PAGE = """<body data-state="loading" data-poll="{poll}" data-page="bot">
<p class="back"><a href="/">all standings</a></p>
<h1 id="title">bot</h1>
<div id="summary"></div>
<h2>Rating over time</h2>
<div id="chart"></div>
<p class="note">The rating (mu) after each of the bot's matches, numbered in the league's order; the band is
± sigma.</p>
<h2>Head to head</h2>
<div class="scroll"><table id="h2h">
<thead><tr><th class="name">opponent</th><th title="this bot's points per hand minus the opponent's, ± 95% interval,
over the matches where both sat">points/hand difference</th><th>matches</th></tr></thead>
<tbody id="h2h-body"></tbody></table></div>
<h2>Versions</h2>
<div class="scroll"><table id="versions">
<thead><tr><th class="name">version</th><th class="name">author</th><th>status</th><th class="name">check</th>
<th class="wide">submitted (UTC)</th></tr></thead>
<tbody id="versions-body"></tbody></table></div>
<form id="report-form" autocomplete="off">
<label>your token (the author's or an organiser's) <input id="token" type="password" required></label>
<button id="show-reports" type="submit">Show the check reports</button>
</form>
<pre id="reports"></pre>
<p id="status"></p>
<script src="/league.js"></script>
</body>
</html>
"""
"""A bot's page (``/bot/NAME``): its rating over time (``#chart svg.chart``, ``data-points``), its head-to-head
(``#h2h-body tr[data-opponent]``), its versions (``#versions-body tr[data-entry]``) and, with its author's token,
their check reports (``#reports``), redrawn from ``/api/bots/NAME``.  The name is read from the address."""


def page() -> str:
    return _HEAD.replace("{title}", "league standings") + _PAGE.replace("{poll}", str(POLL_MS))


def bot_page() -> str:
    return _HEAD.replace("{title}", "bot") + _BOT_PAGE.replace("{poll}", str(POLL_MS))


def script() -> str:
    return resources.files(__package__).joinpath("league.js").read_text(encoding="utf-8")


def style() -> str:
    return resources.files(__package__).joinpath("league.css").read_text(encoding="utf-8")
