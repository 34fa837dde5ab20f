"""The ICGA codec: the protocol page's own lines, every answer form, every refusal with its reason, round
trips, and fuzzing of the untrusted direction (bot → referee)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.game.tiles import ALL_TIDS, FLOWER_TIDS, SUIT_KINDS, WINDS_IN_ORDER
from referee.game.types import (
    HU,
    PASS,
    Answer,
    Eat,
    Event,
    Exit,
    Flower,
    Gong,
    Hu,
    InitCard,
    InitGame,
    Mo,
    Pong,
    Question,
    Throw,
)
from wrappers import process
from wrappers.codec import (
    DEBUG_TO_STDERR,
    MAX_LINE_LENGTH,
    ONE_LINE,
    Ask,
    ProtocolError,
    Start,
    cut,
    format_answer,
    format_event,
    format_question,
    format_start,
    parse_answer,
    parse_server_line,
)

# ---------------------------------------------------------------------------------------------- server → bot

PAGE_EVENTS: list[tuple[Event, str]] = [
    (InitGame("EAST", "EAST", 3, 2, 0), "/initGame EAST EAST 3 2 0"),
    (
        InitCard(1, (121, 122, 142, 143, 152, 220, 241, 260, 270, 342, 351, 370, 383, 390, 462, 463)),
        "/initCard 121 122 142 143 152 220 241 260 270 342 351 370 383 390 462 463",
    ),
    (Mo(1, 410), "/mo 410"),
    (Throw(3, 410), "/throw 3 410"),
    (Eat(4, (280, 271, 292)), "/eat 4 280 271 292"),
    (Pong(2, (320, 321, 323)), "/pong 2 320 321 323"),
    (Gong(2, 4, (160, 161, 162, 163)), "/gong 2 4 160 161 162 163"),
    (Gong(2, 0, (370, 371, 372, 373)), "/gong 2 0 370 371 372 373"),
    (Gong(2, 0, ()), "/gong 2 0"),
    (Gong(1, 1, (154,)), "/gong 1 1 154"),
    (
        Hu(3, 232, (112, 120, 132, 192, 193, 231, 233, 372, 382, 392, 471, 472, 473)),
        "/hu 3 232 112 120 132 192 193 231 233 372 382 392 471 472 473",
    ),
    (Exit((0, 0, 0, 0)), "/exit 0 0 0 0"),
    (Exit((-140, 420, -140, -140)), "/exit -140 420 -140 -140"),
]


@pytest.mark.parametrize(("event", "line"), PAGE_EVENTS, ids=[line for _, line in PAGE_EVENTS])
def test_page_examples_format_exactly(event: Event, line: str) -> None:
    assert format_event(event) == line


# The page's examples `/gong 1 1 154` and `/eat 132 145` name tiles that its own table does not have (5-Wan is
# 150..153, 4-Wan 140..143): they format as shown, but the strict parsers refuse them.
PAGE_TYPOS = {"/gong 1 1 154"}


@pytest.mark.parametrize(("event", "line"), PAGE_EVENTS, ids=[line for _, line in PAGE_EVENTS])
def test_page_examples_parse_back(event: Event, line: str) -> None:
    seat = getattr(event, "seat", 0)
    if line in PAGE_TYPOS:
        with pytest.raises(ProtocolError, match="154 is not a tile ID"):
            parse_server_line(line, seat=seat)
    else:
        assert parse_server_line(line, seat=seat) == event


def test_flower_is_an_opt_in_extension() -> None:
    assert format_event(Flower(2, 50)) is None
    assert format_event(Flower(2, 50), extensions=frozenset({"flower"})) == "/flower 2 50"
    assert parse_server_line("/flower 2 50") == Flower(2, 50)


def test_format_event_refuses_unknown_event_types() -> None:
    with pytest.raises(TypeError):
        format_event(Event())


def test_start() -> None:
    assert format_start(2, r"D:\AI_1.exe") == r"/start MJ 2 D:\AI_1.exe"
    assert format_start(2) == "/start MJ 2 -"  # the AIPath token is always there
    assert format_start(3, "C:\\Program Files\\bot.exe") == r"/start MJ 3 C:\Program_Files\bot.exe"
    assert format_start(1, "bot\n/hu") == "/start MJ 1 bot_/hu"  # no line injection
    assert format_start(1, "玩家") == "/start MJ 1 __"
    # The page's own example, with its stray blank; and a line without an AIPath.
    assert parse_server_line(r"/start MJ 2 D:\AI _1.exe") == Start(2, r"D:\AI _1.exe")
    assert parse_server_line("/start MJ 2") == Start(2, "")
    assert parse_server_line(format_start(4, "./bot")) == Start(4, "./bot")


@pytest.mark.parametrize("kind", ["throw", "hu", "gong", "pong", "eat"])
def test_questions(kind: str) -> None:
    line = format_question(Question(1, kind, ()))  # type: ignore[arg-type]
    assert line == f"/ask {kind}"
    assert parse_server_line(line) == Ask(kind)  # type: ignore[arg-type]


def test_server_lines_tolerate_terminators_and_case() -> None:
    assert parse_server_line(b"/MO 410\r\n", seat=3) == Mo(3, 410)
    assert parse_server_line("  /initgame EAST SOUTH 1 4 0 \n") == InitGame("EAST", "SOUTH", 1, 4, 0)
    assert parse_server_line("/exit") == Exit((0, 0, 0, 0))  # the seed's bare /exit


SERVER_ERRORS = [
    ("/ask sing", "`/ask sing`: /ask takes one of throw, hu, gong, pong, eat"),
    ("/start XX 2", "`/start XX 2`: /start must be followed by MJ, not XX"),
    ("/start MJ 5 x", "`/start MJ 5 x`: position must be 1, 2, 3 or 4, not 5"),
    ("/start MJ", "`/start MJ`: /start takes MJ, a position and an AIPath, got 1 arguments"),
    ("/initGame EAST EAST 3 2", "`/initGame EAST EAST 3 2`: /initGame takes 5 fields, got 4"),
    (
        "/initGame east EAST 3 2 0",
        "`/initGame east EAST 3 2 0`: wind must be EAST, SOUTH, WEST or NORTH, not east",
    ),
    ("/initGame EAST EAST 0 2 0", "`/initGame EAST EAST 0 2 0`: open must be 1, 2, 3 or 4, not 0"),
    ("/initGame EAST EAST 3 2 -1", "`/initGame EAST EAST 3 2 -1`: continue must be a whole number, not -1"),
    ("/initCard 110 111", "`/initCard 110 111`: /initCard takes 13, 14, 16 or 17 tiles, got 2"),
    ("/mo 10", "`/mo 10`: 10 is a flower, and flowers are never in a hand"),
    ("/mo 0410", "`/mo 0410`: 0410 is not a tile ID (write 410: a TID has no sign, leading zeros or decimal point)"),
    ("/throw 3", "`/throw 3`: /throw takes 2 fields, got 1"),
    ("/eat 4 280 271 293", None),  # a run: 8, 7, 9 tiao
    ("/eat 4 280 271 311", "`/eat 4 280 271 311`: eat tiles are not a run of one suit"),
    ("/eat 4 410 420 430", "`/eat 4 410 420 430`: eat tiles are not a run of one suit"),
    (
        "/eat 4 292 271 280",
        "`/eat 4 292 271 280`: the eater's two tiles (first and last) must be in ascending order of rank",
    ),
    ("/pong 2 320 321 331", "`/pong 2 320 321 331`: pong tiles are not all of one kind"),
    ("/pong 2 320 321 321", "`/pong 2 320 321 321`: tile 321 is named twice"),
    ("/gong 2 3 160", "`/gong 2 3 160`: gong type must be 0, 1 or 4, not 3"),
    ("/gong 2 0 160 161", "`/gong 2 0 160 161`: /gong <position> 0 takes 0 or 4 tiles, got 2"),
    ("/gong 2 4", "`/gong 2 4`: /gong <position> 4 takes 4 tiles, got 0"),
    ("/gong 2 1 154 155", "`/gong 2 1 154 155`: /gong <position> 1 takes 1 tile, got 2"),
    (
        "/hu 3 232 112 120",
        "`/hu 3 232 112 120`: a winner holds 1, 4, 7, 10, 13 or 16 other concealed tiles, not 2",
    ),
    ("/exit 1 2 3", "`/exit 1 2 3`: /exit takes 4 scores, got 3"),
    ("/exit 1 2 3 +4", "`/exit 1 2 3 +4`: a score must be an integer, not +4"),
    ("/flower 2 110", "`/flower 2 110`: 110 is not a flower tile ID"),
    ("/pass", "`/pass`: unknown server command /pass"),
]


@pytest.mark.parametrize(("line", "reason"), SERVER_ERRORS, ids=[line for line, _ in SERVER_ERRORS])
def test_server_line_errors(line: str, reason: str | None) -> None:
    if reason is None:
        parse_server_line(line)
        return
    with pytest.raises(ProtocolError) as info:
        parse_server_line(line)
    assert info.value.reason == reason


# --------------------------------------------------------------------------------------- event strategies

positions = st.integers(1, 4)
hand_tids = st.sampled_from(ALL_TIDS)


@st.composite
def eats(draw: st.DrawFn) -> Eat:
    start = draw(st.sampled_from([k for k in SUIT_KINDS if k % 10 <= 7]))
    tiles = [10 * (start + i) + draw(st.integers(0, 3)) for i in range(3)]
    claimed = tiles.pop(draw(st.integers(0, 2)))
    return Eat(draw(positions), (tiles[0], claimed, tiles[1]))


@st.composite
def same_kind(draw: st.DrawFn, n: int) -> tuple[int, ...]:
    k = draw(st.sampled_from(ALL_TIDS)) // 10
    copies = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n, unique=True))
    return tuple(sorted(10 * k + c for c in copies))


@st.composite
def hus(draw: st.DrawFn) -> Hu:
    n = draw(st.sampled_from([1, 4, 7, 10, 13, 16]))
    tiles = draw(st.lists(hand_tids, min_size=n + 1, max_size=n + 1, unique=True))
    return Hu(draw(positions), tiles[0], tuple(sorted(tiles[1:])))


events: st.SearchStrategy[Event] = st.one_of(
    st.builds(
        InitGame,
        st.sampled_from(WINDS_IN_ORDER),
        st.sampled_from(WINDS_IN_ORDER),
        positions,
        positions,
        st.integers(0, 99),
    ),
    st.builds(
        InitCard,
        positions,
        st.sampled_from([16, 17]).flatmap(
            lambda n: st.lists(hand_tids, min_size=n, max_size=n, unique=True).map(lambda t: tuple(sorted(t)))
        ),
    ),
    st.builds(Mo, positions, hand_tids, st.booleans()),
    st.builds(Flower, positions, st.sampled_from(FLOWER_TIDS)),
    st.builds(Throw, positions, hand_tids),
    eats(),
    st.builds(Pong, positions, same_kind(3)),
    st.builds(Gong, positions, st.just(4), same_kind(4)),
    st.builds(Gong, positions, st.just(0), same_kind(4) | st.just(())),
    st.builds(Gong, positions, st.just(1), hand_tids.map(lambda t: (t,))),
    hus(),
    st.builds(Exit, st.tuples(*[st.integers(-(10**6), 10**6)] * 4)),
)


@settings(max_examples=400)
@given(events)
def test_every_event_round_trips(event: Event) -> None:
    line = format_event(event, extensions=frozenset({"flower"}))
    assert line is not None
    assert line == line.strip() and "\n" not in line and line.isascii()
    seat = getattr(event, "seat", 0)
    expected = event.replace(replacement=False) if isinstance(event, Mo) else event
    assert parse_server_line(line, seat=seat) == expected
    assert parse_server_line(line + "\r\n", seat=seat) == expected


# ---------------------------------------------------------------------------------------------- bot → server

PAGE_ANSWERS = [
    ("/throw 112", Answer.throw(112)),
    ("/eat 132 142", Answer.eat(132, 142)),  # the page has 145, which is not a tile ID
    ("/pong 112 113", Answer.pong(112, 113)),
    ("/gong 4 110 112 113", Answer.gong(4, (110, 112, 113))),
    ("/gong 0 370 371 372 373", Answer.gong(0, (370, 371, 372, 373))),
    ("/gong 1 410", Answer.gong(1, (410,))),
    ("/hu", HU),
    ("/pass", PASS),
]


@pytest.mark.parametrize(("line", "answer"), PAGE_ANSWERS, ids=[line for line, _ in PAGE_ANSWERS])
def test_answer_forms(line: str, answer: Answer) -> None:
    assert parse_answer(line) == answer
    assert parse_answer(line.encode()) == answer
    assert format_answer(answer) == line


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("/THROW 112", Answer.throw(112)),
        ("/Pass", PASS),
        ("/hU\r\n", HU),
        (b"/throw 112\r\n", Answer.throw(112)),
        ("/throw 112\n", Answer.throw(112)),
        ("/throw 112\r", Answer.throw(112)),
        ("   /eat  142\t132  ", Answer.eat(132, 142)),  # normalised: ascending
        ("/pong 113 112", Answer.pong(112, 113)),
        ("/GONG 0 373 372 371 370", Answer.gong(0, (370, 371, 372, 373))),
        (bytearray(b"/pass"), PASS),
    ],
)
def test_answers_are_read_leniently_where_the_rules_say(line: str | bytes, answer: Answer) -> None:
    assert parse_answer(line) == answer


_TID_FORM = "a TID has no sign, leading zeros or decimal point)"
ANSWER_ERRORS: list[tuple[str | bytes, str]] = [
    ("", f"empty line; {ONE_LINE}"),
    ("\r\n", f"empty line; {ONE_LINE}"),
    ("   ", f"`   `: empty line; {ONE_LINE}"),
    # a banner or a debugging line on stdout: the reason says where it belongs; a forgotten slash, which slash
    ("hello", "`hello`: not a command (commands start with /); " + DEBUG_TO_STDERR),
    ("throw 112", "`throw 112`: not a command (commands start with /): /throw, not throw"),
    ("PASS", "`PASS`: not a command (commands start with /): /pass, not PASS"),
    ("/foo", "`/foo`: unknown command /foo (a bot answers with /throw, /eat, /pong, /gong, /hu or /pass)"),
    ("/", "`/`: unknown command / (a bot answers with /throw, /eat, /pong, /gong, /hu or /pass)"),
    (
        "/mo 410",
        (
            "`/mo 410`: /mo is a referee line, not an answer"
            " (a bot answers with /throw, /eat, /pong, /gong, /hu or /pass)"
        ),
    ),
    ("/throw", "`/throw`: /throw takes 1 tile, got 0"),
    ("/throw 112 113", "`/throw 112 113`: /throw takes 1 tile, got 2"),
    ("/throw 112 112", "`/throw 112 112`: /throw takes 1 tile, got 2"),
    ("/throw 10", "`/throw 10`: flowers cannot be thrown (10 is a flower; flowers are never in a hand)"),
    ("/throw 999", "`/throw 999`: 999 is not a tile ID"),
    ("/throw 114", "`/throw 114`: 114 is not a tile ID"),
    # a TID written with a leading zero (printf("%04d")), a sign or a decimal point: refused, saying how to write it
    ("/throw 0112", f"`/throw 0112`: 0112 is not a tile ID (write 112: {_TID_FORM}"),
    ("/throw +112", f"`/throw +112`: +112 is not a tile ID (write 112: {_TID_FORM}"),
    ("/throw 112.0", f"`/throw 112.0`: 112.0 is not a tile ID (write 112: {_TID_FORM}"),
    ("/eat 0132 142", f"`/eat 0132 142`: 0132 is not a tile ID (write 132: {_TID_FORM}"),
    ("/throw 010", "`/throw 010`: 010 is not a tile ID"),  # 10 is a flower: no hint towards another refusal
    # a tile's kind where its TID is due (the page's TIDs name one copy of four)
    ("/throw 15", "`/throw 15`: 15 is not a tile ID (15 is a kind: name one of its copies that the bot holds, 150 to "
                  "153)"),
    ("/pong 47 47", "`/pong 47 47`: 47 is not a tile ID (47 is a kind: name one of its copies that the bot holds, "
                    "470 to 473)"),
    ("/throw 0114", "`/throw 0114`: 0114 is not a tile ID"),
    ("/throw -1", "`/throw -1`: -1 is not a tile ID"),
    ("/throw abc", "`/throw abc`: abc is not a tile ID"),
    ("/throw 11223344556677889900", "`/throw 11223344556677889900`: 112233445566778… is not a tile ID"),
    ("/eat 132", "`/eat 132`: /eat takes 2 tiles, got 1"),
    ("/eat 132 999", "`/eat 132 999`: 999 is not a tile ID"),
    ("/eat 132 145", "`/eat 132 145`: 145 is not a tile ID"),  # the page's own example
    ("/eat 132 132", "`/eat 132 132`: tile 132 is named twice"),
    ("/eat 10 112", "`/eat 10 112`: 10 is a flower, and flowers are never in a hand"),
    ("/pong 112 112", "`/pong 112 112`: tile 112 is named twice"),
    ("/pong 112 113 111", "`/pong 112 113 111`: /pong takes 2 tiles, got 3"),
    ("/gong", "`/gong`: /gong takes a gong type (0, 1 or 4) and its tiles, got nothing"),
    ("/gong 7 110", "`/gong 7 110`: gong type must be 0, 1 or 4, not 7"),
    ("/gong 04 110 112 113", "`/gong 04 110 112 113`: gong type must be 0, 1 or 4, not 04"),
    (
        "/gong 110 112 113",  # the page's own example, which forgot the type
        "`/gong 110 112 113`: gong type must be 0, 1 or 4, not 110 (a melded gong is /gong 4 <c1> <c2> <c3>)",
    ),
    ("/gong 4 110 112", "`/gong 4 110 112`: /gong 4 takes 3 tiles, got 2"),
    ("/gong 0 370 371 372", "`/gong 0 370 371 372`: /gong 0 takes 4 tiles, got 3"),
    ("/gong 1", "`/gong 1`: /gong 1 takes 1 tile, got 0"),
    ("/gong 0 370 371 372 372", "`/gong 0 370 371 372 372`: tile 372 is named twice"),
    ("/gong 1 10", "`/gong 1 10`: 10 is a flower, and flowers are never in a hand"),
    ("/hu 232", "`/hu 232`: /hu takes no arguments, got 1"),
    ("/pass now", "`/pass now`: /pass takes no arguments, got 1"),
    ("/pass\x00", "`/pass\\x00`: NUL byte at column 6"),
    (b"\x00/pass", "`\\x00/pass`: NUL byte at column 1"),
    ("/pass\x1b[0m", "`/pass\\x1b[0m`: control character \\x1b at column 6"),
    ("/pass\n/hu", "`/pass\\n/hu`: line break \\n inside the line at column 6"),
    ("/pass\r\r\n", "`/pass\\r`: line break \\r inside the line at column 6"),
    (b"/throw \xff\xfe", "`/throw \\xff\\xfe`: non-ASCII byte 0xff at column 8; lines must be plain ASCII"),
    ("/throw 一", "`/throw \\u4e00`: non-ASCII character \\u4e00 at column 8; lines must be plain ASCII"),
    ("/pass\u00a0", "`/pass\\xa0`: non-ASCII character \\xa0 at column 6; lines must be plain ASCII"),
    (
        b"\xef\xbb\xbf/pass",
        "`\\xef\\xbb\\xbf/pass`: starts with a UTF-8 byte order mark; lines must be plain ASCII",
    ),
    ("\ufeff/pass", "`\\ufeff/pass`: starts with a byte order mark (U+FEFF); lines must be plain ASCII"),
]


@pytest.mark.parametrize(("line", "reason"), ANSWER_ERRORS, ids=[repr(x)[:40] for x, _ in ANSWER_ERRORS])
def test_answer_errors_say_why(line: str | bytes, reason: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_answer(line)
    assert info.value.reason == reason
    assert str(info.value) == reason
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("line", ["/throw " + "9" * 5000, b"/pass" + b" " * 2000, "x" * 10**6])
def test_huge_lines_are_refused_with_a_short_reason(line: str | bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_answer(line)
    assert f"line too long ({len(line)} " in info.value.reason
    assert f"the limit is {MAX_LINE_LENGTH})" in info.value.reason
    assert len(info.value.reason) < 160


def test_a_line_at_the_limit_is_read() -> None:
    line = "/pass" + " " * (MAX_LINE_LENGTH - 5)
    assert parse_answer(line + "\r\n") == PASS
    with pytest.raises(ProtocolError):
        parse_answer(line + " ")


def test_non_lines_are_a_programming_error() -> None:
    with pytest.raises(TypeError):
        parse_answer(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- cut


def test_cut() -> None:
    assert cut("/throw 112") == "/throw 112"
    assert cut("a" * 80) == "a" * 80
    assert cut("a" * 81) == "a" * 79 + "…"
    assert len(cut("x" * 10**6)) == 80
    assert cut("\x00\t\n\r\\é中\U0001f000") == "\\x00\\t\\n\\r\\\\\\xe9\\u4e2d\\U0001f000"
    assert cut(b"ok\xff") == "ok\\xff"
    assert cut("\x00" * 10, 10) == "\\x00\\x00…"  # never cuts inside an escape
    assert cut("abc", 1) == "…"
    assert cut("", 5) == ""


@settings(max_examples=200)
@given(st.text(), st.integers(1, 200))
def test_cut_is_short_and_printable(text: str, limit: int) -> None:
    out = cut(text, limit)
    assert len(out) <= limit
    assert all(" " <= ch <= "~" for ch in out.rstrip("…"))


# --------------------------------------------------------------------------------------- answer round trips

answers: st.SearchStrategy[Answer] = st.one_of(
    hand_tids.map(Answer.throw),
    st.lists(hand_tids, min_size=2, max_size=2, unique=True).map(lambda t: Answer.eat(*t)),
    st.lists(hand_tids, min_size=2, max_size=2, unique=True).map(lambda t: Answer.pong(*t)),
    st.lists(hand_tids, min_size=3, max_size=3, unique=True).map(lambda t: Answer.gong(4, t)),
    st.lists(hand_tids, min_size=4, max_size=4, unique=True).map(lambda t: Answer.gong(0, t)),
    hand_tids.map(lambda t: Answer.gong(1, (t,))),
    st.just(HU),
    st.just(PASS),
)


@settings(max_examples=300)
@given(answers)
def test_answers_round_trip(answer: Answer) -> None:
    line = format_answer(answer)
    assert line == str(answer)
    assert parse_answer(line) == answer
    assert parse_answer(line.upper().encode() + b"\r\n") == answer


# ---------------------------------------------------------------------------------------------- fuzzing


def _answer_or_protocol_error(line: str | bytes) -> None:
    try:
        result = parse_answer(line)
    except ProtocolError as e:
        assert e.reason and "\n" not in e.reason and len(e.reason) < 400
    else:
        assert isinstance(result, Answer)


@settings(max_examples=400)
@given(st.binary(max_size=200))
def test_fuzz_bytes(data: bytes) -> None:
    _answer_or_protocol_error(data)


@settings(max_examples=400)
@given(st.text(max_size=200))
def test_fuzz_text(text: str) -> None:
    _answer_or_protocol_error(text)


tokens = st.one_of(
    st.sampled_from(["0", "1", "4", "7", "10", "80", "112", "473", "999", "-1", "+1", "1_0", "٣", "0x1", ""]),
    hand_tids.map(str),
    st.text(max_size=8),
    st.integers().map(str),
)
commands = st.sampled_from(
    ["/throw", "/eat", "/pong", "/gong", "/hu", "/pass", "/THROW", "/Gong", "/mo", "/", "x"]
)


@settings(max_examples=600)
@given(commands, st.lists(tokens, max_size=6), st.sampled_from([" ", "  ", "\t", " \x00 "]), st.booleans())
def test_fuzz_commands_with_random_tokens(command: str, args: list[str], sep: str, as_bytes: bool) -> None:
    line = sep.join([command, *args])
    _answer_or_protocol_error(line.encode("utf-8", "surrogatepass") if as_bytes else line)


@settings(max_examples=50)
@given(answers, st.binary(min_size=1, max_size=50), st.integers(0, 3 * MAX_LINE_LENGTH))
def test_fuzz_valid_answers_with_garbage(answer: Answer, junk: bytes, pad: int) -> None:
    line = format_answer(answer).encode()
    _answer_or_protocol_error(line + junk)
    _answer_or_protocol_error(junk + line)
    _answer_or_protocol_error(line + b" " * pad)
    _answer_or_protocol_error(line + b" " * pad + junk)


@settings(max_examples=300)
@given(st.binary(max_size=120))
def test_fuzz_server_lines(data: bytes) -> None:
    try:
        parse_server_line(data)
    except ProtocolError:
        pass


def test_throw_and_draw_lines_from_the_tables_are_the_protocol_lines() -> None:
    """Throws and draws take their lines from tables made at the first event: every seat and tile gives the line
    docs/protocol.md writes; a seat or tile outside them is formatted all the same."""
    for tid in (*ALL_TIDS, *FLOWER_TIDS):
        assert format_event(Mo(3, tid, audience=frozenset({3}))) == f"/mo {tid}"
        for seat in (1, 2, 3, 4):
            assert format_event(Throw(seat, tid)) == f"/throw {seat} {tid}"
    assert format_event(Throw(7, 1112)) == "/throw 7 1112"
    assert format_event(Mo(0, 999)) == "/mo 999"


def test_a_line_escaped_by_a_wrapper_is_not_escaped_twice() -> None:
    """A served match's wrapper reports its bot's bad line escaped (``cut``); the referee escapes what it is sent
    again (the wrapper is not trusted either), but keeps its backslashes: the transcript showed ``\\\\x1b``."""
    from wrappers.codec import cut

    line = cut("\x1b[2J/throw 11")
    assert line == "\\x1b[2J/throw 11"
    assert cut(line, escaped=True) == line
    assert cut("\x1b[2J" + line, escaped=True) == "\\x1b[2J" + line, "raw control characters are still escaped"
    assert cut(line) == "\\\\x1b[2J/throw 11"


@pytest.mark.parametrize(("line", "reason"), [
    (b"/throw 112\n", "a line nobody asked for (before this question)"),  # an answer twice, or early
    (b"  /PASS \r\n", "a line nobody asked for (before this question)"),
    (b"debug: 17 tiles\n", f"a line nobody asked for (before this question); {DEBUG_TO_STDERR}"),
    (b"\n", f"an empty line nobody asked for (before this question); {ONE_LINE}"),
])
def test_a_line_nobody_asked_for_is_told_what_to_change(line: bytes, reason: str) -> None:
    assert process._unasked(line) == reason
