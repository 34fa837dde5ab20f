"""Score hands with Kajongg's own ``Hand`` class (Debian's ``kajongg``, only its scoring code): run by the system's
``/usr/bin/python3`` (which has Kajongg's dependencies), one JSON request a line on stdin, one JSON answer a line
on stdout.  A request: ``{"ruleset": "Classical Chinese DMJL", "seat": 0-3 (0 is East), "round": 0-3,
"winner": 0-3, "hand": "<a Kajongg hand string>"}``; the answer: ``{"total", "won", "rules"}``.  Used by
tests/classical/test_kajongg.py; not part of mjref."""

import json
import os
import sys

sys.path.insert(0, os.environ.get("KAJONGG_DIR", "/usr/share/kajongg"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from game import PlayingGame  # noqa: E402
from hand import Hand  # noqa: E402
from predefined import load  # noqa: E402
from rule import PredefinedRuleset  # noqa: E402
from wind import Wind  # noqa: E402

load()
RULESETS = {r.name: r for r in PredefinedRuleset.rulesets()}
GAMES = {}

for line in sys.stdin:
    req = json.loads(line)
    name = req["ruleset"]
    if name not in GAMES:
        GAMES[name] = PlayingGame([(w, "p" + w.char) for w in Wind.all4], RULESETS[name])
    game = GAMES[name]
    game.roundsFinished = req["round"]
    for i, w in enumerate(Wind.all4):
        game.players[i].wind = w
        game.players[i].handCache.clear()
    game.winner = game.players[req["winner"]]
    try:
        hand = Hand(game.players[req["seat"]], req["hand"])
    except Exception as e:  # noqa: BLE001 - reported to the test, which shows the hand
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)
        continue
    print(json.dumps({"total": hand.total(), "won": bool(hand.won), "rules": [str(r) for r in hand.usedRules]}),
          flush=True)
