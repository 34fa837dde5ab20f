"""Faults never pay (docs/rules.md): the dead-hand stand-in, the fault penalty in the settlement, the forfeit after
``max_faults``, and ``mjref match --fail-on-fault``."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from bots.base import make_policy, seat_filler
from referee.game.match_options import fault_penalty_points
from referee.game.taiwan16.rules import make_ruleset
from referee.match import MatchResult, play_match, resolve_bots
from referee.replay import replay_log
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
BADBOT = ROOT / "tests" / "bots" / "badbot.py"


def badbot(mode: str, marker: str = "") -> BotSpec:
    return BotSpec(name=f"bad-{mode}", cmd=(sys.executable, str(BADBOT), mode, marker or uuid.uuid4().hex),
                   cwd=str(ROOT))


def drawdiscard() -> BotSpec:
    return BotSpec(name="drawdiscard", builtin="drawdiscard")


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def write(path: Path, recs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs))
    return path


def assert_zero_sum(result: MatchResult) -> None:
    for h in result.hands:
        assert sum(h.result.scores) == 0 and sum(h.penalties) == 0 and sum(h.totals) == 0
    assert sum(result.totals) == 0


@pytest.fixture(scope="module")
def crash_match(tmp_path_factory: pytest.TempPathFactory) -> tuple[MatchResult, Path]:
    """A bot that crashes at the start of every hand, in seat 2 of a 16-hand match against three drawdiscards."""
    log = tmp_path_factory.mktemp("faults") / "crash.jsonl"
    seats = [drawdiscard(), badbot("crash_start"), drawdiscard(), drawdiscard()]
    return play_match(seats, seed=11, rules=make_ruleset({"hands": 16}), log_path=log), log


def test_a_bot_that_crashes_every_hand_ends_below_three_drawdiscards(crash_match: tuple[MatchResult, Path]) -> None:
    result, _ = crash_match
    assert len(result.hands) == 16
    bad = result.seats[1].points
    assert all(bad < s.points for i, s in enumerate(result.seats) if i != 1), result.totals
    assert result.ranks()[1] == 4
    assert_zero_sum(result)
    # max_faults = 3: three crashes, then one forfeit, and no more faults (the bot is not started again)
    assert [(f.hand, f.kind) for f in result.faults] == [(0, "crash"), (1, "crash"), (2, "crash"), (3, "forfeit")]
    assert result.seats[1].faults == 4
    # it pays the penalty in every hand (3 faulted, 13 forfeited), a third to each other seat
    penalty = fault_penalty_points(make_ruleset())
    for h in result.hands:
        assert h.penalties == (-penalty // 3, penalty, -penalty // 3, -penalty // 3)


def test_the_dead_hand_never_claims_or_wins(crash_match: tuple[MatchResult, Path]) -> None:
    result, log = crash_match
    assert all(w.seat != 2 for h in result.hands for w in h.result.wins)
    answers = [r for r in records(log) if r["type"] == "answer" and r["seat"] == 2]
    assert answers and all(r["by"] == "dummy" for r in answers)
    assert {r["answer"].split()[0] for r in answers} <= {"/throw", "/pass"}
    assert all(r["answer"] == "/pass" for r in answers if r["ask"] != "throw")


def test_replay_verifies_the_penalties_and_the_forfeit(crash_match: tuple[MatchResult, Path], tmp_path: Path) -> None:
    result, log = crash_match
    report = replay_log(log)
    assert report.ok, report.divergence
    assert [e.end.penalties for e in report.hands] == [h.penalties for h in result.hands]
    recs = records(log)

    # a penalty changed (and the totals with it, so that only the penalty is wrong)
    tampered = [dict(r) for r in recs]
    res = next(r for r in tampered if r["type"] == "result")
    res["penalties"] = [0, 0, 0, 0]
    d = replay_log(write(tmp_path / "pen.jsonl", tampered)).divergence
    assert d is not None and "penalties" in d.message

    # the forfeit record removed: the seat is due to forfeit, so the dummy playing it is a lie
    no_forfeit = [r for r in recs if not (r["type"] == "fault" and r["kind"] == "forfeit")]
    d = replay_log(write(tmp_path / "nof.jsonl", no_forfeit)).divergence
    assert d is not None and d.hand == 3 and "forfeit" in d.message

    # a forfeit where none is due
    early = [dict(r) for r in recs]
    first = next(i for i, r in enumerate(early) if r["type"] == "fault")
    early[first] = {**early[first], "kind": "forfeit"}
    d = replay_log(write(tmp_path / "early.jsonl", early)).divergence
    assert d is not None and d.hand == 0 and "no forfeit" in d.message


@pytest.mark.slow
def test_a_hung_bot_costs_at_most_max_faults_timeouts(tmp_path: Path) -> None:
    """16 hands with a bot that hangs at its first throw, 1 s to answer: three timeouts, then the forfeit."""
    marker = f"mjref-test-{uuid.uuid4().hex}"
    seats = [badbot("hang", marker), drawdiscard(), drawdiscard(), drawdiscard()]
    rules = make_ruleset({"hands": 16, "move_timeout": 1, "start_grace": 5})
    result = play_match(seats, seed=5, rules=rules, log_path=tmp_path / "hang.jsonl", stderr_dir=tmp_path)
    assert [f.kind for f in result.faults] == ["timeout"] * 3 + ["forfeit"]
    assert [f.hand for f in result.faults] == [0, 1, 2, 3]
    stderr = next(tmp_path.glob("seat1-*.stderr")).read_text()
    assert stderr.count("badbot hang: started") == 3, "started in the first three hands only"
    assert result.ranks()[0] == 4
    assert_zero_sum(result)
    assert replay_log(tmp_path / "hang.jsonl").ok


def test_max_faults_zero_never_forfeits_and_greedy_plays_on(tmp_path: Path) -> None:
    """The framework's old behaviour, on request: greedy plays the seat, no penalty, no forfeit."""
    rules = make_ruleset({"hands": 5, "max_faults": 0, "fault_penalty": 0, "default_dummy": "greedy"})
    seats = [badbot("crash_start"), drawdiscard(), drawdiscard(), drawdiscard()]
    result = play_match(seats, seed=3, rules=rules, log_path=tmp_path / "m.jsonl")
    assert [f.kind for f in result.faults] == ["crash"] * 5
    assert all(h.penalties == (0, 0, 0, 0) for h in result.hands)
    assert replay_log(tmp_path / "m.jsonl").ok


def test_an_odd_penalty_is_split_exactly(tmp_path: Path) -> None:
    rules = make_ruleset({"hands": 2, "fault_penalty": 100})
    seats = [drawdiscard(), drawdiscard(), drawdiscard(), badbot("crash_start")]
    result = play_match(seats, seed=2, rules=rules, log_path=tmp_path / "m.jsonl")
    assert all(h.penalties == (-34, -33, -33, 100) for h in result.hands)
    assert_zero_sum(result)
    assert replay_log(tmp_path / "m.jsonl").ok


def test_the_stand_in_never_fills_seats() -> None:
    assert seat_filler("dead_hand") == "greedy"
    assert seat_filler("random") == "random"
    assert [s.builtin for s in resolve_bots(["drawdiscard"], seat_filler("dead_hand"))] == \
        ["drawdiscard", "greedy", "greedy", "greedy"]
    assert make_policy("dead_hand").name == "dead_hand"  # and it can be seated on purpose
    with pytest.raises(ValueError, match="unknown bot"):
        seat_filler("nosuch")


def mjref(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
def test_a_missing_script_no_longer_ranks_first_and_fail_on_fault_says_so(tmp_path: Path) -> None:
    """The issue's example: ``mjref match "python3 nosuch.py" --hands 4`` ranked the broken bot 1st, exit 0."""
    args = ["match", f"{sys.executable} nosuch.py", "--hands", "4", "--seed", "1", "--json", "--log",
            str(tmp_path / "m.jsonl")]
    plain = mjref(*args, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    out = json.loads(plain.stdout)
    totals = [s["total"] for s in out["seats"]]
    assert totals[0] == min(totals) and totals.count(totals[0]) == 1, totals
    assert out["seats"][0]["faults"] == 4  # three crashes and the forfeit
    failing = mjref(*args, "--fail-on-fault", "--force", cwd=tmp_path)
    assert failing.returncode == 4, failing.stderr
    assert [s["total"] for s in json.loads(failing.stdout)["seats"]] == totals
    # built-in bots never fault, and a fault of a built-in would not count: exit 0
    clean = mjref("match", "drawdiscard", "--hands", "1", "--seed", "1", "--quiet", "--log", "none",
                  "--fail-on-fault", cwd=tmp_path)
    assert clean.returncode == 0, clean.stderr


@pytest.mark.slow
def test_a_bot_that_thinks_past_ten_seconds_is_not_killed(tmp_path: Path) -> None:
    """A bot still running 10 s after its start lives on (it once got SIGKILL: its parent-death signal followed
    trio's spawning worker thread, which trio's thread cache ends after 10 s idle).  Run as a real ``mjref match``
    process, the first answer 11 s late but within the bot's timeout: no fault at all."""
    slow = f"env BADBOT_DELAY=11 {sys.executable} {BADBOT} slow_first"
    done = mjref("match", slow, "drawdiscard", "drawdiscard", "drawdiscard", "--hands", "1", "--seed", "2",
                 "--timeout", "20", "--json", "--log", "none", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["seats"][0]["faults"] == 0, done.stdout


def test_a_bots_line_is_shown_as_written_never_as_markup(tmp_path: Path) -> None:
    """A garbage line holding console markup (an unbalanced ``[/]`` once crashed ``mjref match`` from inside the
    match, in the fault callback), HTML and a terminal escape: the match ends, and the line is printed as text."""
    bot = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'hostile' / 'attacks.py'} markup"
    done = mjref("match", bot, "drawdiscard", "drawdiscard", "drawdiscard", "--hands", "1", "--seed", "1", "--log",
                 str(tmp_path / "m.jsonl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = done.stdout.splitlines()[0]  # the fault as it happened (the table after the match folds long cells)
    assert "`/throw [/] \\x1b]0;t\\x07 [link=http://x]x[/link] [bold red]seat 2" in shown, shown
    assert "\x1b" not in done.stdout
    assert replay_log(tmp_path / "m.jsonl").ok
