"""The Chinese Classical family of rules, as the Unix Mah-Jong programs (``mj-server`` 1.11) play and score it.

One room of ``referee/game`` (DESIGN.md, round three): ``tiles`` (mj-server's tile codes), ``options`` (its
GameOptions as one pydantic model, and its option files), ``hand`` (a player's sets and concealed tiles, and
whether a tile completes them), ``scoring`` (every item of mj-server's explanation, doubles, limits, settlement)
and ``history`` (mj-server's hand histories read into typed records and replayed).  Pure and synchronous.
"""
