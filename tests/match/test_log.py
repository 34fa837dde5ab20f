"""The log format is defined in ``referee.log`` alone: every record kind written through its builders reads back
through its one reader, and a bot's answer line is kept exactly as it was sent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.game.series import HandSetup
from referee.game.taiwan16.rules import make_ruleset
from referee.game.types import (
    EVENT_TYPES,
    Dealt,
    Declare,
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
    Scored,
    Show,
    Throw,
)
from referee.game.wall import generate_wall
from referee.log import (
    AnswerRecord,
    EventRecord,
    FaultRecord,
    FinalRecord,
    HandRecord,
    HeaderRecord,
    LogError,
    LogWriter,
    ResultRecord,
    answer_line,
    answer_ms,
    event_line,
    event_record,
    fault_record,
    final_record,
    hand_record,
    header_record,
    open_log,
    result_record,
    seat_info,
)
from referee.match import play_match, resolve_bots
from referee.replay import replay_log
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
BADBOT = ROOT / "tests" / "bots" / "badbot.py"

ONE_OF_EACH: list[Event] = [
    InitGame("EAST", "SOUTH", 3, 2, cont=1),
    InitCard(1, (111, 112, 113), audience=frozenset({1})),
    Mo(2, 221, replacement=True, audience=frozenset({2})),
    Flower(3, 511),
    Throw(4, 331),
    Eat(1, (332, 331, 341)),
    Pong(2, (411, 412, 413)),
    Gong(3, 0, (121, 122, 123, 124), audience=frozenset({3})),
    Hu(4, 131, (111, 112)),
    Dealt(1, (111, 511, 112, 113), (114,), audience=frozenset({1})),
    Declare(4, (111, 112, 131), claimed=True),
    Show(2, (211, 471)),
    Scored(4, 30, "basic        20 (going Mah Jong)\ntotal pts    30\nSCORE:       30"),
    Exit((8, -8, 0, 0)),
]


def test_every_record_kind_goes_through_the_builders_and_back(tmp_path: Path) -> None:
    assert {e.kind for e in ONE_OF_EACH} == set(EVENT_TYPES)
    rules = make_ruleset({"hands": 1})
    specs = resolve_bots(["greedy", "random"])
    played = play_match(specs, seed=3, rules=rules).hands[0]
    setup = HandSetup(0, "EAST", "EAST", 1)
    wall = generate_wall(3, 0, rules)
    path = tmp_path / "all.jsonl"
    writer = LogWriter.open(path)
    writer.write(header_record(3, rules, [seat_info(p, s.name, s, 3) for p, s in enumerate(specs, 1)], 1))
    writer.write(hand_record(setup, wall))
    lines = writer.line_writer()
    assert lines is not None
    for e in ONE_OF_EACH:
        lines(event_line(0, e))
    lines(answer_line(0, 1, "eat", 331, "/eat 332 341", "bot", 1.5, raw="/EAT 341  332\r"))
    lines(answer_line(0, 2, "throw", None, "/throw 112", "dummy", 0.25))
    writer.write(fault_record(0, 3, "garbage", "not an answer", question="/ask throw", line='say "hi"\t\\'))
    writer.write(result_record(0, played.result, (0, 5, 0, 0), (1, 2, 3, -6), 1))
    writer.write(final_record(1, (1, 2, 3, -6), (0, 0, 1, 0)))
    writer.close()

    log = open_log(path)
    assert isinstance(log.header, HeaderRecord) and log.header.seats[1].spec == specs[1].describe()
    assert log.rules == rules and log.cut is None
    records = [rec for _number, rec in log.records()]
    n = len(ONE_OF_EACH)
    assert [type(r) for r in records] == [HandRecord, *[EventRecord] * n, AnswerRecord, AnswerRecord, FaultRecord,
                                          ResultRecord, FinalRecord]
    assert records[0] == hand_record(setup, wall)
    for rec, e in zip(records[1 : n + 1], ONE_OF_EACH):
        assert isinstance(rec, EventRecord)
        assert rec.to_event() == e  # the audience included
        assert rec == event_record(0, e)
    answer, dummy, fault, result, final = records[n + 1 :]
    assert isinstance(answer, AnswerRecord) and answer.raw == "/EAT 341  332\r" and answer.answer == "/eat 332 341"
    assert isinstance(dummy, AnswerRecord) and dummy.raw is None and dummy.by == "dummy"
    assert fault == fault_record(0, 3, "garbage", "not an answer", question="/ask throw", line='say "hi"\t\\')
    assert result == result_record(0, played.result, (0, 5, 0, 0), (1, 2, 3, -6), 1)
    assert isinstance(final, FinalRecord) and final.faults == [0, 0, 1, 0]


def test_the_written_out_event_lines_are_the_general_records() -> None:
    """``event_line`` writes throws and draws out by hand (the hot path): every kind gives the general record."""
    for e in ONE_OF_EACH:
        assert json.loads(event_line(5, e)) == event_record(5, e).model_dump()


def test_event_lines_follow_the_hand_and_the_event() -> None:
    """A hand's line prefix is made once per hand: the same event in another hand, and another event with the
    same tile, give their own lines."""
    throw = Throw(2, 112)
    assert event_line(3, throw) == '{"type":"event","hand":3,"kind":"throw","seat":2,"tile":112,"to":[1,2,3,4]}'
    assert event_line(4, throw) == '{"type":"event","hand":4,"kind":"throw","seat":2,"tile":112,"to":[1,2,3,4]}'
    draw = Mo(1, 355, True, audience=frozenset({1}))
    assert json.loads(event_line(4, draw)) == event_record(4, draw).model_dump()
    assert event_line(4, Throw(3, 112)).endswith('"seat":3,"tile":112,"to":[1,2,3,4]}')


@pytest.mark.parametrize("seconds", [0.0, 1e-7, 4.9999e-7, 5e-7, 0.0005, 0.0015, 0.0025, 0.000123456, 0.1, 1.0, 2.5,
                                     12.0004, 59.9995, 3600.0, 1e9, 999_999_999.9996, 1e10,
                                     83_757_797_566.257281, 1e13, 1e20])
def test_answer_ms_is_the_rounded_milliseconds_as_repr_writes_them(seconds: float) -> None:
    assert answer_ms(seconds) == repr(round(seconds * 1000, 3))
    assert answer_line(0, 1, "throw", None, "/throw 112", "bot", answer_ms(seconds)) == answer_line(
        0, 1, "throw", None, "/throw 112", "bot", round(seconds * 1000, 3))


def test_answer_ms_on_many_times() -> None:
    import random

    rng = random.Random(7)
    for _ in range(20000):
        seconds = rng.random() * 10 ** rng.uniform(-7, 3)
        assert answer_ms(seconds) == repr(round(seconds * 1000, 3)), seconds


@pytest.mark.parametrize(("line", "reason"), [
    ('{"type":"event","hand":0,"kind":"fly","to":[1]}', "unknown event kind 'fly'"),
    ('{"type":"event","hand":0,"kind":"throw","seat":1,"to":[1]}', "a throw event with no tile"),
    ('{"type":"event","hand":0,"kind":"throw","seat":1,"tile":2,"x":3,"to":[1]}', "unknown x"),
    ('{"type":"answer","hand":0}', "seat: Field required"),
    ("[1, 2]", "bad record"),
    ("{", "not JSON"),
])
def test_a_bad_record_names_its_line(tmp_path: Path, line: str, reason: str) -> None:
    good = tmp_path / "good.jsonl"
    play_match(resolve_bots([]), seed=1, rules=make_ruleset({"hands": 1}), log_path=good)
    first = good.read_text().splitlines()[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(f"{first}\n{line}\n")
    with pytest.raises(LogError, match=f"bad.jsonl:2: .*{reason}"):
        list(open_log(bad).records())


def test_a_bots_answer_line_is_logged_and_transcribed_as_it_was_sent(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``/eat 350 341`` is the answer ``/eat 341 350``: the log keeps both, replay checks that they agree, and the
    transcript shows the bot's own line byte for byte."""
    untidy = BotSpec(name="untidy", cmd=(sys.executable, str(BADBOT), "untidy"), cwd=str(ROOT))
    path = tmp_path / "m.jsonl"
    result = play_match([untidy, *resolve_bots(["greedy"] * 3)[:3]], seed=2, rules=make_ruleset({"hands": 2}),
                        log_path=path)
    assert not result.faults
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    mine = [r for r in recs if r["type"] == "answer" and r["seat"] == 1 and r["by"] == "bot"]
    throws = [r for r in mine if r["ask"] == "throw"]
    assert throws and all(r["raw"] == r["answer"].replace("/throw ", "/Throw  ") + "\r" for r in throws)
    claims = [r for r in mine if r["answer"].startswith(("/eat", "/pong"))]
    assert claims, "seed 2 gives the untidy bot a claim"
    for r in claims:
        kind, a, b = r["raw"].split()
        assert int(a) > int(b) and r["answer"] == f"{kind} {b} {a}"
    assert all("raw" not in r for r in mine if r["answer"] == "/pass")
    assert replay_log(path).ok

    assert main(["transcript", str(path), "--seat", "1", "--json"]) == 0
    sent = [x["text"] for h in json.loads(capsys.readouterr().out)["hands"] for x in h["lines"] if x["dir"] == ">"]
    assert sent == [r.get("raw", r["answer"]) for r in mine]
    assert main(["transcript", str(path), "--seat", "1"]) == 0
    text = capsys.readouterr().out
    assert "\r" not in text and ">  /Throw  " in text and "\\r" in text

    # A raw line that says something else than the answer is a divergence.
    i = recs.index(claims[0])
    recs[i] = {**recs[i], "raw": "/pass"}
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    report = replay_log(path)
    assert report.divergence is not None and report.divergence.line == i + 1
    assert "the bot's line /pass" in report.divergence.message
