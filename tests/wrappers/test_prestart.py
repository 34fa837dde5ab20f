"""A bot started per hand has two boxes a match, which its hands take in turns: each hand's process starts while the
hand before it is played (``ProcessSeat._prestart``), so that no hand waits for its bots to start.  It must change
nothing a bot or a result can tell: a fresh process each hand that finds nothing of an earlier one, told nothing
before its hand, no process started for a hand that will not come, and the same results as one box."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from referee.game.taiwan16.rules import make_ruleset
from referee.match import play_match, run_match
from wrappers import process
from wrappers.spec import BotSpec

BOTS = Path(__file__).resolve().parents[1] / "bots"
RULES = make_ruleset({"hands": 4})


@pytest.fixture
def folder() -> Iterator[Path]:
    """A bot folder every user may read (as root, a closed one is copied for the seat's uid: one box a match)."""
    made = Path(tempfile.mkdtemp(prefix="mjref-prestart-", dir="/tmp"))
    made.chmod(0o755)
    for name in ("notes.py", "stamps.py"):
        shutil.copy(BOTS / name, made / name)
        (made / name).chmod(0o644)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def bots(folder: Path, script: str, **extra: object) -> list[BotSpec]:
    return [BotSpec(name=f"b{i}", cmd=(sys.executable, str(folder / script)), **extra)  # type: ignore[arg-type]
            for i in (1, 2, 3, 4)]


def stamps(stderr: Path) -> list[tuple[str, int]]:
    return [(word, int(ns)) for word, ns in (line.split() for line in stderr.read_text().splitlines()
                                             if line.startswith(("START ", "END ")))]


def test_each_hands_process_starts_while_the_hand_before_is_played(folder: Path, tmp_path: Path,
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
    result = trio.run(lambda: run_match(bots(folder, "stamps.py"), seed=5, rules=RULES, stderr_dir=tmp_path))
    assert result.faults == []
    for p in (1, 2, 3, 4):
        seen = stamps(tmp_path / f"seat{p}-b{p}.stderr")
        starts = [ns for word, ns in seen if word == "START"]
        ends = [ns for word, ns in seen if word == "END"]
        assert len(starts) == len(ends) == 4, seen
        assert all(starts[k] < ends[k - 1] for k in (1, 2, 3)), "the next hand's process starts beside the hand"
    assert len(spawned) == 16 and len(set(map(id, spawned))) == 8, "four processes a seat, in two boxes a seat"
    monkeypatch.setattr(process.Box, "request", real_request)
    alone = play_match(bots(folder, "stamps.py", writable=True), seed=5, rules=RULES)
    assert alone.faults == [] and alone.totals == result.totals


def test_a_process_started_beside_a_hand_finds_nothing_of_an_earlier_hand(folder: Path, tmp_path: Path) -> None:
    """Note-leaving bots over four hands (each box holds two of them, in turns): no hand's process finds a note."""
    result = trio.run(lambda: run_match(bots(folder, "notes.py"), seed=6, rules=RULES, stderr_dir=tmp_path))
    assert result.faults == []
    seen = [line for f in sorted(tmp_path.glob("*.stderr")) for line in f.read_text().splitlines()
            if line.startswith("SAW ")]
    assert len(seen) == 16 and set(seen) == {"SAW -"}, seen
