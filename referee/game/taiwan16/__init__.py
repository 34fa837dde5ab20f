"""Taiwan 16-tile Mahjong as the ICGA framework plays it (docs/rules.md), mjref's default family.

* ``rules``: the ruleset (``Ruleset``: every option of docs/rules.md, the tai table as data; ``make_ruleset``);
* ``scoring``: a win's tai item by item, the settlement, and ``mjref score``'s requests;
* ``family``: ``TaiwanFamily``, what the engine asks of the family (``referee.game.family``).

What both families share stays in ``referee/game/``: tiles, the engine's loop, the legal answers of the ICGA
protocol (``options``), the seeded wall, hand analysis, a seat's view, and the match's own options
(``match_options``).  A third family is a folder beside this one and ``classical/``.
"""
