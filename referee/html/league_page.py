"""The league's page (``mjref league --listen``): live standings (rating ± sigma, points per hand ± interval, matches,
faults) and the latest matches, redrawn from ``/api/standings`` and ``/api/matches`` every few seconds.

DOM contract (the browser test relies on it; docs/league.md lists it): ``#standings-body`` holds one
``tr[data-bot]`` per bot, best first; ``#matches-body`` one ``tr[data-match]`` per recent match, newest first;
``body[data-state]`` is ``loading``, ``live`` or ``away`` (the league cannot be reached); ``#entries-body`` one
``tr[data-entry]`` per submitted entry (a ``button.retire`` on each that is not retired or refused);
``#submit-form`` (``#token``, ``#bot-name``, ``#archive``) submits, and ``#submit-result`` (``data-outcome``
``accepted``, ``refused`` or ``error``) shows the answer and then the check's report.
"""

from __future__ import annotations

from importlib import resources

POLL_MS = 2000  # how often the page asks for the standings and the matches

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>league standings</title>
<link rel="stylesheet" href="/league.css">
<link rel="icon" href="data:,">
</head>
<body data-state="loading" data-poll="{poll}">
<h1 id="title">league</h1>
<div id="summary"></div>
<h2>Standings</h2>
<div class="scroll"><table id="standings">
<thead><tr><th>#</th><th class="name">bot</th><th title="Plackett-Luce rating, mu ± sigma">rating</th>
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


def page() -> str:
    return _PAGE.replace("{poll}", str(POLL_MS))


def script() -> str:
    return resources.files(__package__).joinpath("league.js").read_text(encoding="utf-8")


def style() -> str:
    return resources.files(__package__).joinpath("league.css").read_text(encoding="utf-8")
