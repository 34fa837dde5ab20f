"""SVG tile art: one ``<symbol>`` per tile kind, drawn from shapes and Latin text only.

The pages must read well on a machine without CJK or Mahjong fonts (a headless CI browser has neither), so no face
depends on one: suit tiles are a big rank numeral in the suit's colour over a drawn suit mark (a red 万 drawn
as strokes for wan, a bamboo stick for tiao, a ring for tong); winds are their letter; the red dragon is a drawn
中, the white dragon the blue frame of a real tile, the green dragon a green G; flowers are a drawn blossom with
their number.  Chinese names go in ``title`` tooltips, where the system's own fonts render them.

A tile is used as ``<svg class="face"><use href="#k-13"/></svg>`` (``k-<kind>``, kinds as in
:mod:`referee.game.tiles`; ``k-back`` is a tile's back).
"""

from __future__ import annotations

from referee.game.tiles import FLOWER_KINDS, KINDS, name, rank_of_kind, suit_of_kind

SUIT_COLOURS = {1: "#b3261e", 2: "#1e7a3c", 3: "#1d4f91"}
FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
_FACE = '<rect x="1" y="1" width="28" height="38" rx="3.5" fill="#fbf8ef" stroke="#8f8570" stroke-width="1"/>'

_WIND_LETTERS = {41: "E", 42: "W", 43: "S", 44: "N"}
_WIND_WORDS = {41: "EAST", 42: "WEST", 43: "SOUTH", 44: "NORTH"}
_FLOWER_LABELS = {1: "SPR", 2: "SUM", 3: "AUT", 4: "WIN", 5: "PLUM", 6: "ORCH", 7: "CHRY", 8: "BAMB"}


def _text(x: float, y: float, s: str, size: float, fill: str, weight: str = "bold") -> str:
    return (f'<text x="{x}" y="{y}" font-family="{FONT}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
            f'text-anchor="middle">{s}</text>')


def _wan_mark() -> str:
    """A red 万 (the simplified form of 萬) drawn as three strokes."""
    c = SUIT_COLOURS[1]
    return (f'<g fill="none" stroke="{c}" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">'
            '<path d="M8.5 27.5 H21.5"/><path d="M13.5 27.8 C13.2 32 11.5 35 8.8 37"/>'
            '<path d="M13.6 31 H19.6 C19.6 34 19 36.2 16.6 36.6"/></g>')


def _tiao_mark() -> str:
    c = SUIT_COLOURS[2]
    return (f'<g><rect x="12.5" y="26" width="5" height="11" rx="2.2" fill="{c}"/>'
            '<path d="M12.5 31.5 H17.5" stroke="#fbf8ef" stroke-width="1"/>'
            '<path d="M15 27.5 V30 M15 33 V35.5" stroke="#8fd19e" stroke-width="0.8"/></g>')


def _tong_mark() -> str:
    c = SUIT_COLOURS[3]
    return (f'<g><circle cx="15" cy="31.5" r="5" fill="none" stroke="{c}" stroke-width="2"/>'
            f'<circle cx="15" cy="31.5" r="1.6" fill="#b3261e"/></g>')


def _zhong() -> str:
    """The red dragon's 中, drawn: a box and a stroke through it."""
    return ('<g fill="none" stroke="#c0281c" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round">'
            '<rect x="7" y="11.5" width="16" height="10" rx="1"/><path d="M15 5.5 V33"/></g>')


def _blossom(colour: str) -> str:
    petals = "".join(
        f'<circle cx="{15 + 4.2 * dx:.2f}" cy="{15 + 4.2 * dy:.2f}" r="3.3" fill="{colour}"/>'
        for dx, dy in ((0, -1), (0.95, -0.31), (0.59, 0.81), (-0.59, 0.81), (-0.95, -0.31))
    )
    return f'<g>{petals}<circle cx="15" cy="15" r="2.2" fill="#f2c230"/></g>'


def kind_symbol(k: int) -> str:
    """The ``<symbol>`` of one tile kind."""
    parts = [_FACE]
    suit = suit_of_kind(k)
    if suit in SUIT_COLOURS:
        r = rank_of_kind(k)
        parts.append(_text(15, 22, str(r), 20, SUIT_COLOURS[suit]))
        parts.append({1: _wan_mark, 2: _tiao_mark, 3: _tong_mark}[suit]())
    elif k in _WIND_LETTERS:
        parts.append(_text(15, 24, _WIND_LETTERS[k], 21, "#1b2433"))
        parts.append(_text(15, 35, _WIND_WORDS[k], 6, "#1b2433", "normal"))
    elif k == 45:
        parts.append(_zhong())
        parts.append(_text(15, 37.5, "RED", 5.5, "#c0281c", "normal"))
    elif k == 46:
        parts.append(_text(15, 25, "G", 21, "#1e7a3c"))
        parts.append(_text(15, 35, "GREEN", 5.5, "#1e7a3c", "normal"))
    elif k == 47:
        parts.append('<rect x="6" y="7" width="18" height="24" rx="1.5" fill="none" stroke="#1d4f91" '
                     'stroke-width="2"/><rect x="9" y="10" width="12" height="18" fill="none" stroke="#1d4f91" '
                     'stroke-width="1"/>')
        parts.append(_text(15, 37, "WHITE", 5.5, "#1d4f91", "normal"))
    elif k in FLOWER_KINDS:
        colour = "#c0392b" if k <= 4 else "#7d3c98"
        parts.append(_blossom(colour))
        parts.append(_text(15, 31, str(k if k <= 4 else k - 4), 9, colour))
        parts.append(_text(15, 37.5, _FLOWER_LABELS[k], 5.5, colour, "normal"))
    else:  # pragma: no cover - every kind is listed above
        raise ValueError(f"no art for kind {k}")
    return f'<symbol id="k-{k}" viewBox="0 0 30 40">{"".join(parts)}</symbol>'


def back_symbol() -> str:
    return ('<symbol id="k-back" viewBox="0 0 30 40"><rect x="1" y="1" width="28" height="38" rx="3.5" '
            'fill="#2f6b4f" stroke="#1d4532" stroke-width="1"/><rect x="4" y="4" width="22" height="32" rx="2" '
            'fill="none" stroke="#6fae8c" stroke-width="0.8"/></symbol>')


def symbol_defs() -> str:
    """A hidden ``<svg>`` holding every tile symbol; put it once in a page's body."""
    symbols = "".join(kind_symbol(k) for k in (*KINDS, *FLOWER_KINDS))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute" '
            f'aria-hidden="true"><defs>{symbols}{back_symbol()}</defs></svg>')


def tile_names() -> dict[int, list[str]]:
    """Kind → [English name, Chinese name], for tooltips and action texts in the page."""
    return {k: [name(k), name(k, chinese=True)] for k in (*KINDS, *FLOWER_KINDS)}
