"""The match viewer: one self-contained HTML page that replays a match log, seen from above the table.

Why Python does the work: the log already holds every event with its audience (a spectator may see them all), so
folding the events here gives, for every step, each seat's concealed tiles, melds, throws, flowers, the wall count
and the action's text.  The page only draws those states; it never re-runs the rules.  Tests check the states
against the log (tiles conserved at every step, the throws in order, the winner's tai) and the page against the
states in a real browser.

The page embeds ``{"meta", "hands", "steps"}`` as JSON.  ``steps`` are delta-encoded (:func:`encode_steps`: the
first step of each hand is whole, later steps carry only what changed, per seat), which keeps a 16-hand match well
under 2 MB; the page expands them once on load (:func:`expand_steps` is the same algorithm in Python, for tests).

A full step (:func:`build_match`) has:

``h`` hand index (0-based) · ``k`` kind (``deal``, ``mo``, ``flower``, ``throw``, ``eat``, ``pong``, ``gong``,
``fault``, ``end``) · ``a`` the action text · ``s`` the seat acting (0: none) · ``x`` the tile to highlight (0: none)
· ``t`` the seat to move (0: none) · ``w`` tiles left in the wall (dead wall included) · ``c`` concealed tiles per
seat, ascending, without ``d`` · ``d`` per seat the tile just drawn (or won), shown apart, 0 if none · ``m`` melds
per seat (``{"k": type, "t": tiles, "c": claimed tile or 0, "f": seat claimed from or 0}``) · ``r`` throws per
seat in order, a claimed throw as its negative TID · ``f`` flowers per seat · ``z`` running totals · ``e`` 1 at a
hand's end.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from referee.errors import InputError
from referee.game.family import rules_from_dump
from referee.game.taiwan16.scoring import ITEM_TITLES
from referee.game.tiles import name
from referee.html import viewer_page
from referee.html.tiles import symbol_defs, tile_names
from referee.log import (
    AnswerRecord,
    EventRecord,
    FaultRecord,
    FinalRecord,
    HandRecord,
    HeaderRecord,
    ResultRecord,
    open_log,
)

__all__ = ["ViewerError", "build_match", "encode_steps", "expand_steps", "render_viewer", "write_viewer"]

SEATWISE = ("c", "m", "r", "f")  # per-seat lists, delta-encoded seat by seat
STATE_KEYS = ("h", "t", "w", "c", "d", "m", "r", "f", "z")  # carried from step to step
STEP_DEFAULTS: dict[str, Any] = {"s": 0, "x": 0, "e": 0}  # per-step values, left out when default
HOW = {"self_draw": "by self-draw", "throw": "on a throw", "robbed_gong": "by robbing the gong",
       "flowers": "with eight flowers"}
GONG_WORDS = {0: "concealed", 1: "promoted", 4: "melded"}


class ViewerError(InputError):
    """A file the viewer cannot show (missing, unreadable, not a match log); the message names it."""


# ---------------------------------------------------------------------------------------------------- reading
def _records(path: Path) -> list[BaseModel]:
    """The header and every complete record (a log cut off half-way shows up to its last whole record)."""
    log = open_log(path)
    return [log.header, *(rec for _number, rec in log.records(strict=False))]


class _Fold:
    """Folds one hand's records into spectator states, appending one step per visible action."""

    def __init__(self, hand: HandRecord, names: Sequence[str], totals: list[int], steps: list[dict[str, Any]],
                 deal: int = 16):
        self.hand = hand
        self.names = names
        self.steps = steps
        self.totals = list(totals)
        self.c: list[list[int]] = [[], [], [], []]
        self.d = [0, 0, 0, 0]
        self.m: list[list[dict[str, Any]]] = [[], [], [], []]
        self.r: list[list[int]] = [[], [], [], []]
        self.f: list[list[int]] = [[], [], [], []]
        self.deal = deal  # tiles dealt to a seat: 16 (Taiwan), 13 (classical); the dealer one more
        self.w = len(hand.wall) - (4 * deal + 1)
        self.turn = hand.dealer
        self.dealt = 0
        self.last_throw: tuple[int, int] | None = None  # (seat, tile) of the throw that may still be claimed
        # (seat, tile) of the gong that may be robbed: a promoted gong's added tile, or a concealed gong's tile the
        # engine offers (classical: for the Thirteen Unique Wonders)
        self.robbable: tuple[int, int] | None = None
        self.hus: list[tuple[int, int]] = []
        self.faults: list[dict[str, Any]] = []

    # ---------------------------------------------------------------------------------------------- helpers
    def who(self, seat: int) -> str:
        return f"{seat} {self.names[seat - 1]}"

    def _take(self, seat: int, tile: int) -> None:
        """Remove ``tile`` from the seat's concealed tiles (the drawn tile included)."""
        i = seat - 1
        if self.d[i] == tile:
            self.d[i] = 0
            return
        self.c[i].remove(tile)
        if self.d[i]:
            self.c[i].append(self.d[i])
            self.d[i] = 0
        self.c[i].sort()

    def _merge_drawn(self, seat: int) -> None:
        i = seat - 1
        if self.d[i]:
            self.c[i].append(self.d[i])
            self.c[i].sort()
            self.d[i] = 0

    def _claim_last_throw(self) -> tuple[int, int]:
        assert self.last_throw is not None, "a claim with no throw to claim"
        seat, tile = self.last_throw
        river = self.r[seat - 1]
        for j in range(len(river) - 1, -1, -1):
            if river[j] == tile:
                river[j] = -tile
                break
        self.last_throw = None
        return seat, tile

    def step(self, kind: str, text: str, *, seat: int = 0, tile: int = 0, end: bool = False) -> None:
        self.steps.append({
            "h": self.hand.hand, "k": kind, "a": text, "s": seat, "x": tile, "t": self.turn, "w": self.w,
            "c": [list(x) for x in self.c], "d": list(self.d),
            "m": [[{**m, "t": list(m["t"])} for m in ms] for ms in self.m],
            "r": [list(x) for x in self.r], "f": [list(x) for x in self.f], "z": list(self.totals),
            "e": 1 if end else 0,
        })

    # ---------------------------------------------------------------------------------------------- events
    def event(self, e: EventRecord) -> None:
        data = e.model_dump()
        kind = e.kind
        seat = data.get("seat", 0)
        if kind == "init_game":
            return
        if kind == "init_card":
            self.c[seat - 1] = sorted(data["tiles"])
            self.dealt += 1
            if self.dealt == 4:
                h = self.hand
                self.step("deal", f"Hand {h.hand + 1}: {h.round_wind.title()} round, {h.hand_wind.title()} hand; "
                          f"{self.who(h.dealer)} deals ({self.deal + 1} tiles)", seat=h.dealer)
            return
        if kind == "flower":
            self.f[seat - 1].append(data["tile"])
            self.w -= 1
            if self.dealt < 4:  # set aside during the deal: the deal's step shows it
                return
            self.turn = seat
            self.step("flower", f"{self.who(seat)} sets aside the flower {name(data['tile'])}", seat=seat,
                      tile=data["tile"])
            return
        if kind == "mo":
            t = data["tile"]
            self._merge_drawn(seat)
            self.d[seat - 1] = t
            self.w -= 1
            self.turn = seat
            self.last_throw = None
            extra = " (replacement)" if data.get("replacement") else ""
            self.step("mo", f"{self.who(seat)} draws {name(t)}{extra}", seat=seat, tile=t)
            return
        if kind == "throw":
            t = data["tile"]
            self._take(seat, t)
            self._merge_drawn(seat)
            self.r[seat - 1].append(t)
            self.last_throw = (seat, t)
            self.robbable = None
            self.turn = seat % 4 + 1
            self.step("throw", f"{self.who(seat)} throws {name(t)}", seat=seat, tile=t)
            return
        if kind in ("eat", "pong"):
            source, claimed = self._claim_last_throw()
            if kind == "eat":
                claimed = data["tiles"][1]
            tiles = sorted(data["tiles"])
            for t in tiles:
                if t != claimed:
                    self._take(seat, t)
            self.m[seat - 1].append({"k": kind, "t": tiles, "c": claimed, "f": source})
            self.turn = seat
            verb = "eats" if kind == "eat" else "pongs"
            self.step(kind, f"{self.who(seat)} {verb} {name(claimed)} from {self.who(source)}", seat=seat,
                      tile=claimed)
            return
        if kind == "gong":
            self._gong(seat, data["mode"], list(data["tiles"]))
            return
        if kind == "hu":
            self.hus.append((seat, data["tile"]))
            return
        # exit: the settlement comes with the result record

    def _gong(self, seat: int, mode: int, tiles: list[int]) -> None:
        i = seat - 1
        if mode == 4:
            source, claimed = self._claim_last_throw()
            for t in tiles:
                if t != claimed:
                    self._take(seat, t)
            self.m[i].append({"k": "gong", "t": sorted(tiles), "c": claimed, "f": source})
            text, tile = f"{self.who(seat)} gongs {name(claimed)} from {self.who(source)} (melded gong)", claimed
        elif mode == 0:
            if not tiles:  # the others' copy of a concealed gong: the owner's copy (with its tiles) came first
                return
            for t in tiles:
                self._take(seat, t)
            self._merge_drawn(seat)
            self.m[i].append({"k": "concealed_gong", "t": sorted(tiles), "c": 0, "f": 0})
            self.robbable = (seat, tiles[0])
            text, tile = f"{self.who(seat)} declares a concealed gong of {name(tiles[0])}", tiles[0]
        else:
            t = tiles[0]
            self._take(seat, t)
            self._merge_drawn(seat)
            for m in self.m[i]:
                if m["k"] == "pong" and m["t"][0] // 10 == t // 10:
                    m["k"] = "gong"
                    m["t"] = sorted([*m["t"], t])
                    m["p"] = t
                    break
            self.robbable = (seat, t)
            text, tile = f"{self.who(seat)} promotes the pong of {name(t)} to a gong", t
        self.last_throw = None
        self.turn = seat
        self.step("gong", text, seat=seat, tile=tile)

    def fault(self, f: FaultRecord) -> None:
        info = {"seat": f.seat, "kind": f.kind, "question": f.question, "line": f.line, "detail": f.detail}
        self.faults.append(info)
        said = f" (answered {f.line!r} to {f.question})" if f.line and f.question else ""
        self.step("fault", f"Fault: {self.who(f.seat)}: {f.kind}: {f.detail}{said}; the dummy plays on",
                  seat=f.seat)

    def result(self, res: ResultRecord) -> dict[str, Any]:
        """Apply the wins (tiles move to the winners) and add the hand's last step; returns the hand's result."""
        hows = {w.seat: w for w in res.wins}
        moved = False
        for seat, tile in self.hus:
            w = hows.get(seat)
            how = w.how if w else "self_draw"
            if how == "throw" and not moved and self.last_throw and self.last_throw[1] == tile:
                self._claim_last_throw()
                self._merge_drawn(seat)
                self.d[seat - 1] = tile
                moved = True
            elif how == "robbed_gong" and not moved and self.robbable and self.robbable[1] == tile:
                owner = self.robbable[0]
                for m in self.m[owner - 1]:
                    if m.get("p") == tile:  # a promoted gong: back to its pong
                        m["k"] = "pong"
                        m["t"] = [t for t in m["t"] if t != tile]
                        del m["p"]
                        break
                    if m["k"] == "concealed_gong" and tile in m["t"]:  # a concealed pong of the other three
                        m["k"] = "concealed_pong"
                        m["t"] = [t for t in m["t"] if t != tile]
                        break
                self._merge_drawn(seat)
                self.d[seat - 1] = tile
                moved = True
            elif how == "flowers":
                for j in range(4):  # seven flowers rob the eighth: it moves to the winner
                    if j != seat - 1 and tile in self.f[j]:
                        self.f[j].remove(tile)
                        self.f[seat - 1].append(tile)
            elif how == "self_draw" and self.d[seat - 1] != tile and tile in self.c[seat - 1]:
                self._merge_drawn(seat)
                self.c[seat - 1].remove(tile)
                self.d[seat - 1] = tile
        self.totals = list(res.totals)
        self.turn = 0
        if res.outcome == "draw" or not res.wins:
            text = "Exhaustive draw: the live wall is used up"
            seat, tile = 0, 0
        else:
            parts = []
            for w in res.wins:
                frm = f" from {self.who(w.thrower)}" if w.thrower else ""
                tile_text = f" with {name(w.tile)}" if w.tile else ""
                score = f"{w.tai} points" if res.classical is not None else f"{w.tai} tai"
                parts.append(f"{self.who(w.seat)} wins {HOW[w.how]}{frm}{tile_text}: {score}")
            text = "; ".join(parts)
            seat, tile = res.wins[0].seat, res.wins[0].tile or 0
        if self.faults:
            text += f" ({len(self.faults)} fault{'s' if len(self.faults) > 1 else ''} in this hand)"
        self.step("end", text, seat=seat, tile=tile, end=True)
        return {
            "outcome": res.outcome,
            "wins": [w.model_dump() for w in res.wins],
            **({"classical": res.classical.model_dump()} if res.classical is not None else {}),
            "scores": res.scores,
            "penalties": res.penalties,
            "totals": res.totals,
            "text": text,
        }

    def cut_off(self) -> None:
        self.turn = 0
        self.step("end", "The log ends here: the match was cut off in this hand", end=True)


def _dead_wall(rules: dict[str, Any]) -> int:
    """The dead wall at a hand's start: Taiwan's option, or a classical ruleset's (14, 16 or none)."""
    if rules.get("family") == "classical":
        try:
            return int(rules_from_dump(rules).dead_wall)
        except ValueError:
            return 14
    return int(rules.get("dead_wall", 16))


def build_match(log_path: Path | str) -> dict[str, Any]:
    """The viewer's data for a log: ``meta``, ``hands`` and the full (not delta-encoded) ``steps``."""
    path = Path(log_path)
    records = _records(path)
    header = records[0]
    assert isinstance(header, HeaderRecord)
    names = [s.name for s in sorted(header.seats, key=lambda s: s.position)]
    classical = header.rules.get("family") == "classical"
    deal = 13 if classical else 16
    steps: list[dict[str, Any]] = []
    hands: list[dict[str, Any]] = []
    totals = [0, 0, 0, 0]
    fold: _Fold | None = None
    final: FinalRecord | None = None
    answers = [0, 0, 0, 0]
    dummy_answers = [0, 0, 0, 0]

    def close(result: dict[str, Any] | None) -> None:
        assert fold is not None
        h = fold.hand
        hands.append({
            "i": h.hand, "round": h.round_wind, "wind": h.hand_wind, "dealer": h.dealer, "open": h.open,
            "cont": h.cont, "start": hand_start, "end": len(steps) - 1, "before": before,
            "after": list(fold.totals), "result": result, "faults": fold.faults,
        })

    hand_start, before = 0, list(totals)
    try:
        for rec in records[1:]:
            if isinstance(rec, HandRecord):
                if fold is not None:
                    fold.cut_off()
                    close(None)
                hand_start, before = len(steps), list(totals)
                fold = _Fold(rec, names, totals, steps, deal)
            elif isinstance(rec, FinalRecord):
                final = rec
            elif fold is None:
                continue
            elif isinstance(rec, EventRecord):
                fold.event(rec)
            elif isinstance(rec, FaultRecord):
                fold.fault(rec)
            elif isinstance(rec, AnswerRecord):
                (dummy_answers if rec.by == "dummy" else answers)[rec.seat - 1] += 1
            elif isinstance(rec, ResultRecord):
                result = fold.result(rec)
                totals = list(rec.totals)
                close(result)
                fold = None
    except (ValueError, KeyError, IndexError, AssertionError) as exc:
        where = f"hand {fold.hand.hand + 1}" if fold is not None else "a hand"
        raise ViewerError(f"{path}: the log's events do not fold into a table in {where} ({exc})") from None
    if fold is not None:
        fold.cut_off()
        close(None)
    if not steps:
        raise ViewerError(f"{path}: the log has no hands to show")
    meta = {
        "title": path.name,
        "seed": header.seed,
        "mjref": header.mjref,
        "started": header.started,
        "hands_planned": header.hands,
        "seats": [{"position": s.position, "name": s.name, "kind": s.kind, "spec": s.spec}
                  for s in sorted(header.seats, key=lambda s: s.position)],
        "rules": {k: header.rules.get(k) for k in ("flowers", "dead_wall", "hands", "scoring", "base", "per_tai",
                                                    "fault_penalty", "multiple_winners", "rob_kong")}
        | ({"family": "classical", "flowers": header.rules.get("options", {}).get("Flowers", True)}
           if classical else {}),
        "dead_wall": _dead_wall(header.rules),
        "complete": bool(final and final.complete),
        "totals": list(final.totals) if final else totals,
        "faults": list(final.faults) if final else [sum(1 for h in hands for f in h["faults"] if f["seat"] == p)
                                                    for p in (1, 2, 3, 4)],
        "answers": answers,
        "dummy_answers": dummy_answers,
    }
    return {"meta": meta, "hands": hands, "steps": steps}


# ---------------------------------------------------------------------------------------------------- encoding
def encode_steps(steps: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Delta-encode full steps: a hand's first step whole (``n: 1``), later ones only what changed."""
    out: list[dict[str, Any]] = []
    prev: dict[str, Any] | None = None
    for s in steps:
        e: dict[str, Any] = {"k": s["k"], "a": s["a"]}
        for k, default in STEP_DEFAULTS.items():
            if s[k] != default:
                e[k] = s[k]
        if prev is None or prev["h"] != s["h"]:
            e["n"] = 1
            for k in STATE_KEYS:
                e[k] = s[k]
        else:
            for k in STATE_KEYS:
                if s[k] == prev[k]:
                    continue
                if k in SEATWISE:
                    e[k] = [None if a == b else a for a, b in zip(s[k], prev[k], strict=True)]
                else:
                    e[k] = s[k]
        out.append(e)
        prev = s
    return out


def expand_steps(encoded: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The inverse of :func:`encode_steps` (the page does the same in JavaScript)."""
    out: list[dict[str, Any]] = []
    prev: dict[str, Any] | None = None
    for e in encoded:
        s: dict[str, Any] = {"k": e["k"], "a": e["a"]}
        for k, default in STEP_DEFAULTS.items():
            s[k] = e.get(k, default)
        new = bool(e.get("n")) or prev is None
        for k in STATE_KEYS:
            if new:
                s[k] = e[k]
            elif k not in e:
                s[k] = prev[k]  # type: ignore[index]
            elif k in SEATWISE:
                s[k] = [p if v is None else v for v, p in zip(e[k], prev[k], strict=True)]  # type: ignore[index]
            else:
                s[k] = e[k]
        out.append(s)
        prev = s
    return out


# ---------------------------------------------------------------------------------------------------- the page
def _json_for_script(data: Any) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</script>``, no ``<!--``)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_data(match: dict[str, Any]) -> dict[str, Any]:
    return {
        "meta": match["meta"],
        "hands": match["hands"],
        "steps": encode_steps(match["steps"]),
        "tiles": tile_names(),
        "items": {k: list(v) for k, v in ITEM_TITLES.items()},
    }


def render_viewer(match: dict[str, Any]) -> str:
    """The whole page, as one string."""
    meta = match["meta"]
    title = f"mjref match {meta['title']} (seed {meta['seed']})"
    seats = [{"name": s["name"], "spec": s["spec"], "kind": s["kind"]} for s in meta["seats"]]
    return viewer_page.render(title=title, data_json=_json_for_script(page_data(match)), symbols=symbol_defs(),
                              seats=seats)


def write_viewer(log_path: Path | str, out_path: Path | str) -> Path:
    """Write the viewer page of a match log to ``out_path`` (parents created); raises :class:`ViewerError`."""
    match = build_match(log_path)
    out = Path(out_path)
    html = render_viewer(match)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise ViewerError(f"{out}: cannot write ({exc.strerror})") from None
    return out
