"""``mjref replay --against``: an mjref match log compared with mj-server's hand histories, move by move.

The log is first verified as ``mjref replay`` verifies it (a log that is not true to the rules is a difference of
its own); then its hands are compared in order with the histories (hand 1 with the first file, and so on), each
as a list of moves written in one form for both sides (``Move``): the hand's ruleset, dealer and round, its wall,
each seat's deal and the flowers it set aside, then every draw (live or loose), flower, discard, claim carried out
(pung, chow, kong), kong declared or added in hand and the Mah-Jong; then each player's sets as scored, score and
explanation, and the settlement.  Tiles are compared by face, as mj-server names them (``5C``), so that a log of
any mjref match played from the history's wall (``mjref match --wallfile``) can be compared.

The first move that differs is the verdict: the history's file and line, the log's line, mjref's move and
mj-server's.  A history or log that cannot be read is an ``InputError`` (one line, exit status 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.game.classical.family import CODE
from referee.game.classical.follow import history_draws
from referee.game.classical.history import ChowsMsg, DiscardMsg, HandScoreMsg, SerialTileMsg, SettlementMsg, TileMsg
from referee.game.classical.table import check_history
from referee.game.classical.tiles import HIDDEN, is_special, step
from referee.game.classical.wallfile import HistoryDeal
from referee.game.types import GONG_CONCEALED, GONG_MELDED, Eat, Event, Flower, Gong, Hu, InitCard, Mo, Pong, Throw
from referee.log import LogError, event_from_json, loads_line, open_log
from referee.mjserver import history_deals
from referee.replay import replay_log

UNTRUE = "the log is not true to the rules"
RAN_OUT = "nothing more"


@dataclass(frozen=True, slots=True)
class Move:
    """One move as both sides are compared: its line in its file and its words (equal words, equal moves)."""

    line: int
    text: str
    topic: str = ""  # what is compared ("the deal", "move 12 of the play", "seat 2's score"), for the verdict


@dataclass(frozen=True, slots=True)
class AgainstDifference:
    history: str
    history_line: int
    log: str
    log_line: int
    topic: str
    mjref: str
    mjserver: str

    @property
    def message(self) -> str:
        if self.topic == UNTRUE:
            return f"{self.log}:{self.log_line}: {UNTRUE}: the log says {self.mjref}; the rules give {self.mjserver}"
        return (f"{self.history}:{self.history_line} and {self.log}:{self.log_line}: {self.topic}: mjref "
                f"{self.mjref}; mj-server {self.mjserver}")

    def to_json(self) -> dict[str, Any]:
        return {"history": self.history, "history_line": self.history_line, "log": self.log,
                "log_line": self.log_line, "topic": self.topic, "mjref": self.mjref, "mjserver": self.mjserver,
                "message": self.message}


@dataclass(slots=True)
class AgainstReport:
    log: Path
    histories: list[Path]
    hands: int = 0  # hands compared in full
    log_hands: int = 0  # hands in the log (more than ``hands`` when the histories end before it)
    moves: int = 0  # moves compared
    difference: AgainstDifference | None = None

    @property
    def ok(self) -> bool:
        return self.difference is None


# ---------------------------------------------------------------------------------------------------- words
def _codes(tiles: Iterable[str]) -> str:
    return " ".join(sorted(tiles)) or "none"


def _chow(tile: str, cpos: str) -> str:
    low = {"Lower": tile, "Middle": step(tile, -1), "Upper": step(tile, -2)}[cpos] or tile
    return " ".join(t for t in (low, step(low, 1), step(low, 2)) if t)


def _draw(seat: int, code: str, loose: bool) -> str:
    return f"seat {seat} draws {code}{' (a loose tile)' if loose else ''}"


def _setup(dealer: int, round_wind: str) -> str:
    return f"seat {dealer} deals in the {round_wind.lower()} round"


def _deal_words(seat: int, tiles: Iterable[str], flowers: Iterable[str]) -> str:
    return f"seat {seat} holds {_codes(tiles)} and sets aside {_codes(flowers)}"


def _explanation(seat: int, lines: list[tuple[int, str]]) -> list[Move]:
    """A score's explanation, its lines in any order: mj-server lists the sets in the order they were declared,
    mjref in its own; the lines themselves, and their number, must be the same."""
    return [Move(n, text, f"seat {seat}'s score explanation") for n, text in sorted(lines, key=lambda x: x[1])]


# ---------------------------------------------------------------------------------------------------- mj-server
def history_moves(deal: HistoryDeal) -> tuple[list[Move], list[Move]]:
    """The history's moves in the compared form: the hand (setup, wall, deals, play to Mah-Jong), then the end
    (sets, scores, settlement)."""
    h = deal.history
    pos = deal.positions
    first = h.moves[0].line
    moves = [Move(first, _setup(deal.dealer, deal.round_wind), "the hand's dealer and round"),
             Move(h.wall.line, " ".join(map(str, deal.wall.tiles)), "the wall (TIDs)")]
    dealt, _ = history_draws(deal)
    specials_line: dict[int, int] = {}
    declared = 0
    play: list[Move] = []
    mahjong = False
    for m in h.moves:
        if declared < 4:  # the deal and its specials phase, seat by seat
            if m.kind == "PlayerDeclaresSpecial" and isinstance(m, TileMsg):
                specials_line.setdefault(pos[m.id], m.line)
                declared += m.tile == HIDDEN
            continue
        if mahjong:
            break
        seat = pos.get(getattr(m, "id", -1), 0)
        if isinstance(m, TileMsg):
            if m.kind in ("PlayerDraws", "PlayerDrawsLoose"):
                if not is_special(m.tile):  # a flower drawn is its declaration's move
                    play.append(Move(m.line, _draw(seat, m.tile, m.kind == "PlayerDrawsLoose")))
            elif m.kind == "PlayerDeclaresSpecial" and m.tile != HIDDEN:
                play.append(Move(m.line, f"seat {seat} sets aside {m.tile}"))
            elif m.kind == "PlayerPungs":
                play.append(Move(m.line, f"seat {seat} pungs {m.tile}"))
            elif m.kind == "PlayerKongs":
                play.append(Move(m.line, f"seat {seat} kongs {m.tile}"))
            elif m.kind in ("PlayerMahJongs", "PlayerRobsKong"):
                tile = deal_tile(play) if m.tile == HIDDEN else m.tile
                play.append(Move(m.line, f"seat {seat} goes Mah-Jong with {tile}"))
                mahjong = True
        elif isinstance(m, DiscardMsg):
            play.append(Move(m.line, f"seat {seat} discards {m.tile}"))
        elif isinstance(m, ChowsMsg) and m.cpos != "AnyPos":
            play.append(Move(m.line, f"seat {seat} chows {_chow(m.tile, m.cpos)}"))
        elif isinstance(m, SerialTileMsg):
            what = "declares a kong of" if m.kind == "PlayerDeclaresClosedKong" else "adds to its pung"
            play.append(Move(m.line, f"seat {seat} {what} {m.tile}"))
    for k in range(4):
        p = (deal.dealer - 1 + k) % 4 + 1
        codes = [CODE[t] for t in dealt[p]]
        moves.append(Move(specials_line.get(p, first), _deal_words(p, [c for c in codes if not is_special(c)],
                                                                      [c for c in codes if is_special(c)]),
                          f"seat {p}'s deal"))
    moves += [Move(m.line, m.text, f"move {n + 1} of the play") for n, m in enumerate(play)]
    return moves, history_end(deal)


def deal_tile(play: list[Move]) -> str:
    """The tile of the last discard (or added kong) among ``play``: what a Mah-Jong on a discard goes out with."""
    for m in reversed(play):
        words = m.text.split()
        if words[2] in ("discards", "adds"):
            return words[-1]
    return "?"


def history_end(deal: HistoryDeal) -> list[Move]:
    """Each player's sets as mj-server's declarations made them (replayed by ``table``), score and explanation
    (by seat, 1-4), then the settlement."""
    h = deal.history
    check = check_history(h)
    east_first = h.east_first
    sets: dict[int, tuple[int, str]] = {}
    for x in check.scored:
        p = deal.positions[east_first[x.at.seat]]
        sets[p] = (0, _codes(ts.text() for ts in x.hand.sets))
    scores = {deal.positions[m.id]: m for m in h.moves if isinstance(m, HandScoreMsg)}
    out: list[Move] = []
    for p in (1, 2, 3, 4):
        s = scores.get(p)
        if s is None:
            continue
        if p in sets:
            out.append(Move(s.line, sets[p][1], f"seat {p}'s sets as scored"))
        out.append(Move(s.line, str(s.score), f"seat {p}'s score"))
        out += _explanation(p, [(s.line + i, line) for i, line in enumerate(s.explanation)])
    settle = h.moves[-1]
    assert isinstance(settle, SettlementMsg)
    by_seat = {deal.positions[east_first[i]]: c for i, c in enumerate(settle.changes)}
    out.append(Move(settle.line, " ".join(f"{by_seat[p]:+d}" for p in (1, 2, 3, 4)), "the settlement (seats 1-4)"))
    out += [Move(settle.line + i, line, f"the settlement, line {i + 1}") for i, line in enumerate(settle.explanation)]
    return out


# ---------------------------------------------------------------------------------------------------- mjref
@dataclass(slots=True)
class _LogHand:
    moves: list[Move] = field(default_factory=list)
    end: list[Move] = field(default_factory=list)
    dealt: dict[int, list[str]] = field(default_factory=lambda: {p: [] for p in (1, 2, 3, 4)})
    flowers: dict[int, list[str]] = field(default_factory=lambda: {p: [] for p in (1, 2, 3, 4)})
    deal_line: dict[int, int] = field(default_factory=dict)
    dealer: int = 1
    in_deal: bool = True
    over: bool = False


def log_hands(path: Path, until: int | None = None) -> Iterator[tuple[list[Move], list[Move]]]:
    """The log's hands in the compared form, up to line ``until`` (where replay found the log untrue to the rules;
    a hand cut there is given as far as it went, without its end)."""
    log = open_log(path)
    hand: _LogHand | None = None
    for number, text in enumerate(log.lines[1:], start=2):
        if until is not None and number >= until:
            break
        rec = loads_line(text)
        kind = rec.get("type")
        if kind == "hand":
            hand = _LogHand(dealer=rec["dealer"])
            hand.moves = [Move(number, _setup(rec["dealer"], rec["round_wind"]), "the hand's dealer and round"),
                          Move(number, " ".join(map(str, rec["wall"])), "the wall (TIDs)")]
        elif kind == "event" and hand is not None and not hand.over:
            _log_event(hand, event_from_json(rec), number)
        elif kind == "result" and hand is not None:
            yield hand.moves, _log_end(rec, number)
            hand = None
    if hand is not None:
        yield hand.moves, []


def _close_deal(h: _LogHand, number: int) -> None:
    for k in range(4):
        p = (h.dealer - 1 + k) % 4 + 1
        h.moves.append(Move(h.deal_line.get(p, number), _deal_words(p, h.dealt[p], h.flowers[p]), f"seat {p}'s deal"))
    h.in_deal = False


def _log_event(h: _LogHand, e: Event, number: int) -> None:
    if h.in_deal:
        if isinstance(e, InitCard):
            h.dealt[e.seat] = [CODE[t] for t in e.tiles]
            h.deal_line[e.seat] = number
            if all(h.deal_line.get(p) for p in (1, 2, 3, 4)):
                _close_deal(h, number)
        elif isinstance(e, Flower):
            h.flowers[e.seat].append(CODE[e.tile])
        return
    n = sum(1 for m in h.moves if m.topic.startswith("move "))
    words: str | None = None
    if isinstance(e, Mo):
        words = _draw(e.seat, CODE[e.tile], e.replacement)
    elif isinstance(e, Flower):
        words = f"seat {e.seat} sets aside {CODE[e.tile]}"
    elif isinstance(e, Throw):
        words = f"seat {e.seat} discards {CODE[e.tile]}"
    elif isinstance(e, Pong):
        words = f"seat {e.seat} pungs {CODE[e.tiles[0]]}"
    elif isinstance(e, Eat):
        words = f"seat {e.seat} chows {' '.join(sorted(CODE[t] for t in e.tiles))}"
    elif isinstance(e, Gong) and e.tiles:  # (a concealed kong is logged twice: to its seat with the tiles)
        what = {GONG_MELDED: "kongs", GONG_CONCEALED: "declares a kong of"}.get(e.mode, "adds to its pung")
        words = f"seat {e.seat} {what} {CODE[e.tiles[0]]}"
    elif isinstance(e, Hu):
        words = f"seat {e.seat} goes Mah-Jong with {CODE[e.tile]}"
        h.over = True
    if words is not None:
        h.moves.append(Move(number, words, f"move {n + 1} of the play"))


def _log_end(rec: dict[str, Any], number: int) -> list[Move]:
    out: list[Move] = []
    classical = rec.get("classical")
    if rec.get("outcome") != "win" or not classical:
        return [Move(number, "the hand ends in a washout", "the end of the hand")]
    for p, player in enumerate(classical["players"], start=1):
        out.append(Move(number, _codes(player["sets"]), f"seat {p}'s sets as scored"))
        out.append(Move(number, str(player["score"]), f"seat {p}'s score"))
        out += _explanation(p, [(number, line) for line in player["explanation"]])
    out.append(Move(number, " ".join(f"{c:+d}" for c in rec["scores"]), "the settlement (seats 1-4)"))
    out += [Move(number, line, f"the settlement, line {i + 1}") for i, line in enumerate(classical["settlement"])]
    return out


# ---------------------------------------------------------------------------------------------------- the verdict
def compare(histories: Iterable[Path], log: Path) -> AgainstReport:
    """Compare ``log`` with the histories named (files, or folders of ``*.mjs``), hand by hand in order."""
    deals = history_deals(histories)  # every history read first: a malformed one is refused before any verdict
    report = AgainstReport(log, [Path(d.history.name) for d in deals])
    verified = replay_log(log)
    if verified.header.rules.get("family") != "classical":
        raise LogError(f"{log}: a {verified.header.rules.get('family', 'taiwan16')} log; mj-server's histories are "
                       "Chinese Classical")
    name = str(log)
    untrue = None
    if verified.divergence is not None:
        d = verified.divergence
        untrue = AgainstDifference(deals[0].history.name, deals[0].history.moves[0].line, name, d.line, UNTRUE,
                                   d.log, d.rules)
    diff = _compare(deals, log, name, report, None if untrue is None else untrue.log_line)
    # the first in the log: a move of the game that differs before the log breaks the rules is the verdict
    # (a log cut where it breaks the rules runs out of moves there: that is the rules' verdict, not a move's)
    cut = diff is not None and (diff.mjref.startswith(RAN_OUT) or diff.topic == "the hands")
    report.difference = untrue if untrue is not None and (diff is None or cut or diff.log_line >= untrue.log_line) \
        else diff
    return report


def _compare(deals: list[HistoryDeal], log: Path, name: str, report: AgainstReport,
             until: int | None) -> AgainstDifference | None:
    verified_rules = open_log(log).header.rules
    theirs_options = deals[0].options.model_dump()
    ours_options = verified_rules.get("options", {})
    for key, value in theirs_options.items():
        if ours_options.get(key) != value:
            return AgainstDifference(deals[0].history.name, deals[0].history.moves[0].line, name, 1,
                                     f"the ruleset's option {key}", str(ours_options.get(key)), str(value))
    hands = list(log_hands(log, until))
    report.log_hands = len(hands)
    for k, deal in enumerate(deals):
        hist = deal.history.name
        if k >= len(hands):
            return AgainstDifference(hist, deal.history.moves[0].line, name, until or len(open_log(log).lines),
                                     "the hands", f"ends after {len(hands)} hands", f"has hand {k + 1} ({hist})")
        (ours, ours_end), (theirs, theirs_end) = hands[k], history_moves(deal)
        diff = _first(ours + ours_end, theirs + theirs_end, hist, name, report)
        if diff is not None:
            return diff
        report.hands += 1
    return None


def _first(ours: list[Move], theirs: list[Move], hist: str, log: str,
           report: AgainstReport) -> AgainstDifference | None:
    for a, b in zip(ours, theirs):
        if a.topic != b.topic:  # one side has a move of a kind the other has not here (the play ended earlier)
            return AgainstDifference(hist, b.line, log, a.line, b.topic, f"{a.topic}: {a.text}", b.text)
        if a.text != b.text:
            return AgainstDifference(hist, b.line, log, a.line, b.topic, a.text, b.text)
        report.moves += 1
    if len(ours) != len(theirs):
        n = min(len(ours), len(theirs))
        a_ = ours[n] if n < len(ours) else None
        b_ = theirs[n] if n < len(theirs) else None
        return AgainstDifference(hist, b_.line if b_ else theirs[-1].line, log, a_.line if a_ else ours[-1].line,
                                 (b_ or a_).topic if (b_ or a_) else "the end",  # type: ignore[union-attr]
                                 a_.text if a_ else RAN_OUT, b_.text if b_ else RAN_OUT)
    return None


__all__ = ["AgainstDifference", "AgainstReport", "Move", "compare", "history_moves", "log_hands"]
