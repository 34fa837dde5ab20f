"""One hand of an mj-server history replayed move by move, and every score and the settlement checked.

``check_history`` keeps the table as mj-server keeps it (the wall's live and dead ends, each player's concealed
tiles, declared sets, flowers and flags, the tile and how it came, the copies of each tile face up, the kong
flags, the danger flags behind letting off a cannon), moves it by each message of the history, refusing a move the
rules do not allow, and at each ``HandScore`` and the ``Settlement`` compares mj-server's figures and explanation
with ``scoring``'s.  The first difference is returned with its line, mjref's value and mj-server's.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from referee.game.classical.danger import mark_discard, sets_danger
from referee.game.classical.hand import Hand, TileSet, can_mah_jong
from referee.game.classical.history import (
    ChowsMsg,
    ClaimMsg,
    DiscardMsg,
    HandHistory,
    HandScoreMsg,
    Msg,
    NewHandMsg,
    SerialTileMsg,
    SettlementMsg,
    ShowMsg,
    TileMsg,
)
from referee.game.classical.scoring import Danger, HandScore, Situation, Whence, score_hand, settle
from referee.game.classical.tiles import HIDDEN, is_special, step
from referee.game.records import record


@record(frozen=True, slots=True)
class Difference:
    """Where mjref and mj-server part: the history's line, what differs, mjref's value and mj-server's."""

    line: int
    what: str
    mjref: str
    mjserver: str


class IllegalMove(Exception):
    """A move the rules (or the table as replayed so far) do not allow."""


@dataclass(slots=True)
class _Player:
    id: int
    hand: Hand = field(default_factory=Hand)
    no_discard: bool = True
    calling: bool = False
    original_call: bool = False
    dflags: list[Danger] = field(default_factory=lambda: [Danger(0)] * 4)
    score: int | None = None


@record(frozen=True, slots=True)
class Scored:
    """One player's tiles as they were scored, the situation, and mjref's score."""

    hand: Hand
    at: Situation
    score: HandScore


@record(frozen=True, slots=True)
class HandCheck:
    """The verdict on one history: the first difference (None when every figure agrees) and what was compared."""

    difference: Difference | None
    scores: tuple[int, int, int, int]  # by seat, East first, as mjref scores them
    changes: tuple[int, int, int, int]
    items: int  # explanation lines compared
    scored: tuple[Scored, ...] = ()  # each player's tiles and situation as scored, in the history's order
    seats: tuple[int, int, int, int] = (1, 2, 3, 4)  # the player id in each seat this hand, East first


class _Table:
    def __init__(self, h: HandHistory, no_special_scores: bool) -> None:
        self.h = h
        self.no_special_scores = no_special_scores
        self.o = h.options
        self.wall = list(h.wall.tiles)
        self.size = len(self.wall)
        self.live_used = 0
        self.dead_end = self.size
        self.live_end = self.size - ((16 if self.o.DeadWall16 else 14) if self.o.DeadWall else 0)
        first = h.moves[0]
        assert isinstance(first, NewHandMsg)
        if first.east not in h.game.seats:
            raise IllegalMove(f"NewHand names East {first.east}, not a player")
        self.seats = list(h.east_first)
        self.hands_as_east = h.hands_as_east
        self.players = [_Player(pid) for pid in self.seats]
        self.state = "Dealing"
        self.player = 0
        self.supplier: int | None = None
        self.tile: str | None = None
        self.whence: Whence = "wall"
        self.kong = False
        self.kong_upon_kong = False
        self.konging = False
        self.exposed: Counter[str] = Counter()
        self.discarded: Counter[str] = Counter()
        self.caller: Hand | None = None
        self.winner: int | None = None
        self.items = 0
        self.scored: list[Scored] = []
        self.claimed_set: int | None = None
        self.claims: dict[int, str] = {}  # seat -> its claim of the discard in play (PlayerClaimsPung...)

    # ------------------------------------------------------------------------------------------------ helpers
    def seat(self, pid: int) -> int:
        return self.seats.index(pid)

    def snapshot(self, s: int) -> None:
        self.caller = self.players[s].hand.copy()

    def draw_live(self, t: str) -> None:
        if self.live_used >= self.live_end:
            raise IllegalMove(f"draws {t} from an exhausted live wall")
        if self.wall[self.live_used] != t:
            raise IllegalMove(f"draws {t}, but the next tile of the wall is {self.wall[self.live_used]}")
        self.live_used += 1

    def draw_loose(self, t: str) -> None:
        if (self.dead_end == self.live_end) if self.o.DeadWall else (self.dead_end == self.live_used):
            raise IllegalMove(f"draws loose tile {t} from an exhausted dead wall")
        self.dead_end -= 1
        if self.o.DeadWall:
            if not self.o.DeadWall16 and self.dead_end - self.live_end < 13:
                self.live_end -= 2
        else:
            self.live_end -= 1
        if self.wall[self.dead_end] != t:
            raise IllegalMove(f"draws loose tile {t}, but the next loose tile is {self.wall[self.dead_end]}")

    def take(self, s: int, t: str, n: int = 1) -> None:
        if not self.players[s].hand.take(t, n):
            raise IllegalMove(f"has not {n} × {t} in hand")

    def kong_made(self) -> None:
        if self.kong:
            self.kong_upon_kong = True
        self.kong = True

    # ------------------------------------------------------------------------------------------------ danger
    def set_danger_flags(self, s: int) -> None:
        p = self.players[s]
        p.dflags[s] = sets_danger((ts.type, ts.tile) for ts in p.hand.sets)

    def _end_danger(self, t: str) -> bool:
        return self.live_end - self.live_used <= 4 and self.discarded[t] <= 1

    def mark_dangerous_discards(self) -> None:
        sup, t = self.supplier, self.tile
        if sup is None or t is None:
            return
        mark_discard([q.dflags for q in self.players], self.player, sup, t, self.players[sup].hand.concealed,
                     self._end_danger)

    # ------------------------------------------------------------------------------------------------ moves
    def apply(self, m: Msg) -> Difference | None:
        k = m.kind
        if isinstance(m, TileMsg):
            s = self.seat(m.id)
            p = self.players[s]
            t = m.tile
            if k == "PlayerDraws":
                self.draw_live(t)
                if self.state == "Dealing":
                    if s == 0 and len(p.hand.concealed) == 13:
                        self.snapshot(0)
                    p.hand.concealed.append(t)
                    if s == 0:
                        self.tile = t
                    if len(self.players[0].hand.concealed) == 14 and all(
                            len(q.hand.concealed) == 13 for q in self.players[1:]):
                        self.state = "DeclaringSpecials"
                        self.player = 0
                        self.whence = "wall"
                    return None
                if self.state == "Discarded":
                    if self.claims:
                        raise IllegalMove(f"draws although the discard was claimed ({', '.join(self.claims.values())})")
                    if s != (self.player + 1) % 4:
                        raise IllegalMove("draws out of turn")
                if self.state != "DeclaringSpecials":
                    self.snapshot(s)
                p.hand.concealed.append(t)
                if self.state == "Discarded":
                    self.state = "Discarding"
                self.tile, self.player, self.whence, self.konging = t, s, "wall", False
            elif k == "PlayerDrawsLoose":
                self.draw_loose(t)
                if self.state != "DeclaringSpecials":
                    self.snapshot(s)
                p.hand.concealed.append(t)
                self.whence, self.tile, self.konging = "loose", t, False
            elif k == "PlayerDeclaresSpecial":
                if t == HIDDEN:
                    if s == 3:
                        self.state, self.konging, self.whence, self.player = "Discarding", False, "wall", 0
                    else:
                        self.state, self.player = "DeclaringSpecials", (s + 1) % 4
                else:
                    if not is_special(t):
                        raise IllegalMove(f"declares {t}, which is not a flower or season")
                    self.take(s, t)
                    p.hand.specials.append(t)
                    self.exposed[t] += 1
            elif k == "PlayerPungs":
                if self.tile != t:
                    raise IllegalMove(f"pungs {t}, but the tile in play is {self.tile}")
                if self.state == "Discarded":
                    self.implemented(s, ("PlayerClaimsPung",))
                    self.snapshot(s)
                    self.take(s, t, 2)
                    p.hand.sets.append(TileSet("Pung", t))
                    self.state, self.konging = "Discarding", False
                    self.supplier, self.player, self.whence = self.player, s, "discard"
                    self.exposed[t] += 2
                elif self.state == "MahJonging":
                    self.take(s, t, 2)
                    p.hand.sets.append(TileSet("Pung", t))
                    self.claimed_set = len(p.hand.sets) - 1
                else:
                    raise IllegalMove("pungs with no discard to claim")
                self.mark_dangerous_discards()
                self.set_danger_flags(s)
            elif k == "PlayerKongs":
                if self.state != "Discarded" or self.tile != t:
                    raise IllegalMove(f"kongs {t}, which is not the discard")
                self.implemented(s, ("PlayerClaimsKong",))
                self.take(s, t, 3)
                p.hand.sets.append(TileSet("Kong", t))
                self.state, self.supplier, self.player, self.konging = "Discarding", self.player, s, False
                self.kong_made()
                self.exposed[t] += 3
                self.set_danger_flags(s)
            elif k == "PlayerPairs":
                if self.state != "MahJonging" or self.tile != t:
                    raise IllegalMove(f"pairs {t}, which is not the tile claimed for Mah-Jong")
                self.take(s, t)
                p.hand.sets.append(TileSet("Pair", t))
                self.claimed_set = len(p.hand.sets) - 1
                self.mark_dangerous_discards()
            elif k == "PlayerRobsKong":
                if not self.konging or self.tile != t:
                    raise IllegalMove(f"robs a kong of {t}, but no such kong is being made")
                robbee = self.players[self.player].hand
                for i, ts in enumerate(robbee.sets):
                    if ts.tile == t and ts.type in ("Kong", "ClosedKong"):
                        robbee.sets[i] = TileSet("Pung" if ts.type == "Kong" else "ClosedPung", t)
                        break
                else:
                    raise IllegalMove(f"robs a kong of {t} that seat {self.player} has not")
                if not can_mah_jong(p.hand, t, self.o.SevenPairs):
                    raise IllegalMove(f"robs a kong of {t} without a complete hand")
                self.implemented(s, ("PlayerClaimsMahJong",))
                self.snapshot(s)
                self.state, self.whence, self.supplier, self.player, self.tile = "MahJonging", "robbed", \
                    self.player, s, t
                self.konging = self.kong = self.kong_upon_kong = False
                self.winner = s
            elif k in ("PlayerFormsClosedPung", "PlayerFormsClosedPair", "PlayerFormsClosedChow"):
                if self.state != "MahJonging":
                    raise IllegalMove("forms a closed set before Mah-Jong")
                if k == "PlayerFormsClosedChow":
                    b, c = step(t, 1), step(t, 2)
                    if b is None or c is None:
                        raise IllegalMove(f"forms a chow from {t}")
                    self.take(s, t)
                    self.take(s, b)
                    self.take(s, c)
                    p.hand.sets.append(TileSet("ClosedChow", t))
                elif k == "PlayerFormsClosedPung":
                    self.take(s, t, 3)
                    p.hand.sets.append(TileSet("ClosedPung", t))
                else:
                    self.take(s, t, 2)
                    p.hand.sets.append(TileSet("ClosedPair", t))
            elif k == "PlayerMahJongs":
                if t != HIDDEN:
                    if self.state != "Discarding" or self.player != s:
                        raise IllegalMove("declares Mah-Jong out of turn")
                    if not can_mah_jong(p.hand, None, self.o.SevenPairs):
                        raise IllegalMove("declares Mah-Jong without a complete hand")
                else:
                    if self.state != "Discarded" or self.tile is None:
                        raise IllegalMove("claims Mah-Jong with no discard")
                    if not can_mah_jong(p.hand, self.tile, self.o.SevenPairs):
                        raise IllegalMove(f"claims Mah-Jong on {self.tile} without a complete hand")
                    self.implemented(s, ("PlayerClaimsMahJong",))
                    self.snapshot(s)
                    self.supplier, self.whence, self.player = self.player, "discard", s
                self.state = "MahJonging"
                self.winner = s
            return None
        if isinstance(m, DiscardMsg):
            s = self.seat(m.id)
            p = self.players[s]
            if self.state != "Discarding" or self.player != s:
                raise IllegalMove(f"discards {m.tile} out of turn")
            nodiscard = p.no_discard
            self.take(s, m.tile)
            p.no_discard = False
            self.state, self.tile = "Discarded", m.tile
            self.claims = {}
            self.kong = self.kong_upon_kong = False
            if m.calling:
                p.calling = True
                if nodiscard:
                    p.original_call = True
            self.exposed[m.tile] += 1
            self.discarded[m.tile] += 1
            return None
        if isinstance(m, ChowsMsg):
            s = self.seat(m.id)
            p = self.players[s]
            if m.cpos == "AnyPos":
                return None
            if self.tile != m.tile:
                raise IllegalMove(f"chows {m.tile}, which is not the discard")
            low = p.hand.chow_from(m.tile, m.cpos)
            if low is None or s != (self.player + 1) % 4 and self.state == "Discarded":
                raise IllegalMove(f"cannot chow {m.tile} ({m.cpos})")
            others = [x for x in (low, step(low, 1), step(low, 2)) if x is not None]
            others.remove(m.tile)
            for x in others:
                self.take(s, x)
            p.hand.sets.append(TileSet("Chow", low))
            if self.state == "MahJonging":
                self.claimed_set = len(p.hand.sets) - 1
            if self.state == "Discarded":
                self.implemented(s, ("PlayerClaimsChow",))
                self.state, self.konging = "Discarding", False
                self.supplier, self.player, self.whence = self.player, s, "discard"
                for x in others:
                    self.exposed[x] += 1
            elif self.state != "MahJonging":
                raise IllegalMove("chows with no discard to claim")
            self.mark_dangerous_discards()
            self.set_danger_flags(s)
            return None
        if isinstance(m, SerialTileMsg):
            s = self.seat(m.id)
            p = self.players[s]
            if self.player != s or self.state not in ("Discarding", "DeclaringSpecials"):
                raise IllegalMove(f"{m.kind} out of turn")
            if k == "PlayerDeclaresClosedKong":
                self.take(s, m.tile, 4)
                p.hand.sets.append(TileSet("ClosedKong", m.tile))
                self.exposed[m.tile] += 4
            else:
                for i, ts in enumerate(p.hand.sets):
                    if ts.type == "Pung" and ts.tile == m.tile:
                        self.take(s, m.tile)
                        p.hand.sets[i] = TileSet("Kong", m.tile, annexed=True)
                        break
                else:
                    raise IllegalMove(f"adds {m.tile} to a pung it has not")
                self.exposed[m.tile] += 1
            self.konging, self.tile, self.claims = True, m.tile, {}
            self.kong_made()
            self.set_danger_flags(s)
            return None
        if isinstance(m, ShowMsg):
            s = self.seat(m.id)
            p = self.players[s]
            if k == "PlayerShowsTiles":
                if sorted(m.tiles) != sorted(p.hand.concealed):
                    raise IllegalMove(f"shows {' '.join(m.tiles)} but holds {' '.join(sorted(p.hand.concealed))}")
            elif k == "PlayerSpecialSet":
                if sorted(m.tiles) != sorted(p.hand.concealed):
                    raise IllegalMove("a special set that is not the concealed tiles")
                p.hand.concealed.append(m.tile if m.tile is not None else "")
            elif sorted(m.tiles) != sorted(p.hand.concealed):
                raise IllegalMove("a special set that is not the concealed tiles")
            return None
        if isinstance(m, HandScoreMsg):
            return self.score(m)
        if isinstance(m, SettlementMsg):
            return self.settlement(m)
        if isinstance(m, ClaimMsg):
            self.claim(m)
        return None  # passes, pauses, readiness, comments: no change to the table that scoring reads

    PRIORITY = {"PlayerClaimsMahJong": 3, "PlayerClaimsPung": 2, "PlayerClaimsKong": 2, "PlayerClaimsChow": 1}

    def claim(self, m: ClaimMsg) -> None:
        s = self.seat(m.id)
        if m.kind == "PlayerDoesntClaim":
            return
        robbing = m.kind == "PlayerClaimsMahJong" and self.konging
        if self.state != "Discarded" and not robbing:
            raise IllegalMove(f"{m.kind} with no discard in play")
        if s == self.player:
            raise IllegalMove(f"{m.kind} of its own {'kong' if robbing else 'discard'}")
        if m.kind == "PlayerClaimsChow" and s != (self.player + 1) % 4:
            raise IllegalMove("claims a chow of a discard not by the previous player")
        self.claims[s] = m.kind

    def implemented(self, s: int, kinds: tuple[str, ...]) -> None:
        """The claim of seat ``s`` is carried out: it must have made it, and no other claim may outrank it
        (Mah-Jong, then pung or kong, then chow; between two Mah-Jong claims the first after the discarder)."""
        mine = self.claims.get(s)
        if mine not in kinds:
            raise IllegalMove(f"takes the discard without claiming it ({' or '.join(kinds)})")
        order = [(self.player + k) % 4 for k in (1, 2, 3)]
        for other, kind in self.claims.items():
            if other == s:
                continue
            if self.PRIORITY[kind] > self.PRIORITY[mine] or (
                    kind == mine == "PlayerClaimsMahJong" and order.index(other) < order.index(s)):
                raise IllegalMove(f"takes the discard although seat {_seat_name(other)} claimed it first "
                                  f"({kind})")
        self.claims = {}

    def score(self, m: HandScoreMsg) -> Difference | None:
        if self.winner is None:
            raise IllegalMove("a score before anybody went Mah-Jong")
        s = self.seat(m.id)
        p = self.players[s]
        winner = s == self.winner
        at = Situation(
            seat=s, round_wind=self.h.game.round, winner=winner, whence=self.whence, tile=self.tile,
            caller=self.caller if winner else None, claimed_set=self.claimed_set if winner else None,
            last_tile=self.live_used >= self.live_end, exactly_last=self.live_used == self.live_end,
            exposed=Counter(self.exposed), original_call=p.original_call,
            no_discard=tuple(q.no_discard for q in self.players),  # type: ignore[arg-type]
            kong_upon_kong=self.kong_upon_kong, hands_as_east=self.hands_as_east,
            no_special_scores=self.no_special_scores)
        ours = score_hand(p.hand, at, self.o)
        self.scored.append(Scored(p.hand.copy(), at, ours))
        if winner:
            p.dflags[s] = ours.danger
        p.score = ours.value
        who = f"{_seat_name(s)} (player {m.id})"
        for i, (a, b) in enumerate(zip(ours.explanation, m.explanation)):
            if a != b:
                return Difference(m.line + i, f"{who}'s score, item {i + 1}", a, b)
            self.items += 1
        if len(ours.explanation) != len(m.explanation):
            i = min(len(ours.explanation), len(m.explanation))
            a = ours.explanation[i] if i < len(ours.explanation) else "(no more items)"
            b = m.explanation[i] if i < len(m.explanation) else "(no more items)"
            return Difference(m.line + i, f"{who}'s score, item {i + 1}", a, b)
        if ours.value != m.score:
            return Difference(m.line, f"{who}'s score", str(ours.value), str(m.score))
        return None

    def settlement(self, m: SettlementMsg) -> Difference | None:
        if self.winner is None or any(p.score is None for p in self.players):
            raise IllegalMove("a settlement before every player is scored")
        w = self.winner
        winner = self.players[w]
        cannoner = next((i for i in range(4) if i != w and winner.dflags[i] & winner.dflags[w]), None)
        scores = [p.score or 0 for p in self.players]
        ours = settle(scores, w, self.o, whence=self.whence, supplier=self.supplier, cannoner=cannoner)
        for i, (a, b) in enumerate(zip(ours.explanation, m.explanation)):
            if a != b:
                return Difference(m.line + i, f"settlement, line {i + 1}", a, b)
            self.items += 1
        if len(ours.explanation) != len(m.explanation):
            return Difference(m.line, "settlement's explanation", f"{len(ours.explanation)} lines",
                              f"{len(m.explanation)} lines")
        if ours.changes != m.changes:
            return Difference(m.line, "settlement (East South West North)", " ".join(map(str, ours.changes)),
                              " ".join(map(str, m.changes)))
        return None


def _seat_name(s: int) -> str:
    return ("East", "South", "West", "North")[s]


def check_history(h: HandHistory, *, no_special_scores: bool = False) -> HandCheck:
    """Replay ``h`` and compare every score, explanation item and the settlement with mj-server's.
    ``no_special_scores``: the game was played with ``mj-server --no-special-scores`` (flowers and seasons score
    nothing), a switch of the server's that its histories do not record."""
    try:
        table = _Table(h, no_special_scores)
    except IllegalMove as e:
        return HandCheck(Difference(h.moves[0].line, "NewHand", f"illegal: {e}", "accepted"), (0, 0, 0, 0),
                         (0, 0, 0, 0), 0)
    diff: Difference | None = None
    for m in h.moves:
        try:
            diff = table.apply(m)
        except IllegalMove as e:
            who = getattr(m, "id", None)
            seat = f" ({_seat_name(table.seat(who))})" if isinstance(who, int) and who in table.seats else ""
            diff = Difference(m.line, f"{m.kind} by player {who}{seat}", f"illegal: {e}", "accepted")
        if diff is not None:
            break
    scores = tuple(p.score or 0 for p in table.players)
    last = h.moves[-1]
    changes = last.changes if isinstance(last, SettlementMsg) else (0, 0, 0, 0)
    return HandCheck(diff, scores, changes, table.items, tuple(table.scored),  # type: ignore[arg-type]
                     tuple(table.seats))  # type: ignore[arg-type]
