"""mjref's engine playing an mj-server hand history's own moves, from the history's wall (``wallfile``).

``follow`` deals the history's wall to its seats and answers each question the engine asks with the move the
history shows next: a discard, a claim that was carried out (pung, kong, chow, Mah-Jong), a kong declared in hand
or added to a pung, Mah-Jong from the wall; a pass where the history moves on without it.  The engine sets flowers
aside and draws every tile itself, so comparing its draws with the history's ``PlayerDraws`` and
``PlayerDrawsLoose`` (``draw_difference``) tests that mjref deals the wall as mj-server did, tile for tile.

The first place where the engine and the history part (a question the history's next move cannot answer, a draw
that differs) is a ``Difference`` with the history's line, mjref's value and mj-server's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.errors import InputError
from referee.game.classical.family import CODE
from referee.game.classical.history import ChowsMsg, DiscardMsg, Msg, SerialTileMsg, TileMsg
from referee.game.classical.table import Difference
from referee.game.classical.tiles import HIDDEN, step
from referee.game.classical.wallfile import HistoryDeal
from referee.game.engine import Hand
from referee.game.records import record
from referee.game.types import (
    GONG_CONCEALED,
    GONG_MELDED,
    GONG_PROMOTED,
    PASS,
    Answer,
    Event,
    Flower,
    InitCard,
    Mo,
    Question,
)

# The moves that answer a question of the engine's (the rest of a history is claims, passes, readiness and what
# follows Mah-Jong): a discard, a claim carried out, a kong made in hand, Mah-Jong.
DECISIVE = frozenset({"PlayerDiscards", "PlayerPungs", "PlayerKongs", "PlayerChows", "PlayerDeclaresClosedKong",
                      "PlayerAddsToPung", "PlayerMahJongs", "PlayerRobsKong"})
DRAWS = frozenset({"PlayerDraws", "PlayerDrawsLoose"})


@dataclass(slots=True)
class Followed:
    """The engine's hand played by the history's moves: every question asked with the answer given and the events
    it gave (the deal's events first, with no question), and the first difference, if any."""

    deal: HistoryDeal
    hand: Hand
    steps: list[tuple[Question | None, Answer | None, list[Event]]] = field(default_factory=list)
    difference: Difference | None = None

    @property
    def events(self) -> list[Event]:
        return [e for _, _, es in self.steps for e in es]


def decisive_moves(moves: tuple[Msg, ...]) -> list[Msg]:
    """The history's moves that answer the engine's questions, up to and including Mah-Jong."""
    out: list[Msg] = []
    for m in moves:
        if m.kind not in DECISIVE:
            continue
        if isinstance(m, ChowsMsg) and m.cpos == "AnyPos":  # a chow claimed without a position: decided later
            continue
        out.append(m)
        if m.kind in ("PlayerMahJongs", "PlayerRobsKong"):  # what follows is the winner's declarations
            break
    return out


def _describe(m: Msg, seat: int) -> str:
    tile = getattr(m, "tile", "")
    extra = f" {m.cpos}" if isinstance(m, ChowsMsg) else ""
    return f"line {m.line}: {m.kind} by seat {seat}" + (f" {tile}{extra}" if tile else "")


def _question(q: Question) -> str:
    tile = f" on {CODE[q.tile]}" if q.tile is not None else ""
    return f"/ask {q.ask}{tile} to seat {q.seat}"


def _chow_codes(tile: str, cpos: str) -> tuple[str | None, str | None]:
    """The two tiles a chow takes from the hand: the discard is its lowest, middle or highest tile."""
    offsets = {"Lower": (1, 2), "Middle": (-1, 1), "Upper": (-2, -1)}[cpos]
    return step(tile, offsets[0]), step(tile, offsets[1])


def _answer(q: Question, m: Msg | None, seat_of: dict[int, int]) -> Answer | None:
    """The answer the history's next decisive move ``m`` gives to ``q``: a pass when ``m`` is another seat's or
    another kind of move, None when ``q`` must be answered by ``m`` and cannot be (a throw asked of another
    seat than the history's discarder)."""
    mine = m is not None and seat_of[getattr(m, "id", -1)] == q.seat
    k = m.kind if m is not None else ""
    if q.ask == "throw":
        if not mine or not isinstance(m, DiscardMsg):
            return None
        return next((a for a in q.legal if CODE[a.tiles[0]] == m.tile), None)
    if not mine:
        return PASS
    if q.ask == "hu":
        if q.tile is None:  # own turn: Mah-Jong from the wall
            return Answer("hu") if isinstance(m, TileMsg) and k == "PlayerMahJongs" and m.tile != HIDDEN else PASS
        return Answer("hu") if k == "PlayerRobsKong" or (k == "PlayerMahJongs" and getattr(m, "tile", "") == HIDDEN) \
            else PASS
    if q.ask == "gong":
        if q.tile is None and isinstance(m, SerialTileMsg):
            mode = GONG_CONCEALED if k == "PlayerDeclaresClosedKong" else GONG_PROMOTED
            return next((a for a in q.legal if a.kind == "gong" and a.mode == mode and CODE[a.tiles[0]] == m.tile),
                        None)
        if q.tile is not None and k == "PlayerKongs":
            return next((a for a in q.legal if a.kind == "gong" and a.mode == GONG_MELDED), None)
        return PASS
    if q.ask == "pong":
        return next((a for a in q.legal if a.kind == "pong"), None) if k == "PlayerPungs" else PASS
    if q.ask == "eat":
        if not isinstance(m, ChowsMsg):
            return PASS
        want = sorted(c for c in _chow_codes(m.tile, m.cpos) if c is not None)
        return next((a for a in q.legal if a.kind == "eat" and sorted(CODE[t] for t in a.tiles) == want), None)
    return None


def follow(deal: HistoryDeal, rules: object) -> Followed:
    """Play ``deal``'s history through the engine under ``rules`` (the history's options), move by move."""
    h = deal.history
    hand = Hand(deal.wall, rules, dealer=deal.dealer, round_wind=deal.round_wind, hand_wind=deal.hand_wind,
                cont=deal.hands_as_east, hands_as_east=deal.hands_as_east)
    out = Followed(deal, hand)
    out.steps.append((None, None, hand.start()))
    moves = decisive_moves(h.moves)
    seat_of = deal.positions
    i = 0
    while not hand.is_over:
        q = hand.question
        assert q is not None
        m = moves[i] if i < len(moves) else None
        a = _answer(q, m, seat_of)
        if a is None:
            mj = _describe(m, seat_of[getattr(m, "id", -1)]) if m is not None else "the history's moves are over"
            out.difference = Difference(m.line if m is not None else h.moves[-1].line, "the next move",
                                        _question(q), mj)
            return out
        if a is not PASS and a.kind != "pass":
            i += 1
        out.steps.append((q, a, hand.apply(a)))
    return out


@record(frozen=True, slots=True)
class Draw:
    """A tile drawn: by which seat, the TID, and whether it was a loose tile (None: not told, a flower drawn)."""

    seat: int
    tile: int
    loose: bool | None
    line: int = 0  # the history's line (0 for the engine's)


def history_draws(deal: HistoryDeal) -> tuple[dict[int, list[int]], list[Draw]]:
    """The history's draws as TIDs of the wall: each seat's tiles from the deal and its specials phase (to the
    fourth ``PlayerDeclaresSpecial <id> --``), and every draw after it in order."""
    tiles = deal.wall.tiles
    front, back = 0, len(tiles)
    dealt: dict[int, list[int]] = {p: [] for p in (1, 2, 3, 4)}
    after: list[Draw] = []
    declared = 0
    for m in deal.history.moves:
        if m.kind == "PlayerDeclaresSpecial" and isinstance(m, TileMsg) and m.tile == HIDDEN:
            declared += 1
            continue
        if m.kind not in DRAWS or not isinstance(m, TileMsg):
            continue
        if front >= back:
            raise InputError(f"{deal.history.name}:{m.line}: {m.kind}: the wall has no tile left")
        if m.kind == "PlayerDraws":
            t, front = tiles[front], front + 1
        else:
            back -= 1
            t = tiles[back]
        seat = deal.positions[m.id]
        if declared < 4:
            dealt[seat].append(t)
        else:
            after.append(Draw(seat, t, m.kind == "PlayerDrawsLoose", m.line))
    return dealt, after


def engine_draws(f: Followed) -> tuple[dict[int, list[int]], list[Draw]]:
    """The engine's draws: each seat's tiles at the end of the deal (its hand and the flowers set aside), and every
    tile drawn after it in order (a flower drawn is shown by its ``Flower`` event)."""
    dealt: dict[int, list[int]] = {p: [] for p in (1, 2, 3, 4)}
    after: list[Draw] = []
    _, _, deal_events = f.steps[0]
    for e in deal_events:
        if isinstance(e, InitCard):
            dealt[e.seat] += e.tiles
        elif isinstance(e, Flower):
            dealt[e.seat].append(e.tile)
    for _, _, events in f.steps[1:]:
        for e in events:
            if isinstance(e, Mo):
                after.append(Draw(e.seat, e.tile, e.replacement))
            elif isinstance(e, Flower):
                after.append(Draw(e.seat, e.tile, None))
    return dealt, after


def _codes(tids: list[int]) -> str:
    return " ".join(sorted(CODE[t] for t in tids))


def draw_difference(f: Followed) -> Difference | None:
    """The first draw where the engine and the history differ (the deal by seat, East first, then every draw in
    order), or None when mjref drew exactly mj-server's tiles."""
    deal = f.deal
    theirs_dealt, theirs = history_draws(deal)
    ours_dealt, ours = engine_draws(f)
    first = deal.history.moves[0].line
    for k in range(4):
        p = (deal.dealer - 1 + k) % 4 + 1
        if sorted(ours_dealt[p]) != sorted(theirs_dealt[p]):
            return Difference(first, f"seat {p}'s tiles after the deal and its flowers", _codes(ours_dealt[p]),
                              _codes(theirs_dealt[p]))
    for n, (a, b) in enumerate(zip(ours, theirs)):
        if (a.seat, a.tile) != (b.seat, b.tile) or (a.loose is not None and a.loose != b.loose):
            def say(d: Draw) -> str:
                how = "" if d.loose is None else " (loose)" if d.loose else " (live)"
                return f"seat {d.seat} draws {CODE[d.tile]} [{d.tile}]{how}"
            return Difference(b.line, f"draw {n + 1} after the deal", say(a), say(b))
    if f.difference is None and len(ours) != len(theirs):
        n = min(len(ours), len(theirs))
        line = theirs[n].line if n < len(theirs) else deal.history.moves[-1].line
        return Difference(line, f"draw {n + 1} after the deal", "a draw" if n < len(ours) else "no more draws",
                          "a draw" if n < len(theirs) else "no more draws")
    return None


__all__ = ["DECISIVE", "Draw", "Followed", "decisive_moves", "draw_difference", "engine_draws", "follow",
           "history_draws"]
