"""``mjref replay`` and ``mjref transcript``: logs verify; tampered, truncated and foreign logs fail where they should.

The commands are called through their own modules (``referee.commands.replay``), so that these tests do not depend
on every other subcommand importing cleanly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import cli
from referee.game.taiwan16.rules import make_ruleset
from referee.log import LOG_FORMAT, event_line
from referee.match import play_match, resolve_bots
from referee.replay import LogWalker, Step, replay_log
from referee.transcript import transcript
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden-seed7.jsonl"
BADBOT = ROOT / "tests" / "bots" / "badbot.py"
RECORDER = ROOT / "tests" / "bots" / "checkbots" / "recorder.py"


def run_cmd(name: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main([name, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def make_log(path: Path, bots: list[str], seed: int, hands: int = 3, **options: Any) -> Path:
    play_match(resolve_bots(bots), seed=seed, rules=make_ruleset({"hands": hands, **options}), log_path=path)
    return path


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def write(path: Path, recs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs))
    return path


@pytest.fixture(scope="module")
def mixed_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_log(tmp_path_factory.mktemp("replay") / "mixed.jsonl",
                    ["greedy", "random", "drawdiscard", "greedy:chowness=0.8"], seed=7, hands=4)


# ---------------------------------------------------------------------------------------------------- verifying
MATCHES = [
    (["random"] * 4, 1, {}),
    (["greedy"] * 4, 2, {}),
    (["greedy", "random", "drawdiscard", "random"], 3, {"flowers": True}),
    (["random"] * 4, 4, {"flowers": True, "multiple_winners": True}),
    (["greedy", "greedy:hiddenness=0.1", "random", "drawdiscard"], 5, {"multiple_winners": True}),
    (["random", "drawdiscard", "random", "drawdiscard"], 6, {"dealer_continues": True}),
    (["greedy", "random", "random", "greedy"], 8, {"scoring": "wins"}),
    (["random"] * 4, 9, {"rob_kong": False, "gong_from_previous_player": True, "dead_wall": 10}),
]


@pytest.mark.parametrize(("bots", "seed", "options"), MATCHES)
def test_logs_of_random_matches_verify(bots: list[str], seed: int, options: dict[str, Any], tmp_path: Path) -> None:
    log = make_log(tmp_path / "m.jsonl", bots, seed, hands=4, **options)
    report = replay_log(log)
    assert report.ok, report.divergence
    assert len(report.hands) == 4
    assert report.records == len(log.read_text().splitlines())
    final = records(log)[-1]
    assert list(report.hands[-1].end.totals) == final["totals"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**9), flowers=st.booleans(), multiple=st.booleans())
def test_property_every_random_log_verifies(seed: int, flowers: bool, multiple: bool, tmp_path: Path) -> None:
    log = make_log(tmp_path / f"p{seed}.jsonl", ["random"] * 4, seed, hands=2, flowers=flowers,
                   multiple_winners=multiple)
    assert replay_log(log).ok


def test_the_golden_log_keeps_verifying(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cmd("replay", [str(GOLDEN)], capsys)
    assert code == 0, out + err
    assert "verified: 3 hands, 539 records" in out
    assert "totals 100 -100 -120 120" in out
    report = replay_log(GOLDEN)
    assert [h.end.result.outcome for h in report.hands] == ["win", "draw", "win"]


XMJ_IN_TURN = ROOT / "tests" / "data" / "xmj-in-turn.jsonl"


def test_a_log_whose_losers_declared_in_turn_still_verifies(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A log from before the losers declared side by side (no ``declaring`` in its hand record) replays with its
    losers asked in turn; the same log claiming ``together`` diverges at the first loser's second set, and a
    ``declaring`` that is no way of asking is named."""
    code, out, err = run_cmd("replay", [str(XMJ_IN_TURN)], capsys)
    assert code == 0, out + err
    assert "verified: 1 hand, 202 records" in out
    recs = records(XMJ_IN_TURN)
    hand = next(i for i, r in enumerate(recs) if r["type"] == "hand")
    assert recs[hand]["declarers"] == [1, 2, 3, 4] and "declaring" not in recs[hand]
    seats = [r["seat"] for r in recs if r["type"] == "answer" and r["ask"] == "declare"]
    assert seats == [1, 1, 1, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4], "the winner's sets, then each loser's in turn"
    recs[hand] = {**recs[hand], "declaring": "together"}
    code, out, _ = run_cmd("replay", [str(write(tmp_path / "together.jsonl", recs))], capsys)
    assert code == 1 and "seat 2 answering /ask declare" in out and "seat 3" in out, out
    recs[hand] = {**recs[hand], "declaring": "sideways"}
    code, out, _ = run_cmd("replay", [str(write(tmp_path / "sideways.jsonl", recs))], capsys)
    assert code == 1 and "declaring sideways" in out and "together or in_turn" in out, out


def test_a_log_written_by_another_json_tool_still_verifies(mixed_log: Path, tmp_path: Path) -> None:
    """Key order, spacing and escapes may change; the records may not."""
    other = tmp_path / "pretty.jsonl"
    other.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records(mixed_log)))
    assert replay_log(other).ok


def test_the_written_out_event_lines_are_the_general_records(mixed_log: Path) -> None:
    """``event_line`` writes throws and draws out by hand (the hot path); every line it gives, of every kind,
    is the general record: ``event_to_json`` plus type and hand, in that key order."""
    from referee.log import event_to_json

    walker = LogWalker(mixed_log)
    kinds = set()
    for item in walker.items():
        if isinstance(item, Step):
            for e in item.events:
                kinds.add(e.kind)
                expected = json.dumps({"type": "event", "hand": item.index, **event_to_json(e)}, separators=(",", ":"))
                assert event_line(item.index, e) == expected
    assert {"throw", "mo", "exit"} <= kinds


def test_a_log_with_faults_verifies_and_shows_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = BotSpec(name="bad", cmd=(sys.executable, str(BADBOT), "garbage"), cwd=str(ROOT))
    log = tmp_path / "f.jsonl"
    play_match([bad, *resolve_bots(["greedy"] * 3)[:3]], seed=4, rules=make_ruleset({"hands": 2}), log_path=log)
    code, out, _ = run_cmd("replay", [str(log)], capsys)
    assert code == 0, out
    assert "Faults in the log" in out and "garbage" in out
    # Without its fault record, the dummy's answer has no reason to be there.
    recs = records(log)
    i = next(i for i, r in enumerate(recs) if r["type"] == "fault")
    code, out, _ = run_cmd("replay", [str(write(tmp_path / "nofault.jsonl", recs[:i] + recs[i + 1:]))], capsys)
    assert code == 1
    assert f"hand 1, line {i + 1}: the log says the dummy answering for seat 1" in out


# ---------------------------------------------------------------------------------------------------- divergences
def divergence(path: Path) -> Any:
    report = replay_log(path)
    assert not report.ok
    return report.divergence


def test_a_changed_answer_fails_at_its_line(mixed_log: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    recs = records(mixed_log)
    # An answer changed to a tile the seat does not hold: illegal, at that very line.
    i = next(i for i, r in enumerate(recs) if r["type"] == "answer" and r["hand"] == 1 and r["ask"] == "throw")
    held = next(r for r in recs if r["type"] == "event" and r["kind"] == "init_card" and r["hand"] == 1
            and r["seat"] == recs[i]["seat"])["tiles"]
    foreign = next(t for t in (110, 111, 112, 113, 470, 471, 472, 473) if t not in held)
    recs[i] = {**recs[i], "answer": f"/throw {foreign}"}
    code, out, _ = run_cmd("replay", [str(write(tmp_path / "a.jsonl", recs))], capsys)
    assert code == 1
    seat = recs[i]["seat"]
    assert f"hand 2, line {i + 1}: the log says seat {seat} answering /ask throw with `/throw {foreign}`" in out
    assert "not legal" in out and f"tile {foreign} is not in the hand" in out


def test_a_changed_legal_answer_fails_right_after_it(mixed_log: Path, tmp_path: Path) -> None:
    recs = records(mixed_log)
    i = next(i for i, r in enumerate(recs) if r["type"] == "answer" and r["hand"] == 0 and r["ask"] == "throw")
    first = next(r for r in recs if r["type"] == "event" and r["kind"] == "init_card" and r["seat"] == recs[i]["seat"])
    other = next(t for t in first["tiles"] if f"/throw {t}" != recs[i]["answer"])
    recs[i] = {**recs[i], "answer": f"/throw {other}"}
    d = divergence(write(tmp_path / "b.jsonl", recs))
    assert d.hand == 0 and d.line == i + 2, d.message  # the broadcast of the throw, the line after the answer
    assert f"after seat {recs[i]['seat']}'s answer `/throw {other}` on line {i + 1}" in d.message


def test_a_changed_settlement_fails_at_its_line(mixed_log: Path, tmp_path: Path) -> None:
    recs = records(mixed_log)
    i = next(i for i, r in enumerate(recs) if r["type"] == "result" and r["hand"] == 2)
    recs[i] = {**recs[i], "scores": [s + (10 if k == 0 else -10 if k == 1 else 0)
                                     for k, s in enumerate(recs[i]["scores"])]}
    d = divergence(write(tmp_path / "c.jsonl", recs))
    assert (d.hand, d.line) == (2, i + 1)
    assert "result.scores[0]" in d.message
    # The /exit line, the running totals and the final record are checked too.
    recs = records(mixed_log)
    j = next(j for j, r in enumerate(recs) if r["type"] == "event" and r["kind"] == "exit" and r["hand"] == 1)
    recs[j] = {**recs[j], "scores": [1, -1, 0, 0]}
    d = divergence(write(tmp_path / "d.jsonl", recs))
    assert (d.hand, d.line) == (1, j + 1) and "/exit 1 -1 0 0" in d.message
    recs = records(mixed_log)
    recs[-1] = {**recs[-1], "totals": [0, 0, 0, 0]}
    d = divergence(write(tmp_path / "e.jsonl", recs))
    assert d.line == len(recs) and "final.totals" in d.message
    recs = records(mixed_log)
    k = next(k for k, r in enumerate(recs) if r["type"] == "result" and r["hand"] == 1)
    recs[k] = {**recs[k], "totals": [9, 9, 9, -27]}
    d = divergence(write(tmp_path / "f.jsonl", recs))
    assert (d.hand, d.line) == (1, k + 1) and "result.totals" in d.message


@pytest.mark.parametrize("kind", ["event", "answer", "hand", "result"])
def test_a_missing_line_fails_where_it_was(kind: str, mixed_log: Path, tmp_path: Path) -> None:
    recs = records(mixed_log)
    i = next(i for i, r in enumerate(recs) if r["type"] == kind and r.get("hand", 0) >= 1)
    d = divergence(write(tmp_path / "m.jsonl", recs[:i] + recs[i + 1:]))
    assert d.line == i + 1, d.message
    assert f"line {i + 1}" in d.message


def test_a_truncated_log_fails_at_the_cut(mixed_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = mixed_log.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:150]) + lines[150][:25])
    code, out, _ = run_cmd("replay", [str(cut)], capsys)
    assert code == 1
    assert "line 151: the log says a record cut off half-way (the log was truncated)" in out
    short = tmp_path / "short.jsonl"
    short.write_text("".join(lines[:150]))
    d = divergence(short)
    assert d.line == 151 and "nothing more (the log ends here)" in d.message
    nofinal = tmp_path / "nofinal.jsonl"
    nofinal.write_text("".join(lines[:-1]))
    d = divergence(nofinal)
    assert d.hand is None and "the final record" in d.message


def test_a_log_of_other_rules_diverges(mixed_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recs = records(mixed_log)
    recs[0]["rules"]["per_tai"] = 35
    code, out, _ = run_cmd("replay", [str(write(tmp_path / "r.jsonl", recs))], capsys)
    assert code == 1 and "divergence" in out and "/exit" in out
    recs = records(mixed_log)
    recs[0]["seed"] += 1  # another seed: another wall
    d = divergence(write(tmp_path / "s.jsonl", recs))
    assert (d.hand, d.line) == (0, 2) and "the seeded wall of seed 8" in d.message


def test_logs_that_cannot_be_replayed_exit_2(mixed_log: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    recs = records(mixed_log)
    recs[0]["format"] = LOG_FORMAT + 1
    code, out, err = run_cmd("replay", [str(write(tmp_path / "new.jsonl", recs))], capsys)
    assert code == 2 and out == ""
    assert err.strip().endswith(f"log format {LOG_FORMAT + 1} is newer than this mjref reads ({LOG_FORMAT}); "
                                "upgrade mjref")
    assert err.startswith("mjref replay: ") and err.count("\n") == 1
    recs = records(mixed_log)
    recs[0]["rules"]["no_such_option"] = 1
    code, _, err = run_cmd("replay", [str(write(tmp_path / "opt.jsonl", recs))], capsys)
    assert code == 2 and "unknown rule option 'no_such_option'" in err
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    other = tmp_path / "other.jsonl"
    other.write_text('{"type": "something"}\n')
    for path, why in ((text, "not an mjref log (line 1 is not JSON)"), (empty, "empty file"),
                      (other, "line 1 is not a header record"), (tmp_path / "missing.jsonl", "cannot read"),
                      (tmp_path, "a directory without mj-server hand histories")):
        code, out, err = run_cmd("replay", [str(path)], capsys)
        assert code == 2 and why in err and err.count("\n") == 1, err


# ---------------------------------------------------------------------------------------------------- views
def test_hand_view_and_explanations(mixed_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd("replay", [str(mixed_log), "--hand", "2", "--explain"], capsys)
    assert code == 0
    assert "Hand 2: EAST round, SOUTH hand, dealer 2" in out
    assert "line " in out and "/ask throw" in out
    assert "🀇" in out or "🀙" in out or "🀐" in out  # tiles as glyphs
    report = replay_log(mixed_log, detail=1)
    assert report.detail is not None and report.detail.steps is not None
    assert len(report.detail.snapshots or []) == len(report.detail.steps) + 1
    r = report.hands[1].end.result
    if r.outcome == "win":
        assert "Tai" in out and "payments:" in out and r.wins[0].score.arrangement
    code, out, _ = run_cmd("replay", [str(mixed_log), "--explain"], capsys)
    assert code == 0 and "Hands (verified)" in out


def test_json_output(mixed_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd("replay", [str(mixed_log), "--json", "--hand", "1"], capsys)
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and data["divergence"] is None
    assert [h["hand"] for h in data["hands"]] == [1, 2, 3, 4]
    assert data["totals"] == records(mixed_log)[-1]["totals"]
    steps = data["moves"]["steps"]
    assert steps and set(steps[0]["tiles"]) == {"1", "2", "3", "4"}
    assert steps[0]["answer"].startswith("/")


def test_hand_out_of_range_exits_2(mixed_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cmd("replay", [str(mixed_log), "--hand", "9"], capsys)
    assert code == 2 and "has 4 hands" in err
    code, _, err = run_cmd("replay", [str(mixed_log), "--hand", "0"], capsys)
    assert code == 2 and "counted from 1" in err


# ---------------------------------------------------------------------------------------------------- transcripts
def test_transcript_is_exactly_what_a_process_bot_read_and_wrote(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # The recorder writes every line it reads and prints to its stderr, which the referee keeps per seat.
    bot = BotSpec(name="rec", cmd=(sys.executable, str(RECORDER), "-"))
    log = tmp_path / "t.jsonl"
    play_match([resolve_bots(["greedy"])[0], bot, *resolve_bots(["random", "greedy"])[:2]], seed=5,
               rules=make_ruleset({"hands": 2}), log_path=log, stderr_dir=tmp_path / "err")
    record = tmp_path / "err" / "seat2-rec.stderr"
    code, out, _ = run_cmd("transcript", [str(log), "--seat", "2", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    mine = [f"{x['dir']}  {x['text']}" for h in data["hands"] for x in h["lines"]]
    assert mine == record.read_text().splitlines()
    answers = [x for h in data["hands"] for x in h["lines"] if x["dir"] == ">"]
    assert answers and all("ms" in x for x in answers)
    code, out, _ = run_cmd("transcript", [str(log), "--seat", "2", "--hand", "2"], capsys)
    lines = out.splitlines()
    assert lines[0].startswith("# hand 2 (EAST round, SOUTH hand, dealer 2), seat 2: rec (process:")
    assert lines[1] == f"<  /start MJ 2 {sys.executable}"
    assert lines[2].startswith("<  /initGame EAST SOUTH ")
    assert any(x.startswith(">  /throw ") and x.endswith(" ms)") for x in lines)


def test_transcript_of_a_builtin_seat(mixed_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd("transcript", [str(mixed_log), "--seat", "3", "--hand", "1"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert "gets events, not lines" in lines[1]
    assert lines[2] == "<  /start MJ 3 -"
    mos = [x for x in lines if x.startswith("<  /mo ")]
    _, hands = transcript(mixed_log, 3, 0)
    seen = [x.text for x in hands[0].lines]
    draws = [r for r in records(mixed_log) if r["type"] == "event" and r["kind"] == "mo" and r["hand"] == 0]
    assert len(mos) == sum(1 for r in draws if r["to"] == [3])  # only its own draws
    assert all(x.startswith("/") for x in seen)


def test_transcript_marks_faults_and_the_dummy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = BotSpec(name="bad", cmd=(sys.executable, str(BADBOT), "garbage"), cwd=str(ROOT))
    log = tmp_path / "f.jsonl"
    play_match([bad, *resolve_bots(["greedy"] * 3)[:3]], seed=4, rules=make_ruleset({"hands": 1}), log_path=log)
    _code, out, _ = run_cmd("transcript", [str(log), "--seat", "1"], capsys)
    lines = out.splitlines()
    i = lines.index("<  /ask throw")
    assert lines[i + 1].startswith(">  hello, referee") and lines[i + 1].endswith(" ms)")
    assert lines[i + 2].startswith("!  fault garbage: ")
    assert lines[i + 3].startswith("<  /exit ") or lines[i + 3].startswith("<  /exit")
    assert "the default dummy plays this seat" in lines[i + 4]
    assert lines[i + 5].endswith("(dummy)")


def test_transcript_errors_exit_2(mixed_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cmd("transcript", [str(mixed_log), "--seat", "5"], capsys)
    assert code == 2 and "seats are 1..4" in err
    code, _, err = run_cmd("transcript", [str(mixed_log), "--seat", "1", "--hand", "7"], capsys)
    assert code == 2 and "no such hand" in err


def test_a_match_from_explicit_walls_verifies(tmp_path: Path) -> None:
    from referee.game.wall import Wall, generate_wall

    rules = make_ruleset({"hands": 2})
    walls = [Wall(generate_wall(99, h, rules).tiles) for h in range(2)]
    log = tmp_path / "w.jsonl"
    play_match(resolve_bots(["greedy", "random"]), seed=1, rules=rules, walls=walls, log_path=log)
    assert records(log)[0]["walls"] == "file"
    assert replay_log(log).ok
    recs = records(log)
    hand = next(i for i, r in enumerate(recs) if r["type"] == "hand")
    wall = recs[hand]["wall"]
    wall[0], wall[4] = wall[4], wall[0]  # a tile of the dealer's and one of the next seat's
    d = divergence(write(tmp_path / "swapped.jsonl", recs))
    assert d.hand == 0 and "/initCard" in d.message, d.message
