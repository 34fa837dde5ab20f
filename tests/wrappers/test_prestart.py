"""A bot started per hand has two boxes a match, which its hands take in turns: each hand's process starts while the
hand before it is played (``ProcessSeat._prestart``), so that no hand waits for its bots to start.  It must change
nothing a bot or a result can tell: a fresh process each hand that finds nothing of an earlier one, told nothing
before its hand, no process started for a hand that will not come, and the same results as one box."""

from __future__ import annotations

import errno
import os
import signal
import sys
import time
from pathlib import Path

import pytest
import trio

from referee.game.taiwan16.rules import make_ruleset
from referee.match import play_match, run_match
from referee.shutdown import Shutdown
from wrappers import process, sandbox
from wrappers.spec import BotSpec

RULES = make_ruleset({"hands": 4})


def bots(folder: Path, script: str, **extra: object) -> list[BotSpec]:
    return [BotSpec(name=f"b{i}", cmd=(sys.executable, str(folder / script)), **extra)  # type: ignore[arg-type]
            for i in (1, 2, 3, 4)]


def stamps(stderr: Path) -> list[tuple[str, int]]:
    return [(word, int(ns)) for word, ns in (line.split() for line in stderr.read_text().splitlines()
                                             if line.startswith(("START ", "END ")))]


def test_each_hands_process_starts_while_the_hand_before_is_played(open_folder: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Four hands: every seat's process of hands 2-4 was running before the process of the hand before it had
    gone (which lingers for ``stamps.LINGER`` after its input ends: started after it, as with one box, it could
    not); four processes a seat in all (none for a fifth hand), in two boxes a seat; the results are those of the
    same match with one box a seat (a bot that writes its folder)."""
    spawned: list[process.Box] = []
    real_request = process.Box.request

    def counting(self: process.Box) -> list[int]:
        spawned.append(self)
        return real_request(self)

    monkeypatch.setattr(process.Box, "request", counting)
    result = trio.run(lambda: run_match(bots(open_folder, "stamps.py"), seed=5, rules=RULES, stderr_dir=tmp_path))
    assert result.faults == []
    for p in (1, 2, 3, 4):
        seen = stamps(tmp_path / f"seat{p}-b{p}.stderr")
        starts = [ns for word, ns in seen if word == "START"]
        ends = [ns for word, ns in seen if word == "END"]
        assert len(starts) == len(ends) == 4, seen
        assert all(starts[k] < ends[k - 1] for k in (1, 2, 3)), "the next hand's process starts beside the hand"
    assert len(spawned) == 16 and len(set(map(id, spawned))) == 8, "four processes a seat, in two boxes a seat"
    monkeypatch.setattr(process.Box, "request", real_request)
    alone = play_match(bots(open_folder, "stamps.py", writable=True), seed=5, rules=RULES)
    assert alone.faults == [] and alone.totals == result.totals


def test_a_process_started_beside_a_hand_finds_nothing_of_an_earlier_hand(open_folder: Path, tmp_path: Path) -> None:
    """Note-leaving bots over four hands (each box holds two of them, in turns): no hand's process finds a note."""
    result = trio.run(lambda: run_match(bots(open_folder, "notes.py"), seed=6, rules=RULES, stderr_dir=tmp_path))
    assert result.faults == []
    seen = [line for f in sorted(tmp_path.glob("*.stderr")) for line in f.read_text().splitlines()
            if line.startswith("SAW ")]
    assert len(seen) == 16 and set(seen) == {"SAW -"}, seen


def test_no_descriptor_left_for_the_next_hands_process_is_no_crash(open_folder: Path, monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    """The referee out of file descriptors (EMFILE) once, as it asks a keeper for a next hand's process: the match
    goes on (the start is tried again) instead of ending in an exception."""
    real_request, real_pipe = process.Box.request, os.pipe
    asked = [0]

    def failing_once() -> tuple[int, int]:
        monkeypatch.setattr(os, "pipe", real_pipe)
        raise OSError(errno.EMFILE, "Too many open files")

    def request(self: process.Box) -> list[int]:
        asked[0] += 1
        if asked[0] == 6:  # hand 1's four starts, then the first of the next hand's, then this one
            monkeypatch.setattr(os, "pipe", failing_once)
        return real_request(self)

    monkeypatch.setattr(process.Box, "request", request)
    result = trio.run(lambda: run_match(bots(open_folder, "notes.py"), seed=6, rules=make_ruleset({"hands": 3})))
    assert asked[0] > 6 and os.pipe is real_pipe
    assert all(f.kind == "start_failed" for f in result.faults), result.faults


def test_a_hand_longer_than_the_keepers_timeout_keeps_its_next_process(open_folder: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A match alone in its loop plays a hand without yielding while every answer comes within ``block_ms``; the
    next hand's process, asked for at the hand's beginning, is answered long before the hand's end, and its keeper
    must not be taken for dead when the deadline of that reply passes (``KEEPER_TIMEOUT``, here 0.5 s for 30)."""
    monkeypatch.setattr(process, "KEEPER_TIMEOUT", 0.5)
    broken: list[str] = []
    real_break = process.Box._break

    def breaking(self: process.Box, why: str) -> None:
        if self.broken is None:
            broken.append(why)
        real_break(self, why)

    taken: list[bool] = []
    real_take = process.ProcessSeat._take_spare

    async def take(self: process.ProcessSeat) -> process.BotProcess | None:
        spare = await real_take(self)
        taken.append(spare is not None)
        return spare

    monkeypatch.setattr(process.Box, "_break", breaking)
    monkeypatch.setattr(process.ProcessSeat, "_take_spare", take)
    specs = [BotSpec(name=f"t{i}", cmd=(sys.executable, str(open_folder / "stamps.py"), "0.02")) for i in (1, 2, 3, 4)]
    result = trio.run(lambda: run_match(specs, seed=3, rules=make_ruleset({"hands": 3}), block_ms=250.0))
    assert result.faults == []
    assert not [why for why in broken if "did not answer" in why], broken
    assert taken[4:12] == [True] * 8, taken  # hands 2 and 3 took the processes started for them


def test_a_match_stopped_while_its_boxes_open_leaves_nothing_behind(
        open_folder: Path, monkeypatch: pytest.MonkeyPatch, boxes_opened: list[process.Box],
        scratch_made: list[str]) -> None:
    """Cancelled from outside as soon as one seat's boxes are open (the others still opening): every scratch folder
    it made is gone and every box's process has ended when ``run_match`` returns."""
    real_prepare = process.ProcessSeat.prepare

    async def main() -> None:
        with trio.CancelScope() as outside:
            async def prepare(self: process.ProcessSeat) -> None:
                await real_prepare(self)
                outside.cancel()

            monkeypatch.setattr(process.ProcessSeat, "prepare", prepare)
            await run_match(bots(open_folder, "notes.py"), seed=6, rules=RULES)

    trio.run(main)
    assert boxes_opened and scratch_made, "no box opened before the stop"
    assert not [path for path in scratch_made if os.path.exists(path)], "a scratch folder outlived its match"
    assert all(box._popen.poll() is not None for box in boxes_opened), "a box outlived its match"


def test_a_match_stopped_while_a_hand_waits_for_its_process_releases_no_box_still_opening(
        open_folder: Path, monkeypatch: pytest.MonkeyPatch, scratch_made: list[str]) -> None:
    """The next hand's process must come from a new box (the other one broke) on a slow machine (a box takes 0.6 s
    to start), and the match is stopped as the hand begins and waits for it: the seat's close waits for that box to
    open or fail before it releases its plan (uid, cgroups) and scratch folder, and nothing is left behind."""
    events: list[tuple[str, int]] = []  # ("open" | "opened" | "release", the plan's id)
    shutdown = Shutdown()
    real_popen, real_open = process._popen_keeper, process.Box.open.__func__  # type: ignore[attr-defined]
    real_release, real_prestart = sandbox.release, process.ProcessSeat._prestart
    real_take = process.ProcessSeat._take_spare
    slow = [False]

    def popen(*args: object) -> object:
        if slow[0]:
            time.sleep(0.6)
        return real_popen(*args)  # type: ignore[arg-type]

    async def opening(cls: type[process.Box], launch: sandbox.Launch, nursery: trio.Nursery) -> process.Box:
        events.append(("open", id(launch)))
        try:
            return await real_open(cls, launch, nursery)
        finally:
            events.append(("opened", id(launch)))

    def release(launch: sandbox.Launch) -> None:
        events.append(("release", id(launch)))
        real_release(launch)

    def prestart(self: process.ProcessSeat) -> None:
        if self.position == 1 and self._alt.box is not None:
            self._alt.box._break("broken by the test")  # its next process needs a new box
            slow[0] = True
        real_prestart(self)

    async def take(self: process.ProcessSeat) -> process.BotProcess | None:
        if self.position == 1 and slow[0] and self._spare_done is not None and not self._spare_done.is_set():
            shutdown.stop(signal.SIGINT)
        return await real_take(self)

    monkeypatch.setattr(process, "_popen_keeper", popen)
    monkeypatch.setattr(process.Box, "open", classmethod(opening))
    monkeypatch.setattr(sandbox, "release", release)
    monkeypatch.setattr(process.ProcessSeat, "_prestart", prestart)
    monkeypatch.setattr(process.ProcessSeat, "_take_spare", take)
    result = trio.run(lambda: run_match(bots(open_folder, "notes.py"), seed=6, rules=RULES, shutdown=shutdown))
    assert result.aborted
    opening_now: set[int] = set()
    for word, launch in events:
        if word == "open":
            opening_now.add(launch)
        elif word == "opened":
            opening_now.discard(launch)
        else:
            assert launch not in opening_now, "a plan was released while its box was opening"
    assert any(word == "release" for word, _ in events)
    assert scratch_made and not [path for path in scratch_made if os.path.exists(path)], \
        "a scratch folder outlived its match"
