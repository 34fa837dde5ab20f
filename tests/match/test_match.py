"""End-to-end tests of the trio match runner with real bot processes, including every way a bot can fail."""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

import pytest
from processes import lingering_processes

from referee.game.taiwan16.rules import make_ruleset
from referee.log import open_log
from referee.match import MatchError, play_match, resolve_bots
from wrappers.sandbox import bwrap_problem
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
BADBOT = ROOT / "tests" / "bots" / "badbot.py"


def bot_proc(module: str, *, keep_alive: bool = False, name: str | None = None) -> BotSpec:
    cmd = (sys.executable, "-m", f"bots.{module}", *(("--keep-alive",) if keep_alive else ()))
    return BotSpec(name=name or module, cmd=cmd, cwd=str(ROOT), keep_alive=keep_alive)


def strip_timings(path: Path) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        for key in ("ms", "started", "finished", "hash"):
            rec.pop(key, None)
        out.append(rec)
    return out


def test_kept_alive_bots_exit_by_themselves_at_the_end_of_the_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """The end of the match is the end of a kept-alive bot's input: it exits on it within its grace, so no bot
    has to be ended with SIGTERM (before, each waited out its whole grace and was terminated, one after the
    other)."""
    import wrappers.process

    sent: list[str] = []
    real = wrappers.process.BotProcess.signal

    def recording(self: wrappers.process.BotProcess, word: str) -> None:
        sent.append(word)
        real(self, word)

    monkeypatch.setattr(wrappers.process.BotProcess, "signal", recording)
    specs = [bot_proc("drawdiscard", keep_alive=True, name=f"d{i}") for i in range(4)]
    result = play_match(specs, seed=5, rules=make_ruleset({"hands": 2}))
    assert len(result.hands) == 2 and not result.faults
    assert "term" not in sent
    assert "kill" not in sent  # the keeper ended every process of the hand before it reported the end (swept)


@pytest.mark.slow
def test_four_process_bots_play_a_full_match_and_repeat_exactly(tmp_path: Path) -> None:
    rules = make_ruleset({"hands": 16})
    specs = [bot_proc("greedy", keep_alive=True), bot_proc("random", keep_alive=True),
             bot_proc("drawdiscard", keep_alive=True), bot_proc("greedy", keep_alive=True, name="greedy2")]
    a = play_match(specs, seed=11, rules=rules, log_path=tmp_path / "a.jsonl", stderr_dir=tmp_path)
    b = play_match(specs, seed=11, rules=rules, log_path=tmp_path / "b.jsonl", stderr_dir=tmp_path)
    assert len(a.hands) == 16
    assert not a.faults, a.faults
    for h in a.hands:
        assert sum(h.result.scores) == 0
    assert a.totals == b.totals
    assert strip_timings(tmp_path / "a.jsonl") == strip_timings(tmp_path / "b.jsonl")
    log = open_log(tmp_path / "a.jsonl")
    records = [log.header, *(rec for _number, rec in log.records())]
    assert records[0].type == "header" and records[-1].type == "final"


def test_per_hand_processes_match_builtin_play(tmp_path: Path) -> None:
    """A per-hand process bot and the same policy in-process make the same decisions: same log, same totals."""
    rules = make_ruleset({"hands": 3})
    procs = [bot_proc("greedy"), bot_proc("random"), bot_proc("drawdiscard"), bot_proc("greedy", name="g2")]
    builtins = [BotSpec(name="greedy", builtin="greedy"), BotSpec(name="random", builtin="random"),
                BotSpec(name="drawdiscard", builtin="drawdiscard"), BotSpec(name="g2", builtin="greedy")]
    # process bots seed their own randomness from --seed; the in-process ones from the match seed, so compare
    # only deterministic bots' decisions through the totals of a match without randomness.
    det_procs = [procs[0], procs[2], procs[3], procs[2]]
    det_builtins = [builtins[0], builtins[2], builtins[3], builtins[2]]
    a = play_match(det_procs, seed=5, rules=rules, log_path=tmp_path / "p.jsonl", stderr_dir=tmp_path)
    b = play_match(det_builtins, seed=5, rules=rules, log_path=tmp_path / "b.jsonl")
    assert not a.faults, a.faults
    assert a.totals == b.totals
    answers = lambda p: [(r["seat"], r["answer"]) for r in map(json.loads, p.read_text().splitlines())  # noqa: E731
                         if r["type"] == "answer"]
    assert answers(tmp_path / "p.jsonl") == answers(tmp_path / "b.jsonl")


BOXED = bwrap_problem() is None  # the default mode (auto) boxes bots with bwrap here

FAULT_CASES = [
    ("crash_start", "crash"),
    ("crash_mid", "crash"),
    ("hang", "timeout"),
    ("slow", "timeout"),
    ("garbage", "garbage"),
    ("flood", "line_too_long"),
    ("bad_throw", "illegal"),
    ("bad_claim", "illegal"),
    ("false_hu", "false_hu"),
    ("unasked", "unasked"),
    ("exit_after_initcard", "crash"),
    # A bot closing its stdout is seen at once (its keeper hands it the pipes and keeps no end of them); in the box
    # a child that kept the pipes is killed with the bot's end.
    ("close_stdout", "closed"),
    ("fork_child", "crash" if BOXED else "timeout"),
    ("ignore_sigterm", "timeout"),
]


@pytest.mark.parametrize(("mode", "kind"), FAULT_CASES)
def test_each_fault_is_caught_and_the_dummy_finishes(mode: str, kind: str, tmp_path: Path) -> None:
    marker = f"mjref-test-{uuid.uuid4().hex}"
    bad = BotSpec(name=f"bad-{mode}", cmd=(sys.executable, str(BADBOT), mode, marker), cwd=str(ROOT))
    rules = make_ruleset({"hands": 2, "move_timeout": 0.6, "start_grace": 2})
    dummies = [BotSpec(name="greedy", builtin="greedy") for _ in range(3)]
    seats = [dummies[0], bad, dummies[1], dummies[2]]  # the bad bot in seat 2
    result = play_match(seats, seed=3, rules=rules, log_path=tmp_path / "m.jsonl", stderr_dir=tmp_path)
    assert len(result.hands) == 2, "the match completed"
    for h in result.hands:
        assert sum(h.result.scores) == 0
    kinds = {(f.position, f.kind) for f in result.faults}
    assert (2, kind) in kinds, result.faults
    assert all(f.position == 2 for f in result.faults), "only the bad bot faulted"
    assert not lingering_processes(marker), "no process of the bot is left"
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    faults = [r for r in records if r["type"] == "fault"]
    assert faults and faults[0]["seat"] == 2 and faults[0]["kind"] == kind
    assert any(r["type"] == "answer" and r["seat"] == 2 and r["by"] == "dummy" for r in records), \
        "the dummy played the seat after the fault"


def test_bad_claim_never_asked_is_still_caught(tmp_path: Path) -> None:
    """bad_claim only misbehaves on /ask pong or /ask eat; over two hands seat 2 is asked at least one."""
    marker = f"mjref-test-{uuid.uuid4().hex}"
    bad = BotSpec(name="bad", cmd=(sys.executable, str(BADBOT), "bad_claim", marker), cwd=str(ROOT))
    result = play_match([BotSpec(name="g", builtin="greedy"), bad, BotSpec(name="g", builtin="greedy"),
                         BotSpec(name="g", builtin="greedy")], seed=3, rules=make_ruleset({"hands": 2}))
    assert any(f.kind == "illegal" and f.line and ("/pong" in f.line or "/eat" in f.line) for f in result.faults)


@pytest.mark.parametrize("block_ms", [0.0, 250.0, 60_000.0])
def test_stderr_flood_is_bounded_and_not_a_fault(tmp_path: Path, block_ms: float) -> None:
    """The bot writes 4 MiB to stderr before every answer.  Whether the referee waits through trio (0), blocks a
    while (250, the default) or blocks for the whole deadline (60 s against a 10 s timeout: no trio at all), stderr
    keeps flowing, so the bot never stalls on it."""
    marker = f"mjref-test-{uuid.uuid4().hex}"
    bot = BotSpec(name="noisy", cmd=(sys.executable, str(BADBOT), "stderr_flood", marker), cwd=str(ROOT))
    result = play_match([bot, BotSpec(name="g", builtin="greedy"), BotSpec(name="g", builtin="greedy"),
                         BotSpec(name="g", builtin="greedy")], seed=2, rules=make_ruleset({"hands": 1}),
                        stderr_dir=tmp_path, block_ms=block_ms)
    assert not result.faults
    files = list(tmp_path.glob("seat1-*.stderr"))
    assert files and files[0].stat().st_size <= (1 << 20) + 200
    assert "dropped" in files[0].read_text(errors="replace")[-200:]
    assert not lingering_processes(marker)


def test_a_bot_that_cannot_start_is_a_usage_error() -> None:
    with pytest.raises(MatchError, match="cannot run './no-such-bot-here': no such file"):
        resolve_bots(["./no-such-bot-here"])
    with pytest.raises(MatchError, match="not a built-in"):
        resolve_bots(["no-such-bot-here"])
    with pytest.raises(MatchError, match="cannot run"):
        play_match([BotSpec(name="x", cmd=("/nonexistent/bot",)), *resolve_bots([])[:3]], seed=1)


def test_fault_penalty_is_charged(tmp_path: Path) -> None:
    bad = BotSpec(name="bad", cmd=(sys.executable, str(BADBOT), "garbage", "pen"), cwd=str(ROOT))
    rules = make_ruleset({"hands": 1, "fault_penalty": 50})
    result = play_match([bad, *resolve_bots([])[:3]], seed=4, rules=rules)
    assert result.faults
    h = result.hands[0]
    assert h.penalties[0] == 50 * len(h.faults)
    assert result.seats[0].points == h.result.scores[0] - h.penalties[0]


@pytest.mark.slow
def test_soak_no_leaked_descriptors_or_children(tmp_path: Path, cbot_or_none: Path | None) -> None:
    """200 matches in a row leave the referee's open file descriptors and child processes where they began.

    Seat 1 is a process bot started for each hand: the C bot where there is a compiler (it starts in about a
    millisecond, so the 200 matches spend their time on the referee's handles, not on 200 Python start-ups),
    else drawdiscard as a process."""
    def fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    def children() -> int:
        me = str(os.getpid())
        n = 0
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                        n += 1
                except (OSError, IndexError):
                    pass
        return n

    rules = make_ruleset({"hands": 1})
    seat1 = bot_proc("drawdiscard") if cbot_or_none is None else BotSpec(name="cbot", cmd=(str(cbot_or_none),))
    specs = [seat1, *resolve_bots([], "drawdiscard")[:3]]  # built-ins hold no handles; drawdiscard thinks least
    play_match(specs, seed=0, rules=rules)  # warm up (imports, trio's first-run state)
    before_fds, before_children = fds(), children()
    for seed in range(200):
        play_match(specs, seed=seed, rules=rules, log_path=tmp_path / "soak.jsonl", stderr_dir=tmp_path)
    # A leak grows: one descriptor or child per match would be 200 more. Fewer is not a leak: in a pytest-xdist
    # worker, handles of earlier tests may be collected during the soak (CI once saw 32 before, 14 after).
    assert fds() <= before_fds
    assert children() <= before_children


def test_a_builtin_policy_that_raises_is_a_fault_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.match as match_module
    from bots.base import make_policy as real_make_policy

    class Broken:
        name = "broken"

        def start_hand(self, seed: int, hand: int, position: int) -> None:
            pass

        def decide(self, view: object, ask: str, legal: object) -> object:
            raise ZeroDivisionError("bug in the bot")

    monkeypatch.setattr(match_module, "make_policy",
                        lambda spec: Broken() if spec == "greedy:chowness=0.1" else real_make_policy(spec))
    specs = [BotSpec(name="broken", builtin="greedy:chowness=0.1"), *resolve_bots([])[:3]]
    result = play_match(specs, seed=8, rules=make_ruleset({"hands": 2}))
    assert len(result.hands) == 2
    assert {(f.position, f.kind) for f in result.faults} == {(1, "crash")}
    assert "ZeroDivisionError: bug in the bot" in result.faults[0].detail
    assert all(sum(h.result.scores) == 0 for h in result.hands)


RECORDER = ROOT / "tests" / "bots" / "checkbots" / "recorder.py"


def test_flower_lines_go_only_to_bots_that_opted_in(tmp_path: Path) -> None:
    """With flowers on, /flower <pos> <tid> reaches the bots listing the 'flower' extension, and only them."""
    # The recorder writes what it reads to the file it is given: its stderr, which the referee keeps per seat.
    specs = [BotSpec(name="opted-in", cmd=(sys.executable, str(RECORDER), "-"), extensions=("flower",)),
             BotSpec(name="plain", cmd=(sys.executable, str(RECORDER), "-")),
             *resolve_bots([])[:2]]
    err = tmp_path / "stderr"
    result = play_match(specs, seed=6, rules=make_ruleset({"hands": 2, "flowers": True}), log_path=tmp_path / "m.jsonl",
                        stderr_dir=err)
    with_ext, without = err / "seat1-opted-in.stderr", err / "seat2-plain.stderr"
    assert not result.faults, result.faults
    got = [line[3:] for line in with_ext.read_text().splitlines() if line.startswith("<  /flower")]
    assert got, "flowers were set aside in two hands of a 144-tile wall"
    for line in got:
        _, pos, tid = line.split()
        assert 1 <= int(pos) <= 4 and int(tid) in (10, 20, 30, 40, 50, 60, 70, 80)
    assert "/flower" not in without.read_text()
    logged = [json.loads(x) for x in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert len([r for r in logged if r["type"] == "event" and r["kind"] == "flower"]) == len(got)


def test_a_keep_alive_bot_is_restarted_after_a_fault(tmp_path: Path) -> None:
    marker = f"mjref-test-{uuid.uuid4().hex}"
    bad = BotSpec(name="bad", cmd=(sys.executable, str(BADBOT), "crash_mid", marker), cwd=str(ROOT), keep_alive=True)
    result = play_match([bad, *resolve_bots([])[:3]], seed=3, rules=make_ruleset({"hands": 3}))
    assert [(f.hand, f.kind) for f in result.faults] == [(0, "crash"), (1, "crash"), (2, "crash")]
    assert not lingering_processes(marker)


def test_the_benchmarks_in_memory_seats_replay_a_match_exactly(tmp_path: Path) -> None:
    """bench/match.py measures the referee's warm Python by replaying recorded answers through in-memory process
    seats; the replay must be the same match (else the figure measures something else)."""
    from bench.match import warm_cost

    log = tmp_path / "m.jsonl"
    played = play_match(resolve_bots(["greedy", "random", "drawdiscard", "greedy"]), seed=12,
                        rules=make_ruleset({"hands": 3}), log_path=log)
    specs = [BotSpec(name=f"p{i}", cmd=(sys.executable, "-m", "bots.greedy"), cwd=str(ROOT), keep_alive=True)
             for i in range(4)]
    seconds, again = warm_cost(specs, 12, 3, log)
    assert seconds > 0
    assert [h.result.scores for h in again.hands] == [h.result.scores for h in played.hands]
    assert [h.result.outcome for h in again.hands] == [h.result.outcome for h in played.hands]
    assert not again.faults


def test_the_play_digest_of_a_fixed_match_does_not_change() -> None:
    """Stores keep each match's play digest, and ``regress`` compares digests of matches played at different times
    (equal digests on the same walls mean identical play): what the digest hashes, and how, is pinned here by the
    digest of one fixed match, so that a change to it is seen (twice: its texts are kept after the first match)."""
    rules = make_ruleset({"hands": 4})
    for _ in range(2):
        played = play_match(resolve_bots(["greedy", "random", "drawdiscard", "greedy"]), seed=5, rules=rules)
        assert played.play_digest == "f23d9fa91068453ff985d8d56f0899f6"


def test_seat_names_are_all_different_even_when_a_bot_takes_a_numbered_name() -> None:
    """Seats sharing a name are numbered by their seat (``greedy#3`` sits in seat 3); a bot file named ``greedy#2``
    beside them kept its name and a greedy seat got the same one once: two seats of one name in the log, the
    standings and the fault lines."""
    impostor = BotSpec(name="greedy#2", builtin="random")
    specs = [BotSpec(name="greedy", builtin="greedy"), impostor, BotSpec(name="greedy", builtin="greedy"),
             BotSpec(name="greedy", builtin="greedy")]
    played = play_match(specs, seed=5, rules=make_ruleset({"hands": 1}))
    names = [s.bot for s in played.seats]
    assert names == ["greedy#1", "greedy#2", "greedy#3", "greedy#4"] and len(set(names)) == 4
    specs = [BotSpec(name="mybot", builtin="random"), *(BotSpec(name="greedy", builtin="greedy") for _ in range(3))]
    played = play_match(specs, seed=5, rules=make_ruleset({"hands": 1}))
    assert [s.bot for s in played.seats] == ["mybot", "greedy#2", "greedy#3", "greedy#4"]  # a seat's own number
    specs = [BotSpec(name="greedy#2", builtin="random"), *(BotSpec(name="greedy", builtin="greedy") for _ in range(3))]
    played = play_match(specs, seed=5, rules=make_ruleset({"hands": 1}))
    assert [s.bot for s in played.seats] == ["greedy#2", "greedy#6", "greedy#3", "greedy#4"]


def test_a_hands_seats_begin_side_by_side_and_a_failing_start_raises_as_itself() -> None:
    """``_begin_hands``: every seat's start is under way before any has finished (a boxed start waits for its
    keeper: four in a row each waited for the one before), faults come back by seat, and a bug in one seat's start
    is raised as that exception, not as a group of one."""
    import trio

    from referee.match import _begin_hands
    from wrappers.seat import Fault

    class Starting:
        def __init__(self, started: set[int], everyone: trio.Event, fault: Fault | None = None) -> None:
            self.started, self.everyone, self.fault = started, everyone, fault

        async def begin_hand(self, info: int) -> Fault | None:
            self.started.add(info)
            if len(self.started) == 4:
                self.everyone.set()
            await self.everyone.wait()  # one after another, the first would wait here for ever
            return self.fault

    class Broken:
        async def begin_hand(self, info: int) -> None:
            raise RuntimeError("a bug in a seat's start")

    async def main() -> None:
        started: set[int] = set()
        everyone = trio.Event()
        crash = Fault("crash", "exited at once")
        seats = {p: Starting(started, everyone, crash if p == 3 else None) for p in (1, 2, 3, 4)}
        with trio.fail_after(5):
            faults = await _begin_hands(seats, [1, 2, 3, 4], {p: p for p in (1, 2, 3, 4)})  # type: ignore[arg-type]
        assert faults == {1: None, 2: None, 3: crash, 4: None}
        with pytest.raises(RuntimeError, match="a bug in a seat's start"):
            await _begin_hands({1: Broken(), 2: Starting(set(), trio.Event())}, [1, 2],  # type: ignore[dict-item]
                               {1: 1, 2: 2})  # type: ignore[arg-type]

    trio.run(main)
