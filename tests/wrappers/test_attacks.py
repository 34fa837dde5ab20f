"""Hostile bots against the referee's process handling, in real matches in the default sandbox mode (and some in
mode ``none``): output floods and garbage, processes that stop, hide, fork and spin, spies, colluders and protocol
cheats.  Every attack is checked the same way: the match plays to its end within a bound (the referee never
hangs), the innocent seats have no fault, every hand is recorded and the log replays, and the attacker gains
nothing (a faulting seat ranks below every innocent one; an attack without a fault found nothing).

The bots: ``tests/bots/hostile/attacks.py`` (process and protocol attacks) and ``hostile.py`` (spies, which
report what they found on stderr).  docs/security.md lists these attacks and their defences.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import uuid
from pathlib import Path

import pytest
import trio
from processes import GONE_WITHIN, unprivileged_bot, unprivileged_python

from referee.game.taiwan16.rules import make_ruleset
from referee.match import MatchResult, run_match
from referee.replay import replay_log
from wrappers import sandbox
from wrappers.codec import DEBUG_TO_STDERR
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
ATTACKS = ROOT / "tests" / "bots" / "hostile" / "attacks.py"
HOSTILE = ROOT / "tests" / "bots" / "hostile" / "hostile.py"
REQUIRED = os.environ.get("CI", "").lower() in ("1", "true", "yes") or os.environ.get("MJREF_REQUIRE_SANDBOX") == "1"
BOUND = 600.0  # seconds: a match of these lengths that takes longer hangs (a margin, not a measure: a loaded machine)


@pytest.fixture(params=["auto"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The default mode, which must box bots here (bwrap works; in CI it must)."""
    monkeypatch.delenv(sandbox.MODE_ENV, raising=False)
    problem = sandbox.bwrap_problem()
    if problem is not None:
        if REQUIRED:
            pytest.fail(f"the sandbox is required here but {problem}")
        pytest.skip(problem)
    return str(request.param)


def _unboxed() -> bool:
    return os.environ.get(sandbox.MODE_ENV) == "none"


def attacker(attack: str, marker: str = "", **fields: object) -> BotSpec:
    args = [str(ATTACKS), attack, marker or uuid.uuid4().hex]
    cmd = unprivileged_python(args) if _unboxed() else [sys.executable, *args]  # mode none as root: see there
    return BotSpec(name=f"attack-{attack}", cmd=tuple(cmd), **fields)


def spy(attack: str, *args: str, **fields: object) -> BotSpec:
    return BotSpec(name=f"spy-{attack}", cmd=(sys.executable, str(HOSTILE), attack, *args), **fields)


def innocent(i: int) -> BotSpec:
    cmd = unprivileged_bot("drawdiscard") if _unboxed() else [sys.executable, "-m", "bots.drawdiscard"]
    return BotSpec(name=f"innocent{i}", cmd=(*cmd, "--keep-alive"),
                   keep_alive=True)


def play(tmp: Path, seats: dict[int, BotSpec], *, hands: int = 2, timeout: float = 30.0) -> MatchResult:
    """A real match, with ``seats`` (position -> spec) among innocent keep-alive process bots; the innocent seats
    get ``timeout`` seconds a question (the attackers name their own; a start grace of 5 s): a margin a machine
    loaded by other tests cannot eat (an innocent answers in milliseconds; 5 s was missed under load).  Checked
    here: the match ends within BOUND, every hand is played and logged, the log replays, and no innocent seat
    faults."""
    specs = [seats.get(p, innocent(p)) for p in range(1, 5)]
    log = tmp / "logs" / "m.jsonl"
    rules = make_ruleset({"hands": hands, "move_timeout": timeout, "start_grace": 5})

    async def bounded() -> MatchResult:
        with trio.fail_after(BOUND):
            return await run_match(specs, seed=424242, rules=rules, log_path=log, stderr_dir=tmp / "stderr")

    result = trio.run(bounded)
    assert len(result.hands) == hands, "every hand was played"
    assert [f for f in result.faults if f.position not in seats] == [], "no fault for an innocent seat"
    report = replay_log(log)
    assert report.ok, report.divergence
    assert len(report.hands) == hands
    return result


def assert_gains_nothing(result: MatchResult, bad: int = 1) -> None:
    """A seat that faulted ranks below every innocent seat (faults never pay)."""
    assert any(f.position == bad for f in result.faults), "the attack was caught"
    for s in result.seats:
        if s.position != bad:
            assert result.seats[bad - 1].points < s.points, result.totals


def stderr_of(tmp: Path, position: int) -> str:
    return "".join(p.read_text(errors="replace") for p in (tmp / "stderr").glob(f"seat{position}-*.stderr"))


def found(tmp: Path, position: int = 1) -> dict:
    lines = [line[8:] for line in stderr_of(tmp, position).splitlines() if line.startswith("HOSTILE ")]
    assert lines, f"seat {position} reported nothing:\n{stderr_of(tmp, position)[-2000:]}"
    return json.loads(lines[0])


def _live(marker: str) -> list[int]:
    """The pids of the processes whose command line holds ``marker``."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{d}/cmdline").read_bytes():
                    out.append(int(d))
            except OSError:
                pass
    return out


# ---------------------------------------------------------------------------------------------------- output
@pytest.mark.parametrize(("attack", "kind"), [
    ("bigline", "line_too_long"),  # 100 MB without a newline
    ("longvalid", "line_too_long"),  # a valid answer padded with 100 kB of blanks
    ("flood", "unasked"),  # valid-looking lines at full speed from a thread, answering on
    ("floodnow", "unasked"),  # the same from the main thread, never answering again
    ("yes", "unasked"),  # `yes /pass` (C, gigabytes a second) sharing its stdout
    ("preanswer", "unasked"),  # the next answer before its question
    ("twice", "unasked"),
    ("nul", "garbage"),
    ("badutf8", "garbage"),
    ("markup", "garbage"),  # console markup, HTML and a terminal escape
])
def test_bad_output_is_the_attackers_fault_alone(attack: str, kind: str, mode: str, tmp_path: Path) -> None:
    result = play(tmp_path, {1: attacker(attack, timeout=3)})
    assert_gains_nothing(result)
    kinds = {f.kind for f in result.faults}
    # a line that arrives after the referee looked for lines nobody asked for is taken as the next answer: still
    # the attacker's own fault, of another kind
    assert kind in kinds or (kind == "unasked" and kinds <= {"unasked", "wrong_answer", "illegal", "garbage"}), \
        result.faults
    for f in result.faults:  # a command written out of turn is no debugging output: no advice to use stderr
        if f.kind == "unasked" and (f.line or "").startswith("/"):
            assert DEBUG_TO_STDERR not in f.detail, f


@pytest.mark.parametrize("attack", ["cr", "closeout", "sigstop", "noterm"])
def test_a_bot_that_never_answers_costs_its_timeout_only(attack: str, mode: str, tmp_path: Path) -> None:
    """CR-only line ends, a closed stdout with the process alive, SIGSTOP on itself, SIGTERM ignored: each is
    one fault per hand at the attacker's deadline, and the process (stopped or not) is gone after the match."""
    marker = f"mjref-attack-{uuid.uuid4().hex}"
    result = play(tmp_path, {1: attacker(attack, marker, timeout=1)})
    assert_gains_nothing(result)
    assert {f.kind for f in result.faults} <= {"timeout", "closed"}, result.faults
    if attack == "cr":
        assert "an unfinished line" in result.faults[0].detail, result.faults[0]
    deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
    while _live(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live(marker), "the attacker's processes ended with the match"


def test_a_stderr_flood_is_capped_and_costs_nothing(mode: str, tmp_path: Path) -> None:
    """500 MB written to stderr at full speed while playing on: the seat's stderr file keeps 1 MB and says how
    much it dropped; the flooder itself plays on without a fault (stderr is its own business)."""
    result = play(tmp_path, {1: attacker("stderrflood", timeout=5)}, hands=1)
    files = list((tmp_path / "stderr").glob("seat1-*.stderr"))
    assert len(files) == 1 and files[0].stat().st_size < (1 << 20) + 1024
    assert "more bytes of stderr dropped]" in files[0].read_text(errors="replace")[-200:]
    assert not result.faults


# ---------------------------------------------------------------------------------------------------- processes
def test_a_grandchild_holding_the_pipes_does_not_hang_the_referee(mode: str, tmp_path: Path) -> None:
    marker = f"mjref-attack-{uuid.uuid4().hex}"
    result = play(tmp_path, {1: attacker("grandchild", marker, timeout=3)})
    assert_gains_nothing(result)
    assert all(f.kind == "crash" for f in result.faults if f.position == 1), result.faults
    deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
    while _live(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live(marker), "the grandchild died with the box"


def test_a_double_forked_daemon_dies_with_its_box(mode: str, tmp_path: Path) -> None:
    marker = f"mjref-attack-{uuid.uuid4().hex}"
    result = play(tmp_path, {1: attacker("doublefork", marker, timeout=5)}, hands=1)
    assert not result.faults
    deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
    while _live(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live(marker)


def test_spinning_processes_do_not_make_innocents_time_out(mode: str, tmp_path: Path) -> None:
    """Four busy processes for the whole match (on a machine of two cores): the innocent seats still answer
    within their deadline, and the spinners are gone after the match."""
    marker = f"mjref-attack-{uuid.uuid4().hex}"
    result = play(tmp_path, {1: attacker("spin", marker, timeout=5)}, hands=1)
    assert not result.faults
    deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
    while _live(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live(marker)


def test_exhausting_file_descriptors_hits_the_bots_own_limit(mode: str, tmp_path: Path) -> None:
    result = play(tmp_path, {1: attacker("fds", timeout=5)}, hands=1)
    assert not result.faults
    line = next(x for x in stderr_of(tmp_path, 1).splitlines() if x.startswith("ATTACK fds:"))
    assert int(line.split()[2]) <= sandbox.MAX_FILES, line


def test_the_boxs_tmp_holds_tmp_mb_only(mode: str, tmp_path: Path) -> None:
    """The box's private /tmp is a tmpfs: memory that RLIMIT_AS does not count.  bubblewrap makes it half the
    RAM by default; mjref bounds it at TMP_MB, so a bot filling it gets ENOSPC (its own problem)."""
    result = play(tmp_path, {1: attacker("tmpfill", timeout=5)}, hands=1)
    assert not result.faults
    line = next(x for x in stderr_of(tmp_path, 1).splitlines() if x.startswith("ATTACK tmpfill:"))
    assert int(line.split()[2]) <= sandbox.TMP_MB and "No space left" in line, line


# ---------------------------------------------------------------------------------------------------- protocol
@pytest.mark.parametrize(("attack", "kind"), [
    ("badthrow", "illegal"),  # a tile it does not hold
    ("falsehu", "false_hu"),
    ("badgong", "garbage"),  # a concealed gong of one tile named four times
    ("eat", "wrong_answer"),  # /eat in answer to /ask pong
    ("late", "timeout"),  # the answer 2 s late: never taken as the answer to a later question
])
def test_protocol_cheats_are_faults(attack: str, kind: str, mode: str, tmp_path: Path) -> None:
    # the honest answers before the cheat have 3 s (a loaded machine); the late one is 2 s late for its 1 s
    result = play(tmp_path, {1: attacker(attack, timeout=1 if attack == "late" else 3)})
    assert_gains_nothing(result)
    assert {f.kind for f in result.faults if f.position == 1} <= {kind, "forfeit"}, result.faults


def test_answer_variants_are_legal_answers(mode: str, tmp_path: Path) -> None:
    """Upper and lower case, blanks and tabs between tokens, ``\\r\\n``: the framework's bots write all of
    these, and they are answers, logged as the bot wrote them."""
    result = play(tmp_path, {1: attacker("variants", timeout=5)})
    assert not result.faults
    raw = [json.loads(x) for x in (tmp_path / "logs" / "m.jsonl").read_text().splitlines()]
    assert any(r.get("raw", "").startswith(" \t/T") for r in raw if r["type"] == "answer" and r["seat"] == 1), \
        "the raw line is logged"


# ---------------------------------------------------------------------------------------------------- spies
def test_no_process_of_the_referee_or_another_seat_can_be_read_or_traced(mode: str, tmp_path: Path) -> None:
    play(tmp_path, {1: spy("procs")}, hands=1)
    report = found(tmp_path)
    assert report["traced"] == [], report
    assert report["seeds"] == [], report
    assert len(report["visible"]) <= 2, "only its own box: the box's init and itself"
    assert not [k for k in report["read"] if k.endswith("/mem")], report


def test_two_seats_cannot_find_each_other(mode: str, tmp_path: Path) -> None:
    """Colluders in seats 1 and 3: shared memory, /tmp, abstract unix sockets, System V queues, scratch folders."""
    tag = uuid.uuid4().hex
    play(tmp_path, {1: spy("collude", tag), 3: spy("collude", tag)}, hands=1)
    assert found(tmp_path, 1)["found"] == [] and found(tmp_path, 3)["found"] == []


def test_the_box_names_its_covered_paths_but_shows_nothing_in_them(mode: str, tmp_path: Path) -> None:
    """The bot's folder holds the logs and the stderr files (as a tournament folder would).  The box's command
    line (bubblewrap's, as /proc/1/cmdline) names the covered folders; they are empty and never change (inotify,
    while three seats play and the log grows), and nothing in the box holds the seed."""
    tmp_path.chmod(0o755)
    play(tmp_path, {1: spy("boxargs", cwd=str(tmp_path))}, hands=1)
    report = found(tmp_path)
    assert str(tmp_path / "logs") in report["paths"], "the attack knew where the log is"
    # In the box inotify is not there at all (seccomp); were it, the covered folder would show no event.
    assert report["inotify"] is False or str(tmp_path / "logs") in report["watched"], report
    assert report["seeds"] == [] and report["readable"] == [], report
    assert report["event_bytes"] == 0, report


# ---------------------------------------------------------------------------------------------------- mode none
@pytest.mark.parametrize(("attack", "kinds"), [
    ("grandchild", {"timeout", "crash"}),
    ("sigstop", {"timeout"}),
    ("noterm", {"timeout"}),
    ("bigline", {"line_too_long"}),
    ("floodnow", {"unasked", "wrong_answer"}),
])
def test_unboxed_faults_still_never_pay(attack: str, kinds: set[str], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Mode ``none`` protects no secret (docs/security.md), but the referee still never hangs and a fault still
    never pays.  A grandchild in a new session outlives its bot here (it is killed by the test)."""
    monkeypatch.setenv(sandbox.MODE_ENV, "none")
    marker = f"mjref-attack-{uuid.uuid4().hex}"
    try:
        result = play(tmp_path, {1: attacker(attack, marker, timeout=1 if "timeout" in kinds else 3)})
        assert_gains_nothing(result)
        assert {f.kind for f in result.faults} <= kinds, result.faults
    finally:
        for pid in _live(marker):
            os.kill(pid, signal.SIGKILL)
